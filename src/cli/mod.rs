//! Command line: from arguments to a finished scan and an exit status.
//!
//! Takes in: the process arguments ([`args`] checks their shape), query files and
//! inline queries.
//! Gives out: a compiled query with the CLI's filters, transforms and settings
//! applied, a scan over the inputs, the summary (CQL's line on stdout when the games go
//! to a file, the full tallies on stderr), and the exit status, as CQL's: 0 = the run
//! completed, whether or not a game matched (with `--grep-status`, 1 when none did),
//! 2 = error (bad query or option, an output that is an input, unreadable or damaged
//! input, failed write). Malformed
//! games are reported and counted as skipped; games the evaluator gives up on are
//! reported and counted as abandoned; neither changes the status.
//! Must never: write to stdout itself (the `output` and [`gui`] modules do), or start scanning
//! when the query has errors.

use crate::ir::{HeaderFilter, LogicFilter, NumberFilter};
/// `eprintln!` for the command line: a closed or failing stderr (`cqlrs … 2>&1 | head`)
/// must not turn a message into a panic, so write errors are ignored.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` without the newline, with the same rule as [`say!`].
macro_rules! say_inline {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

pub mod args;
pub mod commands;
pub mod console;
mod files;
pub mod gui;
mod include;
pub mod index;
mod run;
mod scale;
pub mod serve;
pub mod survey;

use std::path::{Path, PathBuf};

use clap::Parser;

use crate::diag::Span;
use crate::eval::{FileAccess, FilePolicy, FileUse};
use crate::ir::{CmpOp, Filter, FilterId, GameResult, HeaderField, Ir, TransformKind};
use crate::lang::Syntax;
use crate::output;
use crate::CompileError;

pub use args::Args;

/// Exit status: the run completed (whether or not a game matched, as CQL 6.2 exits).
pub const EXIT_MATCH: i32 = 0;
/// Exit status with `--grep-status`: the run completed and no game matched.
pub const EXIT_NO_MATCH: i32 = 1;
/// Exit status: an error (bad query or arguments, unreadable input, failed write).
pub const EXIT_ERROR: i32 = 2;

/// Run the program with the process arguments; returns the exit status.
pub fn main() -> i32 {
    run(std::env::args().collect())
}

/// Run the program with these arguments (the first is the program name).
pub fn run(argv: Vec<String>) -> i32 {
    if let Some(code) = commands::run_subcommand(&argv) {
        return code;
    }
    // CQL's GUI protocol starts with the version, before the arguments are checked, so
    // that a GUI sees their errors too.
    let gui = gui::requested(&argv);
    if gui {
        gui::start();
    }
    let argv = match args::normalize(argv) {
        Ok(a) => a,
        Err(message) => {
            say!("{message}");
            if gui {
                gui::error(&message);
            }
            return EXIT_ERROR;
        }
    };
    let positionals = positional_words(&argv);
    let args = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e)
            if e.kind() == clap::error::ErrorKind::UnknownArgument
                && positionals.len() > 1
                && e.get(clap::error::ContextKind::InvalidArg).is_some_and(|v| !v.to_string().starts_with('-')) =>
        {
            let message = two_positionals(&positionals);
            say!("{message}");
            if gui {
                gui::error(&message);
            }
            return EXIT_ERROR;
        }
        Err(e) => {
            let _ = e.print();
            if gui && e.use_stderr() {
                gui::error(&e.to_string());
            }
            return if e.use_stderr() { EXIT_ERROR } else { EXIT_MATCH };
        }
    };
    match run::execute(&args) {
        Ok(code) => code,
        Err(message) => {
            if gui && !message.is_empty() {
                gui::error(&message);
            }
            if !message.is_empty() {
                let message = if console::color_wanted(args.color) { console::colorize(&message) } else { message };
                say_inline!("{message}");
                if !message.ends_with('\n') {
                    say!();
                }
            }
            EXIT_ERROR
        }
    }
}

