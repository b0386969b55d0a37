//! `include "file.cql"` in the `cql( … )` header of a CQL 6 script: shared libraries
//! of functions (and any other filters) written once and used by many scripts.
//!
//! Takes in: the text and path of a CQL 6 script.
//! Gives out: one text the CQL 6 front-end parses — the script with its `include`
//! words blanked out, and right after its header every included file (each at most
//! once, a file's own includes before it, its header blanked) — and a [`SourceMap`]
//! that renders a diagnostic against the file and line it came from.
//! Must never: change an offset or a line of the script's own text before the header's
//! end, accept a file that includes itself (directly or through others), or read a
//! file that is not named by an `include`.
//!
//! Relative paths are resolved against the directory of the file that names them.
//! An included file's functions are defined before the script's body is read, so the
//! script can call them; filters outside functions in an included file become part of
//! the query, in front of the script's own filters.

use std::path::{Path, PathBuf};

use crate::diag::Span;
use crate::diag::{Diagnostic, Error};
use crate::eval::{FilePolicy, FileUse};

/// One file's part of the combined text.
#[derive(Clone, Debug)]
struct Region {
    /// The file's name as written (for messages).
    name: String,
    /// The file's text, as it was read.
    text: String,
    /// Where the file's (possibly blanked) text starts in the combined text.
    start: usize,
    /// Its length there.
    len: usize,
}

/// Where every part of a combined query text came from.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// The included files' regions.
    regions: Vec<Region>,
    /// The script's name and text.
    main_name: String,
    main_text: String,
    /// Where the included text begins and how long it is (the script's text after it is
    /// shifted by this length).
    insert_at: usize,
    inserted: usize,
}

impl SourceMap {
    /// Render an error of the combined text: each diagnostic against its own file.
    pub fn render(&self, error: &Error) -> String {
        let mut out = String::new();
        for d in &error.diagnostics {
            let (start, end) = (d.span.start as usize, d.span.end as usize);
            let (name, text, shift) = if start < self.insert_at {
                (&self.main_name, &self.main_text, 0)
            } else if start >= self.insert_at + self.inserted {
                (&self.main_name, &self.main_text, self.inserted)
            } else {
                match self.regions.iter().find(|r| start >= r.start && start <= r.start + r.len) {
                    Some(r) => (&r.name, &r.text, r.start),
                    None => (&self.main_name, &self.main_text, 0),
                }
            };
            let mut moved = d.clone();
            let new_start = start.saturating_sub(shift).min(text.len());
            moved.span = Span::new(new_start, end.saturating_sub(shift).clamp(new_start, text.len()));
            out.push_str(&Error { diagnostics: vec![moved] }.render(name, text));
        }
        out
    }
}

/// An `include "PATH"` in a header: the path and the span of its string.
fn includes_in(text: &str) -> (Vec<(String, Span)>, Vec<(usize, usize)>) {
    let mut found = Vec::new();
    let mut blank = Vec::new();
    // Only the header is searched (not a comment before it that names a `.cql` file).
    let Some((start, end)) = super::header_span(text) else { return (found, blank) };
    let bytes = text.as_bytes();
    let mut i = start;
    while i < end {
        if bytes[i] == b'"' {
            i += text[i + 1..end].find('"').map_or(end, |p| p + 2);
            continue;
        }
        // Bytes, not `str` slices: `i` steps through the header one byte at a time, also
        // inside the characters of a Unicode filter.
        let at_word = bytes[i..end].starts_with(b"include")
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if at_word {
            let mut j = i + "include".len();
            while j < end && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < end && bytes[j] == b'"' {
                if let Some(close) = text[j + 1..end].find('"') {
                    let path = text[j + 1..j + 1 + close].to_string();
                    found.push((path, Span::new(j, j + close + 2)));
                    blank.push((i, j + close + 2));
                    i = j + close + 2;
                    continue;
                }
            }
        }
        i += 1;
    }
    (found, blank)
}

