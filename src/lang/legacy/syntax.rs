//! Lexer and list reader of the legacy S-expression language.
//!
//! Takes in: the source text of a legacy script. Gives out: a tree of [`Item`]s — atoms
//! (whitespace-free words such as `:piececount`, `R?2`, `[RQ][a1-8]`, `"quoted"`) and
//! parenthesised lists — each with its byte span.
//! Must never: interpret keywords, panic on any input, or recurse deeper than
//! [`MAX_DEPTH`] lists (deeper nesting is refused with a diagnostic).

use crate::diag::Diagnostic;
use crate::diag::Span;

/// Deepest list nesting accepted; real scripts use fewer than ten levels (a list
/// lowers to several IR levels, hence a third of the limit).
pub const MAX_DEPTH: usize = crate::NESTING_LIMIT / 3;

/// One item of a legacy script: a word or a list of items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A word without whitespace (a keyword, a designator, a number, a quoted string
    /// with its quotes removed) and where it was written.
    Atom {
        /// The word as written (quotes stripped for double-quoted strings).
        text: String,
        /// Was it written in double quotes?
        quoted: bool,
        /// Where it is.
        span: Span,
    },
    /// A parenthesised list of items.
    List {
        /// The items in order.
        items: Vec<Item>,
        /// From the opening to the closing parenthesis.
        span: Span,
    },
}

impl Item {
    /// The source range of this item.
    pub fn span(&self) -> Span {
        match self {
            Item::Atom { span, .. } | Item::List { span, .. } => *span,
        }
    }

    /// The word, if this item is an (unquoted or quoted) atom.
    pub fn atom(&self) -> Option<&str> {
        match self {
            Item::Atom { text, .. } => Some(text),
            Item::List { .. } => None,
        }
    }

    /// The head word of a list (`match`, `position`), if this is a list starting with a word.
    pub fn head(&self) -> Option<&str> {
        match self {
            Item::List { items, .. } => items.first().and_then(Item::atom),
            Item::Atom { .. } => None,
        }
    }
}

/// Read a whole script into its top-level items.
pub fn read(source: &str) -> Result<Vec<Item>, Diagnostic> {
    let mut reader = Reader { src: source.as_bytes(), text: source, pos: 0 };
    let mut top = Vec::new();
    loop {
        reader.skip_blank();
        if reader.pos >= reader.src.len() {
            return Ok(top);
        }
        top.push(reader.item(0)?);
    }
}