/// The words of a normalized argument list that are not options or their values (after
/// [`args::normalize`] every option's value is in the same word, `--name=value`, except
/// the long options typed as `--name value`, whose value is the next word).
fn positional_words(argv: &[String]) -> Vec<String> {
    use clap::CommandFactory;
    let command = Args::command();
    let takes_value = |word: &str| {
        let name = word.trim_start_matches('-');
        command.get_arguments().any(|a| {
            (a.get_long() == Some(name) || (word.len() == 2 && a.get_short() == name.chars().next()))
                && a.get_action().takes_values()
        })
    };
    let mut out = Vec::new();
    let mut words = argv.iter().skip(1);
    while let Some(word) = words.next() {
        if word == "--" {
            out.extend(words.by_ref().cloned());
        } else if word.starts_with('-') && word.len() > 1 {
            if !word.contains('=') && takes_value(word) {
                words.next();
            }
        } else {
            out.push(word.clone());
        }
    }
    out
}

/// The message for more than one word where the one query script goes: a PGN file there
/// is games given without `-i`; otherwise only one script may be given.
fn two_positionals(words: &[String]) -> String {
    let is_pgn = |w: &String| {
        let lower = w.to_ascii_lowercase();
        [".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2"].iter().any(|ext| lower.ends_with(ext))
    };
    let games: Vec<&String> = words.iter().filter(|w| is_pgn(w)).collect();
    let scripts: Vec<&String> = words.iter().filter(|w| !is_pgn(w)).collect();
    let listed = words.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", ");
    match (games.as_slice(), scripts.as_slice()) {
        ([], _) => format!(
            "cqlrs: one query script at a time, found {listed}\n  = hint: run the scripts one by one, or all at once \
             with `cqlrs survey -i GAMES.pgn {} -o OUTDIR`",
            words.iter().map(|w| shell_word(w)).collect::<Vec<_>>().join(" ")
        ),
        (games, [script]) => format!(
            "cqlrs: {}: games given where the query script goes\n  = hint: give games with `-i`: `cqlrs {} {}`",
            games.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", "),
            games.iter().map(|w| format!("-i {}", shell_word(w))).collect::<Vec<_>>().join(" "),
            shell_word(script)
        ),
        (games, _) => format!(
            "cqlrs: {listed}: only one query script goes after the options\n  = hint: give games with `-i`: `{}`",
            games.iter().map(|w| format!("-i {}", shell_word(w))).collect::<Vec<_>>().join(" ")
        ),
    }
}

/// A query's text and where it came from (for error messages).
struct QuerySource {
    name: String,
    text: String,
    syntax: Syntax,
    script: Option<String>,
    /// Where the parts of `text` came from, when the script includes files.
    map: Option<include::SourceMap>,
}

impl QuerySource {
    /// An error of the query, rendered against the file each diagnostic is in.
    fn render(&self, error: &crate::diag::Error) -> String {
        match &self.map {
            Some(map) => map.render(error),
            None => error.render(&self.name, &self.text),
        }
    }

    /// Take in the files the `cql( … )` header includes (CQL 6 only).
    fn with_includes(mut self, policy: &FilePolicy) -> Result<QuerySource, String> {
        if self.syntax == Syntax::Cql6 {
            if let Some((text, map)) = include::expand(&self.text, self.script.as_deref(), policy)? {
                self.text = text;
                self.map = Some(map);
            }
        }
        Ok(self)
    }
}

fn read_file(path: &str) -> Result<String, String> {
    crate::input::read_regular_text(std::path::Path::new(path), crate::input::MAX_TEXT_FILE_BYTES)
        .map_err(|e| format!("cqlrs: {path}: {e}"))
}

