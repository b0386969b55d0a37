//! Lossless, token-level conversion of CQL 6 scripts between the Unicode and the
//! ASCII spellings (`♔――e4` ↔ `K--e4`).
//!
//! Takes in: script text. Gives out: the same script with each convertible token
//! respelled; whitespace, comments and strings are copied unchanged, so both forms
//! parse to the same IR. Must never: panic, or change a token it does not understand.

use super::lexer::{lex, Tok, Token};

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
fn convert(src: &str, respell: impl Fn(&Token, &str) -> Option<String>) -> String {
    let lexed = lex(src);
    let mut out = String::with_capacity(src.len());
    let mut last = 0usize;
    let mut previous_respelled = false;
    for t in &lexed.tokens {
        if t.tok == Tok::Eof {
            break;
        }
        let (start, end) = (t.span.start as usize, t.span.end as usize);
        if start < last || end > src.len() {
            continue;
        }
        out.push_str(&src[last..start]);
        let text = &src[start..end];
        let respelled = respell(t, text);
        let new = respelled.as_deref().unwrap_or(text);
        let glued = !t.space_before
            && (respelled.is_some() || previous_respelled)
            && out.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            && new.starts_with(|c: char| c.is_alphanumeric() || c == '_');
        if glued {
            out.push(' ');
        }
        out.push_str(new);
        previous_respelled = respelled.is_some();
        last = end;
    }
    out.push_str(&src[last.min(src.len())..]);
    out
}

/// The script in ASCII spelling: `♔` → `K`, `◭` → `[Aa]`, `――` → `--`, `∊` →
/// `[element]`, `⊢` → `path`, … Symbols with no ASCII form (`≺ ≻ ≼ ≽`) stay.
pub fn to_ascii(src: &str) -> String {
    convert(src, |t, text| {
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

/// The script in Unicode spelling: `K` → `♔`, `[Aa]` → `◭`, `--` → `――`, `->` → `→`, …
/// Keywords stay words.
pub fn to_unicode(src: &str) -> String {
    convert(src, |t, text| match &t.tok {
        Tok::Pieces { .. } if text.is_ascii() => {
            let (designator, rest) = if let Some(inner) = text.strip_prefix('[') {
                let close = inner.find(']')?;
                let letters = &inner[..close];
                let d: String = if letters == "Aa" || letters == "aA" {
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
