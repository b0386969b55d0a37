//! The page's survey: every script of a `--survey` folder over the archive in one pass, as
//! `cqlrs survey` runs them, giving the same `report.html` (kept in memory, not written).
//!
//! Takes in: a folder named with `--survey` at the server's start; the archive.
//! Gives out: progress as JSON, then the report's HTML.
//! Must never: write a file, or reach files beyond the server's file policy (the scripts
//! are compiled as `cqlrs survey --secure` would, unless `--allow-files` was given).

use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};

use super::super::args::{normalize, Args};
use super::super::survey::{compile_script, language, script_files};
use super::lock;
use super::{ApiError, Settings};
use crate::input::Source;
use crate::output::Format;
use crate::scan::{ScanConfig, ScanEvents};
use crate::survey::scan::{self as survey, Theme};
use crate::survey::{html, Failed, Tally};

/// One survey of one tab, run on its own thread.
pub struct SurveyJob {
    folder: String,
    stop: AtomicUsize,
    started: Instant,
    read: AtomicU64,
    themes: usize,
    failed: usize,
    /// The report once the survey is over, or why there is none.
    result: Mutex<Option<Result<String, String>>>,
    seconds: Mutex<f64>,
}

impl SurveyJob {
    /// Stop the survey (the report is then not made).
    pub fn stop(&self) {
        self.stop.store(1, Ordering::Relaxed);
    }

    /// Is the survey still running?
    pub fn running(&self) -> bool {
        lock(&self.result).is_none()
    }

    /// Progress and outcome, for the page.
    pub fn status(&self) -> Value {
        let result = lock(&self.result);
        let (state, error) = match &*result {
            None => ("running", None),
            Some(Ok(_)) => ("done", None),
            Some(Err(e)) => ("failed", Some(e.clone())),
        };
        json!({
            "ok": true,
            "state": state,
            "error": error,
            "folder": self.folder,
            "themes": self.themes,
            "left_out": self.failed,
            "read": self.read.load(Ordering::Relaxed),
            "seconds": if state == "running" { self.started.elapsed().as_secs_f64() } else { *lock(&self.seconds) },
        })
    }

    /// The report's HTML, once the survey is over.
    pub fn report(&self) -> Result<String, ApiError> {
        match &*lock(&self.result) {
            None => Err(ApiError::new(409, "the survey is still running")),
            Some(Ok(html)) => Ok(html.clone()),
            Some(Err(e)) => Err(ApiError::new(409, e.clone())),
        }
    }
}

struct Progress(Arc<SurveyJob>);

impl ScanEvents for Progress {
    fn game_finished(&self, read: u64, _matched: u64) {
        self.0.read.store(read, Ordering::Relaxed);
    }
}

/// Compile the folder's scripts and start their survey in the background.
pub fn start(folder: &str, settings: &Settings) -> Result<Arc<SurveyJob>, ApiError> {
    let scripts = script_files(&[folder.to_string()]).map_err(|e| ApiError::new(400, e))?;
    // The search command's defaults under the server's file policy.
    let mut argv = vec!["cqlrs".to_string()];
    if settings.files.access() == crate::eval::FileAccess::Forbidden {
        argv.push("--secure".into());
    }
    let defaults = normalize(argv)
        .and_then(|a| <Args as clap::Parser>::try_parse_from(a).map_err(|e| e.to_string()))
        .map_err(|e| ApiError::new(500, e))?;
    let mut themes = Vec::new();
    let mut described = Vec::new();
    let mut failed = Vec::new();
    for script in &scripts {
        match compile_script(script, &defaults) {
            Ok((query, syntax, style)) => {
                let stem = Path::new(script).file_stem().map_or("theme".into(), |s| s.to_string_lossy().into_owned());
                let mut name = stem.clone();
                let mut n = 2;
                while described.iter().any(|(other, _, _): &(String, String, &str)| *other == name) {
                    name = format!("{stem}-{n}");
                    n += 1;
                }
                described.push((name.clone(), script.clone(), language(syntax)));
                themes.push(Theme::new(name, query, Format::Pgn(style)));
            }
            Err(message) => failed.push(Failed { script: script.clone(), error: message.trim_end().to_string() }),
        }
    }
    if themes.is_empty() {
        return Err(ApiError::new(400, format!("no script of `{folder}` compiled")));
    }
    let inputs = settings.archive.names().to_vec();
    let run = Arc::new(crate::eval::Run::new());
    run.register_inputs(&inputs, &scripts);
    for theme in &mut themes {
        theme.query.set_run(run.clone());
    }
    let job = Arc::new(SurveyJob {
        folder: folder.to_string(),
        stop: AtomicUsize::new(0),
        started: Instant::now(),
        read: AtomicU64::new(0),
        themes: themes.len(),
        failed: failed.len(),
        result: Mutex::new(None),
        seconds: Mutex::new(0.0),
    });
    let mut config = ScanConfig::new();
    config.threads = settings.threads;
    config.in_flight = 4 * config.threads + 4;
    let worker = job.clone();
    std::thread::Builder::new()
        .name("cqlrs-serve-survey".into())
        .spawn(move || {
            let mut tally = Tally::new(described, inputs.clone(), failed);
            let sources: Vec<Source> = inputs.iter().cloned().map(Source::whole).collect();
            let outcome = survey::run(&themes, sources, &config, &Progress(worker.clone()), |game| {
                tally.add(&game);
                worker.stop.load(Ordering::Relaxed) == 0
            });
            *lock(&worker.seconds) = outcome.seconds;
            let result = if worker.stop.load(Ordering::Relaxed) != 0 {
                Err("the survey was stopped".to_string())
            } else if outcome.input_errors > 0 {
                Err(format!("{} input file(s) could not be read to the end", outcome.input_errors))
            } else {
                Ok(html::report(&tally))
            };
            *lock(&worker.result) = Some(result);
        })
        .map_err(|e| ApiError::new(500, format!("cannot start the survey: {e}")))?;
    Ok(job)
}