/// Read the query script given where the script goes; a PGN file (plain or compressed)
/// there is a game file given without `-i`, and is refused with the command to type.
fn read_script(path: &str, args: &Args) -> Result<String, String> {
    let lower = path.to_ascii_lowercase();
    let pgn_name = [".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2"].iter().any(|ext| lower.ends_with(ext));
    let given_as_script = || {
        let query = match (&args.cql, &args.yacpdb) {
            (Some(q), _) => format!("-cql {}", shell_word(q)),
            (None, Some(q)) => format!("--yacpdb {}", shell_word(q)),
            (None, None) => "QUERY.cql".to_string(),
        };
        format!(
            "cqlrs: {path}: this is a PGN file, given where the query script goes\n  = hint: give games \
             with `-i`: `cqlrs -i {} {query}`",
            shell_word(path)
        )
    };
    if pgn_name && std::path::Path::new(path).is_file() {
        // Named as games: refused before a byte of a possibly huge archive is read.
        return Err(given_as_script());
    }
    let bytes = crate::input::read_regular_file(std::path::Path::new(path), crate::input::MAX_TEXT_FILE_BYTES)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound && !path.contains(['/', '.']) {
                // `cqlrs -i games.pgn mate`: a query typed where the script file goes.
                format!(
                    "cqlrs: {path}: no such script file\n  = hint: to give the query itself, write `-cql {}`",
                    shell_word(path)
                )
            } else if e.kind() == std::io::ErrorKind::NotFound {
                format!("cqlrs: {path}: no such script file")
            } else {
                format!("cqlrs: {path}: the query script cannot be read: {}", io_message(&e))
            }
        })?;
    if crate::input::sniff::looks_like_pgn_file(&bytes) {
        return Err(given_as_script());
    }
    String::from_utf8(bytes).map_err(|_| format!("cqlrs: {path}: the query script is not UTF-8 text"))
}

/// An I/O error as a sentence for the user: the system's text without the
/// `(os error N)` that Rust adds to it.
fn io_message(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// `word` as one shell word (quoted when it holds anything but plain characters).
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:+,@%".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Check the option values (clap checks only their shape) and give the CQL 6 filter
/// text the options add in front of the query's body (`-fen`, `-wtm`, `-assign`, …).
pub fn check_args(args: &Args) -> Result<Vec<String>, String> {
    validate(args)?;
    Ok(added_filters(args))
}

/// Check option values that clap can only check for shape.
fn validate(args: &Args) -> Result<(), String> {
    let positive = |name: &str, v: Option<u64>| match v {
        Some(0) => Err(format!("cqlrs: `--{name} 0` is not allowed: give a number of at least 1")),
        _ => Ok(()),
    };
    positive("limit", args.limit)?;
    positive("lineincrement", args.lineincrement)?;
    check_threads(args.threads)?;
    check_gui_format(args)?;
    if let Some((0, _)) = args.gamenumber {
        return Err("cqlrs: `--gamenumber`: games are numbered from 1".into());
    }
    if let Some((0, _)) = args.year {
        return Err("cqlrs: `--year`: years are numbered from 1".into());
    }
    if let Some(r) = &args.result {
        result_of(r)?;
    }
    if let Some(enc) = &args.output_encoding {
        if output::OutputEncoding::from_name(enc).is_none() {
            return Err(format!("cqlrs: unknown output encoding `{enc}`: expected utf8 or latin1"));
        }
    }
    for a in &args.assign {
        let (name, _) = a.split_once('=').unwrap_or((a, ""));
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            return Err(format!("cqlrs: `-assign {name}`: expected a variable name (letters, digits, `_`, `$`)"));
        }
    }
    if let Some(t) = args.max_game_time {
        if !(t >= 0.0 && t.is_finite()) {
            return Err(format!("cqlrs: `--max-game-time {t}`: expected a number of seconds (0 = no limit)"));
        }
    }
    if args.max_game_steps == Some(0) || args.max_game_bytes == Some(0) {
        return Err("cqlrs: `--max-game-steps` and `--max-game-bytes` must be at least 1".into());
    }
    if let Some(fen) = &args.fen {
        if fen.contains('"') {
            return Err("cqlrs: `-fen`: the FEN may not contain a quotation mark".into());
        }
    }
    Ok(())
}

