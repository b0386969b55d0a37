//! Checks the CQL 6 parser makes on the tokens around a filter, where CQL 6.2 reads the
//! text differently from what its tree would say (a `{5}` block, a move tied to the word
//! before it, a sign after a `line` constituent, `move` keywords that exclude each other),
//! and one check of the finished tree (`lastgamenumber` whose value is ignored).
//!
//! Takes in: tokens and spans from the parser, or the finished [`Ir`]. Gives out: a
//! [`Diagnostic`] for what CQL 6.2 refuses, `None` otherwise.
//! Must never: refuse what CQL 6.2 accepts.

use super::super::lexer::{Sym, Tok, Token};
use super::Kind;
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{Filter, FilterId, Ir};
use crate::ir::{Keyword62Filter, LogicFilter};

/// Does the text of a `{…}` block spell a CQL 6.2 repetition `{n}`, `{n,m}`, `{n,}` or
/// `{,m}` (digits only, no spaces)? CQL 6.2 reads such a block only as the repetition of a
/// `line` constituent, never as a compound filter.
pub fn is_brace_repetition(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
        return false;
    };
    if inner.is_empty() {
        return false;
    }
    let (a, b) = match inner.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (inner, None),
    };
    let digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    digits(a) && b.map_or(!a.is_empty(), |b| digits(b) && !(a.is_empty() && b.is_empty()))
}

/// The diagnostic for a block `{…}` starting at `open` that spells a repetition (`{5}`),
/// which CQL 6.2 accepts only after a `line` constituent.
pub fn brace_repetition_at(src: &str, open: Span) -> Option<Diagnostic> {
    let rest = src.get(open.start as usize..)?;
    let end = rest.find('}')?;
    let text = &rest[..=end];
    if !is_brace_repetition(text) {
        return None;
    }
    Some(
        Diagnostic::new(
            format!("`{text}` is a repetition count, which can only follow a constituent of `line`"),
            Span::new(open.start as usize, open.start as usize + text.len()),
        )
        .with_hint("write e.g. `line --> check{2}`; for a block holding a number put spaces inside: `{ 5 }`"),
    )
}

/// The diagnostic for an operator right after the piece of a promotion `――=♕`. CQL 6.2
/// reads everything after `=` up to `or` as the promoted piece, so `――=q or 2` or
/// `――=q == 2` promote to something that is not a piece; a move is never a number, so
/// arithmetic on it fails too.
pub fn after_promotion(next: &Tok, next_span: Span, piece: Span) -> Option<Diagnostic> {
    let op = match next {
        Tok::Word(w) if matches!(w.as_str(), "or" | "and" | "in" | "attacks" | "attackedby") => true,
        Tok::Sym(s) => matches!(
            s,
            Sym::Lt
                | Sym::Le
                | Sym::EqEq
                | Sym::Ne
                | Sym::Ge
                | Sym::Gt
                | Sym::Plus
                | Sym::Star
                | Sym::Slash
                | Sym::Percent
                | Sym::Union
                | Sym::Inter
                | Sym::AttackLeft
                | Sym::AttackRight
                | Sym::Colon
                | Sym::RegexOp
                | Sym::Prec
                | Sym::Succ
                | Sym::PrecEq
                | Sym::SuccEq
        ),
        _ => false,
    };
    if !op {
        return None;
    }
    Some(
        Diagnostic::new("the promoted piece is followed by an operator", Span { start: piece.start, end: next_span.end })
            .with_hint("CQL 6.2 reads all of it as the promoted piece, which must be a piece letter or a string; a move has no value to compute with: put it in braces, e.g. `{――=♕} or check`"),
    )
}

/// The diagnostic for the keywords of one `move` filter that CQL 6.2 refuses together:
/// `count` without `legal`/`pseudolegal`, `primary` with `secondary`, `legal` with
/// `previous`, `legal` with `promote`/`null`/`primary`/`secondary`/`capture`.
pub fn move_keywords(words: &[String], at: Span) -> Option<Diagnostic> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let legal = has("legal") || has("pseudolegal");
    let msg = if has("count") && !legal {
        "`move count` needs `legal` or `pseudolegal`"
    } else if has("primary") && has("secondary") {
        "a `move` cannot be both `primary` and `secondary`"
    } else if legal && has("previous") {
        "a `move` cannot be both `legal` and `previous`"
    } else if legal && ["promote", "null", "primary", "secondary", "capture"].iter().any(|w| has(w)) {
        "`move legal` and `move pseudolegal` take no `promote`, `null`, `primary`, `secondary` or `capture`"
    } else {
        return None;
    };
    Some(Diagnostic::new(msg, at).with_hint("CQL 6.2 refuses this combination of `move` keywords"))
}

/// The kind of a `move` filter from its keywords: a set (of the squares named by its first
/// keyword) when that is `from`, `to` or `capture`; a number with `count`; otherwise it
/// only matches.
pub fn move_keyword_kind(words: &[String]) -> Kind {
    if words.iter().any(|w| w == "count") {
        return Kind::Number;
    }
    match words.first().map(String::as_str) {
        Some("from" | "to" | "capture") => Kind::Set,
        _ => Kind::Logical,
    }
}

