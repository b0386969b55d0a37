//! The values filters yield when they match.
//!
//! Takes in: nothing. Gives out: [`Value`] and its conversions.
//! Must never: allocate for sets, numbers, positions or pieces.

use shakmaty::{Bitboard, Square};

use crate::pgn::{NodeId, PieceId};

/// The value of a matching filter at one position.
#[derive(Debug, PartialEq, Eq)]
pub enum Value {
    /// Matched, with nothing to say (`check`, `and`, universal iteration).
    None,
    /// A set of squares.
    Set(Bitboard),
    /// An integer.
    Number(i64),
    /// A node of the game tree.
    Position(NodeId),
    /// A piece identity (its square depends on the position it is looked at).
    Piece(PieceId),
    /// A string.
    Str(String),
}

impl Clone for Value {
    /// A copy of the value. Only a string allocates; the other values are copied in place,
    /// so the copy is inlined where loops read and assign variables.
    #[inline]
    fn clone(&self) -> Self {
        match self {
            Value::None => Value::None,
            Value::Set(b) => Value::Set(*b),
            Value::Number(n) => Value::Number(*n),
            Value::Position(n) => Value::Position(*n),
            Value::Piece(id) => Value::Piece(*id),
            Value::Str(s) => Value::Str(copy_string(s)),
        }
    }
}

/// The copy of a string value, kept out of line: strings are the rare, costly case.
#[cold]
#[inline(never)]
fn copy_string(s: &str) -> String {
    s.to_owned()
}

impl Value {
    /// A set of squares or a piece (a piece stands for the set of its square).
    pub fn is_set_like(&self) -> bool {
        matches!(self, Value::Set(_) | Value::Piece(_))
    }

    /// A one-square set.
    pub fn square(sq: Square) -> Value {
        Value::Set(Bitboard::from(sq))
    }
}

/// Squares of a set written as CQL 6.2 writes them in comments and strings: one square
/// bare (`c7`), any other number in brackets (`[a1,c7]`, `[]` when empty), in the order
/// a1, b1, … h8 (`SquareMask::listString` in the reference's print.cpp).
pub fn squares_text(set: Bitboard) -> String {
    let bracketed = set.count() != 1;
    let mut out = String::new();
    if bracketed {
        out.push('[');
    }
    for (i, sq) in set.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        sq.append_to_string(&mut out);
    }
    if bracketed {
        out.push(']');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_lists() {
        assert_eq!(squares_text(Bitboard::from(Square::C7)), "c7");
        assert_eq!(squares_text(Bitboard::from(Square::A1) | Bitboard::from(Square::C7)), "[a1,c7]");
        assert_eq!(squares_text(Bitboard::EMPTY), "[]");
    }
}
