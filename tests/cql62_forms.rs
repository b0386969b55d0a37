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
    numbers_of(run(query), query)
}

/// The game numbers a run of the query printed with `--numbers`, failing the test unless it
/// ended with exit 0 or 1.
fn numbers_of(o: Output, query: &str) -> Vec<u32> {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1)), "`{query}` failed: {err}");
    String::from_utf8_lossy(&o.stdout).lines().map(|l| l.trim().parse().unwrap()).collect()
}

/// `--numbers` of the query over `pgn`, with `extra` options.
fn numbers_in(pgn: &std::path::Path, extra: &[&str], query: &str) -> Vec<u32> {
    let o = Command::new(BIN)
        .args(["-i", pgn.to_str().unwrap()])
        .args(extra)
        .args(["--numbers", "-cql", query])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    numbers_of(o, query)
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
    // A `(` after a space once a move is read, outside the top level of a path.
    refused("――e4 (check)");
    refused("――a-h8=Q (check)");
    refused("line --> ―― (check)");
    // A promotion after a space needs a destination written against the dash.
    refused("P―― =Q");
    // A variable is known from its first assignment in the text on.
    refused("initial X > 0 X = 1");
    refused("initial Termination == \"Normal\"");
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
        "P×[rnbq] =Q",
        "function F(){X > 0} X = 1 F()",
        "⊢ Q――e4 (check)",
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

/// The game numbers `query` matches among the first games of the bundled lichess file.
fn numbers_in_bundled_games(query: &str) -> Vec<u32> {
    let pgn = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/lichess-2016-05-first1500.pgn");
    numbers_in(&pgn, &["--gamenumber", "1-400"], query)
}

/// Two queries match the same games, and some game but not every one (so the law is not
/// met by two queries that match nothing or everything).
fn same_games(a: &str, b: &str) {
    let (x, y) = (numbers_in_bundled_games(a), numbers_in_bundled_games(b));
    assert_eq!(x, y, "`{a}` and `{b}`");
    assert!(!x.is_empty() && x.len() < 400, "`{a}` matched {} of 400 games", x.len());
}

#[test]
fn a_range_of_one_number_is_that_number_and_its_ends_may_be_variables() {
    // CQL 6.2 `Tokens::match_range`: one end alone is both ends (checked on the reference
    // binary: `initial find 2 check` matches the games with exactly two checks).
    same_games("initial find 2 check", "initial (find all check) == 2");
    same_games("initial find 1 check", "initial (find all check) == 1");
    same_games("initial find 0 check", "initial not find check");
    same_games("initial find 2 3 check", "initial 2 <= (find all check) <= 3");
    same_games("initial v = 2 find v check", "initial find 2 check");
    same_games("initial v = 1 w = 3 find v w check", "initial find 1 3 check");
    same_games("initial v = 2 find v 100 check", "initial find 2 100 check");
    same_games("initial find -1 1 check", "initial find 0 1 check");
    // `count`: every number, so `find count` matches with the number of positions.
    same_games("initial (find count check) == 0", "initial not find check");
    same_games("initial (find quiet count check) > 3", "initial find 4 1000 check");
    // Directions: a negative distance counts the other way, 0 is the square itself.
    same_games("up -1 K & P", "down 1 K & P");
    same_games("up -2 2 K & N", "(down 1 2 K | K | up 1 2 K) & N");
    same_games("v = 3 up v K & P", "up 3 K & P");
    same_games("v = -1 w = 2 horizontal v w R & Q", "(horizontal 1 2 R | R) & Q");
    // Paths: the value (here the length) lies in the range.
    same_games("v = 2 path v -- -- check", "path 2 -- -- check");
    same_games("path 1 2 -- -- check", "path -- -- check");
    assert!(numbers_in_bundled_games("path 3 -- -- check").is_empty());
    same_games("line count --> check", "check");
    // The header's `matchcount` range too: one number is an exact count of matching positions.
    same_games("cql(matchcount 2) check", "initial (find all check) == 2");
}

#[test]
fn direction_ranges_beyond_the_board_are_refused_or_abandon_the_game() {
    refused("up 8 K");
    refused("up -8 K");
    refused("up 3 1 K");
    refused("up count K");
    // A variable end is read when the filter runs: out of -7..7 the game is given up on
    // with the reason (CQL 6.2 stops the run with an error there).
    let o = run("initial v = 9 up v K");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.stdout.is_empty(), "{err}");
    assert!(err.contains("direction range must lie in -7..7"), "{err}");
    assert!(err.contains("2 abandoned"), "{err}");
}

