//! One run of a query from the command line: compile it, find its inputs and outputs,
//! scan, and report the outcome (the summary lines, the GUI's protocol, the status).
//!
//! Takes in: the checked arguments ([`Args`]).
//! Gives out: the exit status, or the message of an error (the caller prints it).
//! Must never: open an output before every output is known to be no input, or write an
//! output of a run that was stopped, failed or read none of its inputs to the end.

use super::args::{self, Args};
use super::{
    apply_cli, check_header_files, compile_message, console, default_output, file_policy, files, gui, index, limits_of,
    query_source, read_file, scale, validate, QuerySource, EXIT_ERROR, EXIT_MATCH, EXIT_NO_MATCH, GUI_INLINE_SCRIPT,
};
use crate::diag::Span;
use crate::eval::{Query, Scratch};
use crate::ir::{Filter, Ir};
use crate::lang;
use crate::output::{self, Format, PgnStyle, Sink, Summary};
use crate::scan::{self, Output, ScanConfig};
use crate::CompileOptions;

/// Run the command line's query (or one of its side commands) and give the exit status.
pub(super) fn execute(args: &Args) -> Result<i32, String> {
    validate(args)?;
    if !args.extract.is_empty() {
        return scale::extract(&args.extract);
    }
    if args.count_games {
        return scale::count_games(args);
    }
    if let Some(path) = args.to_ascii.as_deref().or(args.to_unicode.as_deref()) {
        let text = read_file(path)?;
        let converted =
            if args.to_ascii.is_some() { lang::cql6::to_ascii(&text) } else { lang::cql6::to_unicode(&text) };
        output::print_stdout(&converted).map_err(|e| format!("cqlrs: {e}"))?;
        return Ok(EXIT_MATCH);
    }
    let policy = file_policy(args)?;
    let source = query_source(args, &policy)?;
    let mut query = compile(args, source.as_ref(), &policy)?;
    if let Some(src) = &source {
        check_header_files(args, query.ir(), src, &policy)?;
    }
    if args.dump_ir {
        output::print_stdout(&crate::ir::dump::dump(query.ir())).map_err(|e| format!("cqlrs: {e}"))?;
        return Ok(EXIT_MATCH);
    }
    let inputs = inputs_of(args, query.ir())?;
    // An index as the input: its sources are what the run reads (docs/index.md).
    let index = index::open_input(&inputs)?;
    let inputs = index.as_ref().map_or(inputs, |ix| ix.source_paths());
    let format = format_of(args, query.ir());
    let out_path = output_path(args, query.ir(), &format, source.as_ref());
    let mut config = scan_config(args, &query);
    if args.parse {
        // `-parse`: the query compiled; nothing is read or written.
        if !args.quiet_stderr {
            let name = source.as_ref().map_or("<command line>", |s| s.name.as_str());
            say!("cqlrs: {name}: the query is valid");
        }
        return Ok(EXIT_MATCH);
    }
    check_files(args, &query, source.as_ref(), &inputs, out_path.as_deref())?;

    let plan = scale::prepare(args, inputs, query.sequential())?;

    // From here on (before any temporary file exists) SIGINT and SIGTERM stop the run in
    // order (see `interrupted_run`).
    config.interrupt = watch_signals();
    let encoding = args.output_encoding.as_deref().and_then(output::OutputEncoding::from_name).unwrap_or_default();
    let gui_buffer = gui::Buffer::default();
    let mut sink = match out_path.as_deref() {
        None if args.guipgnstdout => Sink::from_writer(Box::new(gui_buffer.clone())),
        None | Some("-") => Sink::stdout(),
        Some(path) if args.append => Sink::append(path).map_err(|e| format!("cqlrs: {path}: {e}"))?,
        Some(path) => Sink::create(path).map_err(|e| format!("cqlrs: {path}: {e}"))?,
    };
    sink.set_encoding(encoding);
    let mut rejects = match args.rejects.as_deref() {
        None => None,
        Some(path) => Some(Sink::create(path).map_err(|e| format!("cqlrs: {path}: {e}"))?),
    };
    let size = console::InputSize::of(&plan.sources);
    let input_count = plan.sources.len() as u64;
    // CQL's running output goes to stdout unless the games themselves do.
    let stdout_free = sink.path.is_some() || args.guipgnstdout;
    let chatter = gui::Chatter::new(args.gui, args.lineincrement, args.showmatches, stdout_free);
    let progress =
        console::progress_wanted(args.progress, args.quiet_stderr, &size) && (stdout_free || !chatter.active());
    let mut console = console::Console::new(size, progress, args.progress == args::When::Always);
    console.quiet = args.quiet_stderr;
    console.max_warnings = args.max_warnings;
    console.chatter = chatter;
    let mut limits = query.limits().clone();
    limits.interrupt = config.interrupt.clone();
    query.set_limits(limits);
    // From an index, the games the query cannot be proved to miss (a shard of the
    // sources is scanned as usual).
    let feed = match &index {
        Some(ix) if plan.range.is_none() && plan.first_number == 1 => {
            ix.feed(&query, &config, &format).map_err(|e| format!("cqlrs: {}: {e}", ix.path))?
        }
        _ => None,
    };
    let output = Output::new(format.clone(), &mut sink);
    let outcome = match feed {
        Some((feed, _)) => scan::run_feed(&query, Box::new(feed), &config, output, rejects.as_mut(), &console),
        None => scan::run_sources(&query, plan.sources, plan.first_number, &config, output, rejects.as_mut(), &console),
    };
    let ran = Ran {
        outcome,
        sink,
        rejects,
        format,
        config,
        input_count,
        bytes: plan.bytes,
        range: plan.range,
        console,
        gui_buffer,
        stdout_free,
    };
    report(args, &query, ran)
}

