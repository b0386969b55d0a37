//! What CQL 6.2 writes on standard output for the programs that drive it: its GUI
//! protocol (`-gui`, `-guipgnstdout`), its summary line, and its `-lineincrement` /
//! `-showmatches` progress.
//!
//! Takes in: the run's events (messages, matches, games finished), its final tallies,
//! the matching games' bytes (with `-guipgnstdout`) and its errors.
//! Gives out: CQL's lines, byte for byte where a client parses them:
//! `<CqlGuiVariable> NAME VALUE` lines (`version`, `build`, `currentgamenumber`, and
//! at the end `numbermatches`, `numbergamesexamined`, `seconds`, `numberthreads`,
//! `outputfile`), the games between `<CqlGuiPgn numbergames=N numberbytes=B>` and
//! `</CqlGuiPgn>`, `message` lines inside `<CqlGuiMessage>` … `</CqlGuiMessage>`, a bad
//! query's `linenumbererror`/`columnnumbererror` and `<CqlGuiError>` block, and
//! `<CqlGuiNormalExit>` after a completed run (docs/gui.md; the reference's
//! `cql_gui_exit`, `cql_output_status`, `cql_execute` and `GameSortInfo::output`).
//! Must never: write anything on stdout unless the run asked for one of these, or let
//! two writers interleave inside a line (every write takes the stdout lock and flushes,
//! so a GUI sees progress as it happens).

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The CQL language version whose protocol and answers cqlrs gives (`version`).
pub const CQL_VERSION: &str = "6.2";

/// CQL's default `-lineincrement`: a `[N]` line every 10000 games, a dot every 1000.
pub const DEFAULT_LINE_INCREMENT: u64 = 10_000;

/// Write text to stdout at once (a closed pipe is ignored: the GUI went away).
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Write text to stderr at once.
fn emit_stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// Did the user ask for the GUI protocol? Looked up in the raw arguments, so that an
/// error in the arguments themselves is reported in the protocol too.
pub fn requested(argv: &[String]) -> bool {
    argv.iter().skip(1).take_while(|a| a.as_str() != "--").any(|a| {
        let word = a.strip_prefix("--").or_else(|| a.strip_prefix('-')).unwrap_or("");
        word.eq_ignore_ascii_case("gui")
    })
}

/// The two lines `-gui` writes first: the CQL version whose protocol this is, and the
/// build (the cqlrs version, so a GUI can tell the programs apart).
pub fn start() {
    emit(&format!(
        "<CqlGuiVariable> version {CQL_VERSION}\n<CqlGuiVariable> build cqlrs-{}\n",
        env!("CARGO_PKG_VERSION")
    ));
}

/// Where a rendered query error points: the line and column (from 1) of its first
/// diagnostic, read from its `FILE:LINE:COL: error:` heading.
fn error_position(message: &str) -> Option<(u64, u64)> {
    let first = message.lines().find(|l| !l.trim().is_empty())?;
    let (head, _) = first.split_once(": error:")?;
    let mut parts = head.rsplitn(3, ':');
    let col = parts.next()?.trim().parse().ok()?;
    let line = parts.next()?.trim().parse().ok()?;
    parts.next()?;
    Some((line, col))
}

/// Report an error that ends the run. A query error with a position is written as CQL
/// writes a syntax error at a token: its line and column as variables, then the
/// message between `<CqlGuiError>` and `</CqlGuiError>` on lines of their own. Any
/// other error is written as CQL's other fatal errors: the message on a line, then
/// `<CqlGuiError> MESSAGE </CqlGuiError>` on one line. No `<CqlGuiNormalExit>` follows.
pub fn error(message: &str) {
    let message = message.trim_end_matches('\n');
    match error_position(message) {
        Some((line, col)) => emit(&format!(
            "\n<CqlGuiVariable> linenumbererror {line}\n<CqlGuiVariable> columnnumbererror {col}\n\
             <CqlGuiError>\n{message}\n</CqlGuiError>\n"
        )),
        None => {
            let one_line = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
            emit(&format!("\n{message}\n<CqlGuiError> {one_line} </CqlGuiError>\n"));
        }
    }
}

/// The matching games as `-guipgnstdout` writes them: a header with their number and
/// byte count, the games, and the closing tag.
pub fn pgn_block(games: u64, bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "\n<CqlGuiPgn numbergames={games} numberbytes={}>\n", bytes.len())
        .and_then(|()| out.write_all(bytes))
        .and_then(|()| out.write_all(b"</CqlGuiPgn>\n"))
        .and_then(|()| out.flush());
}