#[test]
fn comparison_chains_read_from_the_right_as_cql_reads_them() {
    // CQL 6.2 (`Tokens::match_in_x`) reads `a == b == c` as `a == (b == c)`, valued b: in
    // every link but the last a set counts its squares, even beside another set.
    same_games("♕ == ♛ == 1 ♖ == ♜ == 1", "#♕ == #♛ == 1 #♖ == #♜ == 1");
    same_games("P > p > 5", "#P > #p > 5");
    // The last link of a chain of two sets still compares the sets themselves.
    same_games("♔ == Kg1", "Kg1");
    // A `!=` first denies the whole chain (`not (a == b == c)`); anywhere else it leaves no
    // value for the link before it, and CQL 6.2 refuses the text.
    assert_eq!(numbers("initial 1 != 3 == 2"), vec![1, 2]);
    assert!(numbers("initial 1 != 1 == 1").is_empty());
    refused("initial 1 < 2 != 3");
    refused("♕ == ♛ == ♖");
}

#[test]
fn a_move_filters_own_comment_is_written_where_the_move_arrives() {
    // CQL 6.2 `MoveBase::match_move` evaluates the `comment` of a `move` filter in the
    // position after the move: after 6. O-O the king stands on g1.
    let written = comments("cql(quiet) move from K comment(\"king \" K)");
    assert_eq!(written, vec!["king g1".to_string()]);
    // In a line it stays part of its constituent.
    let written = comments("cql(quiet) line --> move from K comment(\"king \" K) --> move from p");
    assert_eq!(written, vec!["king g1".to_string()]);
}

#[test]
fn sort_matchcount_writes_the_count_at_the_start() {
    // CQL 6.2 writes `matchcount: N` after the game's own comments at the start.
    let written = comments("cql(sort matchcount 1 100) check");
    assert_eq!(written.first().map(String::as_str), Some("matchcount: 1"), "{written:?}");
}

#[test]
fn a_promotion_may_follow_the_destination_after_a_space() {
    // CQL 6.2 `match_dash_promotion` reads tokens: `P×[rnbq] =Q` is `P×[rnbq]=Q`.
    same_games("P×[rnbq] =Q", "P×[rnbq]=Q");
    same_games("――a-h8 = ♕", "――a-h8=♕");
}

#[test]
fn a_conditional_assignment_of_an_empty_set_leaves_the_variable_as_it_was() {
    // CQL 6.2 `AssignSquareNode::match_position`: `x =? S` with S empty fails and does not
    // bind x (checked on the reference binary).
    assert_eq!(numbers("initial x = a1 not (x =? [Qq]h8) x == a1"), vec![1, 2]);
    assert_eq!(numbers("initial x = a1 (x =? Q) x == d1"), vec![1, 2]);
}

#[test]
fn a_transform_range_is_a_range_only_when_no_operator_follows() {
    // `flip 5 <= 6` is `flip {5 <= 6}` (CQL 6.2 `match_rangeconstituent` gives the number
    // back when an operator follows), and a range end may be a numeric variable.
    assert_eq!(numbers("flip 5 <= 6"), vec![1, 2]);
    same_games("v = 1 flipcolor v Rd1", "flipcolor 1 Rd1");
    same_games("v = 2 flipcolor v Rd1", "flipcolor 2 Rd1");
}

#[test]
fn a_triple_slash_comment_after_a_path_move_keeps_it_a_move() {
    // `Q―― ///"…"` is still a move of the path, its comment written where it arrives.
    same_games("⊢◎Q Q―― ///\"q\"\n Q―― Q――", "⊢◎Q Q―― Q―― Q――");
    let written = comments("cql(quiet) ⊢◎P P―― ///\"pawn moved\"\n P――");
    assert!(written.iter().any(|c| c.contains("pawn moved")), "{written:?}");
}

