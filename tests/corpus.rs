//! Robustness checks of the `cqlrs` binary over whole corpora:
//!
//! - the PGN output does not depend on the number of worker threads;
//! - `-cql check` over every file of the shared corpus never panics, exits 0, 1 or 2
//!   only, and its summary line adds up (games read = matched + unmatched + skipped);
//! - standard input, gzip / zstd / bzip2 input, and byte-order marks, CR line ends and
//!   Latin-1 bytes give the same games as the plain file.
//!
//! The self-contained tests use the bundled `data/` games. The tests over the shared
//! corpora (`corpus/` of the shared folder — `$CQLRS_SHARED`, else `../shared` beside
//! the repository — or the directory named by `CQLRS_SHARED_CORPUS`) say so on stderr
//! and pass when that directory is absent, and fail when it is absent under `CI=true`. The 60 MB benchmark file
//! under `bench/` is scanned only when `CQLRS_BENCH_CORPUS` is set.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{cqlrs, stderr, temp_dir, BIN};

/// A query that matches many games and writes a comment at every matching position.
const CHECK_WITH_COMMENT: &str = r#"check comment("check at ply " ply)"#;
/// A sorting query with many ties (ties are broken by game number).
const SORT_BY_MATERIAL: &str = r#"sort "material" power A"#;

/// The bundled sample of lichess games (298 games, clock comments).
fn bundled_sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/lichess-2017-05-sample.pgn")
}

/// The shared corpus directory, or `None` (with a note) when it is absent; a failure
/// when it is absent under `CI=true`.
fn shared_corpus() -> Option<PathBuf> {
    match std::env::var_os("CQLRS_SHARED_CORPUS") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.is_dir() || !common::shared::in_ci(),
                "CI=true: CQLRS_SHARED_CORPUS {} is missing",
                dir.display()
            );
            dir.is_dir().then_some(dir)
        }
        None => common::shared::shared_path("corpus"),
    }
}

/// Run with `input` on standard input.
fn cqlrs_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// The tallies of a summary line `N matches of M games (U unmatched, K skipped) in …`.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Tally {
    matched: u64,
    read: u64,
    unmatched: u64,
    skipped: u64,
}

/// Find and parse the summary line on stderr.
fn tally(stderr: &str) -> Option<Tally> {
    stderr.lines().rev().find_map(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() < 9 || !matches!(words[1], "match" | "matches") || words[2] != "of" {
            return None;
        }
        let number = |w: &str| w.trim_matches(|c| c == '(' || c == ',').parse::<u64>().ok();
        if !matches!(words[4], "game" | "games") || words[6] != "unmatched," || words[8] != "skipped)" {
            return None;
        }
        Some(Tally {
            matched: number(words[0])?,
            read: number(words[3])?,
            unmatched: number(words[5])?,
            skipped: number(words[7])?,
        })
    })
}

/// Every regular file under `dir`, recursively, sorted.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
    out.sort();
}

/// Scan `path` with `query` on 1 and on 2 threads; the PGN output must be the same
/// bytes and the tallies the same numbers. Returns the output and the tally.
fn same_output_on_one_and_two_threads(path: &Path, query: &str) -> (Vec<u8>, Tally) {
    let path = path.to_str().unwrap();
    let one = cqlrs(&["-i", path, "-cql", query, "-o", "-", "--threads", "1"]);
    let two = cqlrs(&["-i", path, "-cql", query, "-o", "-", "--threads", "2"]);
    for o in [&one, &two] {
        assert!(matches!(o.status.code(), Some(0 | 1)), "{path} `{query}`: {}", stderr(o));
        assert!(!stderr(o).contains("panicked"), "{path} `{query}`: {}", stderr(o));
    }
    let (t1, t2) = (tally(&stderr(&one)), tally(&stderr(&two)));
    assert!(t1.is_some(), "{path}: no summary line in {}", stderr(&one));
    assert_eq!(t1, t2, "{path} `{query}`: tallies differ between 1 and 2 threads");
    if one.stdout != two.stdout {
        let at = one
            .stdout
            .iter()
            .zip(&two.stdout)
            .position(|(a, b)| a != b)
            .unwrap_or(one.stdout.len().min(two.stdout.len()));
        let from = at.saturating_sub(200);
        panic!(
            "{path} `{query}`: output differs at byte {at}:\n1 thread: {}\n2 threads: {}",
            String::from_utf8_lossy(&one.stdout[from..(at + 200).min(one.stdout.len())]),
            String::from_utf8_lossy(&two.stdout[from..(at + 200).min(two.stdout.len())]),
        );
    }
    (one.stdout, t1.unwrap())
}

