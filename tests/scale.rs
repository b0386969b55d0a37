//! Archive scale: shards own every game exactly once, JSON locators find games again,
//! merged shard output equals a single run byte for byte, and the JSON records follow
//! docs/schema/record.schema.json.
//!
//! The property test reads every PGN corpus file under ../shared/corpus (skipping the
//! compressed bench file, which is one shard by design and is covered by a small gzip
//! file here); it is skipped with a note when ../shared is absent.

use std::path::Path;
use std::process::Output;

mod common;
use common::{cqlrs, temp_dir};

use cqlrs::input::shard::{self, ByteRange};
use cqlrs::input::{Games, RawGame, Source};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Every game of `paths` read by one pass: (number, file, offset, file ordinal, bytes).
type Key = (u64, String, u64, u64, Vec<u8>);

fn key(g: RawGame) -> Key {
    (g.number, g.file.to_string(), g.offset, g.file_number, g.bytes)
}

fn single_pass(paths: &[String]) -> Vec<Key> {
    Games::new(paths.to_vec()).filter_map(Result::ok).map(key).collect()
}

/// The games one byte range reads, numbered as the shard numbers them (counting the
/// games before it).
fn shard_games(files: &[shard::InputFile], range: ByteRange) -> Vec<Key> {
    let plan = shard::plan(files, range).expect("plan");
    let (before, file_before, lines) = shard::count_before(files, &plan).expect("count");
    let mut sources: Vec<Source> = plan.parts.iter().map(|p| p.source.clone()).collect();
    if let Some(first) = sources.first_mut() {
        first.games_before = file_before;
        first.lines_before = lines;
    }
    Games::from_sources(sources, before + 1).filter_map(Result::ok).map(key).collect()
}

/// Ranges cut at `cuts` (sorted, deduplicated, inside `0..total`).
fn ranges(mut cuts: Vec<u64>, total: u64) -> Vec<ByteRange> {
    cuts.retain(|&c| c > 0 && c < total);
    cuts.sort_unstable();
    cuts.dedup();
    let mut bounds = vec![0];
    bounds.extend(cuts);
    bounds.push(total);
    bounds.windows(2).map(|w| ByteRange { start: w[0], end: w[1] }).collect()
}

