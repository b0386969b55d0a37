//! Pipeline benchmark (a plain binary: `cargo bench --bench pipeline`).
//!
//! Takes in: the first 40 MB of /work/shared/corpus/bench/pgnmentor.pgn.zst (or the
//! file named by `CQLRS_BENCH_PGN`, plain or compressed), cut before the last game
//! start so no game is partial.
//! Gives out: for each workload, single-threaded, best of 3: games, matches,
//! seconds, MB/s and the time ratio to the baseline (a) split + parse + replay.
//! Must never: report a time without checking the answer — match counts must be
//! non-zero and equal across runs.

use std::io::Read;
use std::time::Instant;

use cqlrs::eval::{GameMatch, Query};
use cqlrs::ir::{Filter, Ir, PieceMask, Span};
use cqlrs::output::{Format, Sink};
use cqlrs::pgn::Game;
use cqlrs::scan::{self, Evaluator, ScanConfig};

const PREFIX_BYTES: usize = 40 << 20;
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

fn load_prefix() -> std::path::PathBuf {
    let path = std::env::var("CQLRS_BENCH_PGN")
        .unwrap_or_else(|_| "/work/shared/corpus/bench/pgnmentor.pgn.zst".to_string());
    let reader = cqlrs::input::open(&path).unwrap_or_else(|e| panic!("cannot open the bench corpus: {e}"));
    let mut bytes = Vec::with_capacity(PREFIX_BYTES);
    reader.take(PREFIX_BYTES as u64).read_to_end(&mut bytes).expect("read the bench corpus");
    if bytes.len() == PREFIX_BYTES {
        // Cut before the last game start so the last game is whole.
        let cut = bytes.windows(2).rposition(|w| w == b"\n[").map_or(bytes.len(), |i| {
            // Back up over the tag section this line belongs to.
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

fn time<E: Evaluator>(name: &str, eval: &E, path: &str, size: u64, baseline: Option<f64>) -> f64 {
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
        if let Some(prev) = counts {
            assert_eq!(prev, now, "{name}: counts differ between runs");
        }
        counts = Some(now);
    }
    let (games, matches) = counts.unwrap_or_default();
    if baseline.is_some() {
        assert!(matches > 0, "{name}: no match (is the evaluator built?)");
    }
    let mbs = size as f64 / (1 << 20) as f64 / best;
    let ratio = baseline.map_or(1.0, |b| best / b);
    println!("{name:<28} games {games:>8}  matches {matches:>7}  {best:>7.3} s  {mbs:>7.1} MB/s  x{ratio:.2}");
    best
}

fn by_hand_smothered_mate() -> Ir {
    let mut ir = Ir::new();
    let none = Span::default();
    let all = shakmaty::Bitboard::FULL;
    let btm = ir.add(Filter::ToMove(shakmaty::Color::Black), none);
    let mate = ir.add(Filter::Mate, none);
    let king = ir.add(Filter::Pieces { mask: PieceMask::piece(shakmaty::Color::Black, shakmaty::Role::King), squares: all }, none);
    let flight = ir.add(Filter::Pieces { mask: PieceMask::EMPTY.with(PieceMask::WHITE), squares: all }, none);
    let attacks = ir.add(Filter::Attacks { attackers: king, targets: flight, value_is_targets: false }, none);
    let not = ir.add(Filter::Not(attacks), none);
    ir.root = Some(ir.add(Filter::And(vec![btm, mate, not]), none));
    ir
}

fn query(source: &str, by_hand: impl FnOnce() -> Ir) -> Query {
    let ir = match cqlrs::lang::parse(source, cqlrs::lang::Syntax::Cql6) {
        Ok(mut ir) => {
            cqlrs::ir::transform::expand(&mut ir).expect("expand");
            ir
        }
        Err(_) => by_hand(),
    };
    Query::new(ir).expect("compile the query")
}

fn main() {
    let path = load_prefix();
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let p = path.to_string_lossy().into_owned();
    println!("corpus prefix: {:.1} MB, 1 thread, best of {RUNS}", size as f64 / (1 << 20) as f64);
    let base = time("(a) split+parse+replay", &ReplayOnly, &p, size, None);
    let mate = query("cql()\nmate\n", || {
        let mut ir = Ir::new();
        ir.root = Some(ir.add(Filter::Mate, Span::default()));
        ir
    });
    time("(b) mate", &mate, &p, size, Some(base));
    let smothered = query("cql()\nbtm mate not ♚→[□△]\n", by_hand_smothered_mate);
    time("(c) btm mate not ♚→□△", &smothered, &p, size, Some(base));
    let _ = std::fs::remove_file(&path);
}