#[test]
fn summary_line_parses() {
    let t = tally(
        "cqlrs: x.pgn: game 3: illegal\n5 matches of 12 games (6 unmatched, 1 skipped) in 0.01 s using 2 threads\n",
    );
    assert_eq!(t, Some(Tally { matched: 5, read: 12, unmatched: 6, skipped: 1 }));
    assert_eq!(
        tally("1 match of 1 game (0 unmatched, 0 skipped) in 0.00 s using 1 thread"),
        Some(Tally { matched: 1, read: 1, unmatched: 0, skipped: 0 })
    );
    assert_eq!(tally("no summary here"), None);
}

#[test]
fn bundled_sample_same_output_for_one_and_two_threads() {
    let sample = bundled_sample();
    let (out, t) = same_output_on_one_and_two_threads(&sample, CHECK_WITH_COMMENT);
    assert!(t.matched > 100 && t.read == 298, "{t:?}");
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("{check at ply "), "the comments are written");
    let (sorted, t) = same_output_on_one_and_two_threads(&sample, SORT_BY_MATERIAL);
    assert_eq!(t.matched, t.read);
    assert!(String::from_utf8_lossy(&sorted).starts_with('['));
}

#[test]
fn shared_corpora_same_output_for_one_and_two_threads() {
    let Some(root) = shared_corpus() else { return };
    let mut files = Vec::new();
    for sub in ["conformance", "realistic"] {
        files_under(&root.join(sub), &mut files);
    }
    files.retain(|f| f.extension().is_some_and(|e| e == "pgn"));
    assert!(!files.is_empty(), "no PGN files under {}", root.display());
    let mut matched = 0;
    for file in &files {
        for query in [CHECK_WITH_COMMENT, SORT_BY_MATERIAL] {
            let (_, t) = same_output_on_one_and_two_threads(file, query);
            assert_eq!(t.read, t.matched + t.unmatched + t.skipped, "{}: {t:?}", file.display());
            matched += t.matched;
        }
    }
    assert!(matched > 1000, "the queries should match many games, matched {matched}");
}

#[test]
fn check_over_every_shared_file_never_panics_and_adds_up() {
    let Some(root) = shared_corpus() else { return };
    let mut files = Vec::new();
    files_under(&root, &mut files);
    let with_bench = std::env::var_os("CQLRS_BENCH_CORPUS").is_some();
    files.retain(|f| with_bench || !f.starts_with(root.join("bench")));
    assert!(files.len() > 100, "expected the whole corpus, found {} files", files.len());
    let mut games = 0;
    for file in &files {
        let path = file.to_str().unwrap();
        let o = cqlrs(&["-i", path, "-cql", "check", "--count", "--threads", "2"]);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{path}: {err}");
        let code = o.status.code();
        assert!(matches!(code, Some(0..=2)), "{path}: exit {code:?}: {err}");
        if code == Some(2) {
            continue; // an input error, reported on stderr
        }
        let t = tally(&err).unwrap_or_else(|| panic!("{path}: no summary line: {err}"));
        assert_eq!(t.read, t.matched + t.unmatched + t.skipped, "{path}: {t:?}");
        let counted: u64 = String::from_utf8_lossy(&o.stdout).trim().parse().expect("--count prints a number");
        assert_eq!(counted, t.matched, "{path}");
        // A completed run exits 0, with or without a match (as CQL 6.2).
        assert_eq!(code, Some(0), "{path}: exit {code:?} with {t:?}");
        games += t.read;
    }
    assert!(games > 5000, "read only {games} games");
}

