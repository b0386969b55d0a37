//! Pipeline benchmark (a plain binary: `cargo bench --bench pipeline`).
//!
//! Takes in: the first 40 MB of `../shared/corpus/bench/pgnmentor.pgn.zst` beside the
//! repository (or the
//! file named by `CQLRS_BENCH_PGN`, plain or compressed; `CQLRS_BENCH_MB` changes the
//! size), cut before the last game start so no game is partial; and
//! `../shared/corpus/conformance/studies253.pgn` (or `CQLRS_BENCH_STUDIES`) for the
//! YACPDB workload.
//! Gives out: a table: for each workload, one worker thread, best of 3 interleaved rounds:
//! games, matches, wall and processor seconds, MB/s and games/s (processor time) and
//! the processor-time ratio to its floor, measured in the same run, with the target
//! ratio. The floors use only pgn-reader and shakmaty: F1 reads every game with
//! pgn-reader's `Visitor` and replays every main-line move with shakmaty (the floor of
//! any query that looks at positions); F0 reads the tags and skips the movetext (the
//! floor of a header-only query). `CQLRS_BENCH_RUNS` sets the number of rounds;
//! `CQLRS_BENCH_ONLY` (comma-separated parts of workload names, e.g. `F1,mate`) runs
//! only the rows whose name contains one of them (for callgrind). Row (i) runs `mate`
//! on two workers and is compared by wall time with (b) on one (target: 1.85x faster).
//! Must never: report a time without checking the answer — match counts must be
//! non-zero and equal across runs; every query is compiled from its source text with
//! `Query::compile`, the one compile path the command line uses too.

use std::io::Read;
use std::ops::ControlFlow;
use std::time::Instant;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

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
    fn wants_moves(&self, _scratch: &Self::Scratch, _game: &Game) -> bool {
        true
    }
    fn eval_game(&self, _scratch: &mut (), _game: &Game) -> GameMatch {
        GameMatch::default()
    }
}

/// Floor F0: pgn-reader's `Visitor` reads every game's tags and skips its movetext.
struct TagsOnlyFloor;