/// A number as C's `printf("%.3g")` writes it: three significant digits, no trailing
/// zeros, an exponent below 1e-4 or from 1000 on (CQL prints the run's seconds so).
pub fn format_g3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x == 0.0 {
            "0".into()
        } else {
            "inf".into()
        };
    }
    let sci = format!("{x:.2e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..3).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        let decimals = (2 - exp).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    }
}

/// The end of a completed run as CQL writes it.
pub struct Finish<'a> {
    /// Games that matched.
    pub matched: u64,
    /// Games read.
    pub games: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// The output file; empty when the games went to stdout.
    pub output: &'a str,
    /// `name: value` of each persistent variable the query reports.
    pub persistent: &'a [(String, String)],
}

impl Finish<'_> {
    /// CQL's summary line: `N matches of M games in S seconds using T threads to FILE`
    /// (`matches` and `games` whatever the numbers, as CQL writes them).
    pub fn summary_line(&self) -> String {
        format!(
            "{} matches of {} games in {} seconds using {} {} to {}",
            self.matched,
            self.games,
            format_g3(self.seconds_ms()),
            self.threads,
            if self.threads == 1 { "thread" } else { "threads" },
            self.output
        )
    }

    /// The seconds as CQL measures them: whole milliseconds.
    fn seconds_ms(&self) -> f64 {
        (self.seconds * 1000.0).floor() / 1000.0
    }

    /// Everything after the games in GUI mode: the summary line, the run's variables,
    /// the persistent variables as messages, and `<CqlGuiNormalExit>`.
    pub fn write_gui(&self) {
        let mut text = format!("\n{}\n", self.summary_line());
        text.push_str(&format!(
            "\n<CqlGuiVariable> numbermatches {}\n<CqlGuiVariable> numbergamesexamined {}\n\
             <CqlGuiVariable> seconds {}\n<CqlGuiVariable> numberthreads {}\n<CqlGuiVariable> outputfile {}\n",
            self.matched,
            self.games,
            format_g3(self.seconds_ms()),
            self.threads,
            self.output
        ));
        for (name, value) in self.persistent {
            text.push_str(&format!("{name}: {value}\n\n<CqlGuiMessage>{name}: {value}</CqlGuiMessage>\n"));
        }
        text.push_str("\n<CqlGuiNormalExit>\n");
        emit(&text);
    }
}

/// CQL's running output while games are read: the GUI's `currentgamenumber`, the
/// `-lineincrement` dots and `[N]` lines, `-showmatches`' `<N>`, and `message` lines in
/// the protocol.
#[derive(Debug)]
pub struct Chatter {
    /// `-gui`: `currentgamenumber` variables and `<CqlGuiMessage>` lines.
    pub gui: bool,
    /// Dots and `[N]` lines every this many games (`-lineincrement`), if asked.
    pub line_increment: Option<u64>,
    /// `<N>` for each matching game (`-showmatches`).
    pub show_matches: bool,
    /// Progress goes to stdout (the games go elsewhere), else to stderr.
    pub to_stdout: bool,
    /// The matching game not yet shown (0: none): CQL writes `<N>` after the game's
    /// progress.
    pending_match: AtomicU64,
    /// Inputs that could not be read (GUI mode): the run's error names them.
    input_errors: Mutex<Vec<String>>,
}

impl Chatter {
    /// Running output for these options.
    pub fn new(gui: bool, line_increment: Option<u64>, show_matches: bool, to_stdout: bool) -> Chatter {
        Chatter {
            gui,
            line_increment,
            show_matches,
            to_stdout,
            pending_match: AtomicU64::new(0),
            input_errors: Mutex::new(Vec::new()),
        }
    }

    /// Does the run write any running output of CQL's?
    pub fn active(&self) -> bool {
        self.gui || self.line_increment.is_some() || self.show_matches
    }

    fn write(&self, text: &str) {
        if self.to_stdout || self.gui {
            emit(text);
        } else {
            emit_stderr(text);
        }
    }

    /// A `message` line: in GUI mode, written as CQL does on stdout (the line, then the
    /// line inside `<CqlGuiMessage>`). Returns whether it was written here.
    pub fn message(&self, line: &str) -> bool {
        if !self.gui {
            return false;
        }
        emit(&format!("{line}\n<CqlGuiMessage> {line} </CqlGuiMessage>\n"));
        true
    }