#[test]
fn stdin_gives_the_same_games_as_the_file() {
    let sample = bundled_sample();
    let path = sample.to_str().unwrap();
    let bytes = std::fs::read(&sample).unwrap();
    let from_file = cqlrs(&["-i", path, "-cql", CHECK_WITH_COMMENT, "-o", "-", "--threads", "2"]);
    let dash = cqlrs_stdin(&["-i", "-", "-cql", CHECK_WITH_COMMENT, "-o", "-", "--threads", "2"], &bytes);
    // Standard input is read only when asked (`-i -`), as CQL 6.2 reads it.
    let implicit = cqlrs_stdin(&["-cql", CHECK_WITH_COMMENT, "-o", "-", "--threads", "2"], &bytes);
    assert!(!from_file.stdout.is_empty());
    assert_eq!(dash.stdout, from_file.stdout, "{}", stderr(&dash));
    assert_eq!(implicit.status.code(), Some(2), "{}", stderr(&implicit));
    assert!(implicit.stdout.is_empty() && stderr(&implicit).contains("no input"), "{}", stderr(&implicit));
    assert_eq!(tally(&stderr(&dash)), tally(&stderr(&from_file)));
    // Compressed input on stdin is recognised by its magic bytes too.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bytes).unwrap();
    let piped = cqlrs_stdin(&["-i", "-", "-cql", CHECK_WITH_COMMENT, "-o", "-"], &gz.finish().unwrap());
    assert_eq!(piped.stdout, from_file.stdout, "{}", stderr(&piped));
    // Empty standard input: no games, no match, no error (status 0, as CQL 6.2).
    let empty = cqlrs_stdin(&["-i", "-", "-cql", "check", "--count"], b"");
    assert_eq!(empty.status.code(), Some(0), "{}", stderr(&empty));
    assert_eq!(tally(&stderr(&empty)), Some(Tally { matched: 0, read: 0, unmatched: 0, skipped: 0 }));
}

