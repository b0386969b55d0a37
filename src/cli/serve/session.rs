//! The page's tabs and their scans: compiling a query for the page, running it in the
//! background over the archive, collecting its matches as they come, and handing them
//! out (the list, one game, the download).
//!
//! Takes in: a query's text and language from a tab; the archive the server was started on.
//! Gives out: JSON for the page; the matching games' PGN bytes, as `-o` writes them.
//! Must never: run two scans for one tab (a new run stops the tab's old one), run more
//! than [`MAX_SCANS`] scans at once, keep more than [`MAX_TABS`] tabs, or hold more
//! than [`MAX_MATCH_BYTES`] of matches for one tab or [`MAX_HELD_BYTES`] for all tabs
//! (the scan then stops and says so).

use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};

use super::super::{compile_message, QuerySource};
use super::{lock, ApiError, Settings};
use crate::compile::CompileError;
use crate::eval::{FilePolicy, Query, Scratch};
use crate::input::Source;
use crate::lang::Syntax;
use crate::output::{Format, PgnStyle, Sink};
use crate::scan::{ScanConfig, ScanEvents, ScanOutcome};
use crate::CompileOptions;

/// Most tabs kept; opening one more forgets the one least recently heard from.
pub const MAX_TABS: usize = 16;
/// Most scans running at once, all tabs together.
pub const MAX_SCANS: usize = 4;
/// Most bytes of matching games one tab holds (its list and its download).
pub const MAX_MATCH_BYTES: usize = 256 << 20;
/// Most bytes of matching games all tabs together hold.
pub const MAX_HELD_BYTES: usize = 1 << 30;
/// Bytes of matching games held now, all tabs together.
static HELD: AtomicUsize = AtomicUsize::new(0);
/// Most matches listed in one status reply (the page asks again for the rest).
pub const MAX_ROWS_PER_REPLY: usize = 2000;

/// Why a scan's stop flag was set (the values of [`Job::interrupt`]).
const STOPPED_BY_USER: usize = 1;
const STOPPED_FULL: usize = 2;
const STOPPED_REPLACED: usize = 3;

/// What the page's queries run over. Today PGN files (plain or compressed) read by the
/// threaded scan; an index of an archive would be one more way to give the same
/// [`Archive::scan`] call its games.
#[derive(Clone, Debug)]
pub struct Archive {
    files: Vec<String>,
}

impl Archive {
    /// PGN files, read in the order given.
    pub fn files(files: Vec<String>) -> Archive {
        Archive { files }
    }

    /// The names of the inputs, as the page shows them.
    pub fn names(&self) -> &[String] {
        &self.files
    }

    /// The inputs' total size in bytes when every one is plain text (progress is then a
    /// share of it), else `None`.
    fn plain_bytes(&self) -> Option<u64> {
        let mut total = 0;
        for f in &self.files {
            let mut head = [0u8; 4];
            let mut file = std::fs::File::open(f).ok()?;
            let n = std::io::Read::read(&mut file, &mut head).ok()?;
            let head = &head[..n];
            if head.starts_with(&[0x1f, 0x8b])
                || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
                || head.starts_with(b"BZh")
            {
                return None;
            }
            total += file.metadata().ok()?.len();
        }
        Some(total)
    }

    /// Run `query` over the archive with the scan every search uses, writing to
    /// `output` and reporting to `events`.
    pub fn scan(
        &self,
        query: &Query,
        config: &ScanConfig,
        output: crate::scan::Output,
        events: &dyn ScanEvents,
    ) -> ScanOutcome<Scratch> {
        let sources = self.files.iter().cloned().map(Source::whole).collect();
        crate::scan::run_sources(query, sources, 1, config, output, None, events)
    }
}

/// The language named by the page's selector: `auto` tells them apart as the command line
/// does for a script file (legacy when the first item is `(match`, CQL 6 otherwise).
pub fn syntax_of(name: &str, text: &str) -> Syntax {
    match name {
        "cql6" => Syntax::Cql6,
        "legacy" => Syntax::Legacy,
        "yacpdb" => Syntax::Yacpdb,
        _ => Syntax::detect(text),
    }
}

