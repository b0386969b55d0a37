//! `cqlrs survey`: many scripts over an archive in one pass, with a report.
//!
//! Takes in: `cqlrs survey -i ARCHIVE… SCRIPT_OR_DIR… -o OUTDIR` (a directory stands for
//! its `.cql` and `.yacpdb` files; a `.yacpdb` file holds a YACPDB query, a script whose
//! first item is `(match` is legacy CQL, anything else CQL 6).
//! Gives out: in OUTDIR one PGN per theme (the bytes the script's own run writes),
//! `summary.csv`, `summary.json`, `cooccurrence.csv`, `breakdown.csv` and `report.html`;
//! the summary on stderr; exit status 0 when some theme matched, 1 when none, 2 on an
//! error (no script compiled, bad arguments, unreadable input, failed write).
//! Every script is compiled by the same path as a single run (includes, the command
//! line's amendments); one that does not compile is reported and left out.
//! Must never: write into a directory that holds other files than a survey's, or leave a
//! half-written file under a final name.

use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};

use super::args::{normalize, When};
use super::{apply_cli, compile_message, console, files, Args, QuerySource, EXIT_ERROR, EXIT_MATCH, EXIT_NO_MATCH};
use crate::eval::Query;
use crate::input::Source;
use crate::lang::Syntax;
use crate::output::{Format, PgnStyle, Sink};
use crate::scan::ScanConfig;
use crate::survey::scan::{self as survey, Theme};
use crate::survey::{html, Failed, Tally};
use crate::CompileOptions;

/// The arguments of `cqlrs survey`.
#[derive(Parser, Debug)]
#[command(
    name = "cqlrs survey",
    about = "Run many scripts over PGN archives in one pass and write a report",
    long_about = "Run many scripts (CQL 6, legacy CQL, YACPDB) over PGN archives in one pass: each game is read \
                  and replayed once and every query is evaluated on it. OUTDIR receives one PGN per theme, \
                  summary.csv, summary.json, cooccurrence.csv, breakdown.csv and report.html."
)]
pub struct SurveyArgs {
    /// PGN archive to read (repeatable; compressed files are read as they are)
    #[arg(short = 'i', long = "input", value_name = "ARCHIVE", required = true)]
    pub input: Vec<String>,
    /// Scripts, or directories of `.cql` and `.yacpdb` scripts
    #[arg(value_name = "SCRIPT_OR_DIR", required = true)]
    pub scripts: Vec<String>,
    /// Directory for the results (created if missing; must be empty or an earlier survey's)
    #[arg(short = 'o', long = "output", value_name = "OUTDIR", required = true)]
    pub output: String,
    /// Worker threads, 1 to 1024 (default: all cores)
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Progress bar on stderr: auto (only on a terminal), always, never
    #[arg(long = "progress", value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub progress: When,
    /// No warnings and no summary on stderr (errors are still printed)
    #[arg(long = "quiet-stderr")]
    pub quiet_stderr: bool,
}

/// The files a survey writes besides the theme PGNs.
const TABLES: [&str; 5] = ["summary.csv", "summary.json", "cooccurrence.csv", "breakdown.csv", "report.html"];

/// Run `cqlrs survey` with the arguments after the word `survey`.
pub fn run(rest: &[String]) -> i32 {
    // `-input` and `-output` as the search command spells them.
    let argv = std::iter::once("cqlrs survey".to_string()).chain(rest.iter().map(|a| match a.as_str() {
        "-input" => "--input".to_string(),
        "-output" => "--output".to_string(),
        _ => a.clone(),
    }));
    let args = match SurveyArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_ERROR } else { EXIT_MATCH };
        }
    };
    match survey(&args) {
        Ok(code) => code,
        Err(message) => {
            say!("{message}");
            EXIT_ERROR
        }
    }
}

/// The clap description of `cqlrs survey` (for completions and the manual page).
pub fn command() -> clap::Command {
    SurveyArgs::command().name("survey")
}

/// The script files named: files as given, directories as their `.cql` and `.yacpdb`
/// files in name order.
pub(super) fn script_files(named: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for name in named {
        let path = Path::new(name);
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("cqlrs: {name}: {e}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "cql" || x == "yacpdb"))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(format!("cqlrs: {name}: the directory holds no `.cql` or `.yacpdb` script"));
            }
            out.extend(found.into_iter().map(|p| p.to_string_lossy().into_owned()));
        } else if !path.exists() {
            // A misspelt name is found before the archives are read, not after.
            return Err(format!("cqlrs: survey: {name}: no such script file or directory; nothing was run"));
        } else {
            out.push(name.clone());
        }
    }
    Ok(out)
}

