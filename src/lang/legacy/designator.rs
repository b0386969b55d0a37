//! Piece and square designators of the legacy language, and its ranges.
//!
//! Takes in: one atom of a position list (`R?2`, `[RQ][a1-8]`, `$rook[a1]`, `.d4`) or the
//! atoms of a range (`2`, `1 unlimited`, `>=3`). Gives out: a [`Designator`] (which piece
//! kinds or which tag, on which squares) or a [`Range`].
//! Must never: touch the IR arena (lowering does that) or panic on malformed text —
//! every failure is an `Err` with a message and a hint.

use crate::ir::{CmpOp, PieceMask};
use shakmaty::{Color, Role};

/// What a piece designator asks for on its squares: piece kinds, or one tagged piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PieceKinds {
    /// Squares whose content is accepted by the mask (`R`, `[Aa]`, `.`, `?`).
    Mask(PieceMask),
    /// The single piece bound to the named `:forany` tag (`$rook`).
    Tag(String),
}

/// A piece designator: piece kinds (or a tag) restricted to a set of squares.
/// It matches a position when one of its squares holds one of its kinds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Designator {
    /// The piece kinds or tag.
    pub kinds: PieceKinds,
    /// The squares looked at (bit `rank*8 + file`); all 64 when no square part is written.
    pub squares: u64,
}

/// Why a designator or range could not be read: a message and a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong, quoting the text.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

fn problem(message: String, hint: &str) -> Problem {
    Problem { message, hint: hint.to_string() }
}

/// The mask of one piece-type letter: `K…P`, `k…p`, `A a M m I i U . ?`.
pub fn letter_mask(c: char) -> Option<PieceMask> {
    let piece = |color, role| PieceMask::piece(color, role);
    let white = |roles: &[Role]| roles.iter().fold(PieceMask(0), |m, &r| m.with(piece(Color::White, r)));
    Some(match c {
        'K' => piece(Color::White, Role::King),
        'Q' => piece(Color::White, Role::Queen),
        'R' => piece(Color::White, Role::Rook),
        'B' => piece(Color::White, Role::Bishop),
        'N' => piece(Color::White, Role::Knight),
        'P' => piece(Color::White, Role::Pawn),
        'k' => piece(Color::Black, Role::King),
        'q' => piece(Color::Black, Role::Queen),
        'r' => piece(Color::Black, Role::Rook),
        'b' => piece(Color::Black, Role::Bishop),
        'n' => piece(Color::Black, Role::Knight),
        'p' => piece(Color::Black, Role::Pawn),
        'A' => PieceMask::WHITE,
        'a' => PieceMask::BLACK,
        'M' => white(&[Role::Queen, Role::Rook]),
        'm' => white(&[Role::Queen, Role::Rook]).swap_colors(),
        'I' => white(&[Role::Bishop, Role::Knight]),
        'i' => white(&[Role::Bishop, Role::Knight]).swap_colors(),
        'U' => PieceMask::ANY_PIECE,
        '.' => PieceMask::EMPTY,
        '?' => PieceMask::ANYTHING,
        _ => return None,
    })
}

const ALL_SQUARES: u64 = u64::MAX;

