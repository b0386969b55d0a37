//! Known, deliberate differences from CQL 6.2 and YACPDB, each pinned by a test.
//! `docs/compat.md` lists them and names the test that pins each one.

mod common;
use common::{cqlrs as run, temp_file};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const GAME_A: &str =
    "[Event \"A\"]\n[White \"Fokin,A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n";

/// CQL 6.2 aborts the whole run on a last game without a result token; cqlrs reads it.
#[test]
fn compat_truncated_last_game_is_read() {
    let pgn = temp_file("truncated.pgn", &format!("{GAME_A}[Event \"B\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#"));
    let o = run(&["-i", pgn.to_str().unwrap(), "--numbers", "-cql", "mate"]);
    assert_eq!(text(&o.stdout), "1\n2\n", "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("2 matches of 2 games (0 unmatched, 0 skipped)"), "{}", text(&o.stderr));
}

/// CQL 6.2 aborts on an unterminated comment; cqlrs skips that game, says where, and goes on.
#[test]
fn compat_unterminated_comment_costs_one_game() {
    let broken = "[Event \"Broken\"]\n\n1. e4 {never closed e5 2. Nf3\n\n";
    let pgn = temp_file("comment.pgn", &format!("{GAME_A}{broken}{GAME_A}"));
    let o = run(&["-i", pgn.to_str().unwrap(), "--numbers", "-cql", "mate"]);
    let err = text(&o.stderr);
    assert_eq!(text(&o.stdout), "1\n3\n", "{err}");
    assert!(err.contains("game 2"), "{err}");
    assert!(err.contains("of 3 games (0 unmatched, 1 skipped)"), "{err}");
}

/// CQL 6.2 accepts `year 1900 1950` and aborts when it first runs it; cqlrs refuses it
/// before scanning, with the place of the error.
#[test]
fn compat_numeric_filter_with_range_is_a_query_error() {
    let pgn = temp_file("year.pgn", GAME_A);
    let o = run(&["-i", pgn.to_str().unwrap(), "--numbers", "-cql", "year 1900 1950"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("<command line>:1:6: error"), "{err}");
    assert!(err.contains("1900 <= year <= 1950"), "{err}");
    assert!(err.contains('^'), "{err}");
}

/// CQL 6.2 rewrites tags (`Fokin,A` becomes `Fokin, A`) and appends `Game number N` to an
/// existing first comment; cqlrs keeps tag values byte for byte and writes its own comment.
#[test]
fn compat_tags_are_kept_and_game_number_is_its_own_comment() {
    let pgn = temp_file("tags.pgn", GAME_A);
    let o = run(&["-i", pgn.to_str().unwrap(), "-o", "-", "-cql", "mate"]);
    let out = text(&o.stdout);
    assert!(out.contains("[White \"Fokin,A\"]"), "{out}");
    assert!(out.contains("{Game number 1}"), "{out}");
    assert!(out.contains("Qh4# {CQL}"), "{out}");
}

/// CQL 6.2 runs single-threaded when a script has `persistent` variables; cqlrs keeps all
/// its threads and adds up the workers' values, so the totals do not depend on threads.
#[test]
fn compat_persistent_variables_with_threads() {
    let pgn = temp_file("persistent.pgn", &GAME_A.repeat(50));
    let script = temp_file("persistent.cql", "cql()\nif mate persistent Mates += 1\nmate\n");
    let one = run(&["-i", pgn.to_str().unwrap(), "--threads", "1", "--count", script.to_str().unwrap()]);
    let two = run(&["-i", pgn.to_str().unwrap(), "--threads", "2", "--count", script.to_str().unwrap()]);
    for o in [&one, &two] {
        assert!(text(&o.stderr).contains("Mates: 50"), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout).trim(), "50");
    }
}

#[test]
fn compat_dictionary_kept_across_games_runs_on_one_thread() {
    let pgn = temp_file("dictionary.pgn", &GAME_A.repeat(20));
    let input = pgn.to_str().unwrap();
    // The 5th game is the first whose count reaches 5, whatever `--threads` asks for.
    let script = temp_file(
        "dictionary.cql",
        "cql()\npersistent dictionary Seen\ninitial\nSeen[\"games\"] += 1\nSeen[\"games\"] == 5\n",
    );
    let o = run(&["-i", input, "--threads", "2", "--numbers", script.to_str().unwrap()]);
    let err = text(&o.stderr);
    assert_eq!(text(&o.stdout), "5\n", "{err}");
    assert!(err.contains("using 1 thread"), "{err}");
    assert!(err.contains("Seen: {\"games\": 20}"), "{err}");
    // A local dictionary starts empty in every game and keeps the threads.
    let script =
        temp_file("local-dictionary.cql", "cql()\nlocal dictionary Seen\ninitial\nSeen[1] += 1\nSeen[1] == 1\n");
    let o = run(&["-i", input, "--threads", "2", "--count", script.to_str().unwrap()]);
    assert_eq!(text(&o.stdout).trim(), "20", "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("using 2 threads"), "{}", text(&o.stderr));
}

/// Composed problems often start from set-ups that are not legal chess positions (no
/// king, two kings of a colour, pawns on the first or last rank, the side not to move in
/// check). Such a game is replayed on the board alone: check means a king of the side to
/// move is attacked, mate and stalemate need a king, and a side without a king may move
/// any piece as the piece moves. The game is read, not skipped.
const KINGLESS: &str =
    "[Event \"K\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/B6B w - - 0 1\"]\n\n1. Bh8 -- 2. Ba1 -- 3. Bh8 *\n\n";
const TWO_KINGS: &str = "[Event \"KK\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/r7/K6K w - - 0 1\"]\n\n1. Kxa2 Kd7 *\n\n";

#[test]
fn compat_kingless_setup_is_replayed_on_the_board() {
    let pgn = temp_file("kingless.pgn", &format!("{KINGLESS}{TWO_KINGS}{GAME_A}"));
    let input = pgn.to_str().unwrap();
    let o = run(&["-i", input, "--numbers", "-cql", "mate"]);
    let err = text(&o.stderr);
    assert_eq!(text(&o.stdout), "3\n", "{err}");
    assert!(err.contains("1 match of 3 games (2 unmatched, 0 skipped)"), "{err}");
    // The two-king game starts with a king in check; the kingless one never has a check.
    let o = run(&["-i", input, "--numbers", "-cql", "check"]);
    assert_eq!(text(&o.stdout), "2\n3\n", "{}", text(&o.stderr));
    // Black, without any piece, has no move there; still no stalemate without a king.
    let o = run(&["-i", input, "--numbers", "-cql", "stalemate"]);
    assert_eq!(text(&o.stdout), "", "{}", text(&o.stderr));
    // Pieces are where the moves took them.
    let o = run(&["-i", input, "--numbers", "-cql", "Bh8 btm"]);
    assert_eq!(text(&o.stdout), "1\n", "{}", text(&o.stderr));
}

/// The YACPDB analyses see such games too: the bishops of the kingless diagram go corner
/// to corner.
#[test]
fn compat_kingless_setup_is_analysed_by_yacpdb_queries() {
    let pgn = temp_file("kingless-yacpdb.pgn", &format!("{KINGLESS}{TWO_KINGS}{GAME_A}"));
    let input = pgn.to_str().unwrap();
    let o = run(&["-i", input, "--numbers", "--yacpdb", "NOT Phases > 1 AND CornerToCorner(*)"]);
    let err = text(&o.stderr);
    assert_eq!(text(&o.stdout), "1\n", "{err}");
    assert!(err.contains("1 match of 3 games (2 unmatched, 0 skipped)"), "{err}");
    let o = run(&["-i", input, "--numbers", "--yacpdb", "PCount(w) = 2 AND PCount(b) = 0"]);
    assert_eq!(text(&o.stdout), "1\n", "{}", text(&o.stderr));
}

/// CQL 6.2 refuses `local` outside a function body; cqlrs reads `local x = …` there, and
/// `atomic x = …` anywhere, as a plain assignment.
#[test]
fn compat_local_and_atomic_are_plain_assignments() {
    let pgn = temp_file("local.pgn", GAME_A);
    // GAME_A ends in mate with two white knights still on the board.
    let o = run(&["-i", pgn.to_str().unwrap(), "--numbers", "-cql", "atomic x = #N  atomic y = x + 1  mate y == 3"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "1\n", "{}", text(&o.stderr));
    let o = run(&["-i", pgn.to_str().unwrap(), "--numbers", "-cql", "atomic x = #N  mate x == 3"]);
    assert_eq!(text(&o.stdout), "", "{}", text(&o.stderr));
    // CQL 6.2 has `local` for dictionaries only.
    let o = run(&["-i", pgn.to_str().unwrap(), "--numbers", "-cql", "local x = #N  mate"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}

/// The `cql( … )` header takes the official program's output options and ignores them.
#[test]
fn compat_output_only_header_options_are_ignored() {
    let pgn = temp_file("header.pgn", GAME_A);
    let script =
        temp_file("header.cql", "cql(sort nosort smartcomments nosmartcomments noremovecomment showmatches)\nmate\n");
    let o = run(&["-i", pgn.to_str().unwrap(), "--numbers", script.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "1\n", "{}", text(&o.stderr));
}

/// `echo … in all` (CQL 6.2 `EchoNode`) also tries the source position itself; like a plain
/// `echo` it keeps to the searched positions, so a scan of the main line does not reach into
/// variations (the reference binary gives 0 for both queries below).
#[test]
fn compat_echo_in_all_keeps_to_the_searched_positions() {
    let game = "[Event \"V\"]\n[Result \"*\"]\n\n1. f3 e5 2. g4 (2. g3 Nc6) Nc6 *\n\n";
    let pgn = temp_file("echo-in-all.pgn", game);
    let pgn = pgn.to_str().unwrap();
    let plain = run(&["-i", pgn, "--count", "-cql", "initial echo (s t) {t:ply == 3 t:move previous to g3}"]);
    assert_eq!(text(&plain.stdout), "0\n", "{}", text(&plain.stderr));
    let all = run(&["-i", pgn, "--count", "-cql", "initial echo (s t) in all {t:ply == 3 t:move previous to g3}"]);
    assert_eq!(text(&all.stdout), "0\n", "{}", text(&all.stderr));
    let itself = run(&["-i", pgn, "--count", "-cql", "initial echo (s t) in all {t:ply == 0}"]);
    assert_eq!(text(&itself.stdout), "1\n", "{}", text(&itself.stderr));
}