/// The most worker threads a run may be given: far more than any machine's cores, and
/// few enough that starting them cannot exhaust the process's memory maps (each worker
/// has its own stack).
pub const MAX_THREADS: usize = 1024;

/// `--threads N` must be between 1 and [`MAX_THREADS`]; checked before any file is
/// opened, so a refused count leaves nothing behind.
fn check_threads(threads: Option<usize>) -> Result<(), String> {
    match threads {
        Some(0) => Err("cqlrs: `--threads 0` is not allowed: give a number of at least 1".into()),
        Some(n) if n > MAX_THREADS => Err(format!(
            "cqlrs: `--threads {n}` is more than the {MAX_THREADS} worker threads a run may start; \
             leave the option out to use one per core"
        )),
        _ => Ok(()),
    }
}

/// Under `-gui` the games are PGN: `-guipgnstdout` puts them in a `<CqlGuiPgn>` block that
/// a GUI reads as PGN, and without `-o FILE` the games would go to stdout among the
/// protocol's lines. A format that is not PGN (`--numbers`, `--count`, `--json`,
/// `--json-pgn`, `--positions`, `--epd`) is refused there rather than written where the
/// GUI expects games.
fn check_gui_format(args: &Args) -> Result<(), String> {
    let other = [
        (args.numbers, "--numbers"),
        (args.count, "--count"),
        (args.json, "--json"),
        (args.json_pgn, "--json-pgn"),
        (args.positions, "--positions"),
        (args.epd, "--epd"),
    ];
    let Some((_, option)) = other.iter().find(|(on, _)| *on) else { return Ok(()) };
    if args.guipgnstdout {
        return Err(format!(
            "cqlrs: `{option}` cannot be combined with `-guipgnstdout`: the `<CqlGuiPgn>` block holds PGN games \
             only\n  = hint: leave out `{option}`, or give `-o FILE` instead of `-guipgnstdout`"
        ));
    }
    if args.gui && args.output.as_deref().is_none_or(|o| o == "-") {
        return Err(format!(
            "cqlrs: `{option}` under `-gui` needs `-o FILE`: standard output carries the GUI protocol\n  \
             = hint: add `-o FILE` for the `{option}` output"
        ));
    }
    Ok(())
}

/// The per-game budgets the options ask for (the defaults of [`crate::eval::Limits`] for
/// those not given; `--max-game-time 0` turns the time limit off).
fn limits_of(args: &Args) -> crate::eval::Limits {
    let mut limits = crate::eval::Limits::default();
    if let Some(n) = args.max_game_steps {
        limits.max_steps = n;
    }
    if let Some(t) = args.max_game_time {
        limits.max_time = (t > 0.0).then(|| std::time::Duration::from_secs_f64(t.min(1e9)));
    }
    if let Some(m) = args.max_game_memory {
        limits.max_memory = m;
    }
    limits
}

/// The game result named on the command line, in one of its PGN spellings.
fn result_of(r: &str) -> Result<GameResult, String> {
    match r {
        "1-0" => Ok(GameResult::WhiteWins),
        "0-1" => Ok(GameResult::BlackWins),
        "1/2-1/2" => Ok(GameResult::Draw),
        other => Err(format!("cqlrs: invalid result `{other}`: expected 1-0, 0-1 or 1/2-1/2")),
    }
}

/// The file policy of the run (docs/output.md, "Which files a script may reach"): `--secure`
/// forbids every file access from the script; otherwise the script reaches its own folder
/// (the current directory for `-cql`), the output's folder (that of `-o FILE`, else the
/// current directory, where the default output goes) and the `--allow-files` folders.
fn file_policy(args: &Args) -> Result<FilePolicy, String> {
    policy_for(args.script.as_deref(), args.output.as_deref(), &args.allow_files, args.secure)
}