/// Read a piece designator such as `K`, `Pa?`, `??8`, `[RQ][a1-8]`, `Ra1-8`, `$rook[a1]`,
/// `U[a1,h1,a8,h8]`, `[ ]` (never matches).
pub fn parse_designator(text: &str) -> Result<Designator, Problem> {
    let hint = "a piece designator is a piece letter (K Q R B N P, k … p, A a M m I i U . ?), a \
                bracketed union such as [RQ], or $tag, optionally followed by squares such as e4, a-h1-2, [a1,h8]";
    if text.trim().is_empty() {
        return Err(problem("empty piece designator".into(), hint));
    }
    if text.starts_with('[') && text[1..].trim_start().starts_with(']') {
        // `[ ]`: the empty square set of CQL-S.
        let close = text.find(']').map_or(text.len(), |i| i + 1);
        if close == text.len() {
            return Ok(Designator { kinds: PieceKinds::Mask(PieceMask::ANYTHING), squares: 0 });
        }
    }
    let (kinds, rest) = if let Some(name_and_squares) = text.strip_prefix('$') {
        let name_len =
            name_and_squares.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(name_and_squares.len());
        if name_len == 0 {
            return Err(problem(format!("`{text}` has no tag name after `$`"), "write the tag name, e.g. `$rook`"));
        }
        (PieceKinds::Tag(name_and_squares[..name_len].to_string()), &name_and_squares[name_len..])
    } else if let Some(inner) = text.strip_prefix('[') {
        let close = inner.find(']').ok_or_else(|| problem(format!("`{text}` has an unclosed `[`"), hint))?;
        let mut mask = PieceMask(0);
        for c in inner[..close].chars() {
            match letter_mask(c) {
                Some(m) => mask = mask.with(m),
                None => {
                    return Err(problem(format!("`{c}` in `{text}` is not a piece type"), hint));
                }
            }
        }
        if mask.0 == 0 {
            return Err(problem(format!("`{text}` names no piece type"), hint));
        }
        (PieceKinds::Mask(mask), &inner[close + 1..])
    } else {
        let mut chars = text.chars();
        let first = chars.next().unwrap_or(' ');
        match letter_mask(first) {
            Some(m) => (PieceKinds::Mask(m), chars.as_str()),
            None => return Err(problem(format!("`{text}` is not a piece designator"), hint)),
        }
    };
    let squares = if rest.is_empty() { ALL_SQUARES } else { parse_squares(rest, text)? };
    Ok(Designator { kinds, squares })
}

/// Read the square part of a designator: `e4`, `a-h1-2`, `?8`, `a?`, `[a1,h1,a8,h8]`.
pub fn parse_squares(text: &str, whole: &str) -> Result<u64, Problem> {
    let hint = "squares are a file part (a, a-c, ?) then a rank part (4, 2-7, ?), or a bracketed \
                comma list such as [a1,h1,c3-7]";
    let list_form = text.starts_with('[') && text.find(']') == Some(text.len() - 1);
    if let (true, Some(inner)) = (list_form, text.strip_prefix('[')) {
        let inner = inner
            .strip_suffix(']')
            .ok_or_else(|| problem(format!("the squares of `{whole}` do not end with `]`"), hint))?;
        if inner.trim().is_empty() {
            return Ok(0);
        }
        let mut set = 0u64;
        for part in inner.split(',') {
            set |= parse_square_block(part.trim(), whole, hint)?;
        }
        Ok(set)
    } else {
        parse_square_block(text, whole, hint)
    }
}

/// `a-h1-2`, `e4`, `?8`, `a?`, `??` → a square set.
fn parse_square_block(text: &str, whole: &str, hint: &str) -> Result<u64, Problem> {
    let bad = || problem(format!("cannot read the squares `{text}` of `{whole}`"), hint);
    let b = text.as_bytes();
    let (files, used) = parse_span(b, b'a', b'h').ok_or_else(bad)?;
    let (ranks, used2) = parse_span(&b[used..], b'1', b'8').ok_or_else(bad)?;
    if used + used2 != b.len() {
        return Err(bad());
    }
    let mut set = 0u64;
    for rank in 0..8u32 {
        for file in 0..8u32 {
            if ranks & (1 << rank) != 0 && files & (1 << file) != 0 {
                set |= 1u64 << (rank * 8 + file);
            }
        }
    }
    Ok(set)
}