/// The one compile pipeline of the library; the command line's filters are added to the
/// front-end's IR before its transforms are expanded. Without a query, only the command
/// line's filters: a header query evaluated once per game.
fn compile(args: &Args, source: Option<&QuerySource>, policy: &crate::eval::FilePolicy) -> Result<Query, String> {
    let compiled = match source {
        Some(src) => {
            let mut options = CompileOptions::new(src.syntax).amend(|ir| apply_cli(args, ir)).files(policy.clone());
            Query::compile(&src.text, &mut options).map_err(|e| compile_message(&e, |d| src.render(d)))
        }
        None => {
            let mut ir = Ir::new();
            ir.root = Some(ir.add(Filter::True, Span::default()));
            ir.settings.per_game = true;
            apply_cli(args, &mut ir)?;
            Query::from_ir(ir).map_err(|e| compile_message(&e, |d| d.render("<command line>", "")))
        }
    };
    let mut query = compiled?;
    if args.no_plan {
        query = query.without_plan();
    }
    query.set_limits(limits_of(args));
    Ok(query)
}

/// The run's inputs: the options', else the query's `input`; none for `-parse`.
fn inputs_of(args: &Args, ir: &Ir) -> Result<Vec<String>, String> {
    if args.guipgnstdin {
        Ok(vec!["-".to_string()])
    } else if !args.input.is_empty() {
        Ok(args.input.clone())
    } else if !ir.settings.input.is_empty() {
        Ok(ir.settings.input.clone())
    } else if args.parse {
        // `-parse` reads no games.
        Ok(Vec::new())
    } else {
        // Standard input is read only when asked (`-i -`), as CQL 6.2 does: a run from
        // cron or a GUI, whose stdin is not a terminal, must not read it by accident (and
        // replace an earlier output with an empty one).
        Err("cqlrs: no input: give a PGN file with `-i FILE` (`-i -` reads standard input); \
             nothing was run and no file was written"
            .into())
    }
}

/// What is written for each matching game.
fn format_of(args: &Args, ir: &Ir) -> Format {
    let style = PgnStyle {
        matchstring: ir.settings.matchstring.clone().unwrap_or_else(|| "CQL".into()),
        silent: ir.settings.silent,
        quiet: ir.settings.quiet,
        game_number_comment: !args.noheader,
        settag: !args.nosettag,
        remove_comments: !(args.noremovecomment || ir.settings.keep_removed_comments),
        sort_matchcount: ir.settings.sort_matchcount,
    };
    if args.numbers {
        Format::Numbers
    } else if args.count {
        Format::Count
    } else if args.json_pgn {
        Format::JsonPgn(style)
    } else if args.json {
        Format::Json
    } else if args.positions {
        Format::Positions
    } else if args.epd {
        Format::Epd
    } else {
        Format::Pgn(style)
    }
}