fn syntax_name(syntax: Syntax) -> &'static str {
    match syntax {
        Syntax::Cql6 => "cql6",
        Syntax::Legacy => "legacy",
        Syntax::Yacpdb => "yacpdb",
    }
}

/// The offset `byte` of `text` counted in UTF-16 units, as the page's editor counts.
fn utf16_offset(text: &str, byte: usize) -> usize {
    let mut b = byte.min(text.len());
    while b > 0 && !text.is_char_boundary(b) {
        b -= 1;
    }
    text[..b].encode_utf16().count()
}

/// A compile error as the page shows it: one entry per diagnostic (line, column, the
/// span in the editor's units, message and hint) and the text the command line prints.
fn errors_json(err: &CompileError, source: &QuerySource) -> Value {
    let rendered = compile_message(err, |d| source.render(d));
    let errors: Vec<Value> = match err {
        CompileError::Query(e) => e
            .diagnostics
            .iter()
            .map(|d| {
                let (line, column) = crate::diag::line_col(&source.text, d.span.start as usize);
                json!({
                    "line": line,
                    "column": column,
                    "start": utf16_offset(&source.text, d.span.start as usize),
                    "end": utf16_offset(&source.text, d.span.end as usize),
                    "message": d.message,
                    "hint": d.hint,
                })
            })
            .collect(),
        _ => vec![json!({ "message": rendered.trim_end() })],
    };
    json!({ "ok": false, "errors": errors, "rendered": rendered })
}

/// Compile the page's query by the one compile path, under the server's file policy:
/// the query, its language and the PGN style `-o` would write it with; or the errors as
/// JSON.
pub fn compile(text: &str, syntax: &str, files: &FilePolicy) -> Result<(Query, Syntax, PgnStyle), Value> {
    let syntax = syntax_of(syntax, text);
    if text.trim().is_empty() {
        return Err(json!({ "ok": false, "errors": [{ "message": "the query is empty: type one, e.g. `btm mate`" }] }));
    }
    let source = QuerySource { name: "query".into(), text: text.to_string(), syntax, script: None, map: None };
    let source = source.with_includes(files).map_err(
        |message| json!({ "ok": false, "errors": [{ "message": message.trim_end() }], "rendered": message }),
    )?;
    let mut options = CompileOptions::new(syntax).files(files.clone());
    let query = Query::compile(&source.text, &mut options).map_err(|e| errors_json(&e, &source))?;
    let settings = &query.ir().settings;
    // As a plain run (`cqlrs -i … -cql … -o FILE`) writes its games.
    let style = PgnStyle {
        matchstring: settings.matchstring.clone().unwrap_or_else(|| "CQL".into()),
        silent: settings.silent,
        quiet: settings.quiet,
        game_number_comment: true,
        settag: true,
        remove_comments: !settings.keep_removed_comments,
        sort_matchcount: settings.sort_matchcount,
    };
    Ok((query, syntax, style))
}

/// `POST /api/check`: does the query compile? Its language, or its errors.
pub fn check(text: &str, syntax: &str, settings: &Settings) -> Value {
    match compile(text, syntax, &settings.files) {
        Ok((_, syntax, _)) => json!({ "ok": true, "syntax": syntax_name(syntax) }),
        Err(errors) => errors,
    }
}

/// One matching game: as the `--json-pgn` line gave it.
struct Match {
    number: u64,
    tags: serde_json::Map<String, Value>,
    plies: Vec<u32>,
    pgn: Vec<u8>,
}

/// What a scan has gathered so far.
#[derive(Default)]
struct JobState {
    matches: Vec<Match>,
    pgn_bytes: usize,
    warnings: Vec<String>,
    warning_count: u64,
    /// The closing tallies, once the scan is over.
    finished: Option<Value>,
    /// Seconds from the start to the first match.
    first_match: Option<f64>,
}

/// One scan of one tab, run on its own thread.
pub struct Job {
    /// Set to stop the scan (one of the `STOPPED_…` reasons); the scan and the
    /// evaluator both watch it.
    interrupt: Arc<AtomicUsize>,
    started: Instant,
    read: AtomicU64,
    matched: AtomicU64,
    /// Input bytes cut into games so far (plain inputs only).
    done_bytes: AtomicU64,
    total_bytes: Option<u64>,
    /// Each input's name and the bytes of the inputs before it.
    bases: Vec<(String, u64)>,
    state: Mutex<JobState>,
    syntax: Syntax,
}