    /// An input could not be read: kept for the error that ends the run in GUI mode.
    pub fn input_error(&self, message: &str) {
        if self.gui {
            if let Ok(mut errors) = self.input_errors.lock() {
                errors.push(message.to_string());
            }
        }
    }

    /// The messages of the inputs that could not be read.
    pub fn input_errors(&self) -> Vec<String> {
        self.input_errors.lock().map(|e| e.clone()).unwrap_or_default()
    }

    /// Game `number` matched.
    pub fn matched(&self, number: u64) {
        if self.show_matches {
            self.pending_match.store(number, Ordering::Relaxed);
        }
    }

    /// The `read`-th game has been accounted for (CQL's `cql_output_status`).
    pub fn game_finished(&self, read: u64) {
        if !self.active() {
            return;
        }
        let every = self.line_increment.unwrap_or(DEFAULT_LINE_INCREMENT).max(1);
        let dot = (every / 10).max(1);
        let mut text = String::new();
        if read.is_multiple_of(every) {
            text.push_str(&format!("[{read}]\n"));
        } else if read.is_multiple_of(dot) {
            text.push('.');
        }
        if self.gui && read.is_multiple_of(dot) {
            text.push_str(&format!("\n<CqlGuiVariable> currentgamenumber {read}\n"));
        }
        let shown = self.pending_match.swap(0, Ordering::Relaxed);
        if shown != 0 {
            text.push_str(&format!("<{shown}>"));
        }
        if !text.is_empty() {
            self.write(&text);
        }
    }

    /// The games have all been read: end a line of dots so that what follows starts on
    /// its own line (on stderr only; stdout keeps CQL's bytes).
    pub fn finished(&self) {
        if !self.to_stdout && !self.gui && self.active() {
            emit_stderr("\n");
        }
    }
}

/// An in-memory output for `-guipgnstdout`: the games are counted and measured before
/// they are written, as CQL does.
#[derive(Clone, Default)]
pub struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Buffer {
    /// The bytes written so far, taken out of the buffer.
    pub fn take(&self) -> Vec<u8> {
        self.0.lock().map(|mut b| std::mem::take(&mut *b)).unwrap_or_default()
    }
}

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.0.lock() {
            Ok(mut b) => {
                b.extend_from_slice(buf);
                Ok(buf.len())
            }
            Err(_) => Err(std::io::Error::other("output buffer poisoned")),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_written_as_printf_g3() {
        // Values worked out from the C standard's %g rules.
        assert_eq!(format_g3(0.018), "0.018");
        assert_eq!(format_g3(0.02), "0.02");
        assert_eq!(format_g3(0.0), "0");
        assert_eq!(format_g3(1.234), "1.23");
        assert_eq!(format_g3(12.345), "12.3");
        assert_eq!(format_g3(123.4), "123");
        assert_eq!(format_g3(999.6), "1e+03");
        assert_eq!(format_g3(1234.0), "1.23e+03");
        assert_eq!(format_g3(0.00005), "5e-05");
        assert_eq!(format_g3(2.5), "2.5");
    }

    #[test]
    fn the_error_position_is_read_from_the_heading() {
        assert_eq!(error_position("q.cql:3:12: error: unknown filter `mtae`\n  |\n"), Some((3, 12)));
        assert_eq!(error_position("C:\\x\\q.cql:1:2: error: x"), Some((1, 2)));
        assert_eq!(error_position("cqlrs: q.pgn: No such file or directory"), None);
    }

    #[test]
    fn the_summary_line_is_cqls() {
        let f = Finish { matched: 1, games: 1, seconds: 0.0174, threads: 1, output: "o.pgn", persistent: &[] };
        assert_eq!(f.summary_line(), "1 matches of 1 games in 0.017 seconds using 1 thread to o.pgn");
    }

    #[test]
    fn gui_is_found_among_the_raw_arguments() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(requested(&argv(&["cql", "-gui", "q.cql"])));
        assert!(requested(&argv(&["cql", "--GUI", "q.cql"])));
        assert!(!requested(&argv(&["cql", "-guipgnstdout", "q.cql"])));
        assert!(!requested(&argv(&["cql", "--", "-gui"])));
    }
}