/// The output file: the option, else the query's `output`, else (PGN output of a script
/// file) `<script>-out.pgn`. `-guipgnstdout`: the games go to stdout, inside the
/// protocol's block.
fn output_path(args: &Args, ir: &Ir, format: &Format, source: Option<&QuerySource>) -> Option<String> {
    let out_path = if args.guipgnstdout { None } else { args.output.clone() };
    out_path.or_else(|| match format {
        _ if args.guipgnstdout => None,
        Format::Pgn(_) => ir.settings.output.clone().or_else(|| {
            match source.and_then(|s| s.script.as_ref()) {
                Some(script) => Some(default_output(script)),
                // An inline query under `-gui`: CQL 6.2 names its query `cqldefault.cql`
                // (cql.cpp, the end of the command-line reader), so its games go to
                // `cqldefault-out.pgn`; a GUI reads them from there.
                None if args.gui => Some(default_output(GUI_INLINE_SCRIPT)),
                None => None,
            }
        }),
        _ => None,
    })
}

/// The scan's settings from the options and the query.
fn scan_config(args: &Args, query: &Query) -> ScanConfig {
    let mut config = ScanConfig::new();
    if args.singlethreaded {
        config.threads = 1;
    } else if let Some(n) = args.threads {
        config.threads = n.max(1);
    }
    if query.sequential() {
        // The scan runs such a query on one worker whatever it is asked; say so.
        config.threads = 1;
    }
    config.in_flight = 4 * config.threads + 4;
    config.limit = args.limit;
    config.unsorted = args.nosort;
    config.gamenumber = query.ir().settings.gamenumber;
    config.keep_rejects = args.rejects.is_some();
    if let Some(max) = args.max_game_bytes {
        config.max_game_bytes = usize::try_from(max).unwrap_or(usize::MAX);
    }
    // The memory budget also bounds the positions a game's tree may hold.
    config.max_game_positions = Some(scan::positions_for_memory(query.limits().max_memory));
    config
}

/// Nothing is opened for writing before every output is known to be no input; the
/// query's own files are told what the run reads and writes.
fn check_files(
    args: &Args,
    query: &Query,
    source: Option<&QuerySource>,
    inputs: &[String],
    out_path: Option<&str>,
) -> Result<(), String> {
    let mut read: Vec<(&str, &str)> = inputs.iter().map(|p| ("input", p.as_str())).collect();
    if let Some(script) = source.and_then(|src| src.script.as_ref()) {
        read.push(("query script", script.as_str()));
    }
    for word in &args.similarposition {
        read.push(("-similarposition file", word.as_str()));
    }
    let mut written: Vec<(&str, &str)> = Vec::new();
    if let Some(p) = out_path {
        written.push(("output", p));
    }
    if let Some(p) = args.rejects.as_deref() {
        written.push(("rejects file", p));
    }
    files::check_distinct(&read, &written)?;
    if let Some(path) = out_path.filter(|p| *p != "-" && args.noclobber) {
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(format!("cqlrs: {path}: the output file exists and `--noclobber` was given; nothing was run"));
        }
    }
    // `writefile` never writes over what the run reads; `lastgamenumber` counts the inputs.
    let others: Vec<String> = read.iter().filter(|(what, _)| *what != "input").map(|(_, p)| p.to_string()).collect();
    query.run().register_inputs(inputs, &others);
    // Nor into the run's own output and rejects files (replaced whole at the end).
    let own: Vec<String> = written.iter().map(|(_, p)| p.to_string()).collect();
    query.run().register_outputs(&own);
    Ok(())
}

/// A finished scan and what its report needs.
struct Ran {
    outcome: scan::ScanOutcome<Scratch>,
    sink: Sink,
    rejects: Option<Sink>,
    format: Format,
    config: ScanConfig,
    /// Inputs (files or ranges) the scan read.
    input_count: u64,
    /// Input bytes, when known.
    bytes: Option<u64>,
    /// The byte range of a shard.
    range: Option<(u64, u64)>,
    console: console::Console,
    /// The games of `-guipgnstdout`.
    gui_buffer: gui::Buffer,
    /// Stdout is free for CQL's own lines (the games go elsewhere).
    stdout_free: bool,
}

