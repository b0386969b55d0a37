//! CQL 6.2 forms settled against the reference source (lamech/cql 81a95c7) and the reference
//! binary, each run through the `cqlrs` binary on small games whose answers follow from the
//! moves: past moves standing alone (`o-o`, `castle`, `enpassant`), `hascomment` with a NAG or
//! a text, strings as CQL 6.2 lexes them, subscripts, capture group starts, `str` lists, and
//! the texts CQL 6.2 refuses.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cqlrs");

/// Game 1 castles (6. O-O), with an en passant capture (3. exf6); game 2 has NAGs and a comment.
const GAMES: &str = "[Event \"castling\"]\n[Result \"*\"]\n\n\
1. e4 d5 2. e5 f5 3. exf6 Nxf6 4. Nf3 e6 5. Bb5+ c6 6. O-O cxb5 *\n\n\
[Event \"annotated\"]\n[Result \"*\"]\n\n\
1. d4 d5 2. c4! {a good move} e6 3. Nc3 Nf6 $14 *\n\n";

/// The games, written once per test run (the tests run in parallel and all read it).
fn games_file() -> PathBuf {
    static FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("cqlrs-cql62-forms-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.pgn");
        std::fs::write(&path, GAMES).unwrap();
        path
    })
    .clone()
}

fn run(query: &str) -> Output {
    let pgn = games_file();
    Command::new(BIN)
        .args(["-i", pgn.to_str().unwrap(), "--numbers", "-cql", query])
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The game numbers the query matches (exit 0 or 1), failing the test on any error.
fn numbers(query: &str) -> Vec<u32> {
    let o = run(query);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1)), "`{query}` failed: {err}");
    String::from_utf8_lossy(&o.stdout).lines().map(|l| l.trim().parse().unwrap()).collect()
}

/// The query is refused before any game is read: exit 2, a caret under the place.
fn refused(query: &str) {
    let o = run(query);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "`{query}` was not refused: {err}");
    assert!(err.contains('^'), "`{query}`: no caret in {err}");
    assert!(o.stdout.is_empty(), "`{query}` printed games");
}

#[test]
fn castling_and_en_passant_standing_alone_ask_about_the_move_just_played() {
    // After 6. O-O Black is to move: the castling is the move that led here.
    assert_eq!(numbers("btm o-o"), vec![1]);
    assert_eq!(numbers("wtm o-o"), Vec::<u32>::new());
    assert_eq!(numbers("btm castle"), vec![1]);
    assert_eq!(numbers("o-o-o"), Vec::<u32>::new());
    // 3. exf6 e.p. was White's move, so Black is to move after it.
    assert_eq!(numbers("btm enpassant"), vec![1]);
    assert_eq!(numbers("wtm enpassant"), Vec::<u32>::new());
    // Inside `move` they still describe the next move: White to move before 6. O-O.
    assert_eq!(numbers("wtm move castle"), vec![1]);
}

#[test]
fn hascomment_takes_a_nag_or_a_text_and_reads_only_the_input() {
    assert_eq!(numbers("hascomment \"!\""), vec![2]);
    assert_eq!(numbers("hascomment \"$14\""), vec![2]);
    assert_eq!(numbers("hascomment \"?\""), Vec::<u32>::new());
    assert_eq!(numbers("hascomment \"good\""), vec![2]);
    assert_eq!(numbers("originalcomment \"good\""), vec![2]);
    assert_eq!(numbers("hascomment \"bad\""), Vec::<u32>::new());
    // A comment the query writes is no original comment.
    assert_eq!(numbers("initial comment(\"good\") hascomment"), Vec::<u32>::new());
    refused("hascomment \"$0\"");
    refused("hascomment \"$256\"");
    refused("hascomment \"good\" ~~ \"ood\"");
}

