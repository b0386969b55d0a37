//! Integration tests of "nothing lost, nothing misread" (issue 11) and "every game
//! accounted for" (issue 13): the binary never writes over an input, reads CQL's
//! single-dash options by an explicit table, reads Latin-1 games as text, reports
//! damaged and non-PGN input, and counts games the evaluator gives up on.
//! Every test works in its own temporary directory.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{cqlrs_in, stderr, stdout, temp_dir, write, BIN};

/// Three games: a mate (game 1), a quiet game (game 2) and a draw (game 3).
const GAMES: &str = "[Event \"A\"]\n[White \"W1\"]\n[Black \"B1\"]\n[Result \"1-0\"]\n\n\
1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n\
[Event \"B\"]\n[White \"W2\"]\n[Black \"B2\"]\n[Result \"0-1\"]\n\n1. d4 d5 2. c4 e6 0-1\n\n\
[Event \"C\"]\n[White \"W3\"]\n[Black \"B3\"]\n[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 1/2-1/2\n";

/// Directory entries other than the ones named (temporary files left behind).
fn leftovers(dir: &Path, known: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !known.contains(&n.as_str()))
        .collect()
}

// ----- 1. never write over an input ---------------------------------------------

#[test]
fn output_that_is_an_input_is_refused_and_left_intact() {
    let dir = temp_dir("same");
    write(&dir, "same.pgn", GAMES.as_bytes());
    // The same name.
    let o = cqlrs_in(&dir, &["-i", "same.pgn", "-cql", "mate", "-o", "same.pgn"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("refusing to write the output `same.pgn`"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(dir.join("same.pgn")).unwrap(), GAMES);
    // Through the default output name `<script>-out.pgn`.
    write(&dir, "mates.cql", b"mate\n");
    write(&dir, "mates-out.pgn", GAMES.as_bytes());
    let o = cqlrs_in(&dir, &["-i", "mates-out.pgn", "mates.cql"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(dir.join("mates-out.pgn")).unwrap(), GAMES);
    // Through a symbolic link and a hard link.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("same.pgn"), dir.join("link.pgn")).unwrap();
        let o = cqlrs_in(&dir, &["-i", "same.pgn", "-cql", "mate", "-o", "link.pgn"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("are one file"), "{}", stderr(&o));
        std::fs::hard_link(dir.join("same.pgn"), dir.join("hard.pgn")).unwrap();
        let o = cqlrs_in(&dir, &["-i", "hard.pgn", "-cql", "mate", "-o", "same.pgn"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(dir.join("same.pgn")).unwrap(), GAMES);
    }
    // The query script is an input too, and so is the rejects file an output.
    let o = cqlrs_in(&dir, &["-i", "same.pgn", "-o", "mates.cql", "mates.cql"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(dir.join("mates.cql")).unwrap(), "mate\n");
    let o = cqlrs_in(&dir, &["-i", "same.pgn", "-cql", "mate", "-o", "x.pgn", "--rejects", "x.pgn"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.join("x.pgn").exists());
}

#[test]
fn a_failed_run_leaves_an_existing_output_as_it_was() {
    let dir = temp_dir("atomic");
    write(&dir, "in.pgn", GAMES.as_bytes());
    write(&dir, "out.pgn", b"precious\n");
    // A game with a character Latin-1 lacks makes the write fail half way.
    write(&dir, "euro.pgn", "[Event \"€\"]\n\n1. e4 *\n".as_bytes());
    let o = cqlrs_in(&dir, &["-i", "euro.pgn", "-cql", "true", "--output-encoding", "latin1", "-o", "out.pgn"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("U+20AC"), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("out.pgn")).unwrap(), b"precious\n");
    // No input that can be read to its end: the run is incomplete, nothing replaced. (One
    // unreadable input among several is skipped and the others' matches are written:
    // tests/ux.rs.)
    let o = cqlrs_in(&dir, &["-i", "missing.pgn", "-cql", "mate", "-o", "out.pgn"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("incomplete"), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("out.pgn")).unwrap(), b"precious\n");
    assert!(leftovers(&dir, &["in.pgn", "out.pgn", "euro.pgn"]).is_empty(), "{:?}", leftovers(&dir, &[]));
    // A run that succeeds replaces the file in one step and keeps no temporary file.
    let o = cqlrs_in(&dir, &["-i", "in.pgn", "-cql", "mate", "-o", "out.pgn"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let written = std::fs::read_to_string(dir.join("out.pgn")).unwrap();
    assert!(written.contains("Qxf7#") && !written.contains("precious"), "{written}");
    assert!(leftovers(&dir, &["in.pgn", "out.pgn", "euro.pgn"]).is_empty());
}

// ----- 2. CQL single-dash options --------------------------------------------------

#[test]
fn cql_single_dash_words_are_options_not_bundles() {
    let dir = temp_dir("options");
    write(&dir, "g.pgn", GAMES.as_bytes());
    write(&dir, "q.cql", b"mate\n");
    // `-sort` is no option: an error, and no file `rt` appears.
    let o = cqlrs_in(&dir, &["-sort", "-i", "g.pgn", "q.cql"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown option `-sort`"), "{}", stderr(&o));
    assert!(!dir.join("rt").exists());
    // A misspelling gets a suggestion.
    let o = cqlrs_in(&dir, &["-gamenumbr", "2", "-i", "g.pgn", "q.cql"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("did you mean `-gamenumber`"), "{}", stderr(&o));
    // `-showmatches` (any case) names the matching game as CQL does (`<1>`, on stderr
    // when the games go to stdout), and is not `--help`.
    let o = cqlrs_in(&dir, &["-showMatches", "-i", "g.pgn", "-o", "-", "q.cql"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("<1>"), "{}", stderr(&o));
    assert!(stdout(&o).contains("Qxf7#"));
    // An option cqlrs does not implement is refused clearly.
    let o = cqlrs_in(&dir, &["-html", "-i", "g.pgn", "q.cql"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not supported"), "{}", stderr(&o));
}

#[test]
fn parse_checks_the_query_without_reading_games() {
    let dir = temp_dir("parse");
    write(&dir, "good.cql", b"cql() mate\n");
    write(&dir, "bad.cql", b"cql() mate (\n");
    let o = cqlrs_in(&dir, &["-parse", "good.cql"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("valid"));
    let o = cqlrs_in(&dir, &["-parse", "bad.cql"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // No input and no output file: nothing was read or written.
    assert!(leftovers(&dir, &["good.cql", "bad.cql"]).is_empty());
}

#[test]
fn options_that_add_filters_change_the_matches() {
    let dir = temp_dir("filters");
    write(&dir, "g.pgn", GAMES.as_bytes());
    let numbers = |args: &[&str]| {
        let mut all = vec!["-i", "g.pgn", "--numbers"];
        all.extend_from_slice(args);
        let o = cqlrs_in(&dir, &all);
        assert!(o.status.code() != Some(2), "{args:?}: {}", stderr(&o));
        stdout(&o).lines().map(str::to_string).collect::<Vec<_>>()
    };
    // `-btm` with a mate: only positions with Black to move (after Qxf7#).
    assert_eq!(numbers(&["-btm", "-cql", "mate"]), vec!["1"]);
    assert!(numbers(&["-wtm", "-cql", "mate"]).is_empty());
    // `-assign x 3` sets a variable the query reads.
    assert_eq!(numbers(&["-assign", "x", "3", "-cql", "x == 3 initial"]).len(), 3);
    assert!(numbers(&["-assign", "x", "2", "-cql", "x == 3 initial"]).is_empty());
    // Header options.
    assert_eq!(numbers(&["-result", "1/2-1/2"]), vec!["3"]);
    assert_eq!(numbers(&["-white", "W2"]), vec!["2"]);
}

// ----- 3. one text model -------------------------------------------------------------

#[test]
fn latin1_games_are_read_as_text_and_written_as_utf8() {
    let dir = temp_dir("latin1");
    let mut bytes = b"[Event \"Dortmund\"]\n[White \"R\xe9ti, Richard\"]\n[Black \"Gr\xfcnfeld\"]\n".to_vec();
    bytes.extend_from_slice(b"[Result \"1-0\"]\n\n1. e4 {tr\xe8s bien \x80} e5 1-0\n");
    write(&dir, "old.pgn", &bytes);
    for args in [&["-cql", "player \"Réti\""][..], &["--player", "Réti"][..]] {
        let mut all = vec!["-i", "old.pgn", "-o", "-"];
        all.extend_from_slice(args);
        let o = cqlrs_in(&dir, &all);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let text = String::from_utf8(o.stdout).expect("the output is UTF-8");
        assert!(text.contains("[White \"Réti, Richard\"]") && text.contains("Grünfeld"), "{text}");
        assert!(text.contains("{très bien €}"), "{text}");
    }
    // JSON says how the game was read.
    let o = cqlrs_in(&dir, &["-i", "old.pgn", "--player", "Réti", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["encoding"], "windows-1252");
    assert_eq!(v["tags"]["White"], "Réti, Richard");
    // Latin-1 output where every character fits; a clear failure where one does not.
    let latin = b"[Event \"x\"]\n[White \"R\xe9ti\"]\n\n1. e4 {caf\xe9} *\n";
    write(&dir, "latin.pgn", latin);
    let o = cqlrs_in(&dir, &["-i", "latin.pgn", "-cql", "true", "--output-encoding", "latin1", "-o", "-"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.windows(6).any(|w| w == b"R\xe9ti\"]"), "{:?}", String::from_utf8_lossy(&o.stdout));
    let o = cqlrs_in(&dir, &["-i", "old.pgn", "-cql", "true", "--output-encoding", "latin1", "-o", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be written in Latin-1"), "{}", stderr(&o));
    let o = cqlrs_in(&dir, &["-i", "old.pgn", "-cql", "true", "--output-encoding", "ebcdic"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_latin1_corpus_file_is_read_as_windows_1252() {
    let Some(path) = common::shared::shared_path("corpus/realistic/08-dortmund-annotated-latin1.pgn") else {
        return;
    };
    let dir = temp_dir("dortmund");
    let o = cqlrs_in(&dir, &["-i", path.to_str().unwrap(), "-cql", "initial", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect::<Vec<_>>();
    assert!(lines.iter().any(|v| v["encoding"] == "windows-1252"));
    assert!(lines.iter().all(|v| !v.to_string().contains('\u{fffd}')), "a replacement character was written");
}

// ----- 4. damaged and non-PGN input ----------------------------------------------------

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_truncated_compressed_file_is_reported_and_its_cut_game_skipped() {
    let dir = temp_dir("truncated");
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&GAMES.replace("[Event \"", &format!("[Event \"{i} ")));
        text.push('\n');
    }
    let whole = gzip(text.as_bytes());
    let cut = &whole[..whole.len() * 2 / 3];
    write(&dir, "cut.pgn.gz", cut);
    let o = cqlrs_in(&dir, &["-i", "cut.pgn.gz", "-cql", "mate", "--count", "--rejects", "rejects.pgn"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cut.pgn.gz: the compressed stream ends early: the file is cut short at byte"), "{err}");
    assert!(err.contains("incomplete"), "{err}");
    assert!(err.contains("1 skipped"), "{err}");
    let zst = zstd::encode_all(text.as_bytes(), 3).unwrap();
    write(&dir, "cut.pgn.zst", &zst[..zst.len() / 2]);
    let o = cqlrs_in(&dir, &["-i", "cut.pgn.zst", "-cql", "mate", "--count"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cut.pgn.zst: the compressed stream ends early"), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 skipped"), "{}", stderr(&o));
    // The rejects file holds the cut game's bytes, as far as they go.
    let rejects = std::fs::read_to_string(dir.join("rejects.pgn")).unwrap();
    assert!(rejects.starts_with("[Event"), "{rejects}");
    assert!(text.contains(rejects.trim_end()), "the rejected bytes are not the input's");
}

#[test]
fn archives_executables_and_binary_data_are_refused_once_per_file() {
    let dir = temp_dir("binary");
    write(&dir, "a.pgn.xz", &[0xfd, b'7', b'z', b'X', b'Z', 0, 0, 4, 1, 2, 3]);
    write(&dir, "a.zip", b"PK\x03\x04\x14\x00\x00\x00rest of a zip");
    write(&dir, "prog", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00");
    let noise: Vec<u8> = (0u32..20_000).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    write(&dir, "noise.pgn", &noise);
    for (file, says) in [("a.pgn.xz", "xz"), ("a.zip", "zip"), ("prog", "executable"), ("noise.pgn", "binary")] {
        let o = cqlrs_in(&dir, &["-i", file, "-cql", "mate", "--count"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(says), "{file}: {err}");
        assert_eq!(err.lines().filter(|l| l.contains(file)).count(), 1, "{file}: {err}");
        assert!(err.contains("0 games"), "{file}: {err}");
    }
}

#[test]
fn warnings_are_bounded_and_skipped_games_kept_in_the_rejects_file() {
    let dir = temp_dir("rejects");
    let mut text = String::from(GAMES);
    for i in 0..5 {
        text.push_str(&format!("\n[Event \"bad {i}\"]\n\n1. e4 Ke7 *\n"));
    }
    write(&dir, "g.pgn", text.as_bytes());
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "-cql", "mate", "--count", "--max-warnings", "2", "--rejects", "r.pgn"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.lines().filter(|l| l.contains("illegal move")).count(), 2, "{err}");
    assert!(err.contains("3 more warnings not shown"), "{err}");
    let rejects = std::fs::read_to_string(dir.join("r.pgn")).unwrap();
    assert_eq!(rejects.matches("1. e4 Ke7 *").count(), 5, "{rejects}");
    assert!(rejects.contains("[Event \"bad 4\"]"));
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "-cql", "mate", "--count", "--quiet-stderr"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1\n");
}

// ----- 5. runaway queries and option values ----------------------------------------

#[test]
fn a_game_the_evaluator_gives_up_on_is_counted_and_reported() {
    let dir = temp_dir("abandon");
    write(&dir, "g.pgn", GAMES.as_bytes());
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "-cql", "initial x=0 while (x<10) {x=x}", "--count"]);
    let err = stderr(&o);
    // The run completed (no match): status 0, as CQL 6.2 exits.
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("0 matches of 3 games (0 unmatched, 0 skipped, 3 abandoned)"), "{err}");
    for n in 1..=3 {
        assert_eq!(err.matches(&format!("game {n} (line")).count(), 1, "{err}");
    }
    assert!(err.contains("while loop"), "{err}");
}

#[test]
fn a_loop_that_changes_nothing_is_refused_before_the_scan() {
    let dir = temp_dir("loop");
    write(&dir, "g.pgn", GAMES.as_bytes());
    let started = std::time::Instant::now();
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "-cql", "loop { true }", "--count"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("never ends"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert!(started.elapsed().as_secs() < 5);
}

#[test]
fn option_values_are_checked() {
    let dir = temp_dir("values");
    write(&dir, "g.pgn", GAMES.as_bytes());
    for (args, says) in [
        (&["--limit", "0", "-cql", "mate"][..], "--limit 0"),
        (&["--result", "1/2"][..], "invalid result `1/2`"),
        (&["--result", "draw"][..], "invalid result"),
        (&["-gamenumber", "0"][..], "numbered from 1"),
        (&["-gamenumber", "5", "3"][..], "gamenumber"),
        (&["--threads", "0", "-cql", "mate"][..], "--threads 0"),
        (&["-cql", "up 9 K"][..], "at most 7"),
    ] {
        let mut all = vec!["-i", "g.pgn", "--count"];
        all.extend_from_slice(args);
        let o = cqlrs_in(&dir, &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_query_at_the_nesting_limit_evaluates_and_one_beyond_is_refused() {
    let dir = temp_dir("nesting");
    write(&dir, "g.pgn", GAMES.as_bytes());
    let nested = |k: usize| format!("{}1{} == 1", "(".repeat(k), ")".repeat(k));
    // The deepest `abs(` chain the parser accepts evaluates in every game.
    let deepest = (1..=cqlrs::NESTING_LIMIT)
        .rev()
        .find(|&k| cqlrs_in(&dir, &["-parse", "-cql", &nested(k)]).status.code() == Some(0))
        .expect("some nesting parses");
    assert!(deepest + 2 >= cqlrs::NESTING_LIMIT, "only {deepest} levels parse");
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "-cql", &nested(deepest), "--count"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("3 matches of 3 games (0 unmatched, 0 skipped)"), "{}", stderr(&o));
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "-cql", &nested(deepest + 1), "--count"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nested too deeply"), "{}", stderr(&o));
}

#[test]
fn a_closed_stderr_ends_the_run_without_a_panic() {
    // Many warnings (a number matched against every game's position abandons each game)
    // into a stderr whose reader has gone, as in `cqlrs … 2>&1 | head -1`.
    let dir = temp_dir("closed-stderr");
    let mut games = Vec::new();
    for i in 0..2000 {
        games.extend_from_slice(format!("[Event \"g{i}\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n").as_bytes());
    }
    let pgn = write(&dir, "many.pgn", &games);
    let mut child = Command::new(BIN)
        .args(["--input", pgn.to_str().unwrap(), "--count", "--cql", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_ne!(status.code(), Some(101), "cqlrs panicked on a closed stderr");
    assert!(status.code().is_some(), "killed by a signal: {status:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
