//! The last corners where cqlrs and CQL 6.2 (build 9.493) differed, each run through the
//! `cqlrs` binary on small games. Every expected answer was read from the reference binary
//! on the same games (and follows from the moves): games with a move that cannot be played,
//! `movenumber` after a FEN set-up, castling as a king move for `move`, `elo` without a
//! colour, `sort` by a string, and the forms CQL 6.2 accepts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{temp_dir, BIN};

/// 1: an unplayable move in a variation (`1... Ke6`, e6 is attacked by nothing but the king
/// cannot reach it from e8); 2: an unplayable move on the main line (`2. Ke3`); 3: a study set
/// up at move 28 with Black to move; 4: a game with `4. O-O` and both ratings; 5: only Black's
/// rating; 6: only White's rating.
const GAMES: &str = "[Event \"b\"]\n[White \"w1\"]\n[Black \"b1\"]\n[Result \"*\"]\n\n\
1. e4 e5 (1... Ke6) 2. Nf3 Nc6 *\n\n\
[Event \"d\"]\n[White \"w2\"]\n[Black \"b2\"]\n[Result \"*\"]\n\n\
1. e4 e5 2. Ke3 Nc6 *\n\n\
[Event \"a\"]\n[White \"w3\"]\n[Black \"b3\"]\n[Result \"*\"]\n[SetUp \"1\"]\n\
[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 28\"]\n\n\
28... Kd7 29. e4 Kd6 *\n\n\
[Event \"c\"]\n[White \"w4\"]\n[Black \"b4\"]\n[WhiteElo \"2400\"]\n[BlackElo \"2500\"]\n[Result \"*\"]\n\n\
1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 *\n\n\
[Event \"c\"]\n[White \"w5\"]\n[Black \"b5\"]\n[BlackElo \"2600\"]\n[Result \"*\"]\n\n\
1. d4 d5 *\n\n\
[Event \"a\"]\n[White \"w6\"]\n[Black \"b6\"]\n[WhiteElo \"2300\"]\n[Result \"*\"]\n\n\
1. c4 c5 *\n\n";

/// The games, written once per test run.
fn games_file() -> PathBuf {
    static FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let path = temp_dir("games").keep().join("games.pgn");
        std::fs::write(&path, GAMES).unwrap();
        path
    })
    .clone()
}

fn run_on(pgn: &Path, extra: &[&str], query: &str) -> Output {
    Command::new(BIN)
        .args(["-i", pgn.to_str().unwrap()])
        .args(extra)
        .args(["-cql", query])
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The game numbers (in output order) the query matches in `pgn`, failing the test on any
/// error.
fn numbers_in(pgn: &Path, query: &str) -> Vec<u32> {
    numbers_with(pgn, &[], query)
}

/// [`numbers_in`] with more options.
fn numbers_with(pgn: &Path, extra: &[&str], query: &str) -> Vec<u32> {
    let mut args = vec!["--numbers"];
    args.extend_from_slice(extra);
    let o = run_on(pgn, &args, query);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1)), "`{query}` failed: {err}");
    String::from_utf8_lossy(&o.stdout).lines().map(|l| l.trim().parse().unwrap()).collect()
}

fn numbers(query: &str) -> Vec<u32> {
    numbers_in(&games_file(), query)
}