impl Job {
    fn running(&self) -> bool {
        lock(&self.state).finished.is_none()
    }

    fn stop(&self, why: usize) {
        let _ = self.interrupt.compare_exchange(0, why, Ordering::Relaxed, Ordering::Relaxed);
    }

    fn finish(&self, outcome: &ScanOutcome<Scratch>, aborted: bool) {
        let reason = self.interrupt.load(Ordering::Relaxed);
        let state = match reason {
            0 if aborted => "aborted",
            0 => "done",
            STOPPED_FULL => "full",
            _ => "stopped",
        };
        let mut s = lock(&self.state);
        let summary = format!(
            "{} {} of {} games ({} unmatched, {} skipped{}) in {:.2} s{}",
            outcome.matched,
            if outcome.matched == 1 { "match" } else { "matches" },
            outcome.read,
            outcome.unmatched,
            outcome.skipped,
            if outcome.abandoned > 0 { format!(", {} abandoned", outcome.abandoned) } else { String::new() },
            outcome.seconds,
            match state {
                "stopped" => "; stopped",
                "full" => "; stopped: the matches fill the memory set aside for them, narrow the query",
                "aborted" => "; the query reached `cql_abort`",
                _ => "",
            }
        );
        self.read.store(outcome.read, Ordering::Relaxed);
        self.matched.store(s.matches.len() as u64, Ordering::Relaxed);
        s.finished = Some(json!({
            "state": state,
            "read": outcome.read,
            "matched": outcome.matched,
            "unmatched": outcome.unmatched,
            "skipped": outcome.skipped,
            "abandoned": outcome.abandoned,
            "input_errors": outcome.input_errors,
            "seconds": outcome.seconds,
            "summary": summary,
        }));
    }
}

impl Drop for Job {
    /// The job's matches are let go: they no longer count against [`MAX_HELD_BYTES`].
    fn drop(&mut self) {
        HELD.fetch_sub(lock(&self.state).pgn_bytes, Ordering::Relaxed);
    }
}

/// The scan's reports: progress into the job's counters, warnings kept (the first 50).
struct Events(Arc<Job>);

impl ScanEvents for Events {
    fn bytes_read(&self, file: &str, end: u64) {
        if let Some((_, base)) = self.0.bases.iter().find(|(f, _)| f == file) {
            self.0.done_bytes.fetch_max(base + end, Ordering::Relaxed);
        }
    }
    fn input_error(&self, message: &str) {
        self.warning(message);
    }
    fn warning(&self, message: &str) {
        let mut s = lock(&self.0.state);
        s.warning_count += 1;
        if s.warnings.len() < 50 {
            s.warnings.push(message.to_string());
        }
    }
    fn game_finished(&self, read: u64, _matched: u64) {
        self.0.read.store(read, Ordering::Relaxed);
    }
}

/// The scan's output: `--json-pgn` lines, each taken apart into a [`Match`] as it comes.
struct Collector {
    job: Arc<Job>,
    pending: Vec<u8>,
}

impl Collector {
    fn take_line(&mut self, line: &[u8]) {
        let Ok(record) = serde_json::from_slice::<Value>(line) else { return };
        let pgn = match (record.get("pgn").and_then(Value::as_str), record.get("pgn_base64").and_then(Value::as_str)) {
            (Some(text), _) => text.as_bytes().to_vec(),
            (None, Some(b64)) => base64_decode(b64),
            (None, None) => return,
        };
        let m = Match {
            number: record.get("number").and_then(Value::as_u64).unwrap_or(0),
            tags: record.get("tags").and_then(Value::as_object).cloned().unwrap_or_default(),
            plies: record
                .get("plies")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|p| p.as_u64().map(|p| p as u32)).collect())
                .unwrap_or_default(),
            pgn,
        };
        let mut s = lock(&self.job.state);
        let held = HELD.fetch_add(m.pgn.len(), Ordering::Relaxed) + m.pgn.len();
        if s.pgn_bytes + m.pgn.len() > MAX_MATCH_BYTES || held > MAX_HELD_BYTES {
            HELD.fetch_sub(m.pgn.len(), Ordering::Relaxed);
            drop(s);
            self.job.stop(STOPPED_FULL);
            return;
        }
        if s.first_match.is_none() {
            s.first_match = Some(self.job.started.elapsed().as_secs_f64());
        }
        s.pgn_bytes += m.pgn.len();
        s.matches.push(m);
        self.job.matched.store(s.matches.len() as u64, Ordering::Relaxed);
    }
}