/// Every PGN file of the shared corpus (`None`, said on the terminal, when the shared
/// folder is missing; a failure under `CI=true`).
fn corpus_files() -> Option<Vec<String>> {
    let root = common::shared::shared_path("corpus")?;
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let name = p.file_name().unwrap().to_string_lossy().to_lowercase();
            let text_doc = name.ends_with(".md") || name.ends_with(".txt");
            if !text_doc && !name.ends_with(".zst") {
                out.push(p.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    Some(out)
}

/// Check that the shards given by `cuts` (and by `n` equal shards) read every game of
/// `paths` exactly once, with single-run numbers, offsets and bytes.
fn check_union(paths: &[String], reference: &[Key], cuts: Vec<u64>, n: u64) -> Result<(), TestCaseError> {
    let files = shard::inspect(paths).expect("inspect");
    let total: u64 = files.iter().map(|f| f.len).sum();
    let equal: Vec<ByteRange> = (1..=n).map(|k| ByteRange::shard(k, n, total)).collect();
    for split in [ranges(cuts, total), equal] {
        let union: Vec<Key> = split.iter().flat_map(|r| shard_games(&files, *r)).collect();
        prop_assert_eq!(union.len(), reference.len(), "game count over {:?} with {:?}", paths, split);
        prop_assert!(union == reference, "games differ over {:?} with {:?}", paths, split);
    }
    Ok(())
}

#[test]
fn shards_read_every_corpus_game_exactly_once() {
    let Some(files) = corpus_files() else { return };
    assert!(!files.is_empty(), "the shared corpus holds no PGN file");
    let mut cases = 0u64;
    let mut games = 0usize;
    for path in &files {
        let paths = vec![path.clone()];
        let reference = single_pass(&paths);
        games += reference.len();
        // Every locator points at the game's bytes in the file.
        let bytes = std::fs::read(path).unwrap();
        for (_, _, offset, _, game) in &reference {
            let at = *offset as usize;
            assert_eq!(&bytes[at..at + game.len()], &game[..], "{path} @{offset}");
        }
        let len = bytes.len() as u64;
        let per_file = if len > 200_000 { 16 } else { 6 };
        let mut runner = TestRunner::new(Config { cases: per_file, failure_persistence: None, ..Config::default() });
        let strategy = (proptest::collection::vec(0..=len, 0..12), 1u64..10);
        runner
            .run(&strategy, |(cuts, n)| {
                check_union(&paths, &reference, cuts, n)?;
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        cases += per_file as u64;
    }
    // Several files in a row: ranges cross file boundaries.
    let mut several: Vec<String> = files.iter().filter(|f| f.contains("/conformance/")).cloned().collect();
    several.extend(files.iter().filter(|f| f.contains("/edge/")).take(40).cloned());
    let reference = single_pass(&several);
    let total: u64 = several.iter().map(|p| std::fs::metadata(p).unwrap().len()).sum();
    let mut runner = TestRunner::new(Config { cases: 24, failure_persistence: None, ..Config::default() });
    runner
        .run(&(proptest::collection::vec(0..=total, 0..20), 1u64..16), |(cuts, n)| {
            check_union(&several, &reference, cuts, n)
        })
        .unwrap();
    cases += 24;
    eprintln!("shard property: {} files, {games} games, {cases} cases", files.len());
    assert!(games > 1000);
}

/// Lines that make game boundaries hard: blank lines inside tag sections, header-only
/// games, unterminated comments, escape lines, tags glued to movetext, a byte-order
/// mark, NUL bytes, CRLF, a tag whose quote never closes.
const FRAGMENTS: &[&[u8]] = &[
    b"[Event \"x\"]\n",
    b"[Site \"y\"]\n",
    b"[Event \"x\"]\r\n",
    b"\n",
    b"\r\n",
    b"\n\n",
    b"1. e4 e5 *\n",
    b"2. Nf3 Nc6 1-0\r\n",
    b"1. e4 {open comment\n",
    b"} closed\n",
    b"%escape line\n",
    b"; rest of line {\n",
    b"  [Event \"indented\"]\n",
    b"[Broken \"no close\n",
    b"\xef\xbb\xbf[Event \"bom\"]\n",
    b"\0\n",
    b"[Event \"a\"] 1. d4 *\n",
    b"{[Event \"in a comment\"]}\n",
    b"1. d4",
];

#[test]
fn shards_read_every_game_of_hostile_input_exactly_once() {
    let dir = temp_dir("hostile");
    let path = dir.join("hostile.pgn").to_string_lossy().into_owned();
    let paths = vec![path.clone()];
    let mut runner = TestRunner::new(Config { cases: 1000, failure_persistence: None, ..Config::default() });
    let strategy =
        (proptest::collection::vec(0..FRAGMENTS.len(), 1..80), proptest::collection::vec(any::<u16>(), 0..10), 1u64..8);
    runner
        .run(&strategy, |(pieces, cuts, n)| {
            let text: Vec<u8> = pieces.iter().flat_map(|&i| FRAGMENTS[i].iter().copied()).collect();
            std::fs::write(&path, &text).unwrap();
            let reference = single_pass(&paths);
            let len = text.len() as u64;
            let cuts = cuts.into_iter().map(|c| c as u64 % (len + 1)).collect();
            check_union(&paths, &reference, cuts, n)
        })
        .unwrap();
}

/// Games with tricky boundaries: a header-only game, tags right after movetext, an
/// unterminated comment, a `%` escape line, CRLF.
fn tricky_corpus(dir: &Path, games: usize) -> String {
    let mut text = String::new();
    for i in 1..=games {
        text.push_str(&format!("[Event \"T{i}\"]\n[White \"W{}\"]\n[Result \"*\"]\n\n", i % 7));
        match i % 9 {
            0 => text.push_str("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# *\n"),
            1 => text.push_str("1. f3 e5 2. g4 Qh4# *\n[Event \"glued\"]\n1. d4 *\n"),
            2 => text.push_str("1. e4 {never closed\n\n"),
            3 => text.push_str("%escape line\r\n1. d4 d5 2. c4 *\r\n\r\n"),
            4 => {} // header only
            _ => text.push_str("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n"),
        }
        text.push('\n');
    }
    let path = dir.join("tricky.pgn");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect()
}

/// The two numbers `--games-before` / `--file-games-before` need for each of `n` shards,
/// from `--count-games` runs (what examples/spark does).
fn numbering(input: &[&str], n: u64) -> Vec<(u64, u64)> {
    let counts: Vec<serde_json::Value> = (1..=n)
        .map(|k| {
            let shard = format!("{k}/{n}");
            let mut args = vec!["--count-games", "--shard", &shard];
            args.extend_from_slice(input);
            json_lines(&cqlrs(&args)).remove(0)
        })
        .collect();
    let mut out = Vec::new();
    for (k, c) in counts.iter().enumerate() {
        let before: u64 = counts[..k].iter().map(|c| c["games"].as_u64().unwrap()).sum();
        let first = c["files"].get(0).map(|f| f["index"].as_u64().unwrap());
        let in_file: u64 = counts[..k]
            .iter()
            .flat_map(|c| c["files"].as_array().unwrap().iter())
            .filter(|f| Some(f["index"].as_u64().unwrap()) == first)
            .map(|f| f["games"].as_u64().unwrap())
            .sum();
        out.push((before, in_file));
    }
    out
}

#[test]
fn merged_shards_equal_a_single_run_byte_for_byte() {
    let dir = temp_dir("merge");
    let a = tricky_corpus(&dir, 120);
    let b = dir.join("second.pgn").to_string_lossy().into_owned();
    std::fs::copy(&a, &b).unwrap();
    let input = ["-i", a.as_str(), "-i", b.as_str()];
    for query in ["cql() mate", "cql() check sort \"moves\" movenumber"] {
        let single = dir.join("single.pgn").to_string_lossy().into_owned();
        let mut args = vec!["--cql", query, "-o", single.as_str()];
        args.extend_from_slice(&input);
        let o = cqlrs(&args);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let expected = std::fs::read(&single).unwrap();
        assert!(!expected.is_empty());
        for n in [1u64, 3, 7] {
            let mut records = Vec::new();
            for (k, (before, in_file)) in numbering(&input, n).into_iter().enumerate() {
                let (shard, before, in_file) = (format!("{}/{n}", k + 1), before.to_string(), in_file.to_string());
                let mut args = vec!["--cql", query, "--json-pgn", "--exit-zero", "--shard", &shard];
                args.extend_from_slice(&["--games-before", &before, "--file-games-before", &in_file]);
                args.extend_from_slice(&input);
                let o = cqlrs(&args);
                assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
                records.extend(json_lines(&o));
            }
            // Merge: sort key first (descending unless ascending), then game number.
            let key = |r: &serde_json::Value| {
                let sk: Vec<i64> = r["sort_key"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| if p[1].as_bool().unwrap() { p[0].as_i64().unwrap() } else { -p[0].as_i64().unwrap() })
                    .collect();
                (sk, r["number"].as_u64().unwrap())
            };
            records.sort_by_key(key);
            let merged: String = records.iter().map(|r| r["pgn"].as_str().unwrap()).collect();
            assert_eq!(merged.as_bytes(), &expected[..], "{query} with {n} shards");
        }
    }
}

#[test]
fn shards_number_games_without_being_told() {
    let dir = temp_dir("count");
    let a = tricky_corpus(&dir, 60);
    let all = cqlrs(&["--cql", "cql() mate", "--numbers", "-i", &a]);
    let mut numbers = String::new();
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let o = cqlrs(&["--cql", "cql() mate", "--numbers", "--exit-zero", "--shard", &shard, "-i", &a]);
        assert_eq!(o.status.code(), Some(0));
        numbers.push_str(&String::from_utf8_lossy(&o.stdout));
    }
    assert!(!all.stdout.is_empty());
    assert_eq!(numbers.as_bytes(), &all.stdout[..]);
    // Explicit byte ranges, as an engine with its own splits hands them out.
    let len = std::fs::metadata(&a).unwrap().len();
    let cuts = [0, 1, len / 3, len / 3 + 7, len - 1];
    let mut numbers = String::new();
    for (i, start) in cuts.iter().enumerate() {
        let range = match cuts.get(i + 1) {
            Some(end) => format!("{start}-{end}"),
            None => format!("{start}-"),
        };
        let o = cqlrs(&["--cql", "cql() mate", "--numbers", "--exit-zero", "--byte-range", &range, "-i", &a]);
        numbers.push_str(&String::from_utf8_lossy(&o.stdout));
    }
    assert_eq!(numbers.as_bytes(), &all.stdout[..]);
}

#[test]
fn locators_fetch_games_back() {
    let dir = temp_dir("extract");
    let a = tricky_corpus(&dir, 30);
    let bytes = std::fs::read(&a).unwrap();
    let o = cqlrs(&["--cql", "cql() check", "--json", "-i", &a]);
    let records = json_lines(&o);
    assert!(!records.is_empty());
    for r in &records {
        let (offset, length) = (r["offset"].as_u64().unwrap() as usize, r["length"].as_u64().unwrap() as usize);
        let target = format!("{a}@{offset}");
        let got = cqlrs(&["--extract", &target]);
        assert_eq!(got.status.code(), Some(0));
        assert_eq!(&got.stdout[..length], &bytes[offset..offset + length]);
        assert!(got.stdout[..length].starts_with(b"[Event"));
        assert_eq!(r["file_number"], r["number"]);
    }
    let bad = format!("{a}@3");
    assert_eq!(cqlrs(&["--extract", &bad]).status.code(), Some(2));
}

#[test]
fn compressed_input_is_one_shard() {
    use std::io::Write;
    let dir = temp_dir("gz");
    let a = tricky_corpus(&dir, 40);
    let gz = dir.join("t.pgn.gz").to_string_lossy().into_owned();
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::fast());
    enc.write_all(&std::fs::read(&a).unwrap()).unwrap();
    enc.finish().unwrap();
    let all = cqlrs(&["--cql", "cql() mate", "--numbers", "-i", &gz]);
    let first = cqlrs(&["--cql", "cql() mate", "--numbers", "--shard", "1/3", "-i", &gz]);
    assert_eq!(first.stdout, all.stdout);
    assert!(String::from_utf8_lossy(&first.stderr).contains("compressed input cannot be split"));
    for k in ["2/3", "3/3"] {
        let o = cqlrs(&["--cql", "cql() mate", "--numbers", "--exit-zero", "--shard", k, "-i", &gz]);
        assert!(o.stdout.is_empty());
        assert_eq!(o.status.code(), Some(0));
    }
    // A locator in a compressed file counts decompressed bytes.
    let r = json_lines(&cqlrs(&["--cql", "cql() mate", "--json", "-i", &gz])).remove(0);
    let target = format!("{gz}@{}", r["offset"]);
    let got = cqlrs(&["--extract", &target]);
    assert!(String::from_utf8_lossy(&got.stdout).contains(r["tags"]["Event"].as_str().unwrap()));
}

#[test]
fn exit_zero_and_summary_record() {
    let dir = temp_dir("summary");
    let a = tricky_corpus(&dir, 20);
    // No match: status 0, as CQL 6.2 (and with `--exit-zero`); 1 only with `--grep-status`.
    let none = cqlrs(&["--cql", "cql() stalemate", "--json", "-i", &a]);
    assert_eq!(none.status.code(), Some(0));
    let grep = cqlrs(&["--cql", "cql() stalemate", "--json", "--grep-status", "-i", &a]);
    assert_eq!(grep.status.code(), Some(1));
    let zero = cqlrs(&["--cql", "cql() stalemate", "--json", "--exit-zero", "--summary-json", "-i", &a]);
    assert_eq!(zero.status.code(), Some(0));
    let records = json_lines(&zero);
    assert_eq!(records.len(), 1);
    let s = &records[0];
    assert_eq!(s["record"], "summary");
    // 20 games; every ninth has a second game glued to it.
    assert_eq!(s["games"].as_u64(), Some(20 + (1..=20).filter(|i| i % 9 == 1).count() as u64));
    assert_eq!(s["matched"].as_u64(), Some(0));
    assert_eq!(s["bytes"].as_u64(), Some(std::fs::metadata(&a).unwrap().len()));
    let missing = cqlrs(&["--cql", "cql() mate", "--exit-zero", "--numbers", "-i", "/nonexistent.pgn"]);
    assert_eq!(missing.status.code(), Some(2), "a failed run is not made to succeed");
    // Without a JSON format the record goes to stderr.
    let text = cqlrs(&["--cql", "cql() mate", "--numbers", "--summary-json", "-i", &a]);
    let last = String::from_utf8_lossy(&text.stderr).lines().last().unwrap().to_string();
    let v: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(v["matched"].as_u64().unwrap(), String::from_utf8_lossy(&text.stdout).lines().count() as u64);
}

/// A small JSON Schema check: `type`, `required`, `properties`, `items`, `enum`,
/// `const`, `minimum` — the keywords docs/schema/record.schema.json uses.
fn validate(schema: &serde_json::Value, v: &serde_json::Value, at: &str) -> Result<(), String> {
    use serde_json::Value;
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let ok = options.iter().filter(|s| validate(s, v, at).is_ok()).count();
        return if ok == 1 { Ok(()) } else { Err(format!("{at}: {ok} of oneOf match {v}")) };
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let fits = |t: &str| match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            _ => false,
        };
        if !types.iter().any(|t| fits(t)) {
            return Err(format!("{at}: {v} is not {types:?}"));
        }
    }
    if let Some(c) = schema.get("const") {
        if c != v {
            return Err(format!("{at}: {v} is not {c}"));
        }
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            return Err(format!("{at}: {v} not in {e:?}"));
        }
    }
    if let (Some(min), Some(x)) = (schema.get("minimum").and_then(Value::as_f64), v.as_f64()) {
        if x < min {
            return Err(format!("{at}: {x} < {min}"));
        }
    }
    if let Some(req) = schema.get("required").and_then(Value::as_array) {
        for name in req.iter().filter_map(Value::as_str) {
            if v.get(name).is_none() {
                return Err(format!("{at}: `{name}` missing"));
            }
        }
    }
    if let (Some(props), Some(obj)) = (schema.get("properties").and_then(Value::as_object), v.as_object()) {
        for (name, sub) in props {
            if let Some(x) = obj.get(name) {
                validate(sub, x, &format!("{at}.{name}"))?;
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            validate(items, x, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

#[test]
fn records_follow_the_schema() {
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/record.schema.json");
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let dir = temp_dir("schema");
    let a = tricky_corpus(&dir, 40);
    let mut records = json_lines(&cqlrs(&[
        "--cql",
        "cql() check sort \"moves\" movenumber",
        "--json-pgn",
        "--summary-json",
        "--shard",
        "2/3",
        "-i",
        &a,
    ]));
    records.extend(json_lines(&cqlrs(&["--cql", "cql() mate", "--json", "--summary-json", "-i", &a])));
    records.extend(json_lines(&cqlrs(&["--count-games", "--shard", "1/2", "-i", &a])));
    let kinds: std::collections::BTreeSet<String> =
        records.iter().map(|r| r["record"].as_str().unwrap_or("?").to_string()).collect();
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["count", "match", "summary"]);
    for r in &records {
        validate(&schema, r, "record").unwrap_or_else(|e| panic!("{e}"));
    }
    // The checker does reject what the schema forbids.
    let mut broken = records[0].clone();
    broken.as_object_mut().unwrap().remove("number");
    broken["record"] = serde_json::json!("match");
    assert!(validate(&schema, &broken, "record").is_err());
}
