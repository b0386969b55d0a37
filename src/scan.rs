//! The threaded scan of one query: games in, matching games' output bytes out, in input
//! order.
//!
//! Takes in: input paths (or any [`GameFeed`]), a compiled query (anything implementing
//! [`Evaluator`]), a [`ScanConfig`] and an [`Output`] (the format and the sink).
//! Gives out: the output bytes written to the sink and the tallies ([`ScanOutcome`]).
//!
//! The scan is one [`pipeline`] run (reading, cutting games, the work on N worker
//! threads, delivery in input order), whose per-game job is the query's
//! ([`query`]: parse, replay, evaluate, render a match in the output format) and whose
//! consumer is the accounting ([`account`]), which counts every game and hands the
//! matches to the writer ([`write`]: PGN, JSON, numbers, or the count at the end). As
//! the pipeline restores input order, the output is byte-identical for any thread count.
//! The survey ([`crate::survey::scan`]) and the index build ([`crate::index`], through
//! [`Evaluator::observe`]) run on the same pipeline.
//!
//! `sort` queries: the writer must see every match before it can write the first, so it
//! keeps the rendered bytes of every matching game in memory (plus the sort values),
//! and writes them at the end, best first (descending, or ascending for `sort min`;
//! ties by game number). Memory is the size of all matching games' output; with
//! `--limit N` only the best N are kept (at most 2N at any time).
//!
//! Must never: write to stdout except through the sink, let a malformed game stop the
//! scan, or lose count: every game read is matched, unmatched or skipped.

use std::collections::HashSet;
use std::time::Instant;

use crate::eval::SortValue;
use crate::eval::{GameMatch, Query, Scratch};
use crate::input::{Games, RawGame, Source};
use crate::output::Sink;
use crate::pgn::Game;

mod account;
pub mod pipeline;
mod query;
mod write;

pub use pipeline::{BATCH_BYTES, BATCH_SIZE};
pub use write::{compare_sorted, Output, SortedMatch};

/// What the scan needs from a compiled query. Implemented by [`eval::Query`]; tests
/// and benchmarks may supply their own.
///
/// [`eval::Query`]: crate::eval::Query
pub trait Evaluator: Sync {
    /// Per-worker mutable state.
    type Scratch: Send + Default;
    /// Given the tags (no moves read yet), must the moves be replayed? `scratch` is the
    /// worker's own.
    fn wants_moves(&self, scratch: &Self::Scratch, game: &Game) -> bool;
    /// Evaluate on a parsed game.
    fn eval_game(&self, scratch: &mut Self::Scratch, game: &Game) -> GameMatch;
    /// How the matches are ordered when the query sorts them (`None`: input order). The
    /// scan uses it when [`ScanConfig::sort`] is not set.
    fn sort_order(&self) -> Option<SortOrder> {
        None
    }
    /// Must the games be evaluated one after another, on one worker? The scan then uses
    /// one worker whatever [`ScanConfig::threads`] says.
    fn sequential(&self) -> bool {
        false
    }
    /// Told of every game the scan cuts out after its verdict is known, with its raw
    /// bytes and locator: `Some(game)` once its tags and moves were read (whatever the
    /// verdict), `None` when it could not be read (skipped). The index builder
    /// ([`crate::index`]) records a game's facts here; a query does nothing.
    fn observe(&self, scratch: &mut Self::Scratch, raw: &RawGame, game: Option<&Game>) {
        let _ = (scratch, raw, game);
    }
}

/// Where the scan's games come from: the games of its input files in order
/// ([`Games`]), or the games an index ([`crate::index`]) could not rule out, read back
/// through their locations, with the games it decided without reading them.
pub trait GameFeed: Send {
    /// The next game to read, in input order (`None`: no more games).
    fn next_game(&mut self) -> Option<Result<RawGame, crate::input::Error>>;
    /// Take back the bytes of a game handed out earlier, for reuse.
    fn give_back(&mut self, bytes: Vec<u8>) {
        let _ = bytes;
    }
    /// Games accounted for without being read that come before the game the next call
    /// of [`GameFeed::next_game`] gives (or before the end), in input order, into `out`
    /// (a few at a time: the scan asks again until none is given, then asks for the
    /// game).
    fn take_decided(&mut self, out: &mut Vec<Decided>) {
        let _ = out;
    }
}

