//! Lossless, token-level conversion of CQL 6 scripts between the Unicode and the
//! ASCII spellings (`♔――e4` ↔ `K--e4`).
//!
//! Takes in: script text. Gives out: the same script with each convertible token
//! respelled; whitespace, comments and strings are copied unchanged, so both forms
//! parse to the same IR. Must never: panic, or change a token it does not understand.

use super::lexer::{lex, Sym, Tok, Token};

fn figurine_letter(c: char) -> Option<char> {
    Some(match c {
        '♔' => 'K',
        '♕' => 'Q',
        '♖' => 'R',
        '♗' => 'B',
        '♘' => 'N',
        '♙' => 'P',
        '♚' => 'k',
        '♛' => 'q',
        '♜' => 'r',
        '♝' => 'b',
        '♞' => 'n',
        '♟' => 'p',
        '△' => 'A',
        '▲' => 'a',
        '□' => '_',
        _ => return None,
    })
}

fn letter_figurine(c: char) -> Option<char> {
    Some(match c {
        'K' => '♔',
        'Q' => '♕',
        'R' => '♖',
        'B' => '♗',
        'N' => '♘',
        'P' => '♙',
        'k' => '♚',
        'q' => '♛',
        'r' => '♜',
        'b' => '♝',
        'n' => '♞',
        'p' => '♟',
        'A' => '△',
        'a' => '▲',
        '_' => '□',
        _ => return None,
    })
}

/// Respell `src` token by token with `respell`, copying everything between tokens.
/// Symbols that Unicode scripts write glued to what follows (`⊢◎△`, `⬓♙a-h2`): the one
/// space `to_ascii` puts after their word form (`path focus A`) is taken out again.
const GLUED_PREFIXES: &[&str] = &["⊢", "◎", "✵", "⬓"];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A piece figurine (`♔`…`♟`, `△ ▲ ◭ □`): figurines written one after another are one
/// piece designator (`♔▲` is `[Ka]`), so two designators must not be run together.
fn is_figurine(c: char) -> bool {
    c == '◭' || figurine_letter(c).is_some()
}

/// Would `before` followed directly by `after` be read as one token where the original
/// had two? Two words run together (`K` `a` → `Ka`), or two figurine designators
/// (`[Aa]` `a` → `◭▲`).
fn would_merge(before: &str, after: &str) -> bool {
    match (before.chars().next_back(), after.chars().next()) {
        (Some(b), Some(a)) => (is_word_char(b) && is_word_char(a)) || (is_figurine(b) && is_figurine(a)),
        _ => false,
    }
}

/// Respell `src` token by token with `respell`, copying everything between tokens. Where a
/// respelled token would run into a neighbouring word, one space is put between them; with
/// `unglue`, a single space after a [`GLUED_PREFIXES`] symbol that only kept two words apart
/// is dropped (the inverse of that rule, so both directions round-trip).
fn convert(src: &str, unglue: bool, mut respell: impl FnMut(&Token, &str) -> Option<String>) -> String {
    let lexed = lex(src);
    let mut out = String::with_capacity(src.len());
    let mut last = 0usize;
    let mut previous_respelled = false;
    let mut previous_glue: Option<&'static str> = None;
    for t in &lexed.tokens {
        if t.tok == Tok::Eof {
            break;
        }
        let (start, end) = (t.span.start as usize, t.span.end as usize);
        if start < last || end > src.len() {
            continue;
        }
        let gap = &src[last..start];
        let text = &src[start..end];
        let respelled = respell(t, text);
        let new = respelled.as_deref().unwrap_or(text);
        // `◎` is glued to whatever follows (`◎T`, `◎capture`); `⊢ ✵ ⬓` only to another
        // symbol (`⊢◎`, `⬓♙a-h2`), as in `⊢ primary`.
        let next_is_symbol = respelled.as_deref().is_some_and(|r| !r.starts_with(is_word_char));
        let separator_only = unglue
            && (previous_glue == Some("◎") || (previous_glue.is_some() && next_is_symbol))
            && gap == " "
            && src[..last].ends_with(is_word_char)
            && text.starts_with(is_word_char);
        if !separator_only {
            out.push_str(gap);
        }
        let glued = !t.space_before && (respelled.is_some() || previous_respelled) && would_merge(&out, new);
        if glued {
            out.push(' ');
        }
        out.push_str(new);
        previous_respelled = respelled.is_some();
        previous_glue = respelled.as_deref().and_then(|r| GLUED_PREFIXES.iter().copied().find(|g| *g == r));
        last = end;
    }
    out.push_str(&src[last.min(src.len())..]);
    out
}

/// The script in ASCII spelling: `♔` → `K`, `◭` → `[Aa]`, `――` → `--`, `∊` →
/// `[element]`, `⊢` → `path`, … Symbols with no ASCII form (`≺ ≻ ≼ ≽`) stay.
pub fn to_ascii(src: &str) -> String {
    convert(src, false, |t, text| {
        if text.is_ascii() {
            return None;
        }
        if let Tok::Pieces { .. } = t.tok {
            let figs: String = text.chars().take_while(|c| !c.is_ascii()).collect();
            let rest = &text[figs.len()..];
            let letters: String = figs.chars().filter_map(figurine_letter).collect();
            let designator = if figs == "◭" {
                "[Aa]".to_string()
            } else if letters.chars().count() == 1 && figs.chars().count() == 1 {
                letters
            } else {
                let mut l = letters;
                if figs.contains('◭') {
                    l.push_str("Aa");
                }
                format!("[{l}]")
            };
            return Some(format!("{designator}{rest}"));
        }
        let mapped = match text {
            "――" | "―" | "——" | "—" => "--",
            "▦" => ".",
            "∊" | "∈" => "[element]",
            "∀" => "[forall]",
            "→" => "->",
            "←" => "<-",
            "∩" => "&",
            "∪" => "|",
            "≤" => "<=",
            "≥" => ">=",
            "≠" => "!=",
            "×" => "[x]",
            "⊢" => "path",
            "◎" => "focus",
            "✵" => "flip",
            "⬓" => "flipcolor",
            "∙" => "currentposition",
            _ => return None,
        };
        Some(mapped.to_string())
    })
}