/// [`file_policy`] from its parts: the script file (`None` for `-cql`), the output file
/// (`None` or `-` for the current directory), the `--allow-files` folders and `--secure`.
fn policy_for(
    script: Option<&str>,
    output: Option<&str>,
    allow: &[String],
    secure: bool,
) -> Result<FilePolicy, String> {
    if secure {
        return Ok(FilePolicy::forbidden());
    }
    let folder_of = |file: &str| match Path::new(file).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let script = script.map_or_else(|| PathBuf::from("."), folder_of);
    let output = output.filter(|o| *o != "-").map_or_else(|| PathBuf::from("."), folder_of);
    let allowed: Vec<&Path> = allow.iter().map(Path::new).collect();
    FilePolicy::confined(&[&script, &output], &allowed)
}

/// Check the files the script's header names (also the legacy `:pgn`) against the
/// policy, through its gate: its `output` (when it is the one written) and its `input`
/// (when it is the one read). A refusal is an error with a caret under the name.
fn check_header_files(args: &Args, ir: &Ir, src: &QuerySource, policy: &FilePolicy) -> Result<(), String> {
    let refuse = |word: &str, name: &str, why: String, hint: &str| {
        // The legacy header (`:pgn NAME`) is not a `cql(…)` one: the name's first place.
        let span = header_name_span(&src.text, word, name)
            .or_else(|| src.text.find(name).map(|at| Span::new(at, at + name.len())))
            .unwrap_or_default();
        let d = crate::diag::Diagnostic::new(format!("{word}: {why}"), span).with_hint(hint);
        Err(src.render(&crate::diag::Error { diagnostics: vec![d] }))
    };
    if args.output.is_none() {
        if let Some(name) = &ir.settings.output {
            if let Err(why) = policy.check(FileUse::Output, name, None) {
                let hint = match policy.access() {
                    FileAccess::Forbidden => "`--secure` forbids a script's own output: give `-o FILE`",
                    _ => "name a `.pgn` file inside the script's folder or the output's folder, or give `-o FILE`",
                };
                return refuse("output", name, why, hint);
            }
        }
    }
    if args.input.is_empty() && !args.guipgnstdin {
        for name in &ir.settings.input {
            if let Err(why) = policy.check(FileUse::Input, name, None) {
                let hint = match policy.access() {
                    FileAccess::Forbidden => "give the PGN input with `-i FILE`",
                    _ => "name a `.pgn` file inside the script's folder or the output's folder, or give `-i FILE`",
                };
                return refuse("input", name, why, hint);
            }
        }
    }
    Ok(())
}

/// Where `name`, written after the header word `word` (`output`, `input`), is in the
/// header of `text`.
fn header_name_span(text: &str, word: &str, name: &str) -> Option<Span> {
    let (start, end) = header_span(text)?;
    let header = &text[start..end];
    let mut from = 0;
    while let Some(at) = header[from..].find(word) {
        let after = from + at + word.len();
        let rest = &header[after..];
        let gap = rest.len() - rest.trim_start().len();
        let quote = usize::from(rest.trim_start().starts_with('"'));
        if gap > 0 && rest.trim_start()[quote..].starts_with(name) {
            let s = start + after + gap + quote;
            return Some(Span::new(s, s + name.len()));
        }
        from = after;
    }
    None
}

/// The script name CQL 6.2 gives an inline `-cql` query; under `-gui` its games go to
/// `cqldefault-out.pgn`, as CQL's do.
const GUI_INLINE_SCRIPT: &str = "cqldefault.cql";

/// `<script stem>-out.pgn`, in the current directory.
fn default_output(script: &str) -> String {
    let stem = std::path::Path::new(script).file_stem().map_or("cql".into(), |s| s.to_string_lossy().into_owned());
    format!("{stem}-out.pgn")
}