impl Visitor for TagsOnlyFloor {
    type Tags = ();
    type Movetext = ();
    /// Always true: nothing in the movetext is looked at.
    type Output = bool;
    fn begin_tags(&mut self) -> ControlFlow<bool, ()> {
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<bool, ()> {
        ControlFlow::Break(true)
    }
    fn end_game(&mut self, _movetext: ()) -> bool {
        true
    }
}

/// Floor F1: pgn-reader's `Visitor` plus a shakmaty replay of every main-line move
/// (from the `FEN` tag where there is one); variations are skipped.
struct ReplayFloor;

impl Visitor for ReplayFloor {
    type Tags = Option<Chess>;
    type Movetext = (Chess, bool);
    /// Whether the game replayed without an illegal or unreadable move.
    type Output = bool;
    fn begin_tags(&mut self) -> ControlFlow<bool, Option<Chess>> {
        ControlFlow::Continue(None)
    }
    fn tag(&mut self, tags: &mut Option<Chess>, name: &[u8], value: RawTag<'_>) -> ControlFlow<bool> {
        if name == b"FEN" {
            let pos = Fen::from_ascii(value.as_bytes()).ok().and_then(|f| f.into_position(CastlingMode::Chess960).ok());
            match pos {
                Some(p) => *tags = Some(p),
                None => return ControlFlow::Break(false),
            }
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Option<Chess>) -> ControlFlow<bool, (Chess, bool)> {
        ControlFlow::Continue((tags.unwrap_or_default(), true))
    }
    fn san(&mut self, movetext: &mut (Chess, bool), san_plus: SanPlus) -> ControlFlow<bool> {
        match san_plus.san.to_move(&movetext.0) {
            Ok(m) => {
                movetext.0.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(false),
        }
    }
    fn end_game(&mut self, movetext: (Chess, bool)) -> bool {
        movetext.1
    }
}

/// Run a floor visitor over a (plain) PGN file: games read, 0 matches, games that failed.
fn floor_scan<V: Visitor<Output = bool>>(visitor: &mut V, path: &str) -> (u64, u64, u64) {
    let file = std::fs::File::open(path).expect("open the bench prefix");
    let mut reader = Reader::new(file);
    let (mut read, mut failed) = (0, 0);
    while let Some(ok) = reader.read_game(visitor).expect("read the bench prefix") {
        read += 1;
        failed += u64::from(!ok);
    }
    (read, 0, failed)
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

/// Processor time used so far by this process, all threads, in seconds
/// (`CLOCK_PROCESS_CPUTIME_ID`, nanosecond resolution); `None` where the clock is missing.
fn cpu_secs() -> Option<f64> {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer, which points to
    // a live local of that type.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    (status == 0).then(|| now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9)
}

/// One workload and what its runs measured.
struct Row<'e> {
    name: String,
    eval: &'e dyn Fn(&str) -> (u64, u64, u64),
    path: String,
    must_match: bool,
    counts: Option<(u64, u64)>,
    wall: f64,
    cpu: f64,
    mb: f64,
    /// Scans per timed run (a small corpus is scanned many times per run so that its
    /// time stands well above the noise of starting the threads).
    repeat: u32,
}

impl<'e> Row<'e> {
    fn new(name: &str, path: &str, must_match: bool, eval: &'e dyn Fn(&str) -> (u64, u64, u64)) -> Row<'e> {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        Row {
            name: name.to_string(),
            eval,
            path: path.to_string(),
            must_match,
            counts: None,
            wall: f64::INFINITY,
            cpu: f64::INFINITY,
            mb: size as f64 / (1 << 20) as f64,
            repeat: if size < (1 << 20) { 50 } else { 1 },
        }
    }

    /// One run: keep the best wall and processor times, check the counts.
    fn run(&mut self) {
        let cpu0 = cpu_secs();
        let started = Instant::now();
        let (read, matched, skipped) = (self.eval)(&self.path);
        for _ in 1..self.repeat {
            assert_eq!((self.eval)(&self.path), (read, matched, skipped), "{}: counts differ between runs", self.name);
        }
        let wall = started.elapsed().as_secs_f64() / self.repeat as f64;
        let cpu = match (cpu0, cpu_secs()) {
            (Some(a), Some(b)) => (b - a) / self.repeat as f64,
            _ => wall,
        };
        let name = &self.name;
        assert!(read > 0, "{name}: no games read");
        assert_eq!(skipped, 0, "{name}: games skipped as malformed");
        if self.must_match {
            assert!(matched > 0, "{name}: no match");
        }
        if let Some(prev) = self.counts {
            assert_eq!(prev, (read, matched), "{name}: counts differ between runs");
        }
        self.counts = Some((read, matched));
        self.wall = self.wall.min(wall);
        self.cpu = self.cpu.min(cpu);
    }
}

/// Scan `path` on one worker thread; games read, matched, skipped.
fn scan_once<E: Evaluator>(eval: &E, path: &str) -> (u64, u64, u64) {
    scan_threads(eval, path, 1)
}

/// Scan `path` on `threads` worker threads; games read, matched, skipped.
fn scan_threads<E: Evaluator>(eval: &E, path: &str, threads: usize) -> (u64, u64, u64) {
    let mut config = ScanConfig::new();
    config.threads = threads;
    config.in_flight = 4 * threads + 2;
    let mut sink = Sink::from_writer(Box::new(std::io::sink()));
    let outcome = scan::run(eval, vec![path.to_string()], &config, scan::Output::new(Format::Count, &mut sink));
    (outcome.read, outcome.matched, outcome.skipped)
}

/// Compile a query through the library's one pipeline, as the command line does.
fn query(source: &str, syntax: Syntax) -> Query {
    Query::compile(source, &mut cqlrs::CompileOptions::new(syntax))
        .unwrap_or_else(|e| panic!("compile `{source}`: {e}"))
}

fn print_header() {
    println!(
        "| {:<38} | {:>6} | {:>7} | {:>7} | {:>7} | {:>6} | {:>8} | {:>6} | {:<13} |",
        "workload", "games", "matches", "wall s", "cpu s", "MB/s", "games/s", "ratio", "target"
    );
    println!("|{:-<40}|{:-<8}|{:-<9}|{:-<9}|{:-<9}|{:-<8}|{:-<10}|{:-<8}|{:-<15}|", "", "", "", "", "", "", "", "", "");
}

/// Print one row. Ratios and throughput are by processor time (all threads of the
/// process), which other processes on a shared machine disturb far less than wall time;
/// the best wall time is shown too.
fn print_row(row: &Row, baseline: Option<&Row>, target: Option<f64>) {
    let (games, matches) = row.counts.unwrap_or_default();
    let mbs = row.mb / row.cpu;
    let gps = games as f64 / row.cpu;
    let (ratio, verdict) = match baseline {
        Some(b) => {
            let r = row.cpu / b.cpu;
            let verdict = match target {
                Some(t) if r <= t => format!("<= {t} met"),
                Some(t) => format!("> {t} MISSED"),
                None => String::new(),
            };
            (format!("x{r:.2}"), verdict)
        }
        None => ("x1.00".to_string(), "baseline".to_string()),
    };
    println!(
        "| {:<38} | {:>6} | {:>7} | {:>7.3} | {:>7.3} | {:>6.1} | {:>8.0} | {:>6} | {:<13} |",
        row.name, games, matches, row.wall, row.cpu, mbs, gps, ratio, verdict
    );
}

/// A file of the shared data directory that lives beside the repository
/// (`../shared/…` from the crate root), as a path string.
fn beside_repository(relative: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join(relative);
    if !path.exists() {
        eprintln!(
            "pipeline bench: {} is missing: put the shared corpus beside the repository or set \
             CQLRS_BENCH_PGN / CQLRS_BENCH_STUDIES",
            path.display()
        );
        std::process::exit(2);
    }
    path.to_string_lossy().into_owned()
}

fn main() {
    let pgn = std::env::var("CQLRS_BENCH_PGN").unwrap_or_else(|_| beside_repository("corpus/bench/pgnmentor.pgn.zst"));
    let mb: usize = std::env::var("CQLRS_BENCH_MB").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let runs: usize = std::env::var("CQLRS_BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(RUNS);
    let studies =
        std::env::var("CQLRS_BENCH_STUDIES").unwrap_or_else(|_| beside_repository("corpus/conformance/studies253.pgn"));

    let prefix = load_prefix(&pgn, mb << 20);
    let p = prefix.to_string_lossy().into_owned();
    let size = std::fs::metadata(&prefix).map(|m| m.len()).unwrap_or(0);
    println!(
        "corpus: {}, prefix {:.1} MB; one worker thread; {runs} interleaved rounds, best of each",
        // Relative to the crate root when it is the shared corpus beside it.
        pgn.strip_prefix(env!("CARGO_MANIFEST_DIR")).map_or(pgn.as_str(), |p| p.trim_start_matches('/')),
        size as f64 / (1 << 20) as f64
    );

    let mate = query("cql()\nmate\n", Syntax::Cql6);
    let smothered = query("cql()\nbtm mate not ♚→□△\n", Syntax::Cql6);
    let corners = query("cql()\ninitial ◭T∊♖ { find T==a1 find T==a8 find T==h1 find T==h8 }\n", Syntax::Cql6);
    let header = query("cql()\nresult 1-0 player white \"Kasparov\"\n", Syntax::Cql6);
    let sorted = query("cql()\nmate sort \"queens\" #[Qq]\n", Syntax::Cql6);
    let yq = "ClosedWalk(*, *, *)";
    let yacpdb = query(yq, Syntax::Yacpdb);
    let floor_f1 = |path: &str| floor_scan(&mut ReplayFloor, path);
    let floor_f0 = |path: &str| floor_scan(&mut TagsOnlyFloor, path);
    let run_header = |path: &str| scan_once(&header, path);
    let run_sorted = |path: &str| scan_once(&sorted, path);
    let replay = |path: &str| scan_once(&ReplayOnly, path);
    let run_mate = |path: &str| scan_once(&mate, path);
    let run_smothered = |path: &str| scan_once(&smothered, path);
    let run_corners = |path: &str| scan_once(&corners, path);
    let run_mate2 = |path: &str| scan_threads(&mate, path, 2);
    let run_yacpdb = |path: &str| scan_once(&yacpdb, path);

    // (row, index of its baseline row, target ratio)
    // (row, index of its floor row, target ratio). The floors are written with pgn-reader
    // and shakmaty alone (issue 17): F1 replays every main-line move, F0 reads tags only.
    let mut rows: Vec<(Row, Option<usize>, Option<f64>)> = vec![
        (Row::new("F1 pgn-reader + shakmaty replay", &p, false, &floor_f1), None, None),
        (Row::new("F0 pgn-reader, movetext skipped", &p, false, &floor_f0), None, None),
        (Row::new("(a) cqlrs split+parse+replay", &p, false, &replay), Some(0), None),
        (Row::new("(b) mate", &p, true, &run_mate), Some(0), Some(1.3)),
        (Row::new("(c) btm mate not ♚→□△", &p, true, &run_smothered), Some(0), Some(1.4)),
        (Row::new("(d) rook corners", &p, true, &run_corners), Some(0), Some(2.5)),
        (Row::new("(e) header only", &p, true, &run_header), Some(1), Some(1.5)),
        (Row::new("(f) mate sort #[Qq]", &p, true, &run_sorted), Some(0), None),
        (Row::new("(g) studies253 split+parse+replay", &studies, false, &replay), None, None),
        (Row::new(&format!("(h) yacpdb {yq}"), &studies, true, &run_yacpdb), Some(8), None),
        (Row::new("(i) mate, 2 workers", &p, true, &run_mate2), None, None),
    ];
    let only: Vec<String> = std::env::var("CQLRS_BENCH_ONLY")
        .map(|s| s.split(',').filter(|w| !w.is_empty()).map(str::to_string).collect())
        .unwrap_or_default();
    let selected = |name: &str| only.is_empty() || only.iter().any(|w| name.contains(w.as_str()));
    for _ in 0..runs {
        for (row, _, _) in rows.iter_mut() {
            if selected(&row.name) {
                row.run();
            }
        }
    }
    print_header();
    for (row, base, target) in &rows {
        if row.counts.is_none() {
            continue;
        }
        print_row(row, base.map(|b| &rows[b].0).filter(|b| b.counts.is_some()), *target);
    }
    let (games, _) = rows[9].0.counts.unwrap_or_default();
    if games > 0 {
        let gps = games as f64 / rows[9].0.cpu;
        println!(
            "yacpdb: {gps:.0} games/s (processor time) = {:.0}x the reference analyser's ~110 games/s (aim: 100x)",
            gps / 110.0
        );
    }
    let (one, two) = (&rows[3].0, &rows[10].0);
    if one.counts.is_some() && two.counts.is_some() {
        assert_eq!(one.counts, two.counts, "mate: one and two workers disagree");
        let speedup = one.wall / two.wall;
        let verdict = if speedup >= 1.85 { "met" } else { "MISSED" };
        println!("scaling: mate on 2 workers is {speedup:.2}x faster than on 1 (wall; target >= 1.85: {verdict})");
    }
    let _ = std::fs::remove_file(&prefix);
}