/// Where the converter stands relative to the `cql( … )` header.
#[derive(Clone, Copy)]
enum HeaderState {
    Before,
    SawCql,
    Inside(u32),
    After,
}

impl HeaderState {
    /// Advance over one token; true when the token lies inside the header's parentheses.
    fn inside(&mut self, tok: &Tok) -> bool {
        let (next, inside) = match (*self, tok) {
            (HeaderState::Before, Tok::Word(w)) if w == "cql" => (HeaderState::SawCql, false),
            (HeaderState::Before, _) => (HeaderState::Before, false),
            (HeaderState::SawCql, Tok::Sym(Sym::LParen)) => (HeaderState::Inside(1), true),
            (HeaderState::SawCql, _) => (HeaderState::After, false),
            (HeaderState::Inside(1), Tok::Sym(Sym::RParen)) => (HeaderState::After, true),
            (HeaderState::Inside(d), Tok::Sym(Sym::RParen)) => (HeaderState::Inside(d - 1), true),
            (HeaderState::Inside(d), Tok::Sym(Sym::LParen)) => (HeaderState::Inside(d + 1), true),
            (HeaderState::Inside(d), _) => (HeaderState::Inside(d), true),
            (HeaderState::After, _) => (HeaderState::After, false),
        };
        *self = next;
        inside
    }
}

/// The script in Unicode spelling: `K` → `♔`, `[Aa]` → `◭`, `--` → `――`, `->` → `→`,
/// `path` → `⊢`, `focus` → `◎`, `flip` → `✵`, `flipcolor` → `⬓`, `currentposition` → `∙`
/// (the words `to_ascii` writes for those symbols, so a round trip gives back the script);
/// other keywords stay words. A one-letter bracket such as `[a]` stays as it is.
pub fn to_unicode(src: &str) -> String {
    // Inside `cql( … )` words are file names and options (`input flip.pgn`): left alone.
    let mut header = HeaderState::Before;
    convert(src, true, move |t, text| match &t.tok {
        _ if header.inside(&t.tok) => None,
        Tok::Word(w) => {
            let symbol = match w.as_str() {
                "path" => "⊢",
                "focus" => "◎",
                "flip" => "✵",
                "flipcolor" => "⬓",
                "currentposition" => "∙",
                _ => return None,
            };
            Some(symbol.to_string())
        }
        Tok::Pieces { .. } if text.is_ascii() => {
            let (designator, rest) = if let Some(inner) = text.strip_prefix('[') {
                let close = inner.find(']')?;
                let letters = &inner[..close];
                if letters.len() < 2 {
                    // `[a]` has no bracketed Unicode spelling; `▲` would come back as `a`.
                    return None;
                }
                let d: String = if letters == "Aa" {
                    "◭".to_string()
                } else {
                    letters.chars().map(letter_figurine).collect::<Option<String>>()?
                };
                (d, &inner[close + 1..])
            } else {
                let c = text.chars().next()?;
                (letter_figurine(c)?.to_string(), &text[1..])
            };
            Some(format!("{designator}{rest}"))
        }
        Tok::Squares(_) if text == "." => Some("▦".into()),
        Tok::Sym(_) => {
            let m = match text {
                "--" => "――",
                "[x]" => "×",
                "->" => "→",
                "<-" => "←",
                "&" => "∩",
                "|" => "∪",
                "<=" => "≤",
                ">=" => "≥",
                "!=" => "≠",
                "[element]" => "∊",
                "[forall]" => "∀",
                _ => return None,
            };
            Some(m.to_string())
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::{to_ascii, to_unicode};
    use crate::ir::dump::dump;

    fn ir_of(src: &str) -> String {
        dump(&super::super::parse(src).unwrap_or_else(|e| panic!("{src:?} does not parse: {e}")))
    }

    /// Two piece designators written without a space (`[Aa]a`: "any piece" and "the
    /// black pieces") must not become one Unicode designator (`◭▲` is just `[Aa]`).
    #[test]
    fn adjacent_designators_stay_apart_in_unicode() {
        for src in ["[Aa]a== 5", "a[Aa]", "K[Aa]", "[Aa]a", "[RB]k"] {
            let u = to_unicode(src);
            assert_eq!(ir_of(&u), ir_of(src), "{src:?} -> {u:?}");
            let back = to_ascii(&u);
            assert_eq!(ir_of(&back), ir_of(src), "{src:?} -> {u:?} -> {back:?}");
        }
        assert_eq!(to_unicode("[Aa]a== 5"), "◭ ▲== 5");
        // One designator with several figurines is still written as one.
        assert_eq!(to_unicode("[Ka]"), "♔▲");
    }
}