/// Query text that options add to a CQL 6 query (`-fen`, `-wtm`, `-assign`, …), as
/// CQL 6 filters, in the order the reference engine puts them.
fn added_filters(args: &Args) -> Vec<String> {
    let mut added = Vec::new();
    for a in &args.assign {
        let (name, value) = a.split_once('=').unwrap_or((a, ""));
        match value.parse::<i64>() {
            Ok(n) => added.push(format!("{name} = {n}")),
            Err(_) => added.push(format!("{name} = {}", cql_string(value))),
        }
    }
    if !args.similarposition.is_empty() {
        let (file, modifiers) = args.similarposition.split_last().expect("not empty");
        let mut text = String::from("similarposition");
        for m in modifiers {
            text.push(' ');
            text.push_str(m);
        }
        text.push(' ');
        text.push_str(&cql_string(file));
        added.push(text);
    }
    if args.virtualmainline {
        added.push("virtualmainline".into());
    }
    added.extend(args.hhdb.iter().cloned());
    if let Some(fen) = &args.fen {
        added.push(format!("fen {}", cql_string(fen)));
    }
    if args.wtm {
        added.push("wtm".into());
    }
    if args.btm {
        added.push("btm".into());
    }
    added
}

/// A CQL 6 string literal holding `text` (quotes cannot be escaped in CQL 6, so a
/// quotation mark inside is dropped; `validate` refuses it where it matters).
fn cql_string(text: &str) -> String {
    format!("\"{}\"", text.replace('"', ""))
}

/// Where the body of a CQL 6 query starts: after a leading `cql(…)` header, if any
/// (skipping blanks, `//` and `/* */` comments, and strings inside the header).
fn body_start(text: &str) -> usize {
    header_span(text).map_or(0, |(_, end)| end)
}

