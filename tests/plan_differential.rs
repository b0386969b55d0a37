//! The evaluation plan may change how fast a query runs, never what it writes: every
//! script here is run twice, as planned and with `--no-plan` (every filter in the script's
//! own order, at every position), and the two runs must write the same PGN bytes, the same
//! query messages and the same JSON lines.
//!
//! Three sources of scripts: the gallery (`examples/cql`), the scripts of the conformance
//! suites in the shared folder, and queries made up by a generator that mixes filters that
//! decide (`check`, `mate`, `ply < 5`, placements, tags) with effects placed before and
//! after them (`message`, `comment`, `sort`, assignments, searches whose bodies have
//! effects). The generator's seed is `CQLRS_PLAN_SEED` (a fixed one by default) and the
//! number of queries `CQLRS_PLAN_QUERIES`; run it with a new seed now and then, and keep
//! every query it ever failed on in `tests/plan-differential-kept.txt`, which is run on
//! every test run.

mod common;

use common::{shared::shared_path, temp_dir, BIN};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run wrote: the PGN file, the query's messages and the JSON lines.
#[derive(Debug, PartialEq, Eq)]
struct Written {
    pgn: Vec<u8>,
    messages: Vec<String>,
    json: Vec<u8>,
    exit: Option<i32>,
}

/// The lines of standard error that the query wrote (`message`), without the reader's and
/// the run's own lines (warnings start with `cqlrs:`, the summary names the games read).
fn query_messages(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| !l.starts_with("cqlrs:") && !common::is_summary_line(l) && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// Run one script on one corpus, planned or not, in `dir`.
fn run(dir: &Path, corpus: &Path, script: &Path, planned: bool) -> Written {
    let pgn = dir.join(if planned { "planned.pgn" } else { "plain.pgn" });
    let _ = std::fs::remove_file(&pgn);
    // No time budget: on a busy machine it would abandon games in the slower of the two
    // runs (the step budget still bounds every game, the same way in both).
    let mut common_args: Vec<String> = vec![
        "-i".into(),
        corpus.display().to_string(),
        "--max-warnings".into(),
        "0".into(),
        "--max-game-time".into(),
        "0".into(),
    ];
    if !planned {
        common_args.push("--no-plan".into());
    }
    let mut pgn_run = Command::new(BIN);
    pgn_run.args(&common_args).arg("-o").arg(&pgn).arg(script).stdin(Stdio::null()).current_dir(dir);
    let out = pgn_run.output().expect("run cqlrs");
    let mut json_run = Command::new(BIN);
    json_run.args(&common_args).arg("--json").arg(script).stdin(Stdio::null()).current_dir(dir);
    let json = json_run.output().expect("run cqlrs");
    Written {
        pgn: std::fs::read(&pgn).unwrap_or_default(),
        messages: query_messages(&out.stderr),
        json: json.stdout,
        exit: out.status.code(),
    }
}

/// Run `script` both ways on `corpus`; a description of the first difference, if any.
fn difference(dir: &Path, corpus: &Path, script: &Path) -> Option<String> {
    let planned = run(dir, corpus, script, true);
    let plain = run(dir, corpus, script, false);
    if planned == plain {
        return None;
    }
    let what = if planned.exit != plain.exit {
        format!("exit status {:?} planned, {:?} with --no-plan", planned.exit, plain.exit)
    } else if planned.pgn != plain.pgn {
        format!("PGN differs ({} and {} bytes)", planned.pgn.len(), plain.pgn.len())
    } else if planned.messages != plain.messages {
        let first = planned.messages.iter().zip(&plain.messages).position(|(a, b)| a != b);
        format!(
            "messages differ ({} and {} lines; first difference at line {:?}: {:?} / {:?})",
            planned.messages.len(),
            plain.messages.len(),
            first,
            first.and_then(|i| planned.messages.get(i)),
            first.and_then(|i| plain.messages.get(i))
        )
    } else {
        "JSON differs".to_string()
    };
    Some(format!("{} on {}: {what}", script.display(), corpus.display()))
}

/// The bundled corpora the gallery and the generated queries run on: lichess games, and
/// studies and puzzles (with variations, comments and unplayable moves).
fn bundled_corpora(dir: &Path, games: usize) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    vec![
        common::first_games(&root.join("lichess-2016-05-first1500.pgn"), games, dir, "lichess.pgn"),
        common::first_games(&root.join("gallery/pychess-studies-and-puzzles.pgn"), games, dir, "studies.pgn"),
    ]
}

