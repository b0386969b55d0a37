//! The one scan pipeline: reading, cutting games, the per-game work on worker threads,
//! and the delivery of the games' records in input order.
//!
//! Takes in: a [`GameFeed`], a [`Job`] (what a worker does with each game and the record
//! it hands on), the [`Settings`] of the run and a [`Consumer`] of the records.
//! Gives out: every record, in input order, to the consumer (on the calling thread); the
//! workers' state and how the run ended ([`Finished`]).
//!
//! Threads: N workers (each with the job's per-worker state) take turns at the input: a
//! worker locks the reader, cuts the next batch (up to [`BATCH_SIZE`] raw games or about
//! [`BATCH_BYTES`]) out of the feed with a sequence number, lets go, then does the job on
//! each game, and sends the batch's records through a bounded channel to the calling
//! thread, which restores input order with a reorder buffer keyed by batch sequence.
//! There is no reader thread: a game is read by the core that cut it out. A worker needs a
//! token to take a batch and the consumer's side hands the token (the batch's emptied
//! record vector) back only once that batch's turn has come, so at most
//! [`Settings::in_flight`] batches exist at once and memory does not grow with input.
//!
//! The single query's scan ([`super::run_feed`]) and the survey
//! ([`crate::survey::scan`]) are jobs and consumers of this pipeline.
//!
//! Must never: lose a game (every game cut out gives one record, or the run stopped), or
//! deliver records out of input order.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Mutex;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::{Decided, GameFeed, Runaway, ScanEvents, RUNAWAY_MIN_GAMES, RUNAWAY_SHARE};
use crate::input::RawGame;

/// Most raw games in a batch a worker takes from the input.
pub const BATCH_SIZE: usize = 512;

/// A batch is closed once its games hold this many bytes, even with fewer than
/// [`BATCH_SIZE`] games: batches of about this size keep the hand-overs between a worker
/// and the writer (a channel message and a wake-up each) rare next to the work, also for
/// header-only queries whose work per game is small, while a batch still fits in a
/// core's cache.
pub const BATCH_BYTES: usize = 256 << 10;

/// Stack of each worker thread: deep enough for the evaluator's nesting limit of
/// evaluations of the largest evaluator frame, in debug builds too (address space
/// only; pages are touched as used).
pub(crate) const WORKER_STACK_BYTES: usize = 256 << 20;

/// What the workers do with each game, and the record each game gives.
pub trait Job: Sync {
    /// One worker's reused state (its parser, game, the queries' scratch).
    type Worker: Send;
    /// What one game (or one run of games the feed passed over) gives, delivered to the
    /// [`Consumer`] in input order.
    type Record: Send;
    /// A new worker's state.
    fn worker(&self) -> Self::Worker;
    /// The record of one game cut out of the input; `cut` is set (the message) when the
    /// input damaged it or it is too large to keep, so that it cannot be read.
    fn game(&self, worker: &mut Self::Worker, raw: &RawGame, cut: Option<&str>, control: &Control) -> Self::Record;
    /// The record of games the feed decided without handing them out (see [`Decided`];
    /// `None`: the job does not count them).
    fn decided(&self, decided: Decided) -> Option<Self::Record>;
}

/// What sees the records of a run, in input order, on the thread that started it.
pub trait Consumer<R> {
    /// Take the next record; `false` stops the run (a limit reached, a failed write).
    fn take(&mut self, record: R) -> bool;
}

/// The settings of one run of the pipeline.
pub struct Settings<'a> {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Batches that may exist at once (at least 2).
    pub in_flight: usize,
    /// Games after this number are not read (`u64::MAX`: all).
    pub last: u64,
    /// Set to a signal's number when the run is to stop.
    pub interrupt: Option<&'a AtomicUsize>,
    /// Count evaluated and abandoned games and stop a runaway run.
    pub stop_runaway: bool,
    /// The workers' thread name.
    pub thread_name: &'static str,
}

/// How a run of the pipeline ended.
pub struct Finished<W> {
    /// Every worker's state, as the worker left it.
    pub workers: Vec<W>,
    /// The number of the signal that stopped the run (0: none).
    pub interrupted: usize,
    /// The run was stopped because the query was abandoned on most games.
    pub runaway: Option<Runaway>,
    /// Input files that could not be read, or not to their end.
    pub input_errors: u64,
}

/// What a worker's job may see of the run while it works: whether the run is stopping,
/// and the runaway tally.
pub struct Control {
    stop: AtomicBool,
    runaway: Option<RunawayTally>,
}

impl Control {
    /// Has the run been told to stop (its consumer is done, or a runaway was found)?
    pub fn stopped(&self) -> bool {
        self.stop.load(AtomicOrdering::Relaxed)
    }