#[test]
fn compressed_inputs_give_the_same_games() {
    let dir = temp_dir("compressed");
    let sample = bundled_sample();
    let bytes = std::fs::read(&sample).unwrap();
    let half = bytes.len() / 2;
    let mut copies: Vec<(String, Vec<u8>)> = Vec::new();

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).unwrap();
    copies.push(("sample.pgn.gz".into(), gz.finish().unwrap()));
    // Two gzip members, cut in the middle of a game, as `cat a.gz b.gz` makes.
    let mut members = Vec::new();
    for part in [&bytes[..half], &bytes[half..]] {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(part).unwrap();
        members.extend(gz.finish().unwrap());
    }
    copies.push(("members.pgn.gz".into(), members));
    copies.push(("sample.pgn.zst".into(), zstd::encode_all(&bytes[..], 3).unwrap()));
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&bytes).unwrap();
    copies.push(("sample.pgn.bz2".into(), bz.finish().unwrap()));
    // Two bzip2 streams concatenated (as pbzip2 writes).
    let mut streams = Vec::new();
    for part in [&bytes[..half], &bytes[half..]] {
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        bz.write_all(part).unwrap();
        streams.extend(bz.finish().unwrap());
    }
    copies.push(("streams.pgn.bz2".into(), streams));
    // The extension does not matter: the magic bytes do.
    copies.push(("misnamed.pgn".into(), zstd::encode_all(&bytes[..], 1).unwrap()));

    let plain = cqlrs(&["-i", sample.to_str().unwrap(), "-cql", CHECK_WITH_COMMENT, "-o", "-"]);
    let plain_tally = tally(&stderr(&plain)).unwrap();
    assert_eq!(plain_tally.read, 298);
    for (name, data) in &copies {
        let path = dir.join(name);
        std::fs::write(&path, data).unwrap();
        let o = cqlrs(&["-i", path.to_str().unwrap(), "-cql", CHECK_WITH_COMMENT, "-o", "-"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert_eq!(tally(&stderr(&o)), Some(plain_tally), "{name}");
        assert!(o.stdout == plain.stdout, "{name}: output differs from the plain file");
    }
    // A truncated compressed file is an input error (exit 2), not a crash; the games
    // before the damage are still scanned.
    let gz = &copies[0].1;
    let cut = dir.join("truncated.pgn.gz");
    std::fs::write(&cut, &gz[..gz.len() / 2]).unwrap();
    let o = cqlrs(&["-i", cut.to_str().unwrap(), "-cql", "check", "--count"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let t = tally(&stderr(&o)).expect("a summary even after an input error");
    assert!(t.read > 10 && t.read < 298, "{t:?}");
}

/// Four games; game 2 has a Latin-1 player name and comment, game 3 gives check.
fn encoding_games() -> Vec<u8> {
    let mut text: Vec<u8> = Vec::new();
    text.extend_from_slice(b"[Event \"One\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n");
    text.extend_from_slice(
        b"[Event \"Two\"]\n[White \"M\xfcller\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. d4 {Sch\xf6n} d5 2. c4 *\n\n",
    );
    text.extend_from_slice(
        b"[Event \"Three\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"*\"]\n\n1. e4 d5 2. Bb5+ c6 *\n\n",
    );
    text.extend_from_slice(b"[Event \"Four\"]\n[White \"E\"]\n[Black \"F\"]\n[Result \"*\"]\n\n1. Nf3 Nf6 *\n");
    text
}

#[test]
fn bom_crlf_and_latin1_read_like_plain_text() {
    let dir = temp_dir("encodings");
    let plain = encoding_games();
    let crlf: Vec<u8> = plain.iter().flat_map(|&b| if b == b'\n' { vec![b'\r', b'\n'] } else { vec![b] }).collect();
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(&crlf);
    let mut outputs = Vec::new();
    for (name, data) in [("plain.pgn", &plain), ("crlf.pgn", &crlf), ("bom-crlf.pgn", &bom)] {
        let path = dir.join(name);
        std::fs::write(&path, data).unwrap();
        let path = path.to_str().unwrap();
        let numbers = cqlrs(&["-i", path, "-cql", "check", "--numbers"]);
        assert_eq!(String::from_utf8_lossy(&numbers.stdout), "1\n3\n", "{name}: {}", stderr(&numbers));
        assert_eq!(tally(&stderr(&numbers)), Some(Tally { matched: 2, read: 4, unmatched: 2, skipped: 0 }), "{name}");
        let all = cqlrs(&["-i", path, "-cql", "ply >= 0", "-o", "-"]);
        assert_eq!(all.status.code(), Some(0), "{name}: {}", stderr(&all));
        outputs.push((name, all.stdout));
    }
    let text = &outputs[0].1;
    // The game is read as Latin-1 (Windows-1252): its tag and its comment are written as
    // UTF-8, so the output is in one encoding.
    assert!(String::from_utf8_lossy(text).contains("[White \"M\u{fc}ller\"]"), "{}", String::from_utf8_lossy(text));
    assert!(std::str::from_utf8(text).is_ok(), "the output is not UTF-8");
    assert!(String::from_utf8_lossy(text).contains("{Sch\u{f6}n}"), "{}", String::from_utf8_lossy(text));
    for (name, out) in &outputs[1..] {
        assert!(out == text, "{name}: output differs from the LF file:\n{}", String::from_utf8_lossy(out));
    }
}