#[test]
fn a_nestban_path_bans_every_start_inside_it_whatever_its_focus_and_notes_routes_as_cql() {
    // White's knight path (1. Nf3 … 3. Ng5) covers the position after 1. Nf3, so Black's
    // knight path from there (1… Nc6 … 2… Nd4) does not start: one matching position, as
    // in CQL 6.2 (one set of banned positions per `path`, `PathNode::nestSeenPosition`).
    let dir = std::env::temp_dir().join(format!("cqlrs-cql62-nest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("nest.pgn");
    std::fs::write(&pgn, "[Event \"nest\"]\n[Result \"*\"]\n\n1. Nf3 Nc6 2. e3 Nd4 3. Ng5 *\n\n").unwrap();
    let count = |query: &str| numbers_in(&pgn, &[], query).len();
    assert_eq!(count("cql(matchcount 2 10) ◭T∊ ――(from) ⊢◎T nestban T―― T――"), 0);
    assert_eq!(count("cql(matchcount 2 10) ◭T∊ ――(from) ⊢◎T T―― T――"), 1);
    // `piecepath`: each focused piece as CQL 6.2 writes it, Black's in lower case and
    // pawns with their letter (checked on the reference binary).
    let written = comments("cql(quiet) ◭T∊ ――(from) ⊢◎T piecepath T―― T――");
    for route in ["Focus path: Pe2-e4-e5", "Focus path: Pe4-e5-f6", "Focus path: pc7-c6-b5"] {
        assert!(written.iter().any(|c| c == route), "{route} not in {written:?}");
    }
}

/// The comments the query writes into the matching games, in order, read from `--output`
/// PGN (the tag lines and the `Game number` comments left out).
fn comments(query: &str) -> Vec<String> {
    let pgn = games_file();
    let out = pgn.with_file_name(format!("comments-{:x}.pgn", fnv(query)));
    let o = Command::new(BIN)
        .args(["-i", pgn.to_str().unwrap(), "-o", out.to_str().unwrap(), "-cql", query])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "`{query}` failed: {}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    let moves: String = text.lines().filter(|l| !l.starts_with('[')).collect::<Vec<_>>().join(" ");
    moves
        .split('{')
        .skip(1)
        .filter_map(|c| c.split('}').next())
        .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|c| !c.starts_with("Game number") && c != "CQL" && c != "a good move")
        .collect()
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100000001b3))
}