    /// Count one evaluated game (`abandoned`: with this warning) when the run stops
    /// runaways; a runaway stops the run.
    pub fn count_evaluated(&self, abandoned: Option<&str>) {
        if let Some(tally) = &self.runaway {
            if tally.count(abandoned) {
                self.stop.store(true, AtomicOrdering::Relaxed);
            }
        }
    }
}

/// The workers' running count of games evaluated and abandoned, for
/// [`super::ScanConfig::stop_runaway`]: counted where the games are evaluated, so that the
/// scan stops after a few games even when they come in one large batch.
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

/// Run `job` over the games of `feed` and hand every record to `consumer` in input order.
pub fn run<J: Job>(
    job: &J,
    feed: Box<dyn GameFeed>,
    settings: &Settings,
    events: &dyn ScanEvents,
    consumer: &mut impl Consumer<J::Record>,
) -> Finished<J::Worker> {
    let threads = settings.threads.max(1);
    let in_flight = settings.in_flight.max(2);
    let control = Control { stop: AtomicBool::new(false), runaway: settings.stop_runaway.then(RunawayTally::default) };
    let input_errors = AtomicU64::new(0);
    let reader = Mutex::new(Reader::new(feed, settings.last));
    let (result_tx, result_rx) = bounded::<BatchResult<J::Record>>(in_flight);
    let (token_tx, token_rx) = bounded::<Vec<J::Record>>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(Vec::new());
    }
    let (workers, interrupted, runaway) = std::thread::scope(|scope| {
        let shared = Shared { reader: &reader, control: &control, input_errors: &input_errors, events };
        let mut workers = Vec::new();
        for _ in 0..threads {
            let tokens = token_rx.clone();
            let result_tx = result_tx.clone();
            let worker = std::thread::Builder::new()
                .name(settings.thread_name.into())
                .stack_size(WORKER_STACK_BYTES)
                .spawn_scoped(scope, move || work(job, shared, tokens, result_tx))
                .expect("cannot start a worker thread");
            workers.push(worker);
        }
        drop(token_rx);
        drop(result_tx);
        let (interrupted, runaway) = deliver_in_order(settings, &control, result_rx, token_tx, consumer);
        events.finished();
        let mut states = Vec::with_capacity(threads);
        for w in workers {
            match w.join() {
                Ok(state) => states.push(state),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        (states, interrupted, runaway)
    });
    Finished { workers, interrupted, runaway, input_errors: input_errors.load(AtomicOrdering::Relaxed) }
}

/// A batch of games cut out of the input.
struct Batch {
    seq: u64,
    games: Vec<RawGame>,
    /// Games the feed decided unread: `(i, d)` = `d` just before `games[i]` (or after
    /// the last game when `i == games.len()`).
    passed: Vec<(usize, Decided)>,
    /// Games cut off by a damaged input: number and the message saying so.
    cut: Vec<(u64, String)>,
}

/// The records of one batch, in input order.
struct BatchResult<R> {
    seq: u64,
    records: Vec<R>,
}

/// What every worker shares: the reader, the run's control, the input-error count and
/// the events.
struct Shared<'a> {
    reader: &'a Mutex<Reader>,
    control: &'a Control,
    input_errors: &'a AtomicU64,
    events: &'a dyn ScanEvents,
}

impl Clone for Shared<'_> {
    fn clone(&self) -> Self {
        *self
    }
}

impl Copy for Shared<'_> {}

impl Shared<'_> {
    /// A worker's next batch and the token taken for it: a token first (the consumer's
    /// side hands one back when a batch's turn has come, so at most `in_flight` batches
    /// exist), then the input, cut under the reader's lock. `spent` is the previous
    /// batch's vector, whose game buffers go back to the splitter. `None` when the run
    /// stops or the input is done.
    fn take_batch<T>(&self, tokens: &Receiver<T>, spent: Vec<RawGame>) -> Option<(Batch, T)> {
        if self.control.stopped() {
            return None;
        }
        let token = tokens.recv().ok()?;
        if self.control.stopped() {
            return None;
        }
        let mut reader = match self.reader.lock() {
            Ok(reader) => reader,
            Err(poisoned) => poisoned.into_inner(),
        };
        reader.next_batch(spent, self).map(|batch| (batch, token))
    }
}

