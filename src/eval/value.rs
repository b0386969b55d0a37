//! The values filters yield when they match.
//!
//! Takes in: nothing. Gives out: [`Value`] and its conversions.
//! Must never: allocate for sets, numbers, positions or pieces.

use shakmaty::{Bitboard, Square};

use crate::pgn::{NodeId, PieceId};

/// The value of a matching filter at one position.
#[derive(Clone, Debug, PartialEq, Eq)]
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

impl Value {
    /// A one-square set.
    pub fn square(sq: Square) -> Value {
        Value::Set(Bitboard::from(sq))
    }
}

/// Squares of a set written the CQL way: `c7`, or `a1,c7` for several, `none` when empty.
pub fn squares_text(set: Bitboard) -> String {
    if set.is_empty() {
        return "none".to_string();
    }
    let mut out = String::new();
    for (i, sq) in set.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        sq.append_to_string(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_lists() {
        assert_eq!(squares_text(Bitboard::from(Square::C7)), "c7");
        assert_eq!(squares_text(Bitboard::from(Square::A1) | Bitboard::from(Square::C7)), "a1,c7");
        assert_eq!(squares_text(Bitboard::EMPTY), "none");
    }
}
