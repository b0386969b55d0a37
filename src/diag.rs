//! Where a query went wrong: source spans, diagnostics and their rendering.
//!
//! Takes in: byte ranges of query text and messages from any layer (the front-ends in
//! `lang`, the transform expander and loop check in `ir`, the compile pipeline).
//! Gives out: [`Span`], [`Diagnostic`] and [`Error`], and the user-facing text of an
//! error: `file:line:column: error: message`, the source line, a caret line under the
//! offending text, and a hint.
//! Must never: depend on any other module of the crate (every layer may use it, so it
//! sits at the bottom of the module graph).

/// Byte range of the query text a piece of a query came from (a filter, a square
/// designator, a move), so an error can point at the chess text the user wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }
}

/// One problem found in a query: a message, where, and a hint for fixing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong: lowercase, no full stop, quoting the user's text in backticks.
    pub message: String,
    /// The offending source text.
    pub span: Span,
    /// How to fix it, if we can tell.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic without a hint.
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic { message: message.into(), span, hint: None }
    }

    /// Add a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Render this diagnostic as `file:line:column: error: message`, the source line,
    /// a caret line under the offending text, and the hint (if any).
    pub fn render(&self, file: &str, source: &str) -> String {
        let start = floor_char_boundary(source, (self.span.start as usize).min(source.len()));
        let end = floor_char_boundary(source, (self.span.end as usize).min(source.len())).max(start);
        let (line, col) = line_col(source, start);
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[start..].find('\n').map_or(source.len(), |i| start + i);
        let text = source[line_start..line_end].trim_end_matches('\r');
        let width = source[start..end.min(line_end)].chars().count().max(1);
        let gutter = line.to_string().len();
        let mut out = format!("{file}:{line}:{col}: error: {}\n", self.message);
        out.push_str(&format!("{:gutter$} |\n", ""));
        out.push_str(&format!("{line} | {text}\n"));
        out.push_str(&format!("{:gutter$} | {}{}\n", "", " ".repeat(col - 1), "^".repeat(width)));
        if let Some(h) = &self.hint {
            out.push_str(&format!("{:gutter$} = hint: {h}\n", ""));
        }
        out
    }
}

/// Every diagnostic found in one query text (the error of the front-ends and of the
/// checks the compile pipeline runs on the finished query).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The diagnostics, in source order (at most 20).
    pub diagnostics: Vec<Diagnostic>,
}

impl Error {
    /// Render every diagnostic as `file:line:column: error: message`, the source line,
    /// a caret line under the offending text, and the hint.
    pub fn render(&self, file: &str, source: &str) -> String {
        self.diagnostics.iter().map(|d| d.render(file, source)).collect()
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for d in &self.diagnostics {
            writeln!(f, "{} (bytes {}..{})", d.message, d.span.start, d.span.end)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// 1-based line and column (in characters) of a byte offset in the query text.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// The largest character boundary of `s` at or before byte `i`.
fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let text = "cql()\n♔a1 check";
        assert_eq!(line_col(text, 0), (1, 1));
        let check = text.find("check").unwrap();
        assert_eq!(line_col(text, check), (2, 5));
        // Past the end and inside a multi-byte character are clamped.
        assert_eq!(line_col(text, 10_000), (2, 10));
        assert_eq!(line_col(text, 7), (2, 1));
    }

    #[test]
    fn caret_under_the_offending_text_with_hint() {
        let text = "cql()\nKa1 chekc";
        let at = text.find("chekc").unwrap();
        let d = Diagnostic::new("unknown word `chekc`", Span::new(at, at + 5)).with_hint("did you mean `check`?");
        let out = d.render("q.cql", text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "q.cql:2:5: error: unknown word `chekc`");
        assert_eq!(lines[2], "2 | Ka1 chekc");
        assert_eq!(lines[3], "  |     ^^^^^");
        assert_eq!(lines[4], "  = hint: did you mean `check`?");
        let error = Error { diagnostics: vec![d.clone(), d] };
        assert_eq!(error.render("q.cql", text), out.repeat(2));
    }

    #[test]
    fn spans_outside_the_text_do_not_panic() {
        let d = Diagnostic::new("x", Span::new(50, 40));
        let out = d.render("q.cql", "ab");
        assert!(out.starts_with("q.cql:1:3: error: x\n"));
        assert_eq!(Diagnostic::new("y", Span::default()).render("f", ""), "f:1:1: error: y\n  |\n1 | \n  | ^\n");
    }
}