/// After the scan: keep or discard the outputs, say what happened, and give the status.
fn report(args: &Args, query: &Query, ran: Ran) -> Result<i32, String> {
    let Ran {
        outcome,
        mut sink,
        mut rejects,
        format,
        config,
        input_count,
        bytes,
        range,
        console,
        gui_buffer,
        stdout_free,
    } = ran;
    if outcome.interrupted != 0 {
        return Ok(interrupted_run(&outcome, &mut sink, rejects.as_mut()));
    }
    if let Some(runaway) = &outcome.runaway {
        sink.discard();
        if let Some(r) = rejects.as_mut() {
            r.discard();
        }
        return Err(runaway_message(runaway, sink.path.as_deref()));
    }
    if query.abort_requested() {
        sink.discard();
        return Err("cqlrs: the query reached `cql_abort`: the run was stopped and nothing was written".into());
    }
    if outcome.broken_pipe {
        let _ = sink.commit();
        return Ok(EXIT_MATCH);
    }
    if let Some((game, e)) = &outcome.write_error {
        sink.discard();
        let target = sink.path.as_deref().unwrap_or("<stdout>");
        let at = game.map_or(String::new(), |n| format!(" (game {n})"));
        let kept = if sink.path.is_some() { "; nothing was written, an existing file is unchanged" } else { "" };
        return Err(format!("cqlrs: {target}{at}: {e}{kept}"));
    }
    if let Some(e) = &outcome.rejects_error {
        return Err(format!("cqlrs: {}: {e}", args.rejects.as_deref().unwrap_or("")));
    }
    let complete = outcome.input_errors == 0;
    // Inputs that could not be read are named and skipped, as grep does: the games of the
    // others are written, and the status says that a file was skipped. Nothing is written
    // when no input was read to its end (an earlier output is not replaced by nothing; a
    // run that read nothing fails even with `--exit-zero`), nor under `-gui`, where CQL
    // 6.2 stops at an unreadable input.
    let written = complete || (!args.gui && outcome.input_errors < input_count);
    let summary = Summary {
        matched: outcome.matched,
        read: outcome.read,
        unmatched: outcome.unmatched,
        skipped: outcome.skipped,
        abandoned: outcome.abandoned,
        partly_read: outcome.partly_read,
        passed_over: outcome.passed_over,
        seconds: outcome.seconds,
        threads: config.threads,
        output: if written { sink.path.clone() } else { None },
    };
    let summary_record =
        args.summary_json.then(|| output::summary_json(&summary, bytes, outcome.input_errors, range) + "\n");
    let mut record_written = false;
    if written {
        if let (Some(record), true) = (&summary_record, format.is_json()) {
            // The record ends the JSON lines of the output itself.
            sink.write(record.as_bytes())
                .map_err(|e| format!("cqlrs: {}: {e}", sink.path.as_deref().unwrap_or("<stdout>")))?;
            record_written = true;
        }
        if let Err(e) = sink.commit() {
            return Err(format!("cqlrs: {}: {e}", sink.path.as_deref().unwrap_or("<stdout>")));
        }
        if args.guipgnstdout {
            let written = outcome.matched.min(config.limit.unwrap_or(u64::MAX));
            gui::pgn_block(written, &gui_buffer.take());
        }
    } else {
        sink.discard();
    }
    if let Some(r) = rejects.as_mut() {
        r.commit().map_err(|e| format!("cqlrs: {}: {e}", r.path.as_deref().unwrap_or("")))?;
    }
    match &summary_record {
        Some(record) if !record_written => say_inline!("{record}"),
        Some(_) => {}
        None if !args.quiet_stderr => say!("{}", summary.line()),
        None => {}
    }
    // On a terminal, where stdout and stderr show together, the line above says it all:
    // CQL's own line (below) is for the programs that read stdout.
    let one_screen = summary_record.is_none()
        && !args.quiet_stderr
        && std::io::IsTerminal::is_terminal(&std::io::stdout())
        && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let persistent = query.persistent_totals(&outcome.scratches);
    if !args.gui {
        for (name, value) in &persistent {
            say!("{name}: {value}");
        }
    }
    let finish = gui::Finish {
        matched: outcome.matched,
        games: outcome.read,
        seconds: outcome.seconds,
        threads: config.threads,
        output: sink.path.as_deref().unwrap_or(""),
        persistent: &persistent,
    };
    if !complete {
        // Said for a missing file as for a cut one: the message above names the cause.
        let (files, messages) = if outcome.input_errors == 1 { ("file", "message") } else { ("files", "messages") };
        let n = outcome.input_errors;
        let message = if written {
            let to = match &sink.path {
                Some(p) => format!("`{p}` holds the matches of the other inputs"),
                None => "the matches of the other inputs were written".to_string(),
            };
            let status = if args.exit_zero { "exit status 0 (--exit-zero)" } else { "exit status 2" };
            format!("cqlrs: {n} input {files} could not be read (see the {messages} above) and skipped; {to}; {status}")
        } else {
            let kept = match &sink.path {
                Some(p) => format!("; `{p}` was not written (an existing file is unchanged)"),
                None => String::new(),
            };
            format!("cqlrs: the run is incomplete: no input could be read to its end (see the {messages} above){kept}")
        };
        say!("{message}");
        if args.gui {
            let mut errors = console.chatter.input_errors();
            errors.push(message);
            gui::error(&errors.join("\n"));
        }
        if !written || !args.exit_zero {
            if written && stdout_free && !one_screen && !args.gui {
                let _ = output::print_stdout(&format!("\n{}\n", finish.summary_line()));
            }
            return Ok(EXIT_ERROR);
        }
    }
    // CQL's own summary (and in GUI mode the rest of its protocol) on stdout, when the
    // games do not go there; CQL starts it with a newline, ending a line of progress.
    if args.gui {
        finish.write_gui();
    } else if stdout_free && !one_screen {
        let _ = output::print_stdout(&format!("\n{}\n", finish.summary_line()));
    }
    Ok(if outcome.matched > 0 || !args.grep_status { EXIT_MATCH } else { EXIT_NO_MATCH })
}
/// The message for a scan stopped because the query was abandoned on most games: how
/// far it got, the reason given for the last game, and the budget to raise (or, for a
/// fixed limit, that the query must change).
fn runaway_message(runaway: &scan::Runaway, output: Option<&str>) -> String {
    let last = runaway.last.as_str();
    let reason = last.split_once("): ").map_or(last, |(_, r)| r);
    let hint = match ["--max-game-steps", "--max-game-time", "--max-game-memory"].iter().find(|o| reason.contains(*o)) {
        Some(option) => format!(
            "if the query is right and the games need more, raise the budget: `{option}` (docs/output.md, \
             \"Budgets per game\"); otherwise look for a loop that never ends"
        ),
        None => "this limit is fixed: the query itself must change (a loop that never ends?)".to_string(),
    };
    let kept = match output {
        Some(p) => format!("; `{p}` was not written (an existing file is unchanged)"),
        None => "; the output is incomplete".to_string(),
    };
    format!(
        "cqlrs: stopped early: the query was abandoned on {} of the {} games evaluated so far (more than {:.0} % after at least \
         {} games); the last: {reason}{kept}\n  = hint: {hint}",
        runaway.abandoned,
        runaway.games,
        scan::RUNAWAY_SHARE * 100.0,
        scan::RUNAWAY_MIN_GAMES,
    )
}

