//! The threaded scan: games in, matching games' output bytes out, in input order.
//!
//! Takes in: input paths, a compiled query (anything implementing [`Evaluator`]),
//! a [`ScanConfig`] and an output [`Sink`].
//! Gives out: the output bytes written to the sink and the tallies ([`ScanOutcome`]).
//!
//! Threads: N workers (each with its own `GameParser`, reused `Game` and evaluator
//! scratch) take turns at the input: a worker locks the reader, cuts the next batch (up
//! to [`BATCH_SIZE`] raw games or about [`BATCH_BYTES`]) out of the `input::Games`
//! iterator with a sequence number, lets go, then parses, evaluates and renders the
//! output of each matching game, and sends the batch's outcomes through a bounded
//! channel to the writer (the calling thread), which restores input order with a
//! reorder buffer keyed by batch sequence.
//! There is no reader thread: a game is read by the core that cut it out, and N workers
//! on N cores leave no thread waiting for a core. The buffer is bounded: a worker needs a
//! token to take a batch and the writer hands the token back only once that batch's
//! turn has come, so at most [`ScanConfig::in_flight`] batches exist at once and memory
//! does not grow with input. As the writer restores input order, the output is
//! byte-identical for any thread count.
//!
//! `sort` queries: the writer must see every match before it can write the first, so it
//! keeps the rendered bytes of every matching game in memory (plus the sort values),
//! and writes them at the end, best first (descending, or ascending for `sort min`;
//! ties by game number). Memory is the size of all matching games' output; with
//! `--limit N` only the best N are kept (at most 2N at any time).
//!
//! Must never: write to stdout except through the sink, let a malformed game stop the
//! scan, or lose count: every game read is matched, unmatched or skipped.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::Mutex;
use std::time::Instant;

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::eval::SortValue;
use crate::eval::{GameMatch, Query, Scratch};
use crate::input::{Games, RawGame, Source};
use crate::output::{render_game, Format, Sink};
use crate::pgn::{Game, GameParser};

pub mod survey;

/// Most raw games in a batch a worker takes from the input.
pub const BATCH_SIZE: usize = 512;

/// A batch is closed once its games hold this many bytes, even with fewer than
/// [`BATCH_SIZE`] games: batches of about this size keep the hand-overs between a worker
/// and the writer (a channel message and a wake-up each) rare next to the work, also for
/// header-only queries whose work per game is small, while a batch still fits in a
/// core's cache.
pub const BATCH_BYTES: usize = 256 << 10;

