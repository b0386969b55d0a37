//! What the command line shows on standard error while a scan runs: the progress bar
//! (or spinner), warnings about skipped and abandoned games, and colour in error
//! messages; CQL's own running output (`-gui`, `-showmatches`, `-lineincrement`) is
//! handed to [`super::gui::Chatter`].
//!
//! Takes in: the scan's events ([`ScanEvents`]), the inputs being read, the
//! `--progress`, `--color`, `--quiet-stderr`, `--max-warnings` options.
//! Gives out: lines and a bar on stderr; the bar is suspended while a line is printed
//! and cleared when the scan ends, so lines are never mixed with it.
//! Must never: draw on a non-terminal unless `--progress always`, or colour text
//! unless asked (`--color always`) or on a terminal without `NO_COLOR`.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

use super::args::When;
use crate::input::{Compression, Source};
use crate::scan::ScanEvents;

/// Inputs of at least this many bytes get a progress bar under `--progress auto` (a
/// smaller input is read before a bar would be worth drawing); standard input and
/// compressed inputs, whose size is not known ahead, get a spinner.
pub const PROGRESS_MIN_BYTES: u64 = 1 << 20;

/// The part of the concatenated inputs one source covers.
#[derive(Clone, Debug)]
struct Part {
    path: String,
    /// Bytes of the concatenated parts before this one.
    base: u64,
    /// Where in its file the part starts.
    start: u64,
}

/// How much input a scan will read: the parts in order and, when every part is a
/// plain file (not standard input, not compressed), the total number of bytes.
#[derive(Clone, Debug)]
pub struct InputSize {
    parts: Vec<Part>,
    /// Total bytes, when known ahead.
    pub total: Option<u64>,
}

impl InputSize {
    /// Measure the sources of a scan (whole files or shard ranges of plain files).
    pub fn of(sources: &[Source]) -> InputSize {
        let mut parts = Vec::new();
        let mut total = Some(0u64);
        let mut base = 0u64;
        for s in sources {
            let len = match s.range {
                Some((start, end)) => Some(end.saturating_sub(start)),
                None if s.path == "-" => None,
                None => plain_file_len(&s.path),
            };
            parts.push(Part { path: s.path.clone(), base, start: s.range.map_or(0, |r| r.0) });
            base += len.unwrap_or(0);
            total = total.zip(len).map(|(t, l)| t + l);
        }
        InputSize { parts, total }
    }
}

/// The size of a file that is read as it is stored (not compressed).
fn plain_file_len(path: &str) -> Option<u64> {
    // Only a regular file is opened to be looked at: opening a FIFO would wait for a
    // writer, and reading from `/dev/stdin` would take bytes the scan must read.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut head = [0u8; 4];
    let mut file = std::fs::File::open(path).ok()?;
    let n = std::io::Read::read(&mut file, &mut head).ok()?;
    if Compression::sniff(&head[..n]) != Compression::Plain {
        return None;
    }
    file.metadata().ok().map(|m| m.len())
}

/// Should the progress display be drawn?
pub fn progress_wanted(when: When, quiet: bool, size: &InputSize) -> bool {
    match when {
        When::Never => false,
        When::Always => true,
        When::Auto => !quiet && std::io::stderr().is_terminal() && size.total.is_none_or(|t| t >= PROGRESS_MIN_BYTES),
    }
}

/// Should error messages be coloured? `NO_COLOR` (set and not empty) turns `auto` off.
pub fn color_wanted(when: When) -> bool {
    match when {
        When::Never => false,
        When::Always => true,
        When::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal(),
    }
}

/// Colour a rendered diagnostic for a terminal: the `error`/`warning` word of a
/// `FILE:LINE:COL: error: …` line in bold red or yellow, the caret lines in red, the
/// `|` gutter in blue, `hint`/`help` in cyan. The text is otherwise unchanged.
pub fn colorize(text: &str) -> String {
    const RED: &str = "\x1b[1;31m";
    const YELLOW: &str = "\x1b[1;33m";
    const CYAN: &str = "\x1b[1;36m";
    const BLUE: &str = "\x1b[1;34m";
    const RESET: &str = "\x1b[0m";
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let gutter = body.split_once('|').filter(|(g, _)| g.chars().all(|c| c == ' ' || c.is_ascii_digit()));
        if let Some((g, rest)) = gutter {
            if rest.trim_start().starts_with('^') {
                out.push_str(&format!("{BLUE}{g}|{RESET}{RED}{rest}{RESET}"));
            } else {
                out.push_str(&format!("{BLUE}{g}|{RESET}{rest}"));
            }
        } else if let Some((g, rest)) = body.split_once("= ").filter(|(g, _)| g.trim().is_empty()) {
            match ["hint", "help", "note"].iter().find(|w| rest.starts_with(*w)) {
                Some(word) => out.push_str(&format!("{g}= {CYAN}{word}{RESET}{}", &rest[word.len()..])),
                None => out.push_str(body),
            }
        } else if let Some((head, rest)) = body.split_once(": error:") {
            out.push_str(&format!("{head}: {RED}error{RESET}:{rest}"));
        } else if let Some((head, rest)) = body.split_once(": warning:") {
            out.push_str(&format!("{head}: {YELLOW}warning{RESET}:{rest}"));
        } else {
            out.push_str(body);
        }
        out.push_str(newline);
    }
    out
}