#[test]
fn comment_arguments_convert_as_cql_converts_them() {
    // After 5. Bb5+ (the only check): a filter without a value is `<true>` or `<false>`,
    // a number or position that fails is `<false>`, a set is its squares. Each expected
    // text is what CQL 6.2 (build 9.493) writes for the same query and game.
    assert_eq!(
        comments(r#"check comment("c:" check " m:" mate " n:" #[Pp] " f:" find stalemate " s:" (a-h1 & K))"#),
        vec!["c:<true> m:<false> n:14 f:<false> s:e1"]
    );
    // A position is `move N(wtm|btm)`, as `movenumber` and the side to move there.
    assert_eq!(comments(r#"check comment("p:" parent)"#), vec!["p:move 5(wtm)"]);
    // `str` always matches; a failing argument is `<false>` in its text.
    assert_eq!(comments(r#"check x = str(mate " " ply) comment(x)"#), vec!["<false> 9"]);
    // A value variable not yet given a value in this game is named as unbound.
    assert_eq!(comments(r#"check if mate v = 1 comment("v=" v)"#), vec!["v=<unbound: v>"]);
}

#[test]
fn an_implicit_search_in_comment_arguments_is_the_text_then_the_string() {
    // `event "x"` standing as an argument is the event, then " x" as the next argument
    // (CQL 6.2 `Tokens::match_strconstituent`); in parentheses it stays a search.
    assert_eq!(comments(r#"initial event "castling" comment("E:" event " is" site)"#), vec!["E:castling is?"]);
    assert_eq!(comments(r#"check comment("E:" event " end")"#), vec!["E:castling end"]);
    assert_eq!(comments(r#"check comment((event "zz") " end")"#), vec!["<false> end"]);
    // `fen` before a string is the current FEN; the string is the next argument.
    assert_eq!(
        comments(r#"check comment(str(fen " is the FEN"))"#),
        vec!["rnbqkb1r/ppp3pp/4pn2/1B1p4/8/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 1 is the FEN"]
    );
}

#[test]
fn player_alone_is_both_names_in_one_string() {
    // `player` is White's name, a backslash and `n`, then Black's (`Tokens::match_player`):
    // it equals neither name, and a search finds either.
    let games = "[White \"Anna\"]\n[Black \"Boris\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let dir = std::env::temp_dir().join(format!("cqlrs-player-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("players.pgn");
    std::fs::write(&pgn, games).unwrap();
    let count = |query: &str| {
        let o = Command::new(BIN)
            .args(["-i", pgn.to_str().unwrap(), "--numbers", "-cql", query])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).lines().count()
    };
    assert_eq!(count(r#"player == "Anna""#), 0);
    assert_eq!(count(r#"player == "Anna\nBoris""#), 1);
    assert_eq!(count(r#"player "Boris""#), 1);
    assert_eq!(count(r#"player "Carl""#), 0);
    assert_eq!(count(r#"player white == "Anna""#), 1);
}

#[test]
fn built_in_tags_read_as_cql_reads_them() {
    // A missing Event, Site, White or Black is `?`, an empty one has no value; dates are
    // `yyyy.mm.dd` with `?` for unknown parts; ECO codes are read from their start; a
    // rating after a player's name is split off and is the player's Elo. Every expected
    // text is what CQL 6.2 wrote for the same games.
    let games = "[Result \"*\"]\n\n1. e4 *\n\n\
        [Event \"\"]\n[White \" M \"]\n[Black \"Carlsen, M (2850)\"]\n[Date \"2020.5.4\"]\n[ECO \"b12\"]\n[Result \"*\"]\n\n1. e4 *\n\n\
        [Site \"x\"]\n[Date \"3000.01.32\"]\n[ECO \"E100\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let dir = std::env::temp_dir().join(format!("cqlrs-tags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("tags.pgn");
    let out = dir.join("tags-out.pgn");
    std::fs::write(&pgn, games).unwrap();
    let query = r#"initial comment("E[" event "] S[" site "] W[" player white "] B[" player black "] D[" date "] ECO[" eco "] Y[" year "] BE[" elo black "]")"#;
    let o = Command::new(BIN)
        .args(["-i", pgn.to_str().unwrap(), "-o", out.to_str().unwrap(), "-cql", query])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let found: Vec<&str> =
        text.split('{').filter_map(|c| c.split('}').next()).filter(|c| c.starts_with("E[")).collect();
    assert_eq!(
        found,
        vec![
            "E[?] S[?] W[?] B[?] D[????.??.??] ECO[<false>] Y[<false>] BE[<false>]",
            "E[<false>] S[?] W[M] B[Carlsen, M] D[2020.05.04] ECO[B12] Y[2020] BE[2850]",
            "E[?] S[x] W[?] B[?] D[????.01.??] ECO[E10] Y[<false>] BE[<false>]",
        ]
    );
}

#[test]
fn tag_names_close_to_built_in_ones_are_refused_as_cql_refuses_them() {
    for query in [
        r#"tag "Round""#,
        r#"tag "eco""#,
        r#"tag "Whitey""#,
        r#"tag "_a""#,
        r#"settag("White" "x")"#,
        r#"settag(event "x")"#,
    ] {
        refused(query);
    }
    // A built-in tag by its own name, and a string after `tag "…"` is a filter of its own.
    assert_eq!(numbers(r#"tag "Event" == "castling""#), vec![1]);
    assert_eq!(numbers(r#"tag "Event" "zzz""#), vec![1, 2]);
}

#[test]
fn echo_marks_its_pairs() {
    // In both games the position after White's first move is the source and the one two
    // plies later the target; the expected texts are what CQL 6.2 writes for the same query.
    let marks = comments("echo (s t) {s:ply + 2 == t:ply  t:ply == 3}");
    assert_eq!(marks, ["s", "<--move 2(btm)", "t", "-->move 1(btm)"].repeat(2));
    assert!(comments("echo quiet (s t) {s:ply + 2 == t:ply  t:ply == 3}").is_empty());
}

#[test]
fn line_find_and_path_write_their_notes() {
    // The only check is 5. Bb5+; every expected text is what CQL 6.2 writes for the query.
    assert_eq!(
        comments("line --> check --> not check"),
        vec!["Start line that ends at move 6(wtm)", "End line of length 2 that starts at move 5(btm)"]
    );
    assert_eq!(comments("initial find check"), vec!["Found"]);
    assert_eq!(comments("find all check"), vec!["Found 1 of 1"]);
    assert_eq!(
        comments(r#"path title "T" verbose ―― check"#),
        vec![
            "T",
            "Start path that ends at move 5(btm)",
            "T: move 1 of 1",
            "End path of length 1 that starts at move 5(wtm)"
        ]
    );
    // `quiet` on the filter, or as an option of the run, leaves the notes out.
    assert!(comments("btm line quiet --> check").is_empty());
    assert!(comments("find quiet check").is_empty());
    assert!(comments("cql(quiet) find check").is_empty());
}

/// The movetext of the matching games the query writes, with `extra` options.
fn written(query: &str, extra: &[&str]) -> String {
    let pgn = games_file();
    let o = Command::new(BIN)
        .args(["-i", pgn.to_str().unwrap(), "-o", "-"])
        .args(extra)
        .args(["-cql", query])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "`{query}` failed: {}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.lines().filter(|l| !l.starts_with('[') && !l.is_empty()).collect::<Vec<_>>().join(" ")
}

#[test]
fn marks_quiet_silent_and_removecomment_follow_cql() {
    // A query on the headers alone marks every searched position (12 plies and the start
    // of game 1, whose Event is "castling").
    assert_eq!(written(r#"event == "castling""#, &[]).matches("{CQL}").count(), 13);
    // `quiet` drops the marks and the notes, keeps the query's comments and the game number.
    let quiet = written(r#"check comment("chk") find check"#, &["-quiet"]);
    assert!(!quiet.contains("{CQL}") && !quiet.contains("Found") && quiet.contains("{chk}"), "{quiet}");
    assert!(quiet.contains("{Game number 1}"), "{quiet}");
    // `silent` drops every comment of the run's, the game's own ones stay.
    let silent = written(r#"cql(silent) event "annotated" comment("x")"#, &[]);
    assert!(!silent.contains("Game number") && !silent.contains("{x}") && !silent.contains("CQL"), "{silent}");
    assert!(silent.contains("{a good move}"), "{silent}");
    // `removecomment` leaves the game's comment out; `-noremovecomment` keeps it.
    let removed = r#"event "annotated" removecomment"#;
    assert!(!written(removed, &[]).contains("a good move"));
    assert!(written(removed, &["-noremovecomment"]).contains("{a good move}"));
    // A sort value comes last at the start position; an unnamed one is `<sort-id-1>`.
    let sorted = written("initial sort ply", &[]);
    assert!(sorted.starts_with("{Game number 1} {CQL} {<sort-id-1>: 0}"), "{sorted}");
}

#[test]
fn nestban_lines_and_paths_start_where_cql_starts_them() {
    // A two-position line (or two-move path) with `nestban` bans the positions it went
    // through from starting it again: 6 starts in game 1 (13 positions), 3 in game 2
    // (7 positions), as CQL 6.2 marks them; without `nestban` every position but the
    // last of each game starts one.
    for query in ["line nestban quiet --> true --> true", "path nestban quiet ―― ――"] {
        assert_eq!(written(query, &[]).matches("{CQL}").count(), 9, "{query}");
    }
    assert_eq!(written("line quiet --> true --> true", &[]).matches("{CQL}").count(), 18);
}

#[test]
fn a_header_only_match_with_an_unplayable_move_is_written_as_far_as_it_is_read() {
    let dir = std::env::temp_dir().join(format!("cqlrs-bad-moves-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("bad.pgn");
    std::fs::write(&pgn, "[Event \"a\"]\n\n1. e4 e5 2. Qxx9 *\n\n[Event \"b\"]\n\n1. e4 e5 2. Qh5 *\n").unwrap();
    let o = Command::new(BIN)
        .args(["-i", pgn.to_str().unwrap(), "-o", "-", "-cql", "true"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    // CQL 6.2 reads the game up to the bad move and writes it so, with the move named.
    assert!(err.contains("game 1 (line 1)") && err.contains("Qxx9"), "{err}");
    assert!(err.contains("2 matches of 2 games (0 unmatched, 0 skipped)"), "{err}");
    assert!(err.contains("; 1 game read only up to an unplayable move"), "{err}");
    assert!(out.contains("[Event \"a\"]") && out.contains("Error reading move") && out.contains("2. Qh5"), "{out}");
}