/// `text` with the byte ranges replaced by spaces (line breaks kept).
fn blanked(text: &str, ranges: &[(usize, usize)]) -> String {
    let mut out = text.as_bytes().to_vec();
    for &(a, b) in ranges {
        for byte in &mut out[a..b] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Gather the files a script includes, depth first (a file's own includes before it).
struct Gatherer<'p> {
    /// The files the script may reach.
    policy: &'p FilePolicy,
    /// Files being read (for cycles), canonical paths.
    stack: Vec<PathBuf>,
    /// Files already taken in, canonical paths.
    seen: Vec<PathBuf>,
    regions: Vec<(String, String, String)>,
}

impl Gatherer<'_> {
    /// Take in the files `text` (the file `name` in directory `dir`) includes.
    fn visit(&mut self, name: &str, text: &str, dir: &Path) -> Result<(), String> {
        let (found, _) = includes_in(text);
        for (path, span) in found {
            let fail = |message: String, hint: Option<&str>| {
                let mut d = Diagnostic::new(message, span);
                d.hint = hint.map(str::to_string);
                Error { diagnostics: vec![d] }.render(name, text)
            };
            // The one file gate: confined, the file is reached from its folder without
            // following a link, and must be a regular file with one name.
            let (file, reached) = match self.policy.open(FileUse::Include, &path, Some(dir)) {
                Ok(opened) => opened,
                Err(why) => {
                    return Err(fail(
                        format!("cannot include {why}"),
                        Some("include a `.cql` file inside the script's folder or the output's folder, or allow a folder with `--allow-files DIR` (`--secure` forbids include); a relative path is read from the directory of the script that includes it"),
                    ))
                }
            };
            let full = dir.join(&path);
            let canonical = std::fs::canonicalize(&reached).unwrap_or(reached);
            if self.stack.contains(&canonical) {
                return Err(fail(
                    format!("`{path}` includes itself (an include cycle)"),
                    Some("a file may not include itself, directly or through the files it includes"),
                ));
            }
            if self.seen.contains(&canonical) {
                continue;
            }
            let included = crate::input::read_open_file(file, crate::input::MAX_TEXT_FILE_BYTES)
                .and_then(|bytes| {
                    String::from_utf8(bytes).map_err(|_| {
                        std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8")
                    })
                })
                .map_err(|e| fail(format!("cannot read `{path}`: {e}"), None))?;
            let shown = full.to_string_lossy().into_owned();
            self.stack.push(canonical.clone());
            let sub_dir = full.parent().map(Path::to_path_buf).unwrap_or_default();
            self.visit(&shown, &included, &sub_dir)?;
            self.stack.pop();
            self.seen.push(canonical);
            // The included file's own header (its includes, or options) is not used.
            let header_end = super::body_start(&included);
            let header_from = if header_end > 0 { included.find("cql").unwrap_or(0) } else { 0 };
            let text = blanked(&included, &[(header_from, header_end)]);
            self.regions.push((shown, included.clone(), text));
        }
        Ok(())
    }
}

/// Expand the includes of the CQL 6 script `text` read from `path`: the combined text
/// and its source map; `Ok(None)` when the script includes nothing. A missing file, an
/// include cycle or a file `policy` refuses is an error rendered with a caret under the
/// file name.
pub fn expand(text: &str, path: Option<&str>, policy: &FilePolicy) -> Result<Option<(String, SourceMap)>, String> {
    let (found, blank) = includes_in(text);
    if found.is_empty() {
        return Ok(None);
    }
    let name = path.unwrap_or("<command line>");
    let dir = path.and_then(|p| Path::new(p).parent()).map(Path::to_path_buf).unwrap_or_default();
    let mut g = Gatherer { policy, stack: Vec::new(), seen: Vec::new(), regions: Vec::new() };
    if let Some(p) = path.and_then(|p| std::fs::canonicalize(p).ok()) {
        g.stack.push(p);
    }
    g.visit(name, text, &dir)?;
    let main = blanked(text, &blank);
    let insert_at = super::body_start(&main);
    let mut combined = main[..insert_at].to_string();
    let mut regions = Vec::new();
    for (shown, original, body) in g.regions {
        combined.push('\n');
        regions.push(Region { name: shown, text: original, start: combined.len(), len: body.len() });
        combined.push_str(&body);
    }
    combined.push('\n');
    let inserted = combined.len() - insert_at;
    combined.push_str(&main[insert_at..]);
    let map = SourceMap { regions, main_name: name.to_string(), main_text: text.to_string(), insert_at, inserted };
    Ok(Some((combined, map)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_words_are_found_in_the_header_only() {
        let text = "cql(input a.pgn include \"lib/x.cql\" matchstring \"include y\")\ninclude \"z\" mate";
        let (found, blank) = includes_in(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "lib/x.cql");
        let b = blanked(text, &blank);
        assert_eq!(b.len(), text.len());
        assert!(b.starts_with("cql(input a.pgn ") && !b[..60].contains("include \"lib"));
    }

    #[test]
    fn a_comment_before_the_header_and_unicode_filters_are_stepped_over() {
        // From the CQL 6.2 examples (staircase-sort.cql): a leading comment names a `.cql`
        // file and holds an odd number of quotes, and the header is followed by Unicode.
        let text =
            "/* see other.cql: sort \"size\"\" */\ncql(input h.pgn include \"lib/a.cql\")\n✵⬓{ 8≤sort \"x\" ⊢◎△ }";
        let (found, _) = includes_in(text);
        assert_eq!(found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), ["lib/a.cql"]);
        // Every cut of the text, at every character boundary, is scanned without a panic,
        // and only a header's include is ever found.
        for (cut, _) in text.char_indices() {
            let (found, _) = includes_in(&text[..cut]);
            assert!(found.iter().all(|f| f.0 == "lib/a.cql"), "{cut}");
            let (found, _) = includes_in(&text[cut..]);
            assert!(found.iter().all(|f| f.0 == "lib/a.cql"), "{cut}");
        }
        // Unicode inside the header itself.
        let (found, _) = includes_in("cql(matchstring \"✵⬓\" include \"b.cql\" ◎)");
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn errors_point_into_the_file_they_come_from() {
        let dir = std::env::temp_dir().join(format!("cqlrs-include-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("lib/a.cql"), "function Mated() { mate }\nfunction Bad() { x }\n").unwrap();
        let script = dir.join("main.cql");
        let text = "cql(include \"lib/a.cql\")\nMated()\n";
        std::fs::write(&script, text).unwrap();
        let any = FilePolicy::unrestricted();
        let (combined, map) = expand(text, script.to_str(), &any).unwrap().unwrap();
        assert!(combined.contains("function Mated()") && combined.ends_with("\nMated()\n"));
        let at = combined.find("Mated()\n").unwrap();
        let err = Error { diagnostics: vec![Diagnostic::new("here", Span::new(at, at + 5))] };
        let rendered = map.render(&err);
        assert!(rendered.starts_with(&format!("{}:2:1", script.display())), "{rendered}");
        let inside = combined.find("{ x }").unwrap() + 2;
        let rendered = map.render(&Error { diagnostics: vec![Diagnostic::new("x", Span::new(inside, inside + 1))] });
        assert!(rendered.contains("a.cql:2:"), "{rendered}");
        // Missing files and cycles are errors with a caret under the name.
        let err = expand("cql(include \"nope.cql\") mate", script.to_str(), &any).unwrap_err();
        assert!(err.contains("cannot include `nope.cql`") && err.contains('^'), "{err}");
        std::fs::write(dir.join("lib/self.cql"), "cql(include \"self.cql\")\nfunction F() { check }\n").unwrap();
        let err = expand("cql(include \"lib/self.cql\") F", script.to_str(), &any).unwrap_err();
        assert!(err.contains("includes itself") && err.contains('^'), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