/// Standard error as a terminal for indicatif, drawn whether or not it is one
/// (`--progress always`). Cursor movement uses ANSI escapes.
#[derive(Debug)]
struct ForcedStderr;

impl TermLike for ForcedStderr {
    fn width(&self) -> u16 {
        std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(80)
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        if n > 0 {
            self.write_str(&format!("\x1b[{n}A"))?;
        }
        Ok(())
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        if n > 0 {
            self.write_str(&format!("\x1b[{n}B"))?;
        }
        Ok(())
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        if n > 0 {
            self.write_str(&format!("\x1b[{n}C"))?;
        }
        Ok(())
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        if n > 0 {
            self.write_str(&format!("\x1b[{n}D"))?;
        }
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write_str(&format!("{s}\n"))
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        std::io::stderr().lock().write_all(s.as_bytes())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.write_str("\r\x1b[2K")
    }
    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().lock().flush()
    }
}

/// Without `--max-warnings`, a warning is printed for at most this many games with the
/// same reason (the text after the game's file, number and line); the others are counted
/// and the count is printed at the end.
pub const REPEATS_SHOWN: u64 = 5;

/// The reason of a warning about a game: what follows `FILE: game N (line L): `, or the
/// whole message when it has no such locator.
fn warning_reason(message: &str) -> &str {
    match message.find(": game ") {
        Some(at) => message[at..].find("): ").map_or(message, |end| &message[at + end + 3..]),
        None => message,
    }
}

/// What the CLI does with the scan's events: print warnings (up to `--max-warnings`),
/// `-showmatches` and `-lineincrement` lines, and keep the progress display current.
pub struct Console {
    bar: Option<ProgressBar>,
    size: InputSize,
    /// Index of the part the reader is in.
    part: AtomicUsize,
    started: Instant,
    /// No warnings (`--quiet-stderr`).
    pub quiet: bool,
    /// Print at most this many warnings. Without it, each reason is printed for at most
    /// [`REPEATS_SHOWN`] games, and the repeats beyond are counted.
    pub max_warnings: Option<u64>,
    /// CQL's running output: GUI progress and messages, `-showmatches`, `-lineincrement`.
    pub chatter: super::gui::Chatter,
    warnings: AtomicU64,
    suppressed: AtomicU64,
    /// How often each reason was warned about (without `--max-warnings`).
    reasons: Mutex<std::collections::HashMap<String, u64>>,
    /// Serialises lines printed from the workers (input errors) and the writer thread.
    lock: Mutex<()>,
}