/// The start of the message for a script file that cannot be read (told apart from one
/// that does not compile).
fn unreadable(path: &str) -> String {
    format!("cqlrs: {path}: the script cannot be read:")
}

/// Compile one script as a single run compiles it (same front-end choice, includes and
/// command-line amendments), with the PGN style its run would write.
pub(super) fn compile_script(path: &str, defaults: &Args) -> Result<(Query, Syntax, PgnStyle), String> {
    let text = crate::input::read_regular_text(std::path::Path::new(path), crate::input::MAX_TEXT_FILE_BYTES)
        .map_err(|e| format!("{} {}", unreadable(path), super::io_message(&e)))?;
    // The script reaches the files its own run would: its folder and the current directory.
    let policy = super::policy_for(Some(path), None, &defaults.allow_files, defaults.secure)?;
    let syntax = if path.ends_with(".yacpdb") { Syntax::Yacpdb } else { Syntax::detect(&text) };
    let source = QuerySource { name: path.to_string(), text, syntax, script: Some(path.to_string()), map: None }
        .with_includes(&policy)?;
    let mut options = CompileOptions::new(syntax).amend(|ir| apply_cli(defaults, ir)).files(policy);
    let query = Query::compile(&source.text, &mut options).map_err(|e| compile_message(&e, |d| source.render(d)))?;
    let query = if defaults.no_plan { query.without_plan() } else { query };
    let settings = &query.ir().settings;
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

/// The language's name in the survey's tables.
pub(super) fn language(syntax: Syntax) -> &'static str {
    match syntax {
        Syntax::Cql6 => "cql6",
        Syntax::Legacy => "legacy",
        Syntax::Yacpdb => "yacpdb",
    }
}

/// Make sure OUTDIR may be written: missing (then created), empty, or holding only what
/// an earlier survey wrote (its `summary.json` is there).
fn prepare_outdir(dir: &Path) -> Result<(), String> {
    let shown = dir.display();
    if dir.exists() {
        if !dir.is_dir() {
            return Err(format!("cqlrs: survey output `{shown}` is not a directory"));
        }
        let mut entries = std::fs::read_dir(dir).map_err(|e| format!("cqlrs: {shown}: {e}"))?;
        if entries.next().is_some() && !dir.join("summary.json").is_file() {
            return Err(format!(
                "cqlrs: survey output `{shown}` is not empty and holds no earlier survey (no summary.json): \
                 give a new or empty directory"
            ));
        }
        Ok(())
    } else {
        std::fs::create_dir_all(dir).map_err(|e| format!("cqlrs: {shown}: {e}"))
    }
}