/// After a `line` constituent with a `+` or `*` (the token `last`), CQL 6.2 reads the sign
/// as a repetition only when an arrow, a closing bracket, the end of the text or another
/// repetition follows; otherwise it is an arithmetic operator on a constituent that is no
/// number, and the text is refused.
pub fn line_wildcard_end(last: &Token, next: &Token, src: &str) -> Option<Diagnostic> {
    if !matches!(last.tok, Tok::Sym(Sym::Plus | Sym::Star)) {
        return None;
    }
    let ends = match &next.tok {
        Tok::Eof
        | Tok::Sym(
            Sym::RBrace | Sym::RParen | Sym::LineForward | Sym::LineBackward | Sym::Question | Sym::Plus | Sym::Star,
        ) => true,
        Tok::Sym(Sym::LBrace) => {
            let rest = src.get(next.span.start as usize..).unwrap_or("");
            let text = rest.find('}').map_or("", |e| &rest[..=e]);
            is_brace_repetition(text) || matches!(text, "{+}" | "{*}" | "{?}")
        }
        _ => false,
    };
    if ends {
        return None;
    }
    Some(
        Diagnostic::new("this `+`/`*` is neither a repetition nor arithmetic", last.span)
            .with_hint("a repetition sign must be followed by `-->`, `<--`, `)` or `}`; put the constituent in braces to compute with it"),
    )
}

/// The token right after a dash, with no space between: CQL 6.2 reads it as the start of
/// the destination set, so a number or a minus sign there (`×-2`, `――3`) is refused.
pub fn dash_right_tie(next: &Token) -> Option<Diagnostic> {
    if next.space_before || !matches!(next.tok, Tok::Number(_) | Tok::Str(_) | Tok::Sym(Sym::Minus)) {
        return None;
    }
    Some(
        Diagnostic::new("the text right after a move must be the set of its destination squares", next.span)
            .with_hint("put a space after the move"),
    )
}

/// `―― (…)`: a move followed by whitespace and then `(`. CQL 6.2 refuses it (a target in
/// parentheses must touch the move) except at the top level of a path (`inside`).
pub fn dash_spaced_paren(next: &Token, inside: bool) -> Option<Diagnostic> {
    if inside || !next.space_before || next.tok != Tok::Sym(Sym::LParen) {
        return None;
    }
    Some(
        Diagnostic::new("whitespace between a move and the `(` after it", next.span)
            .with_hint("write the target right after the move, e.g. `――(check)`, or put the move in braces"),
    )
}

/// A dash or cross (`this`) written right after a word, number or string (`prev`) with no
/// space: CQL 6.2 ties it to that text as the set the move starts from, and refuses it
/// when the text is no set (`and――`, `not――`). Not checked inside `line`/`path`
/// constituents (`inside`).
pub fn dash_left_tie(prev: Option<&Token>, this: &Token, src: &str, inside: bool) -> Option<Diagnostic> {
    let prev = prev?;
    if inside || this.space_before {
        return None;
    }
    let tied = match &prev.tok {
        Tok::Word(w) => !matches!(w.as_str(), "currentposition" | "flip" | "flipcolor" | "focus" | "path"),
        Tok::Str(_) | Tok::Number(_) => true,
        _ => false,
    };
    if !tied {
        return None;
    }
    let text = src.get(prev.span.start as usize..prev.span.end as usize).unwrap_or("");
    Some(
        Diagnostic::new(format!("the move is tied to `{text}` on its left, which is not a set of squares"), this.span)
            .with_hint("put a space before the move"),
    )
}

/// `lastgamenumber` where only whether it matches counts: standing alone in the body, in
/// braces, after `not`, as a part of `and`/`or`, or as the condition or a branch of
/// `if`. CQL 6.2 stops there (`LastGameNumberNode::match_position`: "Do not ignore its
/// numeric value"); cqlrs refuses the text before reading any game. In a comparison, an
/// assignment, `sort` or `comment` its value is used and it is accepted.
pub fn ignored_values(ir: &Ir) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let mut todo: Vec<FilterId> = ir.root.into_iter().collect();
    let mut steps = 0usize;
    while let Some(id) = todo.pop() {
        steps += 1;
        if steps > 1_000_000 {
            break;
        }
        match ir.get(id) {
            Filter::Keyword62(Keyword62Filter::LastGameNumber) => diags.push(
                Diagnostic::new("`lastgamenumber` always matches: its numeric value must not be ignored", ir.span(id))
                    .with_hint("compare it or use it as a value, e.g. `gamenumber == lastgamenumber`"),
            ),
            Filter::Logic(LogicFilter::And(items) | LogicFilter::Or(items)) => todo.extend(items.iter().copied()),
            Filter::Logic(LogicFilter::Not(a)) => todo.push(*a),
            Filter::Logic(LogicFilter::If { cond, then, otherwise }) => {
                todo.push(*cond);
                todo.push(*then);
                todo.extend(otherwise.iter().copied());
            }
            _ => {}
        }
    }
    diags
}