/// The matching games written as PGN.
fn pgn_output(query: &str) -> String {
    let o = run_on(&games_file(), &["-o", "-"], query);
    assert!(matches!(o.status.code(), Some(0 | 1)), "`{query}` failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The query is refused before any game is read: exit 2, a message with a caret.
fn refused(query: &str) -> String {
    let o = run_on(&games_file(), &["--numbers"], query);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "`{query}` was not refused: {err}");
    assert!(err.contains('^'), "`{query}`: no caret in {err}");
    assert!(o.stdout.is_empty(), "`{query}` printed games");
    err
}

#[test]
fn a_game_is_read_up_to_its_first_unplayable_move() {
    // Every game has a white-to-move start position, the two broken ones included.
    assert_eq!(numbers("wtm"), vec![1, 2, 3, 4, 5, 6]);
    // Game 1's `2. Nf3` comes after the unplayable `1... Ke6` of its variation: CQL 6.2 stops
    // reading there, so only game 4's knight leaves g1.
    assert_eq!(numbers("move from g1"), vec![4]);
    // The position before the unplayable move is searched: 1... e5 is there in both.
    assert_eq!(numbers("btm move to e5"), vec![1, 2, 4]);
}

#[test]
fn a_partly_read_game_is_reported_and_counted_but_stdout_stays_game_numbers() {
    let o = run_on(&games_file(), &["--numbers"], "wtm");
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(out.lines().collect::<Vec<_>>(), ["1", "2", "3", "4", "5", "6"], "{out}");
    assert!(err.contains("game 1 (line 1)") && err.contains("`Ke6`"), "{err}");
    assert!(err.contains("game 2 (line 8)") && err.contains("`Ke3`"), "{err}");
    // Six games read, all matched; two of them only in part.
    assert!(err.contains("6 matches of 6 games (0 unmatched, 0 skipped"), "{err}");
    assert!(err.contains("; 2 games read only up to an unplayable move"), "{err}");
}

#[test]
fn the_unplayable_move_is_named_in_a_comment_as_cql_names_it() {
    let text = pgn_output("wtm");
    // An unplayable first move of a variation leaves the variation empty, as CQL 6.2 writes
    // it; `hascomment` sees no comment there (no position holds it).
    assert!(text.contains("e5 {CQL} ({Error reading move: Ke6})"), "{text}");
    assert_eq!(numbers("hascomment"), vec![2]);
    assert!(text.contains("Error reading move: Ke3"), "{text}");
    // CQL 6.2's reader drops the capture mark (`1... Nxg5` → `Ng5`).
    let dir = temp_dir("capture");
    let pgn = dir.join("capture.pgn");
    std::fs::write(&pgn, "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 (2. Nc3 Nxg5 3. Nf3) 2... Nc6 *\n\n")
        .unwrap();
    let o = run_on(&pgn, &["-o", "-"], "true");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Error reading move: Ng5"), "{text}");
    // The variation's 2. Nc3 is kept; 2... Nc6 after the variation is not.
    assert_eq!(numbers_with(&pgn, &["--variations"], "move from b1"), vec![1]);
    assert_eq!(numbers_with(&pgn, &["--variations"], "move from b8"), Vec::<u32>::new());
}

#[test]
fn movenumber_counts_from_1_whatever_the_fen_says() {
    // Game 3 starts at move 28 with Black to move: its positions are moves 1, 2, 2, 3.
    assert_eq!(numbers("movenumber == 28"), Vec::<u32>::new());
    assert_eq!(numbers("btm movenumber == 2"), vec![3, 4]);
    assert_eq!(numbers("wtm movenumber == 3 gamenumber == 3"), vec![3]);
    let text = pgn_output("comment(currentposition) movenumber == 2 wtm gamenumber == 3");
    assert!(text.contains("move 2(wtm)"), "{text}");
}

#[test]
fn castling_is_a_king_move_for_move_and_a_rook_move_for_a_dash() {
    assert_eq!(numbers("move from R"), Vec::<u32>::new());
    assert_eq!(numbers("move previous from R"), Vec::<u32>::new());
    assert_eq!(numbers("move to f1"), Vec::<u32>::new());
    assert_eq!(numbers("move from h1"), Vec::<u32>::new());
    assert_eq!(numbers("piece X = move from R"), Vec::<u32>::new());
    assert_eq!(numbers("move from K"), vec![4]);
    assert_eq!(numbers("move to g1 from e1"), vec![4]);
    assert_eq!(numbers("move castle"), vec![4]);
    assert_eq!(numbers("R--f1"), vec![4]);
    assert_eq!(numbers("h1--f1"), vec![4]);
    // `from` and `to` after `O-O` hold the king's squares and the rook's.
    assert_eq!(numbers("btm from == [e1,h1]"), vec![4]);
    assert_eq!(numbers("btm to == [f1,g1]"), vec![4]);
    assert_eq!(numbers("from == e1"), Vec::<u32>::new());
}

#[test]
fn elo_without_a_colour_is_the_higher_rating_of_those_given() {
    assert_eq!(numbers("elo > 2450"), vec![4, 5]);
    assert_eq!(numbers("elo < 2450"), vec![6]);
    assert_eq!(numbers("elo"), vec![4, 5, 6]);
    assert_eq!(numbers("elo white"), vec![4, 6]);
    assert_eq!(numbers("sort elo"), vec![5, 4, 6]);
}

#[test]
fn sort_by_a_string_puts_the_greatest_first_and_ties_in_file_order() {
    assert_eq!(numbers("sort event"), vec![2, 4, 5, 1, 3, 6]);
    assert_eq!(numbers("sort player white"), vec![6, 5, 4, 3, 2, 1]);
    // A second key orders the ties of the first (greatest first again).
    assert_eq!(numbers("sort event sort player white"), vec![2, 5, 4, 1, 6, 3]);
}

#[test]
fn forms_cql_accepts_are_read_as_cql_reads_them() {
    // `attacked by` in two words is `attackedby`; `attack` is `attacks` (3. Bc4 hits f7).
    assert_eq!(numbers("a attacked by B"), vec![4]);
    assert_eq!(numbers("B attack f7"), vec![4]);
    // `ray attack`: each start piece along its own lines only, as `xray`.
    assert_eq!(numbers("ray attack (B a)"), vec![4]);
    assert_eq!(numbers("xray (B a)"), vec![4]);
    // `captures` is `capture`.
    let dir = temp_dir("captures");
    let pgn = dir.join("captures.pgn");
    std::fs::write(&pgn, "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 d5 2. exd5 *\n\n").unwrap();
    assert_eq!(numbers_in(&pgn, "move captures p"), vec![1]);
    assert_eq!(numbers_in(&pgn, "move promote N captures A"), Vec::<u32>::new());
}

#[test]
fn a_colon_after_position_n_applies_to_that_position() {
    // `position 0` is the start; its child is the position after the first move.
    assert_eq!(numbers("position 0 : child : comment (\"first position\")"), vec![1, 2, 3, 4, 5, 6]);
    let text = pgn_output("position 0 : child : comment (\"first position\") gamenumber == 4");
    assert!(text.contains("e4 {first position}"), "{text}");
}

#[test]
fn line_constituents_are_read_as_cql_reads_them() {
    // A `+` followed by an operand is arithmetic, a comparison is a constituent like any
    // filter: the start position has more pieces than the black knights plus one.
    assert_eq!(numbers("line --> 5 >= 4 --> #P + #A >= #n"), vec![1, 2, 3, 4, 5, 6]);
    // A `+` before an arrow is a repetition; a line may be a constituent of a line.
    assert_eq!(numbers("line --> wtm+ --> btm"), vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(numbers("line --> line --> btm --> wtm"), vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(numbers("{initial line --> wtm --> (btm or #P > 0)}"), vec![1, 2, 4, 5, 6]);
    // A number or arithmetic alone is refused, as CQL 6.2 refuses it.
    refused("line --> 5 --> mate");
    refused("line --> #P + #A --> mate");
}

#[test]
fn a_bare_lastgamenumber_is_refused() {
    let err = refused("lastgamenumber");
    assert!(err.contains("must not be ignored"), "{err}");
    refused("{lastgamenumber}");
    refused("not lastgamenumber");
    assert_eq!(numbers("lastgamenumber == 6 gamenumber == 1"), vec![1]);
}

#[test]
fn of_two_comments_after_a_move_the_last_is_read() {
    let dir = temp_dir("comments");
    let pgn = dir.join("comments.pgn");
    std::fs::write(&pgn, "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 { Good move! } { second } e5 *\n\n").unwrap();
    assert_eq!(numbers_in(&pgn, "hascomment \"Good move!\""), Vec::<u32>::new());
    assert_eq!(numbers_in(&pgn, "hascomment \"second\""), vec![1]);
    assert_eq!(numbers_in(&pgn, "originalcomment ~~ \"second\""), vec![1]);
}

#[test]
fn castling_without_the_right_stays_illegal() {
    // CQL 6.2 counts `O-O` legal here although the FEN gives no castling right; cqlrs keeps
    // the chess fact (docs/compat.md).
    let dir = temp_dir("castling-right");
    let pgn = dir.join("norights.pgn");
    std::fs::write(
        &pgn,
        "[Event \"x\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K2R w - - 0 1\"]\n\n1. Kd1 *\n\n",
    )
    .unwrap();
    assert_eq!(numbers_in(&pgn, "move legal o-o"), Vec::<u32>::new());
    assert_eq!(numbers_in(&pgn, "move legal from K to d1"), vec![1]);
}
