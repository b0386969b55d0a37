//! The persistent index (`cqlrs index`, `-i NAME.cqlx`, docs/index.md): answers read from
//! an index equal answers read from its sources byte for byte, in every output mode; a
//! cut, damaged or foreign index and a changed source are refused with exit status 2;
//! `--update` adds a file; the pruning condition passes over games without losing one.
//!
//! Self-contained: the games are the bundled ones in data/ and small files written here.

use std::path::Path;
use std::process::Output;

mod common;
use common::{cqlrs, stderr, stdout, temp_dir, write};

const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/lichess-2017-05-sample.pgn");

/// Build an index of `inputs` at `out`; the run must succeed.
fn build(out: &Path, inputs: &[&str]) {
    let mut args = vec!["index", "-o", out.to_str().unwrap(), "--quiet-stderr"];
    args.extend_from_slice(inputs);
    let o = cqlrs(&args);
    assert_eq!(o.status.code(), Some(0), "index build failed: {}", stderr(&o));
    assert!(out.exists());
}

/// The summary on stderr without its timing (`in 0.01 s`).
fn untimed(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .split(" in ")
        .map(|part| part.split_once(" s").map_or(part.to_string(), |(_, rest)| rest.to_string()))
        .collect::<Vec<_>>()
        .join(" in ")
}

/// Run `args` once over `source` and once over `index`; both runs must give the same
/// status, the same output bytes, and the same summary.
fn same(source: &str, index: &str, args: &[&str]) -> Output {
    let a = cqlrs(&[&["-i", source], args].concat());
    let b = cqlrs(&[&["-i", index], args].concat());
    assert_eq!(a.status.code(), b.status.code(), "{args:?}: {}", stderr(&b));
    assert_eq!(a.stdout, b.stdout, "{args:?}: the index answers differently");
    assert_eq!(untimed(&stderr(&a)), untimed(&stderr(&b)), "{args:?}");
    b
}

#[test]
fn index_answers_equal_source_answers_in_every_output_mode() {
    let dir = temp_dir("modes");
    let ix = dir.join("g.cqlx");
    build(&ix, &[GAMES]);
    let ix = ix.to_str().unwrap();
    let queries = [
        "mate",
        "btm mate ♘→♚",
        "flipcolor { ♖ == 1 ♝ == 1 #(♕∪♗∪♘∪♛∪♜∪♞) == 0 }",
        "move previous promote N or move previous promote B",
        "o-o-o",
        "stalemate",
        "result 1-0 check",
        "player white \"a\"",
        "Q == 0 q == 0 mate",
        "not mate",
        "mate sort \"plies\" ply",
        "countmoves --(castle) == 0",
        // Header-only: decided by the tag columns (numbers and counts unread).
        "result 1-0",
        "elo white > 1700 result 0-1",
        "player black \"a\" or event \"Blitz\"",
        "year >= 2017 player white \"e\"",
    ];
    let mut some_match = 0;
    for q in queries {
        for mode in [&["-o", "-"][..], &["--numbers"], &["--json"], &["--count"], &["--json-pgn"]] {
            let out = same(GAMES, ix, &[mode, &["--cql", q]].concat());
            if mode == ["--numbers"] && !out.stdout.is_empty() {
                some_match += 1;
            }
        }
    }
    assert!(some_match >= 6, "the queries should find games: {some_match}");
    // `-gamenumber`, `--limit` and the gallery scripts.
    same(GAMES, ix, &["--numbers", "--cql", "mate", "-gamenumber", "100", "900"]);
    same(GAMES, ix, &["-o", "-", "--limit", "3", "--cql", "check"]);
    // A shard of an index is the shard of its sources (scanned).
    for k in ["1/2", "2/2"] {
        same(GAMES, ix, &["--numbers", "--shard", k, "--cql", "player white \"a\""]);
        same(GAMES, ix, &["-o", "-", "--shard", k, "--cql", "mate"]);
    }
    for mode in [&["--numbers"][..], &["--count"], &["-o", "-"]] {
        same(GAMES, ix, &[mode, &["--cql", "player white \"a\"", "-gamenumber", "50", "400"]].concat());
        same(GAMES, ix, &[mode, &["--limit", "7", "--cql", "result 0-1"]].concat());
        same(GAMES, ix, &[mode, &["--cql", "mate", "-gamenumber", "300", "700"]].concat());
    }
    for script in ["smothered-mate", "back-rank-mate", "underpromotion", "lucena", "rook-vs-bishop", "knight-fork"] {
        let path = format!("{}/examples/cql/{script}.cql", env!("CARGO_MANIFEST_DIR"));
        same(GAMES, ix, &["-o", "-", &path]);
    }
}