/// Games a feed accounts for without handing them out (an index's answers that its
/// tables decide, see docs/index.md); the scan counts them as it would have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    /// This many games proved not to match: read and unmatched.
    Unmatched(u64),
    /// This many games outside the `gamenumber` range: read, not evaluated.
    Outside(u64),
    /// The game of this number matches, and what is written of it is its number alone:
    /// only with [`Format::Numbers`] and [`Format::Count`], a query without `sort`.
    Matched(u64),
}

impl GameFeed for Games {
    fn next_game(&mut self) -> Option<Result<RawGame, crate::input::Error>> {
        self.next()
    }
    fn give_back(&mut self, bytes: Vec<u8>) {
        Games::give_back(self, bytes)
    }
}

impl Evaluator for Query {
    type Scratch = Scratch;
    fn wants_moves(&self, scratch: &Scratch, game: &Game) -> bool {
        // `needs_positions` first: it is free, and a header-only query then does not
        // test its header filters twice (here and again in `eval_game`).
        self.needs_positions() && self.may_match_tags(scratch, game)
    }
    fn eval_game(&self, scratch: &mut Scratch, game: &Game) -> GameMatch {
        Query::eval_game(self, scratch, game)
    }
    fn sort_order(&self) -> Option<SortOrder> {
        SortOrder::of_query(self.ir())
    }
    fn sequential(&self) -> bool {
        Query::sequential(self)
    }
}

/// How sort values are ordered: by the documentation string of each `sort`, whether
/// it is `sort min` (ascending). Keys whose documentation is not listed are descending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SortOrder {
    /// Documentation strings of the `sort min` filters.
    pub ascending: HashSet<String>,
    /// `sort matchcount`: the number of matching positions is the first key (most first).
    pub by_matchcount: bool,
}

impl SortOrder {
    /// The sort order of a query: `None` when it has no `sort` filter.
    pub fn of_query(ir: &crate::ir::Ir) -> Option<SortOrder> {
        let mut order = SortOrder { by_matchcount: ir.settings.sort_matchcount, ..SortOrder::default() };
        let mut found = order.by_matchcount;
        for i in 0..ir.len() {
            if let crate::ir::Filter::Output(crate::ir::OutputFilter::Sort { doc, min, .. }) =
                ir.get(crate::ir::FilterId(i as u32))
            {
                found = true;
                if *min {
                    order.ascending.insert(doc.clone());
                }
            }
        }
        found.then_some(order)
    }
}

/// What the scan reports to its caller as it goes, instead of printing: the caller
/// decides what reaches the terminal (the CLI prints warnings and draws a progress bar;
/// a library user may collect or ignore them). Methods are called from the worker that
/// is reading the input ([`ScanEvents::bytes_read`], [`ScanEvents::input_error`]) and
/// from the thread that called the scan (the rest, in input order), so implementations
/// are `Sync`.
/// Every method does nothing by default.
pub trait ScanEvents: Sync {
    /// The reader has cut games up to byte `end` of input `file` (the position in the
    /// decompressed text for a compressed file).
    fn bytes_read(&self, file: &str, end: u64) {
        let _ = (file, end);
    }
    /// An input could not be opened or read (to its end): the message.
    fn input_error(&self, message: &str) {
        let _ = message;
    }
    /// A game was skipped (unreadable) or abandoned (the query gave up): the message.
    fn warning(&self, message: &str) {
        let _ = message;
    }
    /// A line the query printed (`message`) while evaluating a game.
    fn query_message(&self, line: &str) {
        let _ = line;
    }
    /// Game `number` matched.
    fn matched(&self, number: u64) {
        let _ = number;
    }
    /// A game has been accounted for; the running tallies of games read and matched.
    fn game_finished(&self, read: u64, matched: u64) {
        let _ = (read, matched);
    }
    /// Every game has been accounted for (before sorted output is written).
    fn finished(&self) {}
}