impl Write for Collector {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = memchr::memchr(b'\n', &self.pending) {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.take_line(&line);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Standard base64 (the `pgn_base64` field of a game whose bytes are not UTF-8).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// One tab of the page.
pub struct Tab {
    id: String,
    last_seen: Mutex<Instant>,
    job: Mutex<Option<Arc<Job>>>,
    survey: Mutex<Option<Arc<super::survey::SurveyJob>>>,
}

impl Tab {
    fn current(&self) -> Option<Arc<Job>> {
        lock(&self.job).clone()
    }

    /// `POST /api/stop`: stop the tab's scan and survey.
    pub fn stop(&self) -> Value {
        let job = self.current();
        if let Some(job) = &job {
            job.stop(STOPPED_BY_USER);
        }
        if let Some(survey) = lock(&self.survey).clone() {
            survey.stop();
        }
        json!({ "ok": true, "running": job.is_some_and(|j| j.running()) })
    }

    /// `GET /api/status`: progress, the matches from number `since` on (at most
    /// [`MAX_ROWS_PER_REPLY`]) and, once over, the closing tallies.
    pub fn status(&self, since: usize) -> Value {
        let Some(job) = self.current() else {
            return json!({ "state": "idle", "matches": [], "next": 0 });
        };
        let s = lock(&job.state);
        let seconds = job.started.elapsed().as_secs_f64();
        let read = job.read.load(Ordering::Relaxed);
        let rows: Vec<Value> = s
            .matches
            .iter()
            .enumerate()
            .skip(since)
            .take(MAX_ROWS_PER_REPLY)
            .map(|(i, m)| {
                let tag = |name: &str| m.tags.get(name).cloned().unwrap_or(Value::Null);
                json!({
                    "i": i,
                    "number": m.number,
                    "white": tag("White"),
                    "black": tag("Black"),
                    "result": tag("Result"),
                    "date": tag("Date"),
                    "event": tag("Event"),
                    "eco": tag("ECO"),
                    "positions": m.plies.len(),
                })
            })
            .collect();
        let next = since.min(s.matches.len()) + rows.len();
        let fraction = job
            .total_bytes
            .filter(|&t| t > 0)
            .map(|t| (job.done_bytes.load(Ordering::Relaxed) as f64 / t as f64).min(1.0));
        let mut reply = json!({
            "state": "running",
            "syntax": syntax_name(job.syntax),
            "read": read,
            "matched": s.matches.len(),
            "seconds": seconds,
            "rate": if seconds > 0.0 { read as f64 / seconds } else { 0.0 },
            "fraction": fraction,
            "first_match_seconds": s.first_match,
            "warnings": s.warnings,
            "warning_count": s.warning_count,
            "matches": rows,
            "next": next,
        });
        if let Some(f) = &s.finished {
            if let (Some(obj), Some(fin)) = (reply.as_object_mut(), f.as_object()) {
                for (k, v) in fin {
                    obj.insert(k.clone(), v.clone());
                }
                obj.insert("seconds".into(), fin["seconds"].clone());
                let secs = fin["seconds"].as_f64().unwrap_or(0.0);
                let read = fin["read"].as_f64().unwrap_or(0.0);
                obj.insert("rate".into(), json!(if secs > 0.0 { read / secs } else { 0.0 }));
                obj.insert("fraction".into(), json!(1.0));
            }
        }
        reply
    }

    /// `GET /api/game`: the `index`-th match, for the board.
    pub fn game(&self, index: usize) -> Result<Value, ApiError> {
        let job = self.current().ok_or_else(|| ApiError::new(404, "no scan has run in this tab"))?;
        let s = lock(&job.state);
        let m = s.matches.get(index).ok_or_else(|| ApiError::new(404, format!("no match number {index}")))?;
        super::game::view(m.number, &m.pgn, &m.plies).map_err(|e| ApiError::new(500, e))
    }