/// The byte range of a leading `cql(…)` header, from its `cql` to after its `)`: `None`
/// when the query has none (blanks and comments before it are skipped).
fn header_span(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |p| i + p);
        } else if text[i..].starts_with("/*") {
            i = text[i + 2..].find("*/").map_or(bytes.len(), |p| i + 2 + p + 2);
        } else {
            break;
        }
    }
    let after_cql = i + 3;
    if !text[i..].starts_with("cql") {
        return None;
    }
    let mut j = after_cql;
    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
        j += 1;
    }
    if bytes.get(j) != Some(&b'(') {
        return None;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    while j < bytes.len() {
        match bytes[j] {
            b'"' => in_string = !in_string,
            b'(' if !in_string => depth += 1,
            b')' if !in_string => {
                depth -= 1;
                if depth == 0 {
                    return Some((i, j + 1));
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// Put option-added filters in front of the body of a CQL 6 query, on the header's
/// line so that positions in error messages stay right for the user's lines.
fn insert_filters(text: &str, added: &[String]) -> String {
    if added.is_empty() {
        return text.to_string();
    }
    let at = body_start(text);
    format!("{} {} {}", &text[..at], added.join(" "), &text[at..])
}

/// Which query the arguments give, if any.
fn query_source(args: &Args, policy: &FilePolicy) -> Result<Option<QuerySource>, String> {
    let added = added_filters(args);
    let only_cql6 = |syntax: Syntax| -> Result<(), String> {
        if syntax != Syntax::Cql6 && !added.is_empty() {
            return Err("cqlrs: `-fen`, `-wtm`, `-btm`, `-assign`, `-similarposition`, `-virtualmainline` \
                        and `-hhdb` can only be added to a CQL 6 query"
                .into());
        }
        Ok(())
    };
    if let Some(q) = &args.yacpdb {
        if args.script.is_some() || args.cql.is_some() {
            return Err("cqlrs: `--yacpdb QUERY` cannot be combined with a script or `-cql`".into());
        }
        only_cql6(Syntax::Yacpdb)?;
        return Ok(Some(QuerySource {
            name: "<yacpdb>".into(),
            text: q.clone(),
            syntax: Syntax::Yacpdb,
            script: None,
            map: None,
        }));
    }
    if let Some(path) = &args.script {
        let mut text = read_script(path, args)?;
        let syntax = match args.syntax {
            Some(s) => syntax_of(s),
            None if path.ends_with(".yacpdb") => Syntax::Yacpdb,
            None => Syntax::detect(&text),
        };
        only_cql6(syntax)?;
        text = insert_filters(&text, &added);
        if let Some(filter) = &args.cql {
            if syntax != Syntax::Cql6 {
                return Err("cqlrs: `-cql FILTER` can only be added to a CQL 6 script".into());
            }
            text.push('\n');
            text.push_str(filter);
            text.push('\n');
        }
        return QuerySource { name: path.clone(), text, syntax, script: Some(path.clone()), map: None }
            .with_includes(policy)
            .map(Some);
    }
    if let Some(filter) = &args.cql {
        let syntax = args.syntax.map_or(Syntax::Cql6, syntax_of);
        only_cql6(syntax)?;
        // The CQL 6 header is optional, so the user's text is parsed as typed and error
        // positions refer to it.
        let text = insert_filters(filter, &added);
        return QuerySource { name: "<command line>".into(), text, syntax, script: None, map: None }
            .with_includes(policy)
            .map(Some);
    }
    if !added.is_empty() {
        return Ok(Some(QuerySource {
            name: "<command line>".into(),
            text: added.join(" "),
            syntax: Syntax::Cql6,
            script: None,
            map: None,
        }));
    }
    if has_cli_filters(args) {
        return Ok(None);
    }
    Err("cqlrs: no query: give a script, `-cql FILTER` or `--yacpdb QUERY` (see --help)".into())
}

fn syntax_of(s: args::SyntaxArg) -> Syntax {
    match s {
        args::SyntaxArg::Cql6 => Syntax::Cql6,
        args::SyntaxArg::Legacy => Syntax::Legacy,
        args::SyntaxArg::Yacpdb => Syntax::Yacpdb,
    }
}

fn has_cli_filters(args: &Args) -> bool {
    args.player.is_some()
        || args.white.is_some()
        || args.black.is_some()
        || args.event.is_some()
        || args.site.is_some()
        || args.result.is_some()
        || args.year.is_some()
        || args.gamenumber.is_some()
}

/// Apply the command line to a parsed query: settings, transforms around the body,
/// header filters ANDed in front of it.
fn apply_cli(args: &Args, ir: &mut Ir) -> Result<(), String> {
    let s = &mut ir.settings;
    if let Some(range) = args.gamenumber {
        s.gamenumber = Some(range);
    }
    if let Some(range) = args.matchcount {
        s.matchcount = range;
    }
    if let Some(text) = &args.matchstring {
        s.matchstring = Some(text.clone());
    }
    if args.mainline {
        s.variations = false;
    }
    if args.variations {
        s.variations = true;
    }
    s.silent |= args.silent;
    s.quiet |= args.quiet;

    let none = Span::default();
    let mut body = match ir.root {
        Some(root) => root,
        None => ir.add(Filter::True, none),
    };
    let transforms = [
        (args.flip, TransformKind::Flip),
        (args.flipcolor, TransformKind::FlipColor),
        (args.shift, TransformKind::Shift),
        (args.shifthorizontal, TransformKind::ShiftHorizontal),
        (args.shiftvertical, TransformKind::ShiftVertical),
        (args.fliphorizontal, TransformKind::FlipHorizontal),
        (args.flipvertical, TransformKind::FlipVertical),
        (args.rotate90, TransformKind::Rotate90),
        (args.rotate45, TransformKind::Rotate45),
        (args.reversecolor, TransformKind::ReverseColor),
    ];
    for (on, kind) in transforms {
        if on {
            body = ir.add(Filter::Transform { kind, range: None, count: false, body }, none);
        }
    }

    let mut filters: Vec<FilterId> = Vec::new();
    let contains = |ir: &mut Ir, field: HeaderField, text: &str| {
        let haystack = ir.add(Filter::Header(HeaderFilter::Field(field)), none);
        let needle = ir.add(Filter::Numbers(NumberFilter::Str(text.to_string())), none);
        ir.add(Filter::Numbers(NumberFilter::Contains { haystack, needle, ignore_case: false }), none)
    };
    if let Some(name) = &args.player {
        let w = contains(ir, HeaderField::Player(shakmaty::Color::White), name);
        let b = contains(ir, HeaderField::Player(shakmaty::Color::Black), name);
        filters.push(ir.add(Filter::Logic(LogicFilter::Or(vec![w, b])), none));
    }
    if let Some(name) = &args.white {
        filters.push(contains(ir, HeaderField::Player(shakmaty::Color::White), name));
    }
    if let Some(name) = &args.black {
        filters.push(contains(ir, HeaderField::Player(shakmaty::Color::Black), name));
    }
    if let Some(text) = &args.event {
        filters.push(contains(ir, HeaderField::Event, text));
    }
    if let Some(text) = &args.site {
        filters.push(contains(ir, HeaderField::Site, text));
    }
    if let Some(r) = &args.result {
        let result = result_of(r)?;
        filters.push(ir.add(Filter::Header(HeaderFilter::Result(result)), none));
    }
    if let Some((lo, hi)) = args.year {
        let year = ir.add(Filter::Header(HeaderFilter::Year), none);
        let lo = ir.add(Filter::Numbers(NumberFilter::Number(lo as i64)), none);
        let hi = ir.add(Filter::Numbers(NumberFilter::Number(hi as i64)), none);
        // `lo <= year <= hi`: a chained comparison compares each operand with the one
        // before it, so the year must stand between the two bounds.
        filters.push(ir.add(
            Filter::Numbers(NumberFilter::Compare { first: lo, rest: vec![(CmpOp::Le, year), (CmpOp::Le, hi)] }),
            none,
        ));
    }
    if !filters.is_empty() {
        filters.push(body);
        body = ir.add(Filter::Logic(LogicFilter::And(filters)), none);
    }
    ir.root = Some(body);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::PositionStateFilter;

    fn parse(a: &[&str]) -> Args {
        Args::try_parse_from(args::normalize(a.iter().map(|s| s.to_string())).unwrap()).unwrap()
    }

    #[test]
    fn cli_filters_and_transforms_wrap_the_body() {
        let args =
            parse(&["cqlrs", "-player", "Tal", "-year", "1960", "1961", "-flipcolor", "-gamenumber", "3", "-silent"]);
        let mut ir = Ir::new();
        let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), Span::default());
        ir.root = Some(mate);
        apply_cli(&args, &mut ir).unwrap();
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(ir.root.unwrap()).clone() else { panic!("expected And") };
        assert_eq!(parts.len(), 3);
        assert!(matches!(ir.get(parts[0]), Filter::Logic(LogicFilter::Or(v)) if v.len() == 2));
        assert!(matches!(ir.get(parts[1]), Filter::Numbers(NumberFilter::Compare { rest, .. }) if rest.len() == 2));
        assert!(
            matches!(ir.get(parts[2]), Filter::Transform { kind: TransformKind::FlipColor, body, .. } if *body == mate)
        );
        assert_eq!(ir.settings.gamenumber, Some((3, 3)));
        assert!(ir.settings.silent);
    }

    #[test]
    fn bad_result_is_an_error() {
        let args = parse(&["cqlrs", "-result", "2-0"]);
        let mut ir = Ir::new();
        assert!(apply_cli(&args, &mut ir).unwrap_err().contains("invalid result `2-0`"));
    }

    #[test]
    fn default_output_name_uses_the_script_stem() {
        assert_eq!(default_output("dir/mates.cql"), "mates-out.pgn");
    }

    #[test]
    fn no_query_is_an_error() {
        assert_eq!(run(vec!["cqlrs".into(), "-i".into(), "x.pgn".into()]), EXIT_ERROR);
    }
}

/// A compile error as the command line prints it: diagnostics rendered by `render` (with
/// a caret under the text, in the file each one is in), other errors on one line.
fn compile_message(err: &CompileError, render: impl Fn(&crate::diag::Error) -> String) -> String {
    match err {
        CompileError::Query(e) => render(e),
        CompileError::Amend(message) => message.clone(),
        CompileError::Eval(e) => format!("cqlrs: {e}"),
    }
}