/// Events nobody listens to (the default of [`run`]).
pub struct NoEvents;

impl ScanEvents for NoEvents {}

/// Options of one scan.
#[derive(Clone, Debug)]
pub struct ScanConfig {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Stop after this many matching games.
    pub limit: Option<u64>,
    /// Set when the query sorts its matches.
    pub sort: Option<SortOrder>,
    /// Write the matches in input order even when the query sorts them (`--nosort`).
    pub unsorted: bool,
    /// Only games whose number lies in this range (inclusive) are evaluated; the
    /// reader stops after the upper bound.
    pub gamenumber: Option<(u64, u64)>,
    /// Batches that may exist at once (reorder-buffer bound).
    pub in_flight: usize,
    /// Keep the raw bytes of skipped games for a rejects file.
    pub keep_rejects: bool,
    /// A game of more bytes than this is skipped without being kept in memory
    /// (default [`MAX_GAME_BYTES`]).
    pub max_game_bytes: usize,
    /// A game with more positions than this is skipped when its reading gets there
    /// (`None`: no limit; default: the default memory budget over
    /// [`crate::pgn::POSITION_BYTES`], see [`crate::pgn::GameParser::set_max_positions`]).
    pub max_game_positions: Option<usize>,
    /// Set to a signal's number when the run is to stop (SIGINT, SIGTERM): the scan then
    /// accounts for no further game and reports how far it got
    /// ([`ScanOutcome::interrupted`]).
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicUsize>>,
    /// Stop the scan when the query is abandoned on most games (see [`RUNAWAY_MIN_GAMES`]
    /// and [`RUNAWAY_SHARE`]): the run cannot give a useful answer, and on a large archive
    /// it would take hours to say so. On by default.
    pub stop_runaway: bool,
}

/// A scan stops as a runaway only after at least this many games were accounted for.
pub const RUNAWAY_MIN_GAMES: u64 = 20;

/// A scan stops as a runaway when more than this share of the games accounted for so
/// far (at least [`RUNAWAY_MIN_GAMES`]) were abandoned.
pub const RUNAWAY_SHARE: f64 = 0.9;

/// Default largest game read: larger ones are skipped and reported, unread.
pub const MAX_GAME_BYTES: usize = 64 << 20;

/// The most positions of one game that a memory budget of `bytes` allows (each counted as
/// [`crate::pgn::POSITION_BYTES`]; at least a thousand, so that a tiny budget still reads
/// every real game).
pub fn positions_for_memory(bytes: u64) -> usize {
    usize::try_from(bytes / crate::pgn::POSITION_BYTES).unwrap_or(usize::MAX).max(1000)
}

impl Default for ScanConfig {
    fn default() -> ScanConfig {
        ScanConfig::new()
    }
}

impl ScanConfig {
    /// Defaults: all cores, no limit.
    pub fn new() -> ScanConfig {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        ScanConfig {
            threads,
            limit: None,
            sort: None,
            unsorted: false,
            gamenumber: None,
            in_flight: 4 * threads + 4,
            keep_rejects: false,
            max_game_bytes: MAX_GAME_BYTES,
            max_game_positions: Some(positions_for_memory(crate::eval::Limits::DEFAULT_MEMORY)),
            interrupt: None,
            stop_runaway: true,
        }
    }
}

/// The tallies of a finished scan.
#[derive(Debug, Default)]
pub struct ScanOutcome<S> {
    /// Games read (= matched + unmatched + skipped + abandoned).
    pub read: u64,
    /// Games that matched.
    pub matched: u64,
    /// Games that did not match.
    pub unmatched: u64,
    /// Malformed games (and games cut off by a damaged input), reported and skipped.
    pub skipped: u64,
    /// Games the evaluator gave up on (runaway work, nesting), reported once each.
    pub abandoned: u64,
    /// Games read only up to a move that cannot be played (counted among the matched or
    /// unmatched ones as well, and reported once each), as CQL 6.2 reads them.
    pub partly_read: u64,
    /// Games read but passed over because `gamenumber` leaves them out (not counted as
    /// unmatched: the query never saw them).
    pub passed_over: u64,
    /// Input files that could not be read, or not to their end.
    pub input_errors: u64,
    /// The output was closed by its reader (`head`): the scan stopped quietly.
    pub broken_pipe: bool,
    /// Writing the output failed for another reason; with the game being written.
    pub write_error: Option<(Option<u64>, std::io::Error)>,
    /// Writing the rejects file failed.
    pub rejects_error: Option<std::io::Error>,
    /// Every worker's scratch (for persistent variables).
    pub scratches: Vec<S>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The number of the signal that stopped the scan early (0: not interrupted). The
    /// tallies then hold the games accounted for until then.
    pub interrupted: usize,
    /// The scan was stopped because the query was abandoned on most games.
    pub runaway: Option<Runaway>,
}