impl Console {
    /// A console for a scan over inputs of `size`; with `progress`, a bar when the size
    /// is known, else a spinner; `forced`: draw even when stderr is not a terminal.
    pub fn new(size: InputSize, progress: bool, forced: bool) -> Console {
        let bar = progress.then(|| {
            let target = if forced {
                ProgressDrawTarget::term_like_with_hz(Box::new(ForcedStderr), 10)
            } else {
                ProgressDrawTarget::stderr_with_hz(10)
            };
            let bar = match size.total {
                Some(total) => {
                    let bar = ProgressBar::with_draw_target(Some(total), target);
                    bar.set_style(
                        ProgressStyle::with_template("{spinner} [{wide_bar}] {bytes}/{total_bytes} {msg} ETA {eta}")
                            .unwrap_or_else(|_| ProgressStyle::default_bar())
                            .progress_chars("=> "),
                    );
                    bar
                }
                None => {
                    let bar = ProgressBar::with_draw_target(None, target);
                    bar.set_style(
                        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bytes} read, {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    bar
                }
            };
            bar.set_message("0 games");
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            bar
        });
        Console {
            bar,
            size,
            part: AtomicUsize::new(0),
            started: Instant::now(),
            quiet: false,
            max_warnings: None,
            chatter: super::gui::Chatter::new(false, None, false, false),
            warnings: AtomicU64::new(0),
            suppressed: AtomicU64::new(0),
            reasons: Mutex::new(std::collections::HashMap::new()),
            lock: Mutex::new(()),
        }
    }

    /// Is a progress display being drawn?
    pub fn has_progress(&self) -> bool {
        self.bar.is_some()
    }

    /// Print one line on stderr without breaking the bar.
    pub fn line(&self, text: &str) {
        let _guard = self.lock.lock();
        match &self.bar {
            Some(bar) => bar.suspend(|| say!("{text}")),
            None => say!("{text}"),
        }
    }

    /// Bytes of the concatenated inputs done when the reader is at byte `end` of `file`.
    fn position(&self, file: &str, end: u64) -> u64 {
        let parts = &self.size.parts;
        let mut i = self.part.load(Ordering::Relaxed).min(parts.len().saturating_sub(1));
        while i < parts.len() && parts[i].path != file {
            i += 1;
        }
        if i >= parts.len() {
            return end;
        }
        self.part.store(i, Ordering::Relaxed);
        parts[i].base + end.saturating_sub(parts[i].start)
    }

    /// Warnings left out because of `--max-warnings`.
    pub fn suppressed(&self) -> u64 {
        self.suppressed.load(Ordering::Relaxed)
    }
}

impl ScanEvents for Console {
    fn bytes_read(&self, file: &str, end: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(self.position(file, end));
        }
    }
    fn input_error(&self, message: &str) {
        self.chatter.input_error(message);
        self.line(message);
    }
    fn warning(&self, message: &str) {
        if self.quiet {
            return;
        }
        let n = self.warnings.fetch_add(1, Ordering::Relaxed) + 1;
        let shown = match self.max_warnings {
            Some(max) => n <= max,
            None => {
                let mut reasons = self.reasons.lock().unwrap_or_else(|e| e.into_inner());
                let seen = reasons.entry(warning_reason(message).to_string()).or_insert(0);
                *seen += 1;
                *seen <= REPEATS_SHOWN
            }
        };
        if shown {
            self.line(message);
        } else {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
        }
    }
    fn query_message(&self, line: &str) {
        if !self.chatter.message(line) {
            self.line(line);
        }
    }
    fn matched(&self, number: u64) {
        self.chatter.matched(number);
    }
    fn game_finished(&self, read: u64, matched: u64) {
        self.chatter.game_finished(read);
        if let Some(bar) = &self.bar {
            if read % 64 == 0 {
                let seconds = self.started.elapsed().as_secs_f64().max(1e-3);
                bar.set_message(format!("{read} games {:.0}/s {matched} matched", read as f64 / seconds));
            }
        }
    }
    fn finished(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        self.chatter.finished();
        let n = self.suppressed();
        if n > 0 {
            let warnings = if n == 1 { "warning" } else { "warnings" };
            self.line(&match self.max_warnings {
                Some(_) => format!("cqlrs: {n} more {warnings} not shown (--max-warnings)"),
                None => format!(
                    "cqlrs: {n} more {warnings} not shown: each reason is shown for the first {REPEATS_SHOWN} games \
                     (`--max-warnings N` shows the first N warnings whatever their reason)"
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_add_up_over_the_parts() {
        let size = InputSize {
            parts: vec![
                Part { path: "a.pgn".into(), base: 0, start: 0 },
                Part { path: "b.pgn".into(), base: 1000, start: 200 },
            ],
            total: Some(1800),
        };
        let console = Console::new(size, false, false);
        assert_eq!(console.position("a.pgn", 400), 400);
        assert_eq!(console.position("b.pgn", 500), 1300);
        // The reader never goes back to an earlier part.
        assert_eq!(console.position("b.pgn", 1000), 1800);
    }

    #[test]
    fn warnings_beyond_the_maximum_are_counted_not_printed() {
        let mut console = Console::new(InputSize { parts: Vec::new(), total: None }, false, false);
        console.max_warnings = Some(2);
        for _ in 0..5 {
            console.warning("cqlrs: x.pgn: game 1 (line 1): bad move");
        }
        assert_eq!(console.suppressed(), 3);
    }

    #[test]
    fn by_default_each_reason_is_shown_for_a_few_games_only() {
        let console = Console::new(InputSize { parts: Vec::new(), total: None }, false, false);
        for n in 1..=12 {
            console.warning(&format!("cqlrs: x.pgn: game {n} (line {}): query abandoned: loop", n * 10));
        }
        // A different reason is shown although the first one is capped.
        console.warning("cqlrs: x.pgn: game 13 (line 130): illegal move Nf9");
        assert_eq!(console.suppressed(), 12 - REPEATS_SHOWN);
        assert_eq!(warning_reason("cqlrs: a.pgn: game 7 (line 3): bad move"), "bad move");
        assert_eq!(warning_reason("no locator here"), "no locator here");
    }

    #[test]
    fn colour_marks_errors_and_carets_only() {
        let text = "q.cql:1:1: error: unknown filter `mtae`\n  |\n1 | mtae\n  | ^^^^\n  = hint: did you mean `mate`?\n";
        let coloured = colorize(text);
        assert!(coloured.contains("q.cql:1:1: \x1b[1;31merror\x1b[0m: unknown filter"), "{coloured:?}");
        assert!(coloured.contains("\x1b[1;31m ^^^^\x1b[0m"), "{coloured:?}");
        assert!(coloured.contains("= \x1b[1;36mhint\x1b[0m: did you mean"), "{coloured:?}");
        let plain: String = {
            let mut s = coloured.clone();
            for code in ["\x1b[1;31m", "\x1b[1;33m", "\x1b[1;36m", "\x1b[1;34m", "\x1b[0m"] {
                s = s.replace(code, "");
            }
            s
        };
        assert_eq!(plain, text);
    }
}
