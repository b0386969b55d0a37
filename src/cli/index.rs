//! `cqlrs index`: build or extend a persistent index of PGN archives, and the glue that
//! lets a search read an index (`-i NAME.cqlx`) as its input (see docs/index.md).
//!
//! Takes in: the arguments after the word `index`; for a search, its input list.
//! Gives out: the index file and a line of tallies; for a search, the opened index.
//! Must never: write a half index (the file is written beside and renamed), or let a
//! search read an index whose sources have changed.

use clap::{CommandFactory, Parser};

use super::args::When;
use super::console::{self, Console, InputSize};
use super::{EXIT_ERROR, EXIT_MATCH};
use crate::index::{self, Index};
use crate::input::Source;

/// `cqlrs index`.
#[derive(Parser, Debug)]
#[command(
    name = "index",
    about = "Build a persistent index of PGN archives (`-i NAME.cqlx` then reads it as an input)",
    long_about = "Read PGN archives (plain, .gz, .zst, .bz2; files or folders) once and write an index: where \
                  each game is, its tags and the facts of its replay (material reached, mates, promotions, \
                  castling …). A search given `-i NAME.cqlx` reads only the games the query could match and \
                  writes exactly what a search of the archives writes."
)]
pub struct IndexArgs {
    /// PGN files or folders to index
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<String>,
    /// The index file to write (by convention NAME.cqlx)
    #[arg(short = 'o', long = "output", value_name = "NAME.cqlx", required_unless_present = "update")]
    pub output: Option<String>,
    /// Add the inputs to this existing index instead of building a new one
    #[arg(long = "update", value_name = "NAME.cqlx", conflicts_with = "output")]
    pub update: Option<String>,
    /// Worker threads (default: all cores)
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Progress bar on stderr: auto (only on a terminal), always, never
    #[arg(long = "progress", value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub progress: When,
    /// No summary on stderr (errors are still printed)
    #[arg(long = "quiet-stderr")]
    pub quiet_stderr: bool,
}

/// The clap description of `cqlrs index` (for completions and the manual page).
pub fn command() -> clap::Command {
    IndexArgs::command().name("index")
}

/// Run `cqlrs index` with the arguments after the word `index`.
pub fn run(rest: &[String]) -> i32 {
    let argv = std::iter::once("cqlrs index".to_string()).chain(rest.iter().cloned());
    let args = match IndexArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_ERROR } else { EXIT_MATCH };
        }
    };
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let paths = match index::expand_inputs(&args.inputs) {
        Ok(p) => p,
        Err(e) => {
            say!("cqlrs: {e}");
            return EXIT_ERROR;
        }
    };
    let size = InputSize::of(&paths.iter().map(Source::whole).collect::<Vec<_>>());
    let progress = console::progress_wanted(args.progress, args.quiet_stderr, &size);
    let mut events = Console::new(size, progress, args.progress == When::Always);
    // Unreadable games are counted in the summary line; one warning each would bury it.
    events.quiet = true;
    let started = std::time::Instant::now();
    let (target, result) = match (&args.update, &args.output) {
        (Some(path), _) => (path.clone(), index::update(path, &paths, threads, &events)),
        (None, Some(path)) => (path.clone(), index::build(path, &paths, threads, &events)),
        (None, None) => unreachable!("clap requires one"),
    };
    drop(events);
    match result {
        Ok(built) => {
            if !args.quiet_stderr {
                say!(
                    "cqlrs: {target}: {} games indexed ({} skipped, {} read in part), {} bytes, {:.2} s",
                    built.games,
                    built.skipped,
                    built.partly_read,
                    built.bytes,
                    started.elapsed().as_secs_f64()
                );
            }
            EXIT_MATCH
        }
        Err(e) => {
            say!("cqlrs: {target}: {e}");
            EXIT_ERROR
        }
    }
}

/// Is this input an index? (Named `*.cqlx`, or beginning with the index magic.)
fn is_index(path: &str) -> bool {
    if path.ends_with(".cqlx") {
        return true;
    }
    // Only a regular file is looked into: reading the head of a pipe or `/dev/stdin`
    // would take bytes the search must read.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == index::format::MAGIC)
}

/// The index a search reads, when its input is one: opened and checked, its sources
/// unchanged. An index must be the only input.
pub(super) fn open_input(inputs: &[String]) -> Result<Option<Index>, String> {
    let count = inputs.iter().filter(|p| *p != "-" && is_index(p)).count();
    if count == 0 {
        return Ok(None);
    }
    if inputs.len() > 1 {
        return Err("cqlrs: an index (`.cqlx`) must be the only input of a search".into());
    }
    let path = &inputs[0];
    let index = Index::open(path).map_err(|e| format!("cqlrs: {path}: {e}"))?;
    index.check_sources().map_err(|e| format!("cqlrs: {path}: {e}"))?;
    Ok(Some(index))
}