/// Why a scan stopped as a runaway ([`ScanConfig::stop_runaway`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runaway {
    /// Games evaluated when it stopped.
    pub games: u64,
    /// Of those, games abandoned.
    pub abandoned: u64,
    /// The warning of the last game abandoned (its reason names the budget it ran out of).
    pub last: String,
}

/// Run the scan over `paths` and write to `output`.
pub fn run<E: Evaluator>(
    evaluator: &E,
    paths: Vec<String>,
    config: &ScanConfig,
    output: Output,
) -> ScanOutcome<E::Scratch> {
    run_sources(evaluator, paths.into_iter().map(Source::whole).collect(), 1, config, output, None, &NoEvents)
}

/// Run the scan over `sources` (whole files or shard byte ranges, see
/// [`crate::input::shard`]), numbering games from `first_number`, writing to `output`
/// and, when `rejects` is given (set [`ScanConfig::keep_rejects`]), the raw bytes of
/// every skipped or partly read game to `rejects`. Progress, warnings and messages go to `events`.
pub fn run_sources<E: Evaluator>(
    evaluator: &E,
    sources: Vec<Source>,
    first_number: u64,
    config: &ScanConfig,
    output: Output,
    rejects: Option<&mut Sink>,
    events: &dyn ScanEvents,
) -> ScanOutcome<E::Scratch> {
    let games = Games::from_sources(sources, first_number).with_max_game_bytes(config.max_game_bytes);
    run_feed(evaluator, Box::new(games), config, output, rejects, events)
}

/// [`run_sources`] over the games of any [`GameFeed`] (an index's candidates): the same
/// workers, order and output; games the feed passes over count as read and unmatched.
/// The feed numbers its games itself and honours [`ScanConfig::max_game_bytes`].
pub fn run_feed<E: Evaluator>(
    evaluator: &E,
    feed: Box<dyn GameFeed>,
    config: &ScanConfig,
    output: Output,
    rejects: Option<&mut Sink>,
    events: &dyn ScanEvents,
) -> ScanOutcome<E::Scratch> {
    let started = Instant::now();
    // The query decides its own order and whether its games are read one after another
    // (dictionaries carried from game to game see the games in input order).
    let sort = if config.unsorted { None } else { config.sort.clone().or_else(|| evaluator.sort_order()) };
    let sequential = evaluator.sequential();
    let settings = pipeline::Settings {
        threads: if sequential { 1 } else { config.threads },
        in_flight: if sequential { config.in_flight.min(8) } else { config.in_flight },
        last: config.gamenumber.map_or(u64::MAX, |(_, hi)| hi),
        interrupt: config.interrupt.as_deref(),
        stop_runaway: config.stop_runaway,
        thread_name: "cqlrs-worker",
    };
    let job = query::QueryJob { evaluator, config, format: &output.format, sort: sort.as_ref() };
    let mut accounts = account::Accounts {
        out: ScanOutcome::default(),
        writer: write::MatchWriter::new(&output.format, output.sink, sort.is_some(), config.limit),
        rejects,
        limit: if sort.is_some() { None } else { config.limit },
        events,
    };
    let finished = pipeline::run(&job, feed, &settings, events, &mut accounts);
    let account::Accounts { mut out, mut writer, .. } = accounts;
    out.interrupted = finished.interrupted;
    out.runaway = finished.runaway;
    let stopped = out.interrupted != 0 || out.runaway.is_some();
    writer.finish(stopped, &mut out.matched, &mut out.unmatched);
    out.broken_pipe = writer.broken_pipe;
    out.write_error = writer.write_error;
    out.scratches = finished.workers.into_iter().map(|w| w.scratch).collect();
    out.input_errors = finished.input_errors;
    out.seconds = started.elapsed().as_secs_f64();
    out
}