/// One coordinate part: `x`, `x-y`, `?`, or a bracketed set such as `[27]` or `[ac]`
/// (CQL-S), as a bit mask of 0-based coordinates, and the number of bytes used.
fn parse_span(b: &[u8], low: u8, high: u8) -> Option<(u8, usize)> {
    let in_range = |c: u8| c >= low && c <= high;
    let interval = |x: u8, y: u8| (x - low..=y - low).fold(0u8, |m, i| m | (1 << i));
    match b {
        [b'?', ..] => Some((0xff, 1)),
        [b'[', rest @ ..] => {
            let end = rest.iter().position(|&c| c == b']')?;
            let inner = &rest[..end];
            let mut mask = 0u8;
            let mut i = 0;
            while i < inner.len() {
                let (m, used) = parse_span(&inner[i..], low, high)?;
                if inner[i] == b'?' || inner[i] == b'[' {
                    return None;
                }
                mask |= m;
                i += used;
            }
            (mask != 0).then_some((mask, end + 2))
        }
        [x, b'-', y, ..] if in_range(*x) && in_range(*y) && x <= y => Some((interval(*x, *y), 3)),
        [x, ..] if in_range(*x) => Some((interval(*x, *x), 1)),
        _ => None,
    }
}

/// A numeric range of the legacy language: `n`, `n m`, `n unlimited`, or a CQL-S
/// comparison `>n`, `>=n`, `<n`, `<=n`, or `*` (any value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    /// `lo ≤ x ≤ hi` (hi = `i64::MAX` for `unlimited`).
    Between(i64, i64),
    /// `x op n`.
    Compare(CmpOp, i64),
    /// `*`: any value.
    Any,
}

impl Range {
    /// The inclusive interval this range accepts.
    pub fn interval(self) -> (i64, i64) {
        match self {
            Range::Between(lo, hi) => (lo, hi),
            Range::Any => (i64::MIN, i64::MAX),
            Range::Compare(op, n) => match op {
                CmpOp::Lt => (i64::MIN, n.saturating_sub(1)),
                CmpOp::Le => (i64::MIN, n),
                CmpOp::Eq => (n, n),
                CmpOp::Gt => (n.saturating_add(1), i64::MAX),
                CmpOp::Ge => (n, i64::MAX),
                CmpOp::Ne => (i64::MIN, i64::MAX),
            },
        }
    }
}

/// Is this atom the start of a range (a number, a comparison, `*`)?
pub fn starts_range(text: &str) -> bool {
    text == "*" || parse_number(text).is_some() || comparison(text).is_some()
}