#[test]
fn unreadable_games_are_read_again_and_reported_alike() {
    let dir = temp_dir("damaged");
    let text = "[Event \"ok\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
                [Event \"bad fen\"]\n[FEN \"no position\"]\n\n1. e4 *\n\n\
                [Event \"bad move\"]\n\n1. e4 Ke7 2. d4 *\n\n\
                [Event \"quiet\"]\n\n1. d4 d5 *\n\n";
    let pgn = write(&dir, "d.pgn", text);
    let ix = dir.join("d.cqlx");
    build(&ix, &[pgn.to_str().unwrap()]);
    let (pgn, ix) = (pgn.to_str().unwrap(), ix.to_str().unwrap());
    let rejects_a = dir.join("ra.pgn");
    let rejects_b = dir.join("rb.pgn");
    let a = cqlrs(&["-i", pgn, "--numbers", "--rejects", rejects_a.to_str().unwrap(), "--cql", "mate"]);
    let b = cqlrs(&["-i", ix, "--numbers", "--rejects", rejects_b.to_str().unwrap(), "--cql", "mate"]);
    assert_eq!(stdout(&a), "1\n");
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(untimed(&stderr(&a)), untimed(&stderr(&b)));
    assert!(stderr(&b).contains("invalid FEN"), "{}", stderr(&b));
    let ra = std::fs::read(&rejects_a).unwrap();
    assert!(!ra.is_empty());
    assert_eq!(ra, std::fs::read(&rejects_b).unwrap());
}

#[test]
fn a_changed_or_missing_source_is_refused_and_named() {
    let dir = temp_dir("changed");
    let text = std::fs::read_to_string(GAMES).unwrap();
    let pgn = write(&dir, "c.pgn", &text);
    let ix = dir.join("c.cqlx");
    build(&ix, &[pgn.to_str().unwrap()]);
    let ix = ix.to_str().unwrap();
    assert_eq!(cqlrs(&["-i", ix, "--count", "--cql", "mate"]).status.code(), Some(0));
    // Same size, one byte changed, modification time moved: refused before reading.
    let mut bytes = text.into_bytes();
    let k = bytes.iter().rposition(|&b| b == b'e').unwrap();
    bytes[k] = b'f';
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&pgn, &bytes).unwrap();
    let o = cqlrs(&["-i", ix, "--count", "--cql", "mate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("c.pgn") && stderr(&o).contains("changed"), "{}", stderr(&o));
    assert!(stderr(&o).contains("cqlrs index"), "a rebuild hint: {}", stderr(&o));
    assert!(o.stdout.is_empty());
    std::fs::remove_file(&pgn).unwrap();
    let o = cqlrs(&["-i", ix, "--count", "--cql", "mate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("c.pgn"), "{}", stderr(&o));
}

#[test]
fn a_cut_damaged_or_foreign_index_is_refused_with_a_rebuild_hint() {
    let dir = temp_dir("damaged-index");
    let ix = dir.join("g.cqlx");
    build(&ix, &[GAMES]);
    let good = std::fs::read(&ix).unwrap();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("cut", good[..good.len() / 2].to_vec()),
        ("cut header", good[..10].to_vec()),
        ("empty", Vec::new()),
        ("not an index", b"[Event \"x\"]\n\n1. e4 *\n".to_vec()),
    ];
    let mut flipped = good.clone();
    let k = flipped.len() - 100;
    flipped[k] ^= 0x20;
    cases.push(("flipped byte", flipped));
    let mut version = good.clone();
    version[8] = 99;
    cases.push(("other version", version));
    let mut longer = good.clone();
    longer.extend_from_slice(b"more");
    cases.push(("trailing bytes", longer));
    for (what, bytes) in cases {
        let bad = write(&dir, "bad.cqlx", &bytes);
        let o = cqlrs(&["-i", bad.to_str().unwrap(), "--count", "--cql", "mate"]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        let message = stderr(&o);
        assert!(message.contains("bad.cqlx"), "{what}: {message}");
        assert!(message.contains("cqlrs index -o"), "{what}: a rebuild hint: {message}");
        assert!(!message.contains("panicked"), "{what}: {message}");
    }
}

#[test]
fn update_adds_a_file_and_numbers_its_games_after_the_indexed_ones() {
    let dir = temp_dir("update");
    let first = write(&dir, "a.pgn", std::fs::read(GAMES).unwrap());
    let other = concat!(env!("CARGO_MANIFEST_DIR"), "/data/lichess-2016-05-first1500.pgn");
    // The second file compressed, as monthly dumps come.
    let gz = dir.join("b.pgn.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, &std::fs::read(other).unwrap()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let ix = dir.join("u.cqlx");
    build(&ix, &[first.to_str().unwrap()]);
    let o = cqlrs(&["index", "--update", ix.to_str().unwrap(), gz.to_str().unwrap(), "--quiet-stderr"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let both = cqlrs(&["-i", first.to_str().unwrap(), "-i", gz.to_str().unwrap(), "--numbers", "--cql", "mate Q == 0"]);
    let from_index = cqlrs(&["-i", ix.to_str().unwrap(), "--numbers", "--cql", "mate Q == 0"]);
    assert!(!both.stdout.is_empty());
    assert_eq!(both.stdout, from_index.stdout);
    // A file already indexed is refused.
    let again = cqlrs(&["index", "--update", ix.to_str().unwrap(), gz.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
}

#[test]
fn the_condition_passes_over_games_and_never_one_the_scan_matches() {
    use cqlrs::index::{prune, Index};
    let dir = temp_dir("prune");
    let ix = dir.join("g.cqlx");
    build(&ix, &[GAMES]);
    let index = Index::open(ix.to_str().unwrap()).unwrap();
    let records = index.records().unwrap();
    assert_eq!(records.len() as u64, index.games);
    // Facts read back agree with a fresh replay of the same game.
    let text = std::fs::read(GAMES).unwrap();
    let r = &records[10];
    let raw = &text[r.offset as usize..(r.offset + r.len) as usize];
    assert!(raw.starts_with(b"["), "the location points at the game's first tag");
    let queries =
        [("mate", 2), ("flipcolor { btm mate ♘→♚ }", 4), ("move previous promote R", 5), ("result 1/2-1/2", 3)];
    for (q, least) in queries {
        let query = cqlrs::Query::compile(q, &mut cqlrs::CompileOptions::new(cqlrs::Syntax::Cql6)).unwrap();
        let plan = prune::plan(&query).expect("a query without effects may be pruned");
        let config = cqlrs::scan::ScanConfig::new();
        let (_, selection) = index.feed(&query, &config, &cqlrs::output::Format::Numbers).unwrap().expect("a feed");
        assert!(
            selection.candidates * least <= selection.games,
            "{q}: {} of {} games read ({plan:?})",
            selection.candidates,
            selection.games
        );
    }
    // Effects seen on unmatched games: nothing is pruned.
    for q in ["message(\"x\") mate", "persistent Total = 1 mate"] {
        let query = cqlrs::Query::compile(q, &mut cqlrs::CompileOptions::new(cqlrs::Syntax::Cql6)).unwrap();
        assert!(prune::plan(&query).is_none(), "{q}");
    }
}

#[test]
fn header_only_answers_decide_games_by_their_tags_and_read_only_what_is_written() {
    // Termination markers inside the moves, unreadable and partly read games among
    // header-only matches: every mode answers as the scan does.
    let dir = temp_dir("header-only");
    let text = "[Event \"a\"]\n[White \"Ann\"]\n[Result \"1-0\"]\n\n1. e4 0-1 e5 1-0\n\n\
                [Event \"b\"]\n[White \"Ann\"]\n\n1. e4 e5 *\n\n\
                [Event \"c\"]\n[White \"Bob\"]\n[Result \"0-1\"]\n\n1. e4 {1-0} 0-1\n\n\
                [Event \"d\"]\n[White \"Ann\"]\n[FEN \"no position\"]\n\n1. e4 *\n\n\
                [Event \"e\"]\n[White \"Ann\"]\n[Result \"1-0\"]\n\n1. e4 Ke7 2. d4 1-0\n\n\
                [Event \"f\"]\n[White \"Ann (2400)\"]\n[WhiteElo \"2100\"]\n\n1. d4 d5 1/2-1/2\n\n";
    let pgn = write(&dir, "h.pgn", text);
    let ix = dir.join("h.cqlx");
    build(&ix, &[pgn.to_str().unwrap()]);
    let (pgn_s, ix_s) = (pgn.to_str().unwrap(), ix.to_str().unwrap());
    for q in
        ["result 1-0", "result 0-1", "result 1/2-1/2", "player white \"Ann\"", "elo white > 2200", "not result 1-0"]
    {
        for mode in [&["-o", "-"][..], &["--numbers"], &["--count"], &["--json"]] {
            same(pgn_s, ix_s, &[mode, &["--cql", q]].concat());
        }
    }
    // What a header-only count decides is not read: a source whose bytes changed (its
    // size and time kept) still answers `--count` and `--numbers`, while writing the
    // matches reads them and finds the change.
    let big = write(&dir, "big.pgn", std::fs::read(GAMES).unwrap());
    let big_ix = dir.join("big.cqlx");
    build(&big_ix, &[big.to_str().unwrap()]);
    let (big_s, big_ix_s) = (big.to_str().unwrap(), big_ix.to_str().unwrap());
    let q = "player white \"a\"";
    let before = cqlrs(&["-i", big_ix_s, "--numbers", "--cql", q]);
    assert_eq!(before.status.code(), Some(0), "{}", stderr(&before));
    let mut bytes = std::fs::read(&big).unwrap();
    let modified = std::fs::metadata(&big).unwrap().modified().unwrap();
    // Change a move of every game (the tags stay), keeping the size.
    for k in 0..bytes.len() - 3 {
        if &bytes[k..k + 3] == b"1. " {
            bytes[k] = b'2';
        }
    }
    std::fs::write(&big, &bytes).unwrap();
    std::fs::File::options().write(true).open(&big).unwrap().set_modified(modified).unwrap();
    let after = cqlrs(&["-i", big_ix_s, "--numbers", "--cql", q]);
    assert_eq!(after.status.code(), Some(0), "{}", stderr(&after));
    assert_eq!(before.stdout, after.stdout, "numbers are answered from the index alone");
    let count = cqlrs(&["-i", big_ix_s, "--count", "--cql", q]);
    assert_eq!(count.status.code(), Some(0), "{}", stderr(&count));
    let written = cqlrs(&["-i", big_ix_s, "-o", "-", "--cql", q]);
    assert_eq!(written.status.code(), Some(2), "writing the games reads them: {}", stderr(&written));
    assert!(stderr(&written).contains("big.pgn") && stderr(&written).contains("changed"), "{}", stderr(&written));
    let _ = big_s;
}

#[test]
fn a_damaged_tag_column_is_refused_when_a_query_reads_it() {
    let dir = temp_dir("damaged-column");
    let ix = dir.join("g.cqlx");
    build(&ix, &[GAMES]);
    let good = std::fs::read(&ix).unwrap();
    // Flip one byte in each region of the file in turn: every header-only query that
    // reads a damaged section is refused; none panics or answers differently.
    let scan = cqlrs(&["-i", GAMES, "--numbers", "--cql", "player white \"a\""]);
    let mut refused = 0;
    for k in (40..good.len()).step_by(good.len() / 50) {
        let mut bad = good.clone();
        bad[k] ^= 0x11;
        let path = write(&dir, "bad.cqlx", &bad);
        let o = cqlrs(&["-i", path.to_str().unwrap(), "--numbers", "--cql", "player white \"a\""]);
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
        match o.status.code() {
            Some(2) => {
                refused += 1;
                assert!(stderr(&o).contains("cqlrs index -o"), "a rebuild hint: {}", stderr(&o));
            }
            _ => assert_eq!(o.stdout, scan.stdout, "byte {k}: an unread section may be damaged, not a read one"),
        }
    }
    assert!(refused > 0);
}