/// Have SIGINT and SIGTERM set a flag (to the signal's number) instead of ending the
/// process, so that the scan can stop its workers, remove its temporary files and report
/// how far it got. A second signal of the same kind ends the process at once. `None`
/// when the handlers cannot be installed (the signals then act as usual).
fn watch_signals() -> Option<std::sync::Arc<std::sync::atomic::AtomicUsize>> {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        for signal in [SIGINT, SIGTERM] {
            // The order matters: the second signal finds the flag already set.
            let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, seen.clone()).ok()?;
            signal_hook::flag::register(signal, seen).ok()?;
            signal_hook::flag::register_usize(signal, flag.clone(), signal as usize).ok()?;
            // Reads that wait for input (standard input, a FIFO) end too.
            signal_hook::flag::register(signal, crate::input::stop_flag()).ok()?;
        }
        Some(flag)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// End a run stopped by a signal: the output's temporary file is removed (an existing
/// output stays as it was), the rejects file gets the skipped games read so far, and a
/// line says how far the run got. The status is 128 + the signal's number (130 for
/// SIGINT, 143 for SIGTERM).
fn interrupted_run(
    outcome: &scan::ScanOutcome<crate::eval::Scratch>,
    sink: &mut Sink,
    rejects: Option<&mut Sink>,
) -> i32 {
    sink.discard();
    let mut rejects_note = String::new();
    if let Some(r) = rejects {
        let path = r.path.clone().unwrap_or_default();
        rejects_note = match r.commit() {
            Ok(()) => format!(
                "; the {} skipped and {} partly read games read so far are in `{path}`",
                outcome.skipped, outcome.partly_read
            ),
            Err(e) => format!("; the rejects file `{path}` could not be written: {e}"),
        };
    }
    let name = match outcome.interrupted {
        2 => "SIGINT",
        15 => "SIGTERM",
        _ => "a signal",
    };
    let kept = match &sink.path {
        Some(p) => format!("; `{p}` was not written (an existing file is unchanged)"),
        None => String::new(),
    };
    say!(
        "cqlrs: interrupted by {name} after {} games ({} matched, {} unmatched, {} skipped, {} abandoned) in {:.1} s{kept}{rejects_note}",
        outcome.read,
        outcome.matched,
        outcome.unmatched,
        outcome.skipped,
        outcome.abandoned,
        outcome.seconds
    );
    128 + outcome.interrupted as i32
}