/// A matching game's sort key, as written games are ordered: the match count first when
/// the query sorts by it, then each `sort` value with whether it sorts ascending.
pub(crate) fn sort_key(order: Option<&SortOrder>, found: &GameMatch) -> Vec<(SortValue, bool)> {
    match order {
        Some(order) => {
            let count = order.by_matchcount.then_some((SortValue::Number(found.positions.len() as i64), false));
            count
                .into_iter()
                .chain(found.sort.iter().map(|(doc, v)| (v.clone(), order.ascending.contains(doc))))
                .collect()
        }
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{Format, PgnStyle};
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    /// Matches games with at least `min_plies` main-line moves; sorts by ply count.
    struct PlyCount {
        min_plies: usize,
        sort: bool,
    }

    #[derive(Default)]
    struct Counter {
        evaluated: u64,
    }

    impl Evaluator for PlyCount {
        type Scratch = Counter;
        fn wants_moves(&self, _scratch: &Counter, _game: &Game) -> bool {
            true
        }
        fn eval_game(&self, scratch: &mut Counter, game: &Game) -> GameMatch {
            scratch.evaluated += 1;
            let plies = game.mainline().count().saturating_sub(1);
            let last = game.mainline().last();
            GameMatch {
                matched: plies >= self.min_plies,
                positions: last.into_iter().collect(),
                sort: if self.sort { vec![("plies".into(), SortValue::Number(plies as i64))] } else { Vec::new() },
                ..Default::default()
            }
        }
    }

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn corpus(name: &str, games: usize) -> String {
        let dir = std::env::temp_dir().join(format!("cqlrs-scan-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"];
        let mut text = String::new();
        for i in 0..games {
            if i % 17 == 5 {
                // A set-up that is no position: skipped.
                text.push_str(&format!("[Event \"g{i}\"]\n[Result \"*\"]\n[FEN \"no position\"]\n\n1. e4 *\n\n"));
                continue;
            }
            text.push_str(&format!("[Event \"g{i}\"]\n[Result \"*\"]\n\n"));
            if i % 19 == 7 {
                // An unplayable move: read up to it (one ply), counted as partly read.
                text.push_str("1. e4 Ke7?? *\n\n");
                continue;
            }
            for (k, m) in moves.iter().take(i % 11).enumerate() {
                if k % 2 == 0 {
                    text.push_str(&format!("{}. ", k / 2 + 1));
                }
                text.push_str(m);
                text.push(' ');
            }
            text.push_str("*\n\n");
        }
        let p = dir.join("c.pgn");
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    fn scan(
        path: &str,
        eval: &PlyCount,
        threads: usize,
        format: Format,
        limit: Option<u64>,
    ) -> (Vec<u8>, ScanOutcome<Counter>) {
        let mut config = ScanConfig::new();
        config.threads = threads;
        config.in_flight = 3;
        config.limit = limit;
        if eval.sort {
            config.sort = Some(SortOrder::default());
        }
        let buf = Shared::default();
        let mut sink = Sink::from_writer(Box::new(buf.clone()));
        let outcome = run(eval, vec![path.to_string()], &config, Output::new(format, &mut sink));
        let bytes = buf.0.lock().unwrap().clone();
        (bytes, outcome)
    }

    #[test]
    fn output_is_identical_for_any_thread_count() {
        // More games than ten batches hold, so the workers take turns at the input.
        let games = 10 * BATCH_SIZE as u64 + 123;
        let path = corpus("threads", games as usize);
        let eval = PlyCount { min_plies: 6, sort: false };
        let (one, o1) = scan(&path, &eval, 1, Format::Pgn(PgnStyle::default()), None);
        let (three, o3) = scan(&path, &eval, 3, Format::Pgn(PgnStyle::default()), None);
        assert_eq!(one, three);
        assert!(!one.is_empty());
        assert_eq!(o1.read, games);
        assert_eq!(o1.read, o1.matched + o1.unmatched + o1.skipped + o1.abandoned);
        assert_eq!(o1.skipped, (0..games).filter(|i| i % 17 == 5).count() as u64);
        assert_eq!(o1.partly_read, (0..games).filter(|i| i % 19 == 7 && i % 17 != 5).count() as u64);
        assert_eq!(o1.partly_read, o3.partly_read);
        assert_eq!((o1.matched, o1.skipped), (o3.matched, o3.skipped));
        let evaluated: u64 = o3.scratches.iter().map(|s| s.evaluated).sum();
        assert_eq!(evaluated, games - o3.skipped);
        assert_eq!(o3.scratches.len(), 3);
    }

    #[test]
    fn numbers_are_in_input_order_and_limit_stops_cleanly() {
        let path = corpus("limit", 3 * BATCH_SIZE + 7);
        let eval = PlyCount { min_plies: 9, sort: false };
        let (all, outcome) = scan(&path, &eval, 2, Format::Numbers, None);
        let numbers: Vec<u64> = String::from_utf8(all).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(numbers.len() as u64, outcome.matched);
        let (some, limited) = scan(&path, &eval, 2, Format::Numbers, Some(5));
        let first5: Vec<u64> = String::from_utf8(some).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(first5, numbers[..5]);
        assert_eq!(limited.matched, 5);
        assert_eq!(limited.read, limited.matched + limited.unmatched + limited.skipped);
        assert_eq!(limited.read, numbers[4]);
    }

    #[test]
    fn sort_matchcount_header_sorts_by_matching_positions() {
        let ir = crate::lang::cql6::parse("cql(sort matchcount 2 100) check").unwrap();
        assert_eq!(ir.settings.matchcount, (2, 100));
        let order = SortOrder::of_query(&ir).expect("sorted");
        assert!(order.by_matchcount);
        // Without the header option a query with no `sort` filter is unsorted.
        let plain = crate::lang::cql6::parse("cql(matchcount 2 100) check").unwrap();
        assert_eq!(SortOrder::of_query(&plain), None);
    }

    #[test]
    fn sort_orders_by_value_then_number() {
        let path = corpus("sort", 100);
        let eval = PlyCount { min_plies: 1, sort: true };
        let (bytes, _) = scan(&path, &eval, 2, Format::Numbers, None);
        let numbers: Vec<u64> = String::from_utf8(bytes).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        // Games 8, 27, … (i % 19 == 7) stop after one ply at their unplayable move.
        let plies = |n: u64| if (n - 1) % 19 == 7 { 1 } else { (n - 1) % 11 };
        assert!(numbers.windows(2).all(|w| plies(w[0]) > plies(w[1]) || (plies(w[0]) == plies(w[1]) && w[0] < w[1])));
        assert_eq!(plies(numbers[0]), 10);
        let (top, limited) = scan(&path, &eval, 2, Format::Numbers, Some(3));
        let top: Vec<u64> = String::from_utf8(top).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(top, numbers[..3]);
        assert_eq!(limited.matched, 3);
        assert_eq!(limited.read, 100);
    }

    #[test]
    fn count_format_and_gamenumber_range() {
        let path = corpus("count", 50);
        let eval = PlyCount { min_plies: 0, sort: false };
        let mut config = ScanConfig::new();
        config.threads = 2;
        config.gamenumber = Some((10, 19));
        let buf = Shared::default();
        let mut sink = Sink::from_writer(Box::new(buf.clone()));
        let outcome = run(&eval, vec![path], &config, Output::new(Format::Count, &mut sink));
        assert_eq!(outcome.read, 19);
        assert_eq!(outcome.matched, 10); // games 10..=19; none of them is malformed
        assert_eq!(String::from_utf8(buf.0.lock().unwrap().clone()).unwrap(), format!("{}\n", outcome.matched));
    }
}
