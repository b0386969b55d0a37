//! Pipeline benchmark (a plain binary: `cargo bench --bench pipeline`).
//!
//! Takes in: the first 40 MB of /work/shared/corpus/bench/pgnmentor.pgn.zst (or the
//! file named by `CQLRS_BENCH_PGN`, plain or compressed; `CQLRS_BENCH_MB` changes the
//! size), cut before the last game start so no game is partial; and
//! /work/shared/corpus/conformance/studies253.pgn (or `CQLRS_BENCH_STUDIES`) for the
//! YACPDB workload.
//! Gives out: a table: for each workload, single-threaded, best of 3: games, matches,
//! seconds, MB/s, games/s and the time ratio to the bare split + parse + replay
//! baseline over the same input, measured in the same run, with the target ratio.
//! Must never: report a time without checking the answer — match counts must be
//! non-zero and equal across runs; every query is parsed from its source text with
//! `lang::parse` and expanded with `ir::transform::expand`, as the command line does.

use std::io::Read;
use std::time::Instant;

use cqlrs::eval::{GameMatch, Query};
use cqlrs::lang::Syntax;
use cqlrs::output::{Format, Sink};
use cqlrs::pgn::Game;
use cqlrs::scan::{self, Evaluator, ScanConfig};

const RUNS: usize = 3;

/// Replays every game and matches nothing: the cost of split + parse + replay.
struct ReplayOnly;

impl Evaluator for ReplayOnly {
    type Scratch = ();
    fn wants_moves(&self, _game: &Game) -> bool {
        true
    }
    fn eval_game(&self, _scratch: &mut (), _game: &Game) -> GameMatch {
        GameMatch::default()
    }
}

/// Write the first `limit` bytes of `path` (decompressed), cut before the last game
/// start, to a temporary file and return its path.
fn load_prefix(path: &str, limit: usize) -> std::path::PathBuf {
    let reader = cqlrs::input::open(path).unwrap_or_else(|e| panic!("cannot open the bench corpus {path}: {e}"));
    let mut bytes = Vec::with_capacity(limit);
    reader.take(limit as u64).read_to_end(&mut bytes).expect("read the bench corpus");
    if bytes.len() == limit {
        // Cut before the tag section of the last game so that game is whole: the last
        // line starting with `[` that follows a line not starting with `[`.
        let cut = bytes.windows(2).rposition(|w| w == b"\n[").map_or(bytes.len(), |i| {
            let mut start = i + 1;
            while let Some(prev) = bytes[..start.saturating_sub(1)].iter().rposition(|&b| b == b'\n') {
                if bytes.get(prev + 1) == Some(&b'[') {
                    start = prev + 1;
                } else {
                    break;
                }
            }
            start
        });
        bytes.truncate(cut);
    }
    let out = std::env::temp_dir().join(format!("cqlrs-bench-{}.pgn", std::process::id()));
    std::fs::write(&out, &bytes).expect("write the bench prefix");
    out
}

/// One measured workload.
struct Row {
    name: String,
    games: u64,
    matches: u64,
    secs: f64,
    mb: f64,
}

/// Scan `path` single-threaded `RUNS` times; best time, checked counts.
fn time<E: Evaluator>(name: &str, eval: &E, path: &str, must_match: bool) -> Row {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut best = f64::INFINITY;
    let mut counts: Option<(u64, u64)> = None;
    for _ in 0..RUNS {
        let mut config = ScanConfig::new(Format::Count);
        config.threads = 1;
        config.in_flight = 6;
        let mut sink = Sink::from_writer(Box::new(std::io::sink()));
        let started = Instant::now();
        let outcome = scan::run(eval, vec![path.to_string()], &config, &mut sink);
        let secs = started.elapsed().as_secs_f64();
        best = best.min(secs);
        let now = (outcome.read, outcome.matched);
        assert!(outcome.read > 0, "{name}: no games read");
        assert_eq!(outcome.skipped, 0, "{name}: games skipped as malformed");
        if let Some(prev) = counts {
            assert_eq!(prev, now, "{name}: counts differ between runs");
        }
        counts = Some(now);
    }
    let (games, matches) = counts.unwrap_or_default();
    if must_match {
        assert!(matches > 0, "{name}: no match");
    }
    Row { name: name.to_string(), games, matches, secs: best, mb: size as f64 / (1 << 20) as f64 }
}