    /// `GET /api/download`: every match's bytes, in the order `-o` writes them, and
    /// whether the list is partial (the scan is still running, was stopped or filled up).
    pub fn download(&self) -> Result<(Vec<u8>, bool), ApiError> {
        let job = self.current().ok_or_else(|| ApiError::new(404, "no scan has run in this tab"))?;
        let s = lock(&job.state);
        let partial = s.finished.as_ref().is_none_or(|f| f["state"] != "done");
        let mut out = Vec::with_capacity(s.pgn_bytes);
        for m in &s.matches {
            out.extend_from_slice(&m.pgn);
        }
        Ok((out, partial))
    }

    /// The report of the tab's last survey, once it is over.
    pub fn survey_report(&self) -> Result<String, ApiError> {
        let survey = lock(&self.survey).clone().ok_or_else(|| ApiError::new(404, "no survey has run in this tab"))?;
        survey.report()
    }

    /// The tab's survey, for its status.
    pub fn survey_job(&self) -> Option<Arc<super::survey::SurveyJob>> {
        lock(&self.survey).clone()
    }
}

/// Every open tab.
pub struct Tabs {
    tabs: Mutex<Vec<Arc<Tab>>>,
}

impl Tabs {
    /// No tab yet.
    pub fn new() -> Tabs {
        Tabs { tabs: Mutex::new(Vec::new()) }
    }

    /// `POST /api/tab`: a new tab (forgetting the least recently seen one past
    /// [`MAX_TABS`], whose scan is stopped), with what the page shows of the server.
    pub fn open(&self, settings: &Settings) -> Value {
        let tab = Arc::new(Tab {
            id: super::random_hex(24),
            last_seen: Mutex::new(Instant::now()),
            job: Mutex::new(None),
            survey: Mutex::new(None),
        });
        let mut tabs = lock(&self.tabs);
        while tabs.len() >= MAX_TABS {
            let oldest = (0..tabs.len()).min_by_key(|&i| *lock(&tabs[i].last_seen)).unwrap_or(0);
            let gone = tabs.remove(oldest);
            if let Some(job) = gone.current() {
                job.stop(STOPPED_REPLACED);
            }
            if let Some(survey) = gone.survey_job() {
                survey.stop();
            }
        }
        tabs.push(tab.clone());
        json!({
            "tab": tab.id,
            "inputs": settings.archive.names(),
            "surveys": settings.survey_dirs,
            "files": if settings.files.access() == crate::eval::FileAccess::Forbidden { "none (as --secure)" } else { "confined (--allow-files)" },
            "version": env!("CARGO_PKG_VERSION"),
        })
    }

    /// The tab of this name.
    pub fn get(&self, id: &str) -> Result<Arc<Tab>, ApiError> {
        let tabs = lock(&self.tabs);
        let tab = tabs.iter().find(|t| t.id == id).cloned().ok_or_else(|| {
            ApiError::new(
                404,
                "this tab is not known to the server (it restarted, or too many tabs were opened): reload the page",
            )
        })?;
        *lock(&tab.last_seen) = Instant::now();
        Ok(tab)
    }

    fn running(&self) -> usize {
        let tabs = lock(&self.tabs);
        tabs.iter().filter(|t| t.current().is_some_and(|j| j.running())).count()
            + tabs.iter().filter(|t| t.survey_job().is_some_and(|s| s.running())).count()
    }