/// An integer, optionally signed.
pub fn parse_number(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A CQL-S comparison `>n`, `>=n`, `<n`, `<=n`.
fn comparison(text: &str) -> Option<(CmpOp, i64)> {
    for (prefix, op) in [(">=", CmpOp::Ge), ("<=", CmpOp::Le), (">", CmpOp::Gt), ("<", CmpOp::Lt)] {
        if let Some(n) = text.strip_prefix(prefix) {
            return parse_number(n).map(|n| (op, n));
        }
    }
    None
}

/// Read a range from one or two atoms. `second` is the following atom, if any; the
/// returned flag says whether it was used.
pub fn parse_range(first: &str, second: Option<&str>) -> Result<(Range, bool), Problem> {
    let hint = "a range is `n`, `n m`, `n unlimited`, `>n`, `>=n`, `<n`, `<=n` or `*`";
    if first == "*" {
        return Ok((Range::Any, false));
    }
    if let Some((op, n)) = comparison(first) {
        return Ok((Range::Compare(op, n), false));
    }
    if first.ends_with('%') {
        return Err(problem(format!("percentage ranges such as `{first}` are not supported"), hint));
    }
    let lo = parse_number(first).ok_or_else(|| problem(format!("expected a range, found `{first}`"), hint))?;
    match second {
        Some("unlimited") => Ok((Range::Between(lo, i64::MAX), true)),
        Some(s) => match parse_number(s) {
            Some(hi) if hi < lo => {
                Err(problem(format!("the range `{first} {s}` is empty"), "write the smaller bound first"))
            }
            Some(hi) => Ok((Range::Between(lo, hi), true)),
            None => Ok((Range::Between(lo, lo), false)),
        },
        None => Ok((Range::Between(lo, lo), false)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> u64 {
        let b = name.as_bytes();
        1u64 << ((b[1] - b'1') as u32 * 8 + (b[0] - b'a') as u32)
    }

    #[test]
    fn single_letters_and_unions() {
        let d = parse_designator("K").unwrap();
        assert_eq!(d.kinds, PieceKinds::Mask(PieceMask::piece(Color::White, Role::King)));
        assert_eq!(d.squares, u64::MAX);
        let d = parse_designator("[RQ]").unwrap();
        let rq = PieceMask::piece(Color::White, Role::Rook).with(PieceMask::piece(Color::White, Role::Queen));
        assert_eq!(d.kinds, PieceKinds::Mask(rq));
        assert_eq!(parse_designator("M").unwrap().kinds, PieceKinds::Mask(rq));
        assert_eq!(parse_designator("m").unwrap().kinds, PieceKinds::Mask(rq.swap_colors()));
        assert_eq!(parse_designator("[A.]").unwrap().kinds, PieceKinds::Mask(PieceMask::WHITE.with(PieceMask::EMPTY)));
    }

    #[test]
    fn square_parts() {
        assert_eq!(parse_designator(".d4").unwrap().squares, sq("d4"));
        assert_eq!(parse_designator("Ra1-8").unwrap().squares, 0x0101_0101_0101_0101);
        assert_eq!(parse_designator("[RQ][a1-8]").unwrap().squares, 0x0101_0101_0101_0101);
        assert_eq!(parse_designator("P?2").unwrap().squares, 0xff00);
        assert_eq!(parse_designator("??8").unwrap().squares, 0xff << 56);
        assert_eq!(parse_designator("Pa?").unwrap().squares, 0x0101_0101_0101_0101);
        assert_eq!(parse_designator("Ua-h1-2").unwrap().squares, 0xffff);
        assert_eq!(parse_designator("U[a1,h1,a8,h8]").unwrap().squares, sq("a1") | sq("h1") | sq("a8") | sq("h8"));
        let c = parse_designator("p[c3-7,e3-7]").unwrap().squares;
        assert_eq!(c.count_ones(), 10);
        assert!(c & sq("c3") != 0 && c & sq("e7") != 0 && c & sq("d5") == 0);
        assert_eq!(parse_designator("[ ]").unwrap().squares, 0);
        // CQL-S bracketed coordinate sets: ranks 2 and 7, files a and c.
        assert_eq!(parse_designator("[Pp]?[27]").unwrap().squares, 0xff00 | (0xff << 48));
        assert_eq!(parse_designator("N[ac]3").unwrap().squares, sq("a3") | sq("c3"));
        assert_eq!(parse_designator("N[ac]3-4").unwrap().squares, sq("a3") | sq("c3") | sq("a4") | sq("c4"));
    }

    #[test]
    fn tags() {
        let d = parse_designator("$rook[a1]").unwrap();
        assert_eq!(d.kinds, PieceKinds::Tag("rook".into()));
        assert_eq!(d.squares, sq("a1"));
        assert_eq!(parse_designator("$n1").unwrap().squares, u64::MAX);
        assert!(parse_designator("$").is_err());
    }

    #[test]
    fn malformed_designators_are_errors() {
        for bad in ["X", "Ri9", "R[a1", "[XY]", "Rz1", "Ra1x", "[]R", "R[a1,]", ""] {
            assert!(parse_designator(bad).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range("2", Some(":flip")).unwrap(), (Range::Between(2, 2), false));
        assert_eq!(parse_range("2", Some("5")).unwrap(), (Range::Between(2, 5), true));
        assert_eq!(parse_range("-100", Some("-9")).unwrap(), (Range::Between(-100, -9), true));
        assert_eq!(parse_range("1", Some("unlimited")).unwrap(), (Range::Between(1, i64::MAX), true));
        assert_eq!(parse_range(">=3", None).unwrap(), (Range::Compare(CmpOp::Ge, 3), false));
        assert_eq!(parse_range("<=-2", None).unwrap(), (Range::Compare(CmpOp::Le, -2), false));
        assert_eq!(Range::Compare(CmpOp::Gt, 0).interval(), (1, i64::MAX));
        assert!(parse_range("5", Some("2")).is_err());
        assert!(parse_range("abc", None).is_err());
        assert!(parse_range("50%", None).is_err());
        assert!(starts_range("-3") && starts_range(">0") && !starts_range(":mate"));
    }
}
