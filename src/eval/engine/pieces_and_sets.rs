//! Pieces, squares and sets: piece designators, set algebra, counting, pawn structure.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/pieces-and-sets.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;

impl<'a> Ctx<'a> {
    /// A set of squares: pieces, literal squares, union, intersection, complement, `in`, `#`, pawn structure.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_pieces_and_sets(&mut self, filter: &'a SetFilter, at: Loc) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            SetFilter::Squares(b) => Some(Value::Set(*b)),
            SetFilter::Pieces { mask, squares } => {
                let Some(pos) = self.pos(at) else { return Ok(None) };
                Some(Value::Set(board::pieces(pos.board(), *mask, *squares)))
            }
            SetFilter::Union(items) => {
                let mut acc = Bitboard::EMPTY;
                for &i in items {
                    acc |= self.set_value(i, at)?.unwrap_or(Bitboard::EMPTY);
                }
                Some(Value::Set(acc))
            }
            SetFilter::Intersection(items) => {
                // Sets intersect as sets; positions (`source ∩ target` in `echo`) give the
                // squares whose content is the same in every position.
                let mut acc = Bitboard::FULL;
                let mut first_board: Option<NodeId> = None;
                for &i in items {
                    match self.value(i, at)? {
                        Some(Value::Position(n)) => match first_board {
                            None => first_board = Some(n),
                            Some(m) => acc &= same_content(&self.game.node(m).pos, &self.game.node(n).pos),
                        },
                        Some(v) => match self.as_set(&v, at) {
                            Some(b) => acc &= b,
                            None => return Ok(None),
                        },
                        None => return Ok(None),
                    }
                }
                Some(Value::Set(acc))
            }
            // A set filter that does not match is the empty set (as in a union), so its
            // complement is the whole board: `~(move to . previous)` at the start of a game.
            SetFilter::Complement(a) => Some(Value::Set(!self.set_value(*a, at)?.unwrap_or(Bitboard::EMPTY))),
            SetFilter::In(a, b) => {
                let (Some(x), Some(y)) = (self.set_value(*a, at)?, self.set_value(*b, at)?) else {
                    return Ok(None);
                };
                found(x.is_subset(y))
            }
            SetFilter::Count(a) => match self.value(*a, at)? {
                Some(Value::Str(s)) => Some(Value::Number(s.chars().count() as i64)),
                Some(v) => self.as_number(&v, at).map(Value::Number),
                None => Some(Value::Number(0)),
            },
            SetFilter::PawnStructure(kind) => {
                let Some(pos) = self.pos(at) else { return Ok(None) };
                Some(Value::Set(board::pawn_structure(pos.board(), *kind)))
            }
        })
    }
}