/// Parse and expand a query exactly as the command line does.
fn query(source: &str, syntax: Syntax) -> Query {
    let mut ir = cqlrs::lang::parse(source, syntax).unwrap_or_else(|e| panic!("parse `{source}`: {e}"));
    cqlrs::ir::transform::expand(&mut ir).unwrap_or_else(|e| panic!("expand `{source}`: {e:?}"));
    Query::new(ir).unwrap_or_else(|e| panic!("compile `{source}`: {e}"))
}

fn print_row(row: &Row, baseline: Option<&Row>, target: Option<f64>) {
    let mbs = row.mb / row.secs;
    let gps = row.games as f64 / row.secs;
    let (ratio, verdict) = match (baseline, target) {
        (Some(b), Some(t)) => {
            let r = row.secs / b.secs;
            (format!("x{r:.2}"), if r <= t { format!("<= {t} ok") } else { format!("> {t} MISSED") })
        }
        (Some(b), None) => (format!("x{:.2}", row.secs / b.secs), String::new()),
        _ => ("x1.00".to_string(), "baseline".to_string()),
    };
    println!(
        "| {:<38} | {:>7} | {:>7} | {:>7.3} | {:>7.1} | {:>9.0} | {:>6} | {:<12} |",
        row.name, row.games, row.matches, row.secs, mbs, gps, ratio, verdict
    );
}

fn main() {
    let pgn = std::env::var("CQLRS_BENCH_PGN").unwrap_or_else(|_| "/work/shared/corpus/bench/pgnmentor.pgn.zst".into());
    let mb: usize = std::env::var("CQLRS_BENCH_MB").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let studies = std::env::var("CQLRS_BENCH_STUDIES")
        .unwrap_or_else(|_| "/work/shared/corpus/conformance/studies253.pgn".into());
    let only = std::env::var("CQLRS_BENCH_ONLY").ok();
    let wanted = |name: &str| only.as_deref().map_or(true, |o| name.contains(o));

    let prefix = load_prefix(&pgn, mb << 20);
    let p = prefix.to_string_lossy().into_owned();
    let size = std::fs::metadata(&prefix).map(|m| m.len()).unwrap_or(0);
    println!("corpus: {pgn}, prefix {:.1} MB; single thread; best of {RUNS}", size as f64 / (1 << 20) as f64);
    println!(
        "| {:<38} | {:>7} | {:>7} | {:>7} | {:>7} | {:>9} | {:>6} | {:<12} |",
        "workload", "games", "matches", "seconds", "MB/s", "games/s", "ratio", "target"
    );
    println!("|{:-<40}|{:-<9}|{:-<9}|{:-<9}|{:-<9}|{:-<11}|{:-<8}|{:-<14}|", "", "", "", "", "", "", "", "");
    let base = time("(a) split+parse+replay", &ReplayOnly, &p, false);
    print_row(&base, None, None);
    let workloads: [(&str, &str, f64); 3] = [
        ("(b) mate", "cql()\nmate\n", 1.5),
        ("(c) btm mate not ♚→□△", "cql()\nbtm mate not ♚→□△\n", 1.5),
        (
            "(d) rook corners",
            "cql()\ninitial ◭T∊♖ { find T==a1 find T==a8 find T==h1 find T==h8 }\n",
            3.0,
        ),
    ];
    for (name, source, target) in workloads {
        if wanted(name) {
            let q = query(source, Syntax::Cql6);
            print_row(&time(name, &q, &p, true), Some(&base), Some(target));
        }
    }
    let _ = std::fs::remove_file(&prefix);

    // YACPDB: games per second over the studies corpus (reference analyser: ~110 games/s).
    let sbase = time("(e) studies253 split+parse+replay", &ReplayOnly, &studies, false);
    print_row(&sbase, None, None);
    let yq = "ClosedWalk(*, *, *)";
    if wanted("yacpdb") {
        let q = query(yq, Syntax::Yacpdb);
        let row = time(&format!("(f) yacpdb {yq}"), &q, &studies, true);
        print_row(&row, Some(&sbase), None);
        let gps = row.games as f64 / row.secs;
        println!("yacpdb: {gps:.0} games/s = {:.0}x the reference analyser's ~110 games/s (aim: 100x)", gps / 110.0);
    }
}
