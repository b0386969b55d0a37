//! Integration tests of the `cqlrs` binary: exit codes, output formats, thread-count
//! independence, malformed games, broken pipes. Each test writes small PGN files
//! to its own temporary directory; nothing here needs the shared corpus beside the repository.
//!
//! Tests whose assertions need a working evaluator for header filters (`-player`)
//! check that first and say so on stderr when they cannot run their match checks.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

mod common;
use common::{cqlrs, stderr, stdout, temp_dir, BIN};

/// `games` games; White is "Tal" in every third; game 5 has a set-up that is no position.
fn write_corpus(dir: &PathBuf, games: usize) -> String {
    let mut text = String::new();
    for i in 1..=games {
        let white = if i % 3 == 1 { "Tal, Mikhail" } else { "Smyslov, Vassily" };
        let moves = if i == 5 { "1. e4 Ke7 0-1" } else { "1. e4 e5 2. Nf3 {a comment} Nc6 (2... d6 $2) 3. Bb5 1-0" };
        // The FEN tag takes the place of the blank line before the moves, so that every
        // game starts on the same line as before.
        let setup = if i == 5 { "[FEN \"no position\"]" } else { "" };
        text.push_str(&format!(
            "[Event \"Test {i}\"]\n[White \"{white}\"]\n[Black \"B\"]\n[Result \"1-0\"]\n{setup}\n{moves}\n\n"
        ));
    }
    let path = dir.join("games.pgn");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Does the evaluator handle header filters yet? (It is built in parallel.)
fn evaluator_ready(pgn: &str) -> bool {
    let o = cqlrs(&["-input", pgn, "-player", "Tal", "--numbers"]);
    let ready = !o.stdout.is_empty();
    if !ready {
        common::shared::skipped("the evaluator does not match `-player`");
    }
    ready
}

#[test]
fn no_query_exits_2() {
    let o = cqlrs(&["-input", "x.pgn"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no query"), "{}", stderr(&o));
}

#[test]
fn bad_query_exits_2_with_a_rendered_error() {
    let dir = temp_dir("badquery");
    let pgn = write_corpus(&dir, 3);
    let o = cqlrs(&["-input", &pgn, "-cql", "mtae ((("]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("<command line>:"), "{}", stderr(&o));
    assert!(stderr(&o).contains("error:"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

#[test]
fn unreadable_input_exits_2() {
    let o = cqlrs(&["-input", "/nonexistent/dir/games.pgn", "-player", "Tal", "--numbers"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/dir/games.pgn"), "{}", stderr(&o));
}

#[test]
fn malformed_game_is_reported_and_skipped_with_totals_right() {
    let dir = temp_dir("malformed");
    let pgn = write_corpus(&dir, 7);
    // `ply < 0` needs positions, so every game is replayed (a header-only query would
    // never look at the moves and so never notice the broken set-up).
    let o = cqlrs(&["-input", &pgn, "-cql", "ply < 0", "--numbers"]);
    let err = stderr(&o);
    assert!(err.contains("game 5 (line 29)"), "{err}");
    assert!(err.contains("invalid FEN `no position`"), "{err}");
    assert!(err.contains("0 matches of 7 games (6 unmatched, 1 skipped)"), "{err}");
    // A completed run exits 0 without a match, as CQL 6.2 does.
    assert_eq!(o.status.code(), Some(0), "a malformed game is not fatal");
}

#[test]
fn numbers_count_and_exit_codes() {
    let dir = temp_dir("numbers");
    let pgn = write_corpus(&dir, 10);
    let count = cqlrs(&["-input", &pgn, "-player", "Tal", "--count"]);
    let counted: u64 = stdout(&count).trim().parse().expect("--count prints a number");
    if !evaluator_ready(&pgn) {
        return;
    }
    let o = cqlrs(&["-input", &pgn, "-player", "Tal", "--numbers"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "1\n4\n7\n10\n");
    assert_eq!(counted, 4);
    // Header-only: the malformed game 5 is never replayed, so nothing is skipped.
    assert!(stderr(&o).contains("4 matches of 10 games (6 unmatched, 0 skipped)"), "{}", stderr(&o));
    let replayed = cqlrs(&["-input", &pgn, "-cql", "ply >= 0", "--numbers"]);
    assert_eq!(stdout(&replayed), "1\n2\n3\n4\n6\n7\n8\n9\n10\n");
    assert!(stderr(&replayed).contains("9 matches of 10 games (0 unmatched, 1 skipped)"), "{}", stderr(&replayed));
    let none = cqlrs(&["-input", &pgn, "-player", "Nobody", "--numbers"]);
    assert_eq!(none.status.code(), Some(0), "a completed run exits 0 without a match, as CQL 6.2 does");
    assert!(none.stdout.is_empty());
    let limited = cqlrs(&["-input", &pgn, "-player", "Tal", "--numbers", "--limit", "2"]);
    assert_eq!(stdout(&limited), "1\n4\n");
    let range = cqlrs(&["-input", &pgn, "-player", "Tal", "--numbers", "-gamenumber", "2", "8"]);
    assert_eq!(stdout(&range), "4\n7\n");
}

#[test]
fn json_lines_are_valid() {
    let dir = temp_dir("json");
    let pgn = write_corpus(&dir, 6);
    if !evaluator_ready(&pgn) {
        return;
    }
    let o = cqlrs(&["-input", &pgn, "-player", "Tal", "--json"]);
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(lines.len(), 2);
    for (line, number) in lines.iter().zip([1, 4]) {
        let v: serde_json::Value = serde_json::from_str(line).expect("valid JSON");
        assert_eq!(v["number"], number);
        assert_eq!(v["tags"]["White"], "Tal, Mikhail");
        assert!(v["file"].as_str().unwrap().ends_with("games.pgn"));
        assert!(v["plies"].is_array());
    }
}

#[test]
fn pgn_output_is_identical_for_one_and_two_threads() {
    let dir = temp_dir("threads");
    let pgn = write_corpus(&dir, 400);
    let one = dir.join("one.pgn");
    let two = dir.join("two.pgn");
    let a = cqlrs(&["-input", &pgn, "-player", "Tal", "-threads", "1", "-o", one.to_str().unwrap()]);
    let b = cqlrs(&["-input", &pgn, "-player", "Tal", "--threads", "2", "-o", two.to_str().unwrap()]);
    assert_eq!(a.status.code(), b.status.code());
    assert!(stderr(&b).contains("using 2 threads to"), "{}", stderr(&b));
    let (one, two) = (std::fs::read(one).unwrap(), std::fs::read(two).unwrap());
    assert_eq!(one, two);
    if evaluator_ready(&pgn) {
        let text = String::from_utf8(one).unwrap();
        assert!(text.starts_with("[Event \"Test 1\"]\n"), "{text}");
        assert!(text.contains("{Game number 1}"), "{text}");
        assert!(text.lines().all(|l| l.len() <= 79), "{text}");
        // A query on the headers alone marks every position searched, as CQL 6.2 does.
        assert!(text.replace('\n', " ").contains(" Nc6 {CQL} (2... d6 $2) 3. Bb5 {CQL} 1-0  [Event"), "{text}");
        assert_eq!(text.matches("{Game number").count(), 134);
    }
}

#[test]
fn broken_pipe_exits_quietly() {
    let dir = temp_dir("pipe");
    let pgn = write_corpus(&dir, 3000);
    if !evaluator_ready(&pgn) {
        return;
    }
    let mut child = Command::new(BIN)
        .args(["-input", &pgn, "-player", "Tal", "-o", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("Broken pipe"), "{}", stderr(&o));
}

#[test]
fn help_lists_options() {
    let o = cqlrs(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for option in ["--input", "--numbers", "--gamenumber", "--flipcolor", "--dump-ir", "--limit"] {
        assert!(text.contains(option), "missing {option}");
    }
}