fn survey(args: &SurveyArgs) -> Result<i32, String> {
    super::check_threads(args.threads)?;
    let scripts = script_files(&args.scripts)?;
    // The search command's defaults: what a plain `cqlrs -i ARCHIVE SCRIPT` run applies.
    let defaults = Args::try_parse_from(normalize(vec!["cqlrs".to_string()])?).map_err(|e| e.to_string())?;
    let mut themes: Vec<Theme> = Vec::new();
    let mut described: Vec<(String, String, &'static str)> = Vec::new();
    let mut failed = Vec::new();
    for script in &scripts {
        match compile_script(script, &defaults) {
            Ok((query, syntax, style)) => {
                let stem = Path::new(script).file_stem().map_or("theme".into(), |s| s.to_string_lossy().into_owned());
                let mut name = stem.clone();
                let mut n = 2;
                while described.iter().any(|(other, _, _)| *other == name) {
                    name = format!("{stem}-{n}");
                    n += 1;
                }
                described.push((name.clone(), script.clone(), language(syntax)));
                themes.push(Theme::new(name, query, Format::Pgn(style)));
            }
            Err(message) if message.starts_with(&unreadable(script)) => {
                // Not a script that failed to compile: a file that cannot be read.
                say!("cqlrs: survey: {script} is left out: it cannot be read");
                say!("{}", message.trim_end());
                failed.push(Failed { script: script.clone(), error: message.trim_end().to_string() });
            }
            Err(message) => {
                say!("cqlrs: survey: {script} is left out: it does not compile");
                say!("{}", message.trim_end());
                failed.push(Failed { script: script.clone(), error: message.trim_end().to_string() });
            }
        }
    }
    if themes.is_empty() {
        return Err("cqlrs: survey: no script compiled; nothing to do".into());
    }

    let outdir = PathBuf::from(&args.output);
    let theme_paths: Vec<String> =
        themes.iter().map(|t| outdir.join(format!("{}.pgn", t.name)).to_string_lossy().into_owned()).collect();
    let table_paths: Vec<String> = TABLES.iter().map(|f| outdir.join(f).to_string_lossy().into_owned()).collect();
    let mut read: Vec<(&str, &str)> = args.input.iter().map(|p| ("input", p.as_str())).collect();
    read.extend(scripts.iter().map(|s| ("query script", s.as_str())));
    let written: Vec<(&str, &str)> = theme_paths
        .iter()
        .map(|p| ("theme output", p.as_str()))
        .chain(table_paths.iter().map(|p| ("survey table", p.as_str())))
        .collect();
    files::check_distinct(&read, &written)?;
    prepare_outdir(&outdir)?;
    // The themes run together over the same games: one run, whose inputs `writefile` never
    // writes over and `lastgamenumber` counts, and whose files every theme shares.
    let run = std::sync::Arc::new(crate::eval::Run::new());
    run.register_inputs(&args.input, &scripts);
    for theme in &mut themes {
        theme.query.set_run(run.clone());
    }

    let mut sinks = Vec::with_capacity(themes.len());
    for path in &theme_paths {
        sinks.push(Sink::create(path).map_err(|e| format!("cqlrs: {path}: {e}"))?);
    }
    let mut config = ScanConfig::new();
    if let Some(n) = args.threads {
        config.threads = n;
    }
    config.in_flight = 4 * config.threads + 4;
    let sources: Vec<Source> = args.input.iter().cloned().map(Source::whole).collect();
    let size = console::InputSize::of(&sources);
    let progress = console::progress_wanted(args.progress, args.quiet_stderr, &size);
    let mut console = console::Console::new(size, progress, args.progress == When::Always);
    console.quiet = args.quiet_stderr;

    let mut tally = Tally::new(described, args.input.clone(), failed);
    // Matches of sorting themes wait for the end (as a sorting run's do); the others are
    // written as they come, in input order.
    let mut held: Vec<Vec<survey::SortedMatch>> = themes.iter().map(|_| Vec::new()).collect();
    let mut write_error: Option<String> = None;
    let outcome = survey::run(&themes, sources, &config, &console, |game| {
        tally.add(&game);
        for m in game.matches {
            if themes[m.theme].sort.is_some() {
                held[m.theme].push(((m.sort, game.number), m.bytes));
            } else if let Err(e) = sinks[m.theme].write(&m.bytes) {
                write_error = Some(format!("cqlrs: {} (game {}): {e}", theme_paths[m.theme], game.number));
                return false;
            }
        }
        true
    });
    if themes.iter().any(|t| t.query.abort_requested()) {
        return Err("cqlrs: a query reached `cql_abort`: the survey was stopped and nothing was written".into());
    }
    if let Some(message) = write_error {
        return Err(message);
    }
    for (t, matches) in held.iter_mut().enumerate() {
        survey::order_sorted(matches);
        for (_, bytes) in matches.iter() {
            sinks[t].write(bytes).map_err(|e| format!("cqlrs: {}: {e}", theme_paths[t]))?;
        }
    }
    if outcome.input_errors > 0 {
        // As a single run does: an archive read only in part gives no results.
        say!(
            "cqlrs: the survey is incomplete: {} input {} could not be read to the end; nothing was written",
            outcome.input_errors,
            if outcome.input_errors == 1 { "file" } else { "files" }
        );
        return Ok(EXIT_ERROR);
    }
    for (sink, path) in sinks.iter_mut().zip(&theme_paths) {
        sink.commit().map_err(|e| format!("cqlrs: {path}: {e}"))?;
    }
    let tables = [
        tally.summary_csv(),
        tally.summary_json(),
        tally.cooccurrence_csv(),
        tally.breakdown_csv(),
        html::report(&tally),
    ];
    for (path, text) in table_paths.iter().zip(tables) {
        let mut sink = Sink::create(path).map_err(|e| format!("cqlrs: {path}: {e}"))?;
        sink.write(text.as_bytes()).and_then(|()| sink.commit()).map_err(|e| format!("cqlrs: {path}: {e}"))?;
    }
    if !args.quiet_stderr {
        let matched: u64 = tally.themes.iter().filter(|t| t.games > 0).count() as u64;
        let partly = if tally.partly_read > 0 {
            format!(", {} read only up to an unplayable move", tally.partly_read)
        } else {
            String::new()
        };
        let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        say!(
            "cqlrs: survey: {} ({} left out), {} read ({} skipped{partly}), {} matched by some theme, {} found; \
             {:.2} s on {} threads; report: {}",
            plural(tally.themes.len() as u64, "theme", "themes"),
            tally.failed.len(),
            plural(tally.read, "game", "games"),
            tally.skipped,
            tally.matched_any,
            plural(matched, "theme", "themes"),
            outcome.seconds,
            outcome.threads,
            table_paths[4]
        );
    }
    Ok(if tally.matched_any > 0 { EXIT_MATCH } else { EXIT_NO_MATCH })
}