#[test]
fn quoted_strings_are_literal_and_special_characters_stand_outside_them() {
    // Inside quotes a backslash is itself: "a\n" is three characters.
    assert_eq!(numbers(r#"initial x = "a\n" x == "a" + \\ + "n""#), vec![1, 2]);
    assert_eq!(numbers(r#"initial x = "a" + \n x == "a" + \n"#), vec![1, 2]);
    assert_eq!(numbers(r#"initial x = "ab" + \t #x == 3"#), vec![1, 2]);
    assert_eq!(numbers(r#"initial "say " + \" + "hi" + \" == "say " + \" + "hi" + \""#), vec![1, 2]);
    refused("initial x = \"a\nb\"");
    refused(r"initial \q");
    refused(r"initial \123");
}

#[test]
fn subscripts_count_from_either_end_and_slices_are_clamped() {
    assert_eq!(numbers(r#"initial "abcdef"[-1] == "f""#), vec![1, 2]);
    assert_eq!(numbers(r#"initial "abcdef"[1:3] == "bc""#), vec![1, 2]);
    assert_eq!(numbers(r#"initial "abcdef"[:2] == "ab""#), vec![1, 2]);
    assert_eq!(numbers(r#"initial "abcdef"[3:] == "def""#), vec![1, 2]);
    assert_eq!(numbers(r#"initial "abcdef"[-3:9] == "def""#), vec![1, 2]);
    assert_eq!(numbers(r#"initial "abc"[5]"#), Vec::<u32>::new());
}

#[test]
fn capture_group_start_str_lists_and_makesquare_sums() {
    assert_eq!(numbers(r#"initial "hello world" ~~ "(w)or" \-1 == 6"#), vec![1, 2]);
    assert_eq!(numbers(r#"initial "hello world" ~~ "(w)or" \1 == "w""#), vec![1, 2]);
    assert_eq!(numbers(r#"initial str("a" 1 "b") == "a1b""#), vec![1, 2]);
    assert_eq!(numbers(r#"initial x = makesquare "e" + "1" x == e1"#), vec![1, 2]);
}

#[test]
fn consecutivemoves_ranges_take_variables_and_its_arguments_are_position_variables() {
    assert!(numbers("v = 1 x = position 0 y = position 1 consecutivemoves 1 v (x y)").is_empty());
    refused("consecutivemoves(position 1 position 2)");
    refused("v = 2 find all v check");
}

#[test]
fn assert_stops_the_run_where_it_fails() {
    let o = run("assert wtm");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("assert failed"), "{err}");
    // A passing assert matches like the filter it checks.
    assert_eq!(numbers("initial assert wtm"), vec![1, 2]);
    refused("assert 1 == assert 2");
}

#[test]
fn texts_cql62_refuses_are_refused() {
    refused("{}");
    refused("flipcolor {}");
    refused("///");
    refused("X = 1 persistent X = 2");
    refused("pin to {k 2}");
    refused("line --> k++");
    refused("line --> k*+");
    refused("line --> k+{2}");
}

#[test]
fn texts_cql62_accepts_are_accepted() {
    for text in [
        "line --> k{3}+*",
        "line --> k{3}{2}+",
        "v = 3 line --> {v}",
        "s = position 1 t = position 2 echo quiet (s t) k",
        "str(\"a\" \"b\")",
        "castle",
        r"\-1",
    ] {
        let o = run(text);
        assert!(matches!(o.status.code(), Some(0 | 1)), "`{text}` refused: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn capture_groups_belong_to_the_last_search_only() {
    // The second search fails, so `\1` has no group to give: the filter fails (CQL 6.2 would
    // stop the run with an error; docs/compat.md).
    assert_eq!(numbers(r#"initial "ab" ~~ "(a)" not "ab" ~~ "(z)" \1"#), Vec::<u32>::new());
    assert_eq!(numbers(r#"initial "ab" ~~ "(a)" \1 == "a""#), vec![1, 2]);
}

#[test]
fn a_minus_after_a_move_or_a_position_starts_a_number() {
    // `check-2` is `check` and then the number -2, matched against the position: the game
    // with a check (5. Bb5+) is abandoned there, as CQL 6.2 stops there; the other game has
    // no check, so the number is never reached.
    let o = run("check-2");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.stdout.is_empty(), "{err}");
    assert!(err.contains("the number -2 was matched against a position"), "{err}");
    assert!(err.contains("1 abandoned"), "{err}");
    // A move count is a number: there the minus subtracts.
    assert_eq!(numbers("initial countmoves legal ―― - 20 == 0"), vec![1, 2]);
}

#[test]
fn line_ranges_take_numeric_variables() {
    // Game 1 has one check (5. Bb5+), one position long: a line of checks has length 1.
    assert_eq!(numbers("v = 1 line v --> check"), vec![1]);
    assert_eq!(numbers("v = 2 line v --> check"), Vec::<u32>::new());
    assert_eq!(numbers("v = 3 line 1 v --> check"), vec![1]);
    // A variable end below the start leaves no length that fits.
    assert_eq!(numbers("v = 0 line 1 v --> check"), Vec::<u32>::new());
}