/// What the scan needs from a compiled query. Implemented by [`eval::Query`]; tests
/// and benchmarks may supply their own.
///
/// [`eval::Query`]: crate::eval::Query
pub trait Evaluator: Sync {
    /// Per-worker mutable state.
    type Scratch: Send + Default;
    /// Given the tags (no moves read yet), must the moves be replayed?
    fn wants_moves(&self, game: &Game) -> bool;
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
    fn wants_moves(&self, game: &Game) -> bool {
        // `needs_positions` first: it is free, and a header-only query then does not
        // test its header filters twice (here and again in `eval_game`).
        self.needs_positions() && self.may_match_tags(game)
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
            if let crate::ir::Filter::Sort { doc, min, .. } = ir.get(crate::ir::FilterId(i as u32)) {
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

/// Stack of each worker thread: deep enough for the evaluator's nesting limit of
/// evaluations of the largest evaluator frame, in debug builds too (address space
/// only; pages are touched as used).
pub(crate) const WORKER_STACK_BYTES: usize = 256 << 20;

/// Options of one scan.
#[derive(Clone, Debug)]
pub struct ScanConfig {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Stop after this many matching games.
    pub limit: Option<u64>,
    /// What to write for each matching game.
    pub format: Format,
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

impl ScanConfig {
    /// Defaults: all cores, no limit, the given format.
    pub fn new(format: Format) -> ScanConfig {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        ScanConfig {
            threads,
            limit: None,
            format,
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

/// The workers' running count of games evaluated and abandoned, for
/// [`ScanConfig::stop_runaway`]: counted where the games are evaluated, so that the scan
/// stops after a few games even when they come in one large batch.
#[derive(Default)]
struct RunawayTally {
    evaluated: AtomicU64,
    abandoned: AtomicU64,
    tripped: Mutex<Option<Runaway>>,
    seen: AtomicBool,
}

impl RunawayTally {
    /// Count one evaluated game (`abandoned`: with this warning); true when the scan is to
    /// stop as a runaway.
    fn count(&self, abandoned: Option<&str>) -> bool {
        let games = self.evaluated.fetch_add(1, AtomicOrdering::Relaxed) + 1;
        let Some(last) = abandoned else { return false };
        let gave_up = self.abandoned.fetch_add(1, AtomicOrdering::Relaxed) + 1;
        if games >= RUNAWAY_MIN_GAMES && gave_up as f64 > RUNAWAY_SHARE * games as f64 {
            let mut tripped = self.tripped.lock().unwrap_or_else(|e| e.into_inner());
            if tripped.is_none() {
                *tripped = Some(Runaway { games, abandoned: gave_up, last: last.to_string() });
                self.seen.store(true, AtomicOrdering::Relaxed);
            }
            return true;
        }
        false
    }

    /// The runaway, once the workers found one.
    fn tripped(&self) -> Option<Runaway> {
        if !self.seen.load(AtomicOrdering::Relaxed) {
            return None;
        }
        self.tripped.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

struct Batch {
    seq: u64,
    games: Vec<RawGame>,
    /// Games the feed decided unread: `(i, d)` = `d` just before `games[i]` (or after
    /// the last game when `i == games.len()`).
    passed: Vec<(usize, Decided)>,
    /// Games cut off by a damaged input: number and the message saying so.
    cut: Vec<(u64, String)>,
}

enum Verdict {
    Unmatched,
    /// Outside the `gamenumber` range: read, not evaluated.
    PassedOver,
    /// This many games passed over by the feed (proved not to match): read, unmatched.
    Passed(u64),
    /// This many games outside the `gamenumber` range, decided by the feed.
    PassedOverRun(u64),
    /// Not read: the message, and the game's raw bytes when rejects are kept.
    Skipped(String, Vec<u8>),
    /// The evaluator gave up: the message.
    Abandoned(String),
    Matched {
        bytes: Vec<u8>,
        sort: Vec<(SortValue, bool)>,
    },
}

struct Outcome {
    number: u64,
    verdict: Verdict,
    messages: Vec<String>,
    /// The game was read only up to a move that cannot be played: the warning, and the
    /// game's raw bytes when rejects are kept.
    partly_read: Option<(String, Vec<u8>)>,
}

struct BatchResult {
    seq: u64,
    outcomes: Vec<Outcome>,
}

/// Run the scan over `paths` and write to `sink`.
pub fn run<E: Evaluator>(
    evaluator: &E,
    paths: Vec<String>,
    config: &ScanConfig,
    sink: &mut Sink,
) -> ScanOutcome<E::Scratch> {
    run_sources(evaluator, paths.into_iter().map(Source::whole).collect(), 1, config, sink, None, &NoEvents)
}

/// Run the scan over `sources` (whole files or shard byte ranges, see
/// [`crate::input::shard`]), numbering games from `first_number`, writing to `sink`
/// and, when `rejects` is given (set [`ScanConfig::keep_rejects`]), the raw bytes of
/// every skipped or partly read game to `rejects`. Progress, warnings and messages go to `events`.
pub fn run_sources<E: Evaluator>(
    evaluator: &E,
    sources: Vec<Source>,
    first_number: u64,
    config: &ScanConfig,
    sink: &mut Sink,
    rejects: Option<&mut Sink>,
    events: &dyn ScanEvents,
) -> ScanOutcome<E::Scratch> {
    let games = Games::from_sources(sources, first_number).with_max_game_bytes(config.max_game_bytes);
    run_feed(evaluator, Box::new(games), config, sink, rejects, events)
}

/// [`run_sources`] over the games of any [`GameFeed`] (an index's candidates): the same
/// workers, order and output; games the feed passes over count as read and unmatched.
/// The feed numbers its games itself and honours [`ScanConfig::max_game_bytes`].
pub fn run_feed<E: Evaluator>(
    evaluator: &E,
    feed: Box<dyn GameFeed>,
    config: &ScanConfig,
    sink: &mut Sink,
    rejects: Option<&mut Sink>,
    events: &dyn ScanEvents,
) -> ScanOutcome<E::Scratch> {
    let own = ScanConfig {
        sort: if config.unsorted { None } else { config.sort.clone().or_else(|| evaluator.sort_order()) },
        threads: if evaluator.sequential() { 1 } else { config.threads },
        in_flight: if evaluator.sequential() { config.in_flight.min(8) } else { config.in_flight },
        ..config.clone()
    };
    let config = &own;
    let started = Instant::now();
    let threads = config.threads.max(1);
    let in_flight = config.in_flight.max(2);
    let stop = AtomicBool::new(false);
    let input_errors = AtomicU64::new(0);
    let tally = RunawayTally::default();
    // The query decides its own order and whether its games are read one after another
    // (dictionaries carried from game to game see the games in input order): `own` above.
    let reader = Mutex::new(Reader::new(feed, config.gamenumber));
    let (result_tx, result_rx) = bounded::<BatchResult>(in_flight);
    let (token_tx, token_rx) = bounded::<Vec<Outcome>>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(Vec::new());
    }
    let mut outcome = std::thread::scope(|scope| {
        let runaway = config.stop_runaway.then_some(&tally);
        let shared = Shared { reader: &reader, stop: &stop, input_errors: &input_errors, events, runaway };
        let mut workers = Vec::new();
        for _ in 0..threads {
            let tokens = token_rx.clone();
            let result_tx = result_tx.clone();
            let worker = std::thread::Builder::new()
                .name("cqlrs-worker".into())
                .stack_size(WORKER_STACK_BYTES)
                .spawn_scoped(scope, move || work(evaluator, config, shared, tokens, result_tx))
                .expect("cannot start a worker thread");
            workers.push(worker);
        }
        drop(token_rx);
        drop(result_tx);
        let mut outcome = write_in_order(config, result_rx, token_tx, sink, rejects, &stop, &tally, events);
        for w in workers {
            match w.join() {
                Ok(scratch) => outcome.scratches.push(scratch),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        outcome
    });
    outcome.input_errors = input_errors.load(AtomicOrdering::Relaxed);
    outcome.seconds = started.elapsed().as_secs_f64();
    outcome
}

/// What every worker shares: the reader, the stop flag, the input-error count and the
/// events.
#[derive(Clone, Copy)]
struct Shared<'a> {
    reader: &'a Mutex<Reader>,
    stop: &'a AtomicBool,
    input_errors: &'a AtomicU64,
    events: &'a dyn ScanEvents,
    /// Where evaluated and abandoned games are counted, when the scan stops runaways.
    runaway: Option<&'a RunawayTally>,
}

impl Shared<'_> {
    /// A worker's next batch: a token first (the writer hands one back when a batch's
    /// turn has come, so at most `in_flight` batches exist), then the input, cut under
    /// the reader's lock. `spent` is the previous batch's vector, whose game buffers go
    /// back to the splitter. `None` when the run stops or the input is done.
    fn take_batch(&self, tokens: &Receiver<()>, spent: Vec<RawGame>) -> Option<Batch> {
        self.take_batch_and_token(tokens, spent).map(|(batch, ())| batch)
    }

    /// [`Shared::take_batch`], also giving the token taken (the scan's tokens carry an
    /// emptied vector for the batch's outcomes).
    fn take_batch_and_token<T>(&self, tokens: &Receiver<T>, spent: Vec<RawGame>) -> Option<(Batch, T)> {
        if self.stop.load(AtomicOrdering::Relaxed) {
            return None;
        }
        let token = tokens.recv().ok()?;
        if self.stop.load(AtomicOrdering::Relaxed) {
            return None;
        }
        let mut reader = match self.reader.lock() {
            Ok(reader) => reader,
            Err(poisoned) => poisoned.into_inner(),
        };
        reader.next_batch(spent, self).map(|batch| (batch, token))
    }
}

/// The input side of the scan, taken in turn by the workers: each worker that needs
/// games locks it, cuts the next batch out of the input and numbers it, and lets go.
/// There is no reader thread: on N cores N workers do all the work, and a game is cut
/// out and read by the same thread, while its bytes are still in that core's cache.
struct Reader {
    games: Box<dyn GameFeed>,
    /// The last game number wanted (`gamenumber`'s upper bound); the input is not read
    /// past it.
    last: u64,
    /// Sequence number of the next batch.
    seq: u64,
    /// No more batches: the input is exhausted or the last wanted game was read.
    done: bool,
}

impl Reader {
    fn new(games: Box<dyn GameFeed>, gamenumber: Option<(u64, u64)>) -> Reader {
        Reader { games, last: gamenumber.map_or(u64::MAX, |(_, hi)| hi), seq: 0, done: false }
    }

    /// The next batch of up to [`BATCH_SIZE`] games and about [`BATCH_BYTES`], filled into `games` (whose old
    /// buffers are handed back to the splitter first); `None` at the end of the input.
    fn next_batch(&mut self, mut games: Vec<RawGame>, shared: &Shared) -> Option<Batch> {
        // Last first: the splitter hands its spare buffers out last in, first out, so the
        // next batch's games get them in the order this batch's games had them, one after
        // another in memory as far as they were allocated so (the processor's prefetcher
        // follows a batch's bytes better than when each game jumps back before the last).
        for raw in games.drain(..).rev() {
            self.games.give_back(raw.bytes);
        }
        if self.done {
            return None;
        }
        let mut cut = Vec::new();
        let mut passed = Vec::new();
        let mut bytes = 0;
        let mut decided = Vec::new();
        while games.len() + passed.len() < BATCH_SIZE && bytes < BATCH_BYTES {
            // Games the feed decided unread come before its next game.
            self.games.take_decided(&mut decided);
            if !decided.is_empty() {
                passed.extend(decided.drain(..).map(|d| (games.len(), d)));
                continue;
            }
            let item = self.games.next_game();
            let Some(item) = item else {
                self.done = true;
                break;
            };
            let raw = match item {
                Ok(raw) => raw,
                Err(e) if e.game_too_large().is_some() && e.partial.is_some() => {
                    // One game too large to keep: skipped like a malformed game; the
                    // input goes on.
                    let why = e.game_too_large().expect("checked");
                    let raw = e.partial.expect("checked");
                    cut.push((
                        raw.number,
                        format!("cqlrs: {}: game {} (line {}): {why}", raw.file, raw.number, raw.line),
                    ));
                    raw
                }
                Err(e) if e.to_string().contains(crate::input::STOPPED) => {
                    // A signal ended a read that waited for input: the run is stopping.
                    self.done = true;
                    break;
                }
                Err(mut e) => {
                    shared.input_errors.fetch_add(1, AtomicOrdering::Relaxed);
                    shared.events.input_error(&format!("cqlrs: {}", printable(&e.to_string())));
                    match e.partial.take() {
                        Some(raw) => {
                            cut.push((
                                raw.number,
                                format!(
                                    "cqlrs: {}: game {} (line {}): cut off by the damaged input",
                                    raw.file, raw.number, raw.line
                                ),
                            ));
                            raw
                        }
                        None => continue,
                    }
                }
            };
            if raw.number > self.last {
                self.done = true;
                break;
            }
            bytes += raw.bytes.len();
            games.push(raw);
        }
        if let Some(last) = games.last() {
            shared.events.bytes_read(&last.file, last.offset + last.bytes.len() as u64);
        }
        if games.is_empty() && passed.is_empty() {
            return None;
        }
        let seq = self.seq;
        self.seq += 1;
        Some(Batch { seq, games, passed, cut })
    }
}

fn work<E: Evaluator>(
    evaluator: &E,
    config: &ScanConfig,
    shared: Shared,
    tokens: Receiver<Vec<Outcome>>,
    result_tx: Sender<BatchResult>,
) -> E::Scratch {
    let mut parser = GameParser::new();
    parser.set_max_positions(config.max_game_positions);
    let mut game = Game::default();
    let mut scratch = E::Scratch::default();
    let wants_moves = |g: &Game| evaluator.wants_moves(g);
    // The previous batch's vector: its game buffers go back to the splitter.
    let mut spent: Vec<RawGame> = Vec::with_capacity(BATCH_SIZE);
    loop {
        // The token is an emptied outcome vector of an earlier batch: the writer hands
        // them back rather than freeing them, so that no batch allocates one (a vector
        // freed on the writer's thread shrinks this thread's heap, whose pages are then
        // faulted in again by the next batch).
        let Some((batch, mut outcomes)) = shared.take_batch_and_token(&tokens, std::mem::take(&mut spent)) else {
            break;
        };
        outcomes.clear();
        outcomes.reserve(batch.games.len() + batch.passed.len());
        let mut passed = batch.passed.iter().peekable();
        let pass = |d: Decided| {
            let (number, verdict) = match d {
                Decided::Unmatched(n) => (0, Verdict::Passed(n)),
                Decided::Outside(n) => (0, Verdict::PassedOverRun(n)),
                Decided::Matched(number) => {
                    debug_assert!(matches!(config.format, Format::Numbers | Format::Count));
                    let bytes = match config.format {
                        Format::Numbers => format!("{number}\n").into_bytes(),
                        _ => Vec::new(),
                    };
                    (number, Verdict::Matched { bytes, sort: Vec::new() })
                }
            };
            Outcome { number, verdict, messages: Vec::new(), partly_read: None }
        };
        for (i, raw) in batch.games.iter().enumerate() {
            while let Some(&(_, d)) = passed.next_if(|(at, _)| *at == i) {
                outcomes.push(pass(d));
            }
            if let Some(next) = batch.games.get(i + 1) {
                prefetch_game(&next.bytes);
            }
            if shared.stop.load(AtomicOrdering::Relaxed) {
                // The writer has stopped (interrupted, or the limit reached): what is
                // left of the batch is never accounted for.
                break;
            }
            let mut outcome =
                Outcome { number: raw.number, verdict: Verdict::Unmatched, messages: Vec::new(), partly_read: None };
            if let Some((lo, hi)) = config.gamenumber {
                if raw.number < lo || raw.number > hi {
                    outcome.verdict = Verdict::PassedOver;
                    outcomes.push(outcome);
                    continue;
                }
            }
            let rejected = |message: String| {
                Verdict::Skipped(printable(&message), if config.keep_rejects { raw.bytes.clone() } else { Vec::new() })
            };
            if let Some((_, message)) = batch.cut.iter().find(|(n, _)| *n == raw.number) {
                evaluator.observe(&mut scratch, raw, None);
                outcome.verdict = rejected(message.clone());
                outcomes.push(outcome);
                continue;
            }
            // Only the JSON formats write a game's encoding, and only of a match: a match
            // whose moves were not read is read again below, whole (which sets it), and
            // one whose moves were read had its bytes checked as UTF-8 or decoded. So no
            // format needs the encoding of a game that the quick way reads header-only;
            // the JSON ones ask for it anyway, as a safeguard that costs them little.
            let need_encoding = matches!(config.format, Format::Json | Format::JsonPgn(_));
            if let Err(e) = parser.parse_with(raw, &mut game, &wants_moves, need_encoding) {
                evaluator.observe(&mut scratch, raw, None);
                let message = format!("cqlrs: {}: game {} (line {}): {}", raw.file, raw.number, raw.line, e);
                outcome.verdict = rejected(message);
                outcomes.push(outcome);
                continue;
            }
            outcome.partly_read = game.unplayable.as_ref().map(|e| partly_read_warning(raw, e, config.keep_rejects));
            let mut found = evaluator.eval_game(&mut scratch, &game);
            evaluator.observe(&mut scratch, raw, Some(&game));
            outcome.messages = std::mem::take(&mut found.messages);
            if let Some(e) = &found.error {
                let reason = e.to_string();
                let prefix = if reason.contains("abandoned") { "" } else { "query abandoned: " };
                let message = format!("cqlrs: {}: game {} (line {}): {prefix}{reason}", raw.file, raw.number, raw.line);
                if shared.runaway.is_some_and(|t| t.count(Some(&message))) {
                    shared.stop.store(true, AtomicOrdering::Relaxed);
                }
                outcome.verdict = Verdict::Abandoned(message);
                outcomes.push(outcome);
                continue;
            }
            if let Some(tally) = shared.runaway {
                tally.count(None);
            }
            if found.matched {
                // A header-only match has no moves yet. They are read in every output
                // format, so that a game whose moves cannot be read is skipped and
                // reported whatever is written (one count for `-o`, `--count`,
                // `--numbers` and `--json`); it is never written cut short. The PGN output
                // also needs the positions it marks: every searched one, as CQL 6.2
                // evaluates the query at each (the query has no effects, so evaluating it
                // again changes nothing).
                let header_only = game.nodes.is_empty();
                if header_only {
                    if let Err(e) = parser.parse(raw, &mut game, &|_| true) {
                        let message = format!("cqlrs: {}: game {} (line {}): {}", raw.file, raw.number, raw.line, e);
                        outcome.verdict = rejected(message);
                        outcomes.push(outcome);
                        continue;
                    }
                    if outcome.partly_read.is_none() {
                        outcome.partly_read =
                            game.unplayable.as_ref().map(|e| partly_read_warning(raw, e, config.keep_rejects));
                    }
                }
                // The JSON line lists the matched positions too (`plies`).
                if header_only && (config.format.needs_moves() || config.format.is_json()) {
                    let replayed = evaluator.eval_game(&mut scratch, &game);
                    if replayed.matched && replayed.error.is_none() {
                        found.positions = replayed.positions;
                        found.marked_after = replayed.marked_after;
                    }
                }
                let sort = sort_key(config.sort.as_ref(), &found);
                let mut bytes = Vec::new();
                render_game(&config.format, &game, &found, raw, &sort, &mut bytes);
                outcome.verdict = Verdict::Matched { bytes, sort };
            }
            outcomes.push(outcome);
        }
        if !shared.stop.load(AtomicOrdering::Relaxed) {
            // Games passed over after the batch's last game (the end of the input).
            outcomes.extend(passed.map(|&(_, d)| pass(d)));
        }
        if result_tx.send(BatchResult { seq: batch.seq, outcomes }).is_err() {
            break;
        }
        spent = batch.games;
    }
    scratch
}

/// Ask the processor to bring the parts of a game's bytes that reading its header
/// touches into its cache (the tag section at the start, the termination marker at the
/// end) while the game before it is read: the bytes were cut out a batch earlier and are
/// no longer in the nearest cache, and a header-only query otherwise waits for each.
#[inline]
fn prefetch_game(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let lines = bytes.len().min(256).div_ceil(64);
        for k in 0..lines {
            // SAFETY: a prefetch only hints the cache and never faults; the addresses are
            // inside `bytes` anyway.
            #[allow(unused_unsafe)]
            unsafe {
                _mm_prefetch(bytes.as_ptr().add(k * 64).cast(), _MM_HINT_T0)
            };
        }
        if let Some(last) = bytes.len().checked_sub(1) {
            #[allow(unused_unsafe)]
            unsafe {
                _mm_prefetch(bytes.as_ptr().add(last).cast(), _MM_HINT_T0)
            };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// The warning for a game read only up to a move that cannot be played, and the game's
/// raw bytes for the rejects file when it is kept (such a game goes there too: its moves
/// after the bad one were not searched).
fn partly_read_warning(raw: &RawGame, unplayable: &crate::pgn::GameError, keep_rejects: bool) -> (String, Vec<u8>) {
    let message = printable(&format!(
        "cqlrs: {}: game {} (line {}): {}; the game is read up to that move, as CQL 6.2 reads it",
        raw.file, raw.number, raw.line, unplayable
    ));
    (message, if keep_rejects { raw.bytes.clone() } else { Vec::new() })
}

/// A matching game's sort key, as written games are ordered: the match count first when
/// the query sorts by it, then each `sort` value with whether it sorts ascending.
fn sort_key(order: Option<&SortOrder>, found: &GameMatch) -> Vec<(SortValue, bool)> {
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

/// Order of two matches of a sorting query: better first; ties by game number.
fn compare_sorted(a: &(Vec<(SortValue, bool)>, u64), b: &(Vec<(SortValue, bool)>, u64)) -> Ordering {
    for i in 0..a.0.len().max(b.0.len()) {
        let ord = match (a.0.get(i), b.0.get(i)) {
            // Strings greatest first always, as CQL 6.2 orders them (`sort min event` too).
            (Some((x @ SortValue::Text(_), _)), Some((y, _))) => y.cmp(x),
            (Some((x, ascending)), Some((y, _))) => {
                if *ascending {
                    x.cmp(y)
                } else {
                    y.cmp(x)
                }
            }
            // A game without this sort value comes after those with one.
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    a.1.cmp(&b.1)
}

type SortedMatch = ((Vec<(SortValue, bool)>, u64), Vec<u8>);

/// Control characters of a message shown as `\u{…}` escapes, so that damaged or
/// binary input never reaches the terminal raw.
fn printable(message: &str) -> String {
    if !message.chars().any(|c| c.is_control()) {
        return message.to_string();
    }
    message.chars().map(|c| if c.is_control() { c.escape_unicode().to_string() } else { c.to_string() }).collect()
}

fn write_in_order<S>(
    config: &ScanConfig,
    results: Receiver<BatchResult>,
    tokens: Sender<Vec<Outcome>>,
    sink: &mut Sink,
    mut rejects: Option<&mut Sink>,
    stop: &AtomicBool,
    runaway: &RunawayTally,
    events: &dyn ScanEvents,
) -> ScanOutcome<S> {
    let mut out = ScanOutcome {
        read: 0,
        matched: 0,
        unmatched: 0,
        skipped: 0,
        abandoned: 0,
        partly_read: 0,
        passed_over: 0,
        input_errors: 0,
        broken_pipe: false,
        write_error: None,
        rejects_error: None,
        scratches: Vec::new(),
        seconds: 0.0,
        interrupted: 0,
        runaway: None,
    };
    let mut sorted: Vec<SortedMatch> = Vec::new();
    let mut pending: BTreeMap<u64, BatchResult> = BTreeMap::new();
    let mut next_seq = 0u64;
    let mut done = false;
    let mut write = |bytes: &[u8], game: Option<u64>, out: &mut ScanOutcome<S>| -> bool {
        match sink.write(bytes) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                out.broken_pipe = true;
                false
            }
            Err(e) => {
                out.write_error = Some((game, e));
                false
            }
        }
    };
    let interrupted = || config.interrupt.as_ref().map_or(0, |i| i.load(AtomicOrdering::Relaxed));
    'receive: loop {
        // Waits are short so that an interruption is seen while a batch is being worked on.
        let result = match results.recv_timeout(std::time::Duration::from_millis(50)) {
            Ok(result) => result,
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                out.interrupted = interrupted();
                out.runaway = runaway.tripped();
                if out.interrupted != 0 || out.runaway.is_some() {
                    break 'receive;
                }
                continue;
            }
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                // The workers are done; a signal may have ended their input.
                out.interrupted = interrupted();
                break 'receive;
            }
        };
        out.interrupted = interrupted();
        out.runaway = runaway.tripped();
        if out.interrupted != 0 || out.runaway.is_some() {
            break 'receive;
        }
        pending.insert(result.seq, result);
        while let Some(mut batch) = pending.remove(&next_seq) {
            next_seq += 1;
            for outcome in batch.outcomes.drain(..) {
                out.read += 1;
                if let Some((message, bytes)) = &outcome.partly_read {
                    out.partly_read += 1;
                    events.warning(message);
                    if let Some(r) = rejects.as_deref_mut() {
                        if out.rejects_error.is_none() {
                            if let Err(e) = r.write(bytes).and_then(|()| r.write(b"\n\n")) {
                                out.rejects_error = Some(e);
                            }
                        }
                    }
                }
                for m in &outcome.messages {
                    events.query_message(m);
                }
                match outcome.verdict {
                    Verdict::Unmatched => out.unmatched += 1,
                    Verdict::PassedOver => out.passed_over += 1,
                    Verdict::Passed(n) => {
                        // One outcome for `n` games: the `+= 1` above was the first.
                        out.read += n - 1;
                        out.unmatched += n;
                    }
                    Verdict::PassedOverRun(n) => {
                        out.read += n - 1;
                        out.passed_over += n;
                    }
                    Verdict::Skipped(message, bytes) => {
                        out.skipped += 1;
                        events.warning(&message);
                        if let Some(r) = rejects.as_deref_mut() {
                            if out.rejects_error.is_none() {
                                if let Err(e) = r.write(&bytes).and_then(|()| r.write(b"\n\n")) {
                                    out.rejects_error = Some(e);
                                }
                            }
                        }
                    }
                    Verdict::Abandoned(message) => {
                        out.abandoned += 1;
                        events.warning(&message);
                    }
                    Verdict::Matched { bytes, sort } => {
                        out.matched += 1;
                        events.matched(outcome.number);
                        if config.sort.is_some() {
                            sorted.push(((sort, outcome.number), bytes));
                            if let Some(limit) = config.limit {
                                if sorted.len() as u64 >= limit.saturating_mul(2).max(64) {
                                    sorted.sort_by(|a, b| compare_sorted(&a.0, &b.0));
                                    sorted.truncate(limit as usize);
                                }
                            }
                        } else if !write(&bytes, Some(outcome.number), &mut out) {
                            done = true;
                        }
                        if config.sort.is_none() && config.limit.is_some_and(|l| out.matched >= l) {
                            done = true;
                        }
                    }
                }
                events.game_finished(out.read, out.matched);
                if done {
                    break;
                }
            }
            if done {
                break 'receive;
            }
            // This batch's turn is over: the reader may send another, with this batch's
            // emptied outcome vector to fill.
            let _ = tokens.send(batch.outcomes);
        }
    }
    // Unblock everyone: the reader waits for tokens, workers for the result channel.
    stop.store(true, AtomicOrdering::Relaxed);
    drop(tokens);
    drop(results);
    events.finished();
    let stopped = out.interrupted != 0 || out.runaway.is_some();
    if config.sort.is_some() && !out.broken_pipe && out.write_error.is_none() && !stopped {
        sorted.sort_by(|a, b| compare_sorted(&a.0, &b.0));
        let keep = config.limit.map_or(sorted.len(), |l| (l as usize).min(sorted.len()));
        for ((_, number), bytes) in &sorted[..keep] {
            if !write(bytes, Some(*number), &mut out) {
                break;
            }
        }
        if let Some(limit) = config.limit {
            // Matches beyond the limit were found but are not reported.
            out.unmatched += out.matched.saturating_sub(limit);
            out.matched = out.matched.min(limit);
        }
    }
    if config.format == Format::Count && !out.broken_pipe && out.write_error.is_none() && !stopped {
        let line = format!("{}\n", out.matched);
        write(line.as_bytes(), None, &mut out);
    }
    if !out.broken_pipe && out.write_error.is_none() {
        if let Err(e) = sink.finish() {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                out.broken_pipe = true;
            } else {
                out.write_error = Some((None, e));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::PgnStyle;
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
        fn wants_moves(&self, _game: &Game) -> bool {
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
        let mut config = ScanConfig::new(format);
        config.threads = threads;
        config.in_flight = 3;
        config.limit = limit;
        if eval.sort {
            config.sort = Some(SortOrder::default());
        }
        let buf = Shared::default();
        let mut sink = Sink::from_writer(Box::new(buf.clone()));
        let outcome = run(eval, vec![path.to_string()], &config, &mut sink);
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
        let mut config = ScanConfig::new(Format::Count);
        config.threads = 2;
        config.gamenumber = Some((10, 19));
        let buf = Shared::default();
        let mut sink = Sink::from_writer(Box::new(buf.clone()));
        let outcome = run(&eval, vec![path], &config, &mut sink);
        assert_eq!(outcome.read, 19);
        assert_eq!(outcome.matched, 10); // games 10..=19; none of them is malformed
        assert_eq!(String::from_utf8(buf.0.lock().unwrap().clone()).unwrap(), format!("{}\n", outcome.matched));
    }
}