struct Reader<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    /// Skip whitespace and `;` comments.
    fn skip_blank(&mut self) {
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else if c == b';' {
                while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if self.text[self.pos..].starts_with('\u{feff}') {
                self.pos += 3;
            } else {
                break;
            }
        }
    }

    fn item(&mut self, depth: usize) -> Result<Item, Diagnostic> {
        let start = self.pos;
        match self.src[self.pos] {
            b'(' => {
                if depth >= MAX_DEPTH {
                    return Err(Diagnostic::new(
                        format!("lists are nested more than {MAX_DEPTH} deep"),
                        Span::new(start, start + 1),
                    )
                    .with_hint("simplify the script: real queries need only a few levels"));
                }
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_blank();
                    if self.pos >= self.src.len() {
                        return Err(Diagnostic::new("this `(` is never closed", Span::new(start, start + 1))
                            .with_hint("add the missing `)`"));
                    }
                    if self.src[self.pos] == b')' {
                        self.pos += 1;
                        return Ok(Item::List { items, span: Span::new(start, self.pos) });
                    }
                    items.push(self.item(depth + 1)?);
                }
            }
            b')' => Err(Diagnostic::new("unmatched `)`", Span::new(start, start + 1))
                .with_hint("remove it, or add the `(` it should close")),
            b'"' => {
                self.pos += 1;
                while self.pos < self.src.len() && self.src[self.pos] != b'"' {
                    self.pos += 1;
                }
                if self.pos >= self.src.len() {
                    return Err(Diagnostic::new("this string is never closed", Span::new(start, start + 1))
                        .with_hint("add the closing `\"`"));
                }
                let text = self.text[start + 1..self.pos].to_string();
                self.pos += 1;
                Ok(Item::Atom { text, quoted: true, span: Span::new(start, self.pos) })
            }
            _ => self.word(start),
        }
    }

    /// A word: runs to whitespace, a parenthesis or a comment. Brackets `[…]` may hold
    /// spaces (`[ ]` is the empty square set). A lowercase word directly followed by
    /// `(digits)` keeps it (`consecutive(3)`, a CQL-S pawn attribute).
    fn word(&mut self, start: usize) -> Result<Item, Diagnostic> {
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            if c == b'[' {
                let open = self.pos;
                while self.pos < self.src.len() && self.src[self.pos] != b']' {
                    self.pos += 1;
                }
                if self.pos >= self.src.len() {
                    return Err(Diagnostic::new("this `[` is never closed", Span::new(open, open + 1))
                        .with_hint("add the missing `]`"));
                }
                self.pos += 1;
                continue;
            }
            if c.is_ascii_whitespace() || c == b')' || c == b';' || c == b'"' {
                break;
            }
            if c == b'(' {
                let word = &self.text[start..self.pos];
                if !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
                    let rest = &self.src[self.pos + 1..];
                    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                    if digits > 0 && rest.get(digits) == Some(&b')') {
                        self.pos += digits + 2;
                        continue;
                    }
                }
                break;
            }
            self.pos += 1;
        }
        // Multi-byte characters are consumed byte by byte; keep the word on a char boundary.
        while self.pos < self.src.len() && !self.text.is_char_boundary(self.pos) {
            self.pos += 1;
        }
        Ok(Item::Atom { text: self.text[start..self.pos].to_string(), quoted: false, span: Span::new(start, self.pos) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(item: &Item) -> Vec<String> {
        match item {
            Item::Atom { text, .. } => vec![text.clone()],
            Item::List { items, .. } => {
                let mut out = vec!["(".to_string()];
                for i in items {
                    out.extend(words(i));
                }
                out.push(")".to_string());
                out
            }
        }
    }

    #[test]
    fn reads_nested_lists_and_skips_comments() {
        let top = read("; header\n(match :year 2013 ; trailing\n (position Kc1 [RQ][a1-8]))").unwrap();
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].head(), Some("match"));
        assert_eq!(words(&top[0]).join(" "), "( match :year 2013 ( position Kc1 [RQ][a1-8] ) )");
    }

    #[test]
    fn keyword_glued_to_list_and_pawn_attribute() {
        let top = read("(position :gappedsequence((position :mate)) :pawncount consecutive(3) >0)").unwrap();
        assert_eq!(
            words(&top[0]).join(" "),
            "( position :gappedsequence ( ( position :mate ) ) :pawncount consecutive(3) >0 )"
        );
    }

    #[test]
    fn brackets_may_hold_spaces_and_strings_lose_quotes() {
        let top = read("(position [ ] \"a b\")").unwrap();
        match &top[0] {
            Item::List { items, .. } => {
                assert_eq!(items[1].atom(), Some("[ ]"));
                assert!(matches!(&items[2], Item::Atom { text, quoted: true, .. } if text == "a b"));
            }
            _ => panic!("expected a list"),
        }
    }

    #[test]
    fn unbalanced_input_is_an_error_with_a_span() {
        let e = read("(match (position)").unwrap_err();
        assert_eq!(e.span, Span::new(0, 1));
        assert!(read("(match))").is_err());
        assert!(read("(position [a1").is_err());
        assert!(read("\"open").is_err());
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = "(".repeat(100_000);
        let e = read(&deep).unwrap_err();
        assert!(e.message.contains("nested"), "{}", e.message);
    }

    #[test]
    fn non_ascii_text_does_not_panic() {
        let top = read("(position ♖a1 é)").unwrap();
        assert_eq!(words(&top[0]).join(" "), "( position ♖a1 é )");
    }
}