fn assert_none_differ(differences: Vec<String>, runs: usize) {
    assert!(runs > 0, "no script was run");
    assert!(
        differences.is_empty(),
        "{} of {runs} runs write something else with --no-plan:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[test]
fn the_gallery_writes_the_same_with_and_without_the_plan() {
    let dir = temp_dir("gallery");
    let corpora = bundled_corpora(&dir, 700);
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cql"))
        .expect("examples/cql")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cql"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 40, "the gallery has {} scripts", scripts.len());
    let mut differences = Vec::new();
    let mut runs = 0;
    for script in &scripts {
        for corpus in &corpora {
            runs += 1;
            differences.extend(difference(&dir, corpus, script));
        }
    }
    assert_none_differ(differences, runs);
}

/// The distinct (script, corpus) pairs of a conformance suite that the reference accepted.
fn conformance_runs(suite: &Path) -> Vec<(PathBuf, PathBuf)> {
    let corpora = suite.join("../../corpus/conformance");
    let cases = std::fs::read_to_string(suite.join("cases.jsonl")).expect("cases.jsonl");
    let mut runs = Vec::new();
    for line in cases.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("a case is JSON");
        if case.get("expect_error").and_then(|v| v.as_bool()) == Some(true) {
            continue;
        }
        let (Some(script), Some(corpus)) = (case["script"].as_str(), case["corpus"].as_str()) else { continue };
        let pair = (suite.join(script), corpora.join(corpus));
        if !runs.contains(&pair) {
            runs.push(pair);
        }
    }
    runs
}

/// Run every script of one conformance suite both ways, spread over a few threads.
fn conformance_suite_agrees(name: &str) {
    let Some(suite) = shared_path(&format!("conformance/{name}")) else { return };
    let runs = conformance_runs(&suite);
    let threads = 2;
    let differences: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let runs = &runs;
                scope.spawn(move || {
                    let dir = temp_dir(&format!("conformance-{name}-{t}"));
                    runs.iter()
                        .skip(t)
                        .step_by(threads)
                        .filter_map(|(script, corpus)| difference(&dir, corpus, script))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a worker thread")).collect()
    });
    assert_none_differ(differences, runs.len());
}

#[test]
fn the_cql6_conformance_scripts_write_the_same_with_and_without_the_plan() {
    conformance_suite_agrees("cql6");
}

#[test]
fn the_legacy_conformance_scripts_write_the_same_with_and_without_the_plan() {
    conformance_suite_agrees("legacy");
}

#[test]
fn the_parser_conformance_texts_write_the_same_with_and_without_the_plan() {
    conformance_suite_agrees("parser");
}

/// A small random number generator (xorshift64*), so that a seed gives the same queries
/// on every machine.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Makes up queries that put effects before, between and after the filters that decide.
struct Generator {
    random: Random,
    /// Variables assigned so far in the query being made (readable from then on).
    variables: Vec<String>,
    /// A number to tell the texts of effects apart.
    label: usize,
}

impl Generator {
    fn new(seed: u64) -> Generator {
        Generator { random: Random(seed.max(1)), variables: Vec::new(), label: 0 }
    }

    /// A filter that decides: a fact of the position, the game or the header.
    fn deciding(&mut self) -> String {
        let n = self.random.below(12) + 1;
        let facts = [
            "check",
            "mate",
            "stalemate",
            "wtm",
            "btm",
            "initial",
            "terminal",
            "mainline",
            "Q",
            "q",
            "Kg1",
            "kg8",
            "R[a1,h1,a8,h8]",
            "P&[a-h7]",
            "result 1-0",
            "result 1/2-1/2",
            "player white \"a\"",
            "event \"Rated\"",
            "N attacks k",
            "Q attacks r",
            "move capture .",
            "move promote A",
            "move castle",
        ];
        match self.random.below(6) {
            0 => format!("ply == {n}"),
            1 => format!("ply < {n}"),
            2 => format!("#[Pp] > {}", 8 + n),
            3 => format!("movenumber > {}", n * 3),
            _ => self.random.pick(&facts).to_string(),
        }
    }

    /// A value: a number read at the position (or found by a search).
    fn value(&mut self) -> String {
        let mut values = vec!["ply", "#A", "#[Pp]", "movenumber", "(find all check)", "(find all mate)"];
        let owned: Vec<String> = self.variables.iter().map(|v| format!("({v} + 1)")).collect();
        values.extend(owned.iter().map(String::as_str));
        self.random.pick(&values).to_string()
    }

    /// A filter with an effect: a message, a comment, a sort value or an assignment.
    fn effect(&mut self) -> String {
        self.label += 1;
        let k = self.label;
        match self.random.below(7) {
            0 | 1 => {
                let v = self.value();
                format!("message (\"m{k} \" {v})")
            }
            2 | 3 => {
                let v = self.value();
                format!("comment (\"c{k} \" {v})")
            }
            4 => {
                let v = self.value();
                let min = if self.random.below(3) == 0 { "min " } else { "" };
                format!("sort {min}\"s{k}\" {v}")
            }
            _ => {
                let v = self.value();
                let name = format!("v{k}");
                self.variables.push(name.clone());
                format!("{name} = {v}")
            }
        }
    }

    /// One item of a compound: a deciding filter, an effect, or a nested combination.
    fn item(&mut self, depth: usize) -> String {
        let nested = depth < 2 && self.random.below(4) == 0;
        if nested {
            return self.combination(depth + 1);
        }
        if self.random.below(2) == 0 {
            self.deciding()
        } else {
            self.effect()
        }
    }

    /// A compound, an alternative, a negation, a condition or a search.
    fn combination(&mut self, depth: usize) -> String {
        let a = self.item(depth);
        let b = self.item(depth);
        match self.random.below(7) {
            0 => format!("{{{a} {b}}}"),
            1 => format!("{{{a} or {b}}}"),
            2 => format!("not {{{a} {b}}}"),
            3 => {
                let c = self.item(depth);
                format!("if {a} then {b} else {c}")
            }
            4 => format!("find {{{a} {b}}}"),
            5 => format!("flipcolor {{{a} {b}}}"),
            _ => format!("{{{a} {b}}} or {{{}}}", self.item(depth)),
        }
    }

    /// A whole query: settings, then two to five items written one after another.
    fn query(&mut self) -> String {
        self.variables.clear();
        let mut text = String::from("cql(");
        if self.random.below(4) == 0 {
            text.push_str("variations ");
        }
        if self.random.below(6) == 0 {
            text.push_str("matchcount 2 100 ");
        }
        text.push_str(")\n");
        for _ in 0..2 + self.random.below(4) {
            let item = self.item(0);
            text.push_str(&item);
            text.push('\n');
        }
        text
    }
}

/// Does the query compile (the generator may make a text CQL refuses)?
fn compiles(dir: &Path, script: &Path) -> bool {
    let out = Command::new(BIN).arg("-parse").arg(script).stdin(Stdio::null()).current_dir(dir).output();
    out.is_ok_and(|o| o.status.success())
}

/// Run each query text both ways on the bundled corpora; the differences found.
fn queries_agree(dir: &Path, corpora: &[PathBuf], texts: &[String]) -> (Vec<String>, usize) {
    let mut differences = Vec::new();
    let mut runs = 0;
    for (i, text) in texts.iter().enumerate() {
        let script = common::write(dir, &format!("q{i}.cql"), text);
        if !compiles(dir, &script) {
            continue;
        }
        for corpus in corpora {
            runs += 1;
            if let Some(d) = difference(dir, corpus, &script) {
                differences.push(format!("{d}\n{text}"));
            }
        }
    }
    (differences, runs)
}

#[test]
fn generated_queries_with_effects_write_the_same_with_and_without_the_plan() {
    let seed = std::env::var("CQLRS_PLAN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20261207u64);
    let count = std::env::var("CQLRS_PLAN_QUERIES").ok().and_then(|s| s.parse().ok()).unwrap_or(120usize);
    let dir = temp_dir("generated");
    let corpora = bundled_corpora(&dir, 150);
    let mut generator = Generator::new(seed);
    let texts: Vec<String> = (0..count).map(|_| generator.query()).collect();
    if let Ok(keep) = std::env::var("CQLRS_PLAN_WRITE") {
        for (i, text) in texts.iter().enumerate() {
            common::write(Path::new(&keep), &format!("gen-{seed}-{i}.cql"), text);
        }
    }
    let (differences, runs) = queries_agree(&dir, &corpora, &texts);
    // Most made-up queries must compile, or the test checks little.
    assert!(
        runs >= count,
        "only {runs} runs for {count} queries (seed {seed}): the generator makes texts that do not compile"
    );
    assert_none_differ(differences, runs);
}

#[test]
fn every_query_the_generator_failed_on_writes_the_same_with_and_without_the_plan() {
    let kept = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plan-differential-kept.txt"))
        .expect("tests/plan-differential-kept.txt");
    // Queries are separated by a line holding `----`; lines starting with `#` are notes.
    let texts: Vec<String> = kept
        .split("\n----\n")
        .map(|q| q.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n"))
        .filter(|q| !q.trim().is_empty())
        .collect();
    assert!(!texts.is_empty(), "no kept query");
    let dir = temp_dir("kept");
    let corpora = bundled_corpora(&dir, 150);
    let (differences, runs) = queries_agree(&dir, &corpora, &texts);
    assert_eq!(runs, texts.len() * corpora.len(), "every kept query compiles");
    assert_none_differ(differences, runs);
}

#[test]
fn the_generator_is_the_same_for_a_seed_and_makes_effects_and_decisions() {
    let a: Vec<String> = {
        let mut g = Generator::new(7);
        (0..50).map(|_| g.query()).collect()
    };
    let b: Vec<String> = {
        let mut g = Generator::new(7);
        (0..50).map(|_| g.query()).collect()
    };
    assert_eq!(a, b);
    let all = a.join("\n");
    for word in ["message", "comment", "sort", " = ", "find", " or ", "not "] {
        assert!(all.contains(word), "50 queries without `{word}`");
    }
}
