//! Lowering: from the CQL 6 syntax tree to IR, for the constructs whose tree the parser
//! hands over whole.
//!
//! Takes in: a construct of [`super::syntax`] and the tree's tokens (for places). Gives
//! out: its IR form (here the run's [`Settings`]) and diagnostics pointing at the tree's
//! tokens. Must never: panic on any input, read tokens (the parser has read them).
//!
//! Today the `cql( … )` header goes this way; the filters of the body are still lowered
//! by the parser as it reads them, and recorded in the tree beside (see [`super::parser`]).

use super::syntax::{Builder, HeaderItem, HeaderSyntax, HeaderValue};
use crate::diag::Diagnostic;
use crate::ir::Settings;
use crate::lang::nearest;

/// The option words a `cql( … )` header offers in "did you mean" hints.
const HEADER_HINT_WORDS: [&str; 10] = [
    "input",
    "output",
    "variations",
    "mainline",
    "silent",
    "quiet",
    "matchcount",
    "gamenumber",
    "matchstring",
    "result",
];

/// Apply the options of a `cql( … )` header to `settings`, in the order written; the
/// problems found, each at the token it concerns.
pub(crate) fn header(header: &HeaderSyntax, tree: &Builder, settings: &mut Settings) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for (i, item) in header.items.iter().enumerate() {
        let (token, word, value) = match item {
            HeaderItem::Option { token, word, value } => (*token, word.as_str(), value),
            HeaderItem::Stray { token } => {
                let span = tree.token_span(*token);
                let text = tree.token_text(*token);
                problems.push(Diagnostic::new(format!("unexpected `{text}` in the `cql` header"), span));
                continue;
            }
        };
        let span = tree.token_span(token);
        match (word, value) {
            ("input", HeaderValue::FileName(f)) => settings.input.push(f.clone()),
            ("output", HeaderValue::FileName(f)) => settings.output = Some(f.clone()),
            ("variations", _) => settings.variations = true,
            ("mainline", _) => settings.variations = false,
            ("silent", _) => settings.silent = true,
            ("quiet", _) => settings.quiet = true,
            ("matchcount" | "gamenumber", HeaderValue::Numbers(numbers)) => {
                let Some(&low) = numbers.first() else {
                    problems.push(Diagnostic::new(format!("`{word}` needs a number"), span));
                    continue;
                };
                // One number alone is both ends, as in every CQL 6.2 range (`cql(matchcount 3)`:
                // exactly three matching positions).
                let high = numbers.get(1).copied().unwrap_or(low);
                if word == "matchcount" {
                    settings.matchcount = (low, high);
                } else {
                    settings.gamenumber = Some((low, high));
                }
            }
            ("matchstring", HeaderValue::Text(text)) => match text {
                Some(s) => settings.matchstring = Some(s.clone()),
                None => problems.push(Diagnostic::new("`matchstring` needs a string", span)),
            },
            ("result", HeaderValue::Result(result)) => match result {
                Some(r) => settings.result = Some(*r),
                None => problems.push(Diagnostic::new("`result` needs 1-0, 0-1 or 1/2-1/2", span)),
            },
            // `sort matchcount [lo [hi]]`: order by the number of matching positions; the
            // range that may follow bounds it as usual.
            ("sort", _) if sorts_by_matchcount(header, i, token) => settings.sort_matchcount = true,
            ("noremovecomment", _) => settings.keep_removed_comments = true,
            // Accepted and ignored: options of the official program that change only its output.
            ("sort" | "nosort" | "smartcomments" | "nosmartcomments" | "showmatches", _) => {}
            (other, _) => {
                let hint = nearest(other, &HEADER_HINT_WORDS).map(|n| format!("did you mean `{n}`?"));
                let mut d = Diagnostic::new(format!("unknown `cql` header option `{other}`"), span);
                d.hint = hint;
                problems.push(d);
            }
        }
    }
    if let Some(end) = header.unterminated_at {
        problems.push(Diagnostic::new("unterminated `cql(` header", tree.token_span(end)));
    }
    problems
}

/// Is the `sort` at item `i` (token `token`) followed right away by `matchcount`?
fn sorts_by_matchcount(header: &HeaderSyntax, i: usize, token: u32) -> bool {
    matches!(header.items.get(i + 1), Some(HeaderItem::Option { token: next, word, .. })
        if word == "matchcount" && *next == token + 1)
}

#[cfg(test)]
mod tests {
    use crate::lang::cql6::parse;

    #[test]
    fn header_options_set_the_run() {
        let ir = parse("cql(gamenumber 2 7 variations silent matchstring \"x\" result 1-0) check").unwrap();
        let s = &ir.settings;
        assert_eq!(s.gamenumber, Some((2, 7)));
        assert!(s.variations && s.silent && !s.quiet);
        assert_eq!(s.matchstring.as_deref(), Some("x"));
        assert_eq!(s.result, Some(crate::ir::GameResult::WhiteWins));
        // One number is both ends of the range.
        assert_eq!(parse("cql(matchcount 3) check").unwrap().settings.matchcount, (3, 3));
    }

    #[test]
    fn sort_sorts_by_matchcount_only_when_matchcount_follows_it() {
        let s = parse("cql(sort matchcount 2 5) check").unwrap().settings;
        assert!(s.sort_matchcount);
        assert_eq!(s.matchcount, (2, 5));
        assert!(!parse("cql(sort quiet matchcount 2) check").unwrap().settings.sort_matchcount);
    }

    #[test]
    fn header_problems_point_at_the_option() {
        let e = parse("cql(matchcont 3) check").unwrap_err();
        let d = &e.diagnostics[0];
        assert_eq!(d.message, "unknown `cql` header option `matchcont`");
        assert_eq!((d.span.start, d.span.end), (4, 13));
        assert_eq!(d.hint.as_deref(), Some("did you mean `matchcount`?"));
        let e = parse("cql(matchstring 3) check").unwrap_err();
        assert_eq!(e.diagnostics[0].message, "`matchstring` needs a string");
        assert_eq!((e.diagnostics[0].span.start, e.diagnostics[0].span.end), (4, 15));
        let e = parse("cql(quiet").unwrap_err();
        assert_eq!(e.diagnostics[0].message, "unterminated `cql(` header");
        assert_eq!((e.diagnostics[0].span.start, e.diagnostics[0].span.end), (9, 9));
    }
}