    /// `POST /api/run`: compile the query; when it compiles, stop the tab's earlier scan
    /// and start this one in the background.
    pub fn run(&self, tab: &Arc<Tab>, text: &str, syntax: &str, settings: &Settings) -> Result<Value, ApiError> {
        let (mut query, syntax, style) = match compile(text, syntax, &settings.files) {
            Ok(compiled) => compiled,
            Err(errors) => return Ok(errors),
        };
        if let Some(old) = tab.current() {
            old.stop(STOPPED_REPLACED);
        }
        if self.running() >= MAX_SCANS {
            return Err(ApiError::new(429, format!("{MAX_SCANS} scans are running already: stop one first")));
        }
        let archive = settings.archive.clone();
        let mut bases = Vec::new();
        let mut base = 0;
        for f in archive.names() {
            bases.push((f.clone(), base));
            base += std::fs::metadata(f).map_or(0, |m| m.len());
        }
        let job = Arc::new(Job {
            interrupt: Arc::new(AtomicUsize::new(0)),
            started: Instant::now(),
            read: AtomicU64::new(0),
            matched: AtomicU64::new(0),
            done_bytes: AtomicU64::new(0),
            total_bytes: archive.plain_bytes(),
            bases,
            state: Mutex::new(JobState::default()),
            syntax,
        });
        let mut limits = query.limits().clone();
        limits.interrupt = Some(job.interrupt.clone());
        query.set_limits(limits);
        query.run().register_inputs(archive.names(), &[]);
        let format = Format::JsonPgn(style);
        let mut config = ScanConfig::new();
        config.threads = settings.threads;
        config.in_flight = 4 * config.threads + 4;
        config.gamenumber = query.ir().settings.gamenumber;
        config.interrupt = Some(job.interrupt.clone());
        *lock(&tab.job) = Some(job.clone());
        let worker = job.clone();
        std::thread::Builder::new()
            .name("cqlrs-serve-scan".into())
            .spawn(move || {
                let mut sink = Sink::from_writer(Box::new(Collector { job: worker.clone(), pending: Vec::new() }));
                let output = crate::scan::Output::new(format, &mut sink);
                let outcome = archive.scan(&query, &config, output, &Events(worker.clone()));
                worker.finish(&outcome, query.abort_requested());
            })
            .map_err(|e| ApiError::new(500, format!("cannot start the scan: {e}")))?;
        Ok(json!({ "ok": true, "syntax": syntax_name(syntax) }))
    }

    /// `POST /api/survey`: start the survey of the `folder`-th `--survey` folder in the
    /// tab (stopping its earlier one).
    pub fn survey(&self, tab: &Arc<Tab>, folder: usize, settings: &Settings) -> Result<Value, ApiError> {
        let dir = settings.survey_dirs.get(folder).ok_or_else(|| {
            ApiError::new(404, "no such survey folder: start the server with `--survey DIR` to offer one")
        })?;
        if let Some(old) = tab.survey_job() {
            old.stop();
        }
        if self.running() >= MAX_SCANS {
            return Err(ApiError::new(429, format!("{MAX_SCANS} scans are running already: stop one first")));
        }
        let job = super::survey::start(dir, settings)?;
        let reply = job.status();
        *lock(&tab.survey) = Some(job);
        Ok(reply)
    }

    /// Stop every scan (the server is stopping).
    pub fn stop_all(&self) {
        for tab in lock(&self.tabs).iter() {
            tab.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_latin1_bytes() {
        // "Caf\xe9" as the JSON output encodes it.
        assert_eq!(base64_decode("Q2Fm6Q=="), b"Caf\xe9");
        assert_eq!(base64_decode(""), b"");
    }

    #[test]
    fn the_language_is_told_apart_as_for_a_script_file() {
        assert_eq!(syntax_of("auto", "btm mate"), Syntax::Cql6);
        assert_eq!(syntax_of("auto", "; a comment\n(match (position :check))"), Syntax::Legacy);
        assert_eq!(syntax_of("yacpdb", "Twins > 1"), Syntax::Yacpdb);
    }

    #[test]
    fn a_typo_is_reported_with_its_line_and_column() {
        let err = compile("btm\n  mtae", "auto", &FilePolicy::forbidden()).err().expect("a typo");
        let first = &err["errors"][0];
        assert_eq!(first["line"], 2, "{err}");
        assert_eq!(first["column"], 3, "{err}");
        assert_eq!(first["start"], 6, "{err}");
        assert!(err["rendered"].as_str().unwrap().contains("query:2:3"), "{err}");
    }

    #[test]
    fn scripts_reach_no_file_under_the_default_policy() {
        let err = compile(r#"cql(input "games.pgn") writefile "x.txt" "a""#, "auto", &FilePolicy::forbidden());
        assert!(err.is_err());
    }

    #[test]
    fn utf16_offsets_count_as_the_editor_does() {
        assert_eq!(utf16_offset("♔ x", 4), 2);
        assert_eq!(utf16_offset("ab", 99), 2);
    }
}