/// The input side of the pipeline, taken in turn by the workers: each worker that needs
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
    fn new(games: Box<dyn GameFeed>, last: u64) -> Reader {
        Reader { games, last, seq: 0, done: false }
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

/// One worker: take batches, do the job on each game, send the records on.
fn work<J: Job>(
    job: &J,
    shared: Shared,
    tokens: Receiver<Vec<J::Record>>,
    result_tx: Sender<BatchResult<J::Record>>,
) -> J::Worker {
    let mut state = job.worker();
    // The previous batch's vector: its game buffers go back to the splitter.
    let mut spent: Vec<RawGame> = Vec::with_capacity(BATCH_SIZE);
    loop {
        // The token is an emptied record vector of an earlier batch: the consumer's side
        // hands them back rather than freeing them, so that no batch allocates one (a
        // vector freed on the other thread shrinks this thread's heap, whose pages are
        // then faulted in again by the next batch).
        let Some((batch, mut records)) = shared.take_batch(&tokens, std::mem::take(&mut spent)) else {
            break;
        };
        records.clear();
        records.reserve(batch.games.len() + batch.passed.len());
        let mut passed = batch.passed.iter().peekable();
        for (i, raw) in batch.games.iter().enumerate() {
            while let Some(&(_, d)) = passed.next_if(|(at, _)| *at == i) {
                records.extend(job.decided(d));
            }
            if let Some(next) = batch.games.get(i + 1) {
                prefetch_game(&next.bytes);
            }
            if shared.control.stopped() {
                // The consumer has stopped (interrupted, or the limit reached): what is
                // left of the batch is never accounted for.
                break;
            }
            let cut = batch.cut.iter().find(|(n, _)| *n == raw.number).map(|(_, m)| m.as_str());
            records.push(job.game(&mut state, raw, cut, shared.control));
        }
        if !shared.control.stopped() {
            // Games passed over after the batch's last game (the end of the input).
            records.extend(passed.filter_map(|&(_, d)| job.decided(d)));
        }
        if result_tx.send(BatchResult { seq: batch.seq, records }).is_err() {
            break;
        }
        spent = batch.games;
    }
    state
}

/// Hand the records to `consumer` in input order until the workers are done, the
/// consumer stops, a signal comes or a runaway is found; then stop the workers. Gives
/// the signal's number (0: none) and the runaway.
fn deliver_in_order<R>(
    settings: &Settings,
    control: &Control,
    results: Receiver<BatchResult<R>>,
    tokens: Sender<Vec<R>>,
    consumer: &mut impl Consumer<R>,
) -> (usize, Option<Runaway>) {
    let interrupted = || settings.interrupt.map_or(0, |i| i.load(AtomicOrdering::Relaxed));
    let runaway = || control.runaway.as_ref().and_then(RunawayTally::tripped);
    let mut pending: BTreeMap<u64, BatchResult<R>> = BTreeMap::new();
    let mut next_seq = 0u64;
    let mut ended = (0, None);
    'receive: loop {
        // Waits are short so that an interruption is seen while a batch is being worked on.
        let result = match results.recv_timeout(std::time::Duration::from_millis(50)) {
            Ok(result) => result,
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                ended = (interrupted(), runaway());
                if ended.0 != 0 || ended.1.is_some() {
                    break 'receive;
                }
                continue;
            }
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                // The workers are done; a signal may have ended their input.
                ended.0 = interrupted();
                break 'receive;
            }
        };
        ended = (interrupted(), runaway());
        if ended.0 != 0 || ended.1.is_some() {
            break 'receive;
        }
        pending.insert(result.seq, result);
        while let Some(mut batch) = pending.remove(&next_seq) {
            next_seq += 1;
            for record in batch.records.drain(..) {
                if !consumer.take(record) {
                    break 'receive;
                }
            }
            // This batch's turn is over: a worker may take another, with this batch's
            // emptied record vector to fill.
            let _ = tokens.send(batch.records);
        }
    }
    // Unblock everyone: workers wait for tokens or for room in the result channel.
    control.stop.store(true, AtomicOrdering::Relaxed);
    drop(tokens);
    drop(results);
    ended
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

/// Control characters of a message shown as `\u{…}` escapes, so that damaged or
/// binary input never reaches the terminal raw.
pub fn printable(message: &str) -> String {
    if !message.chars().any(|c| c.is_control()) {
        return message.to_string();
    }
    message.chars().map(|c| if c.is_control() { c.escape_unicode().to_string() } else { c.to_string() }).collect()
}

/// The warning for a game read only up to a move that cannot be played, and the game's
/// raw bytes for the rejects file when it is kept (such a game goes there too: its moves
/// after the bad one were not searched).
pub fn partly_read_warning(raw: &RawGame, unplayable: &crate::pgn::GameError, keep_rejects: bool) -> (String, Vec<u8>) {
    let message = printable(&format!(
        "cqlrs: {}: game {} (line {}): {}; the game is read up to that move, as CQL 6.2 reads it",
        raw.file, raw.number, raw.line, unplayable
    ));
    (message, if keep_rejects { raw.bytes.clone() } else { Vec::new() })
}

/// The warning for a game a query gave up on (runaway work, nesting): `reason` is the
/// evaluation error.
pub fn abandoned_warning(raw: &RawGame, reason: &str) -> String {
    let prefix = if reason.contains("abandoned") { "" } else { "query abandoned: " };
    format!("cqlrs: {}: game {} (line {}): {prefix}{reason}", raw.file, raw.number, raw.line)
}
