//! The state of one position: check, mate, side to move, move counters, problemists' mates.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/position-state.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;
use crate::ir::PositionStateFilter;

/// Is the side to move, which is in check, checkmated? A step of the king to a square
/// that no enemy piece attacks (with the king gone from its own square) is a legal move,
/// and settles most checks without generating every legal move.
fn checkmated(pos: &Pos) -> bool {
    if let Pos::Legal(chess) = pos {
        let board = chess.board();
        let us = chess.turn();
        if let Some(king) = board.king_of(us) {
            let without_king = board.occupied() ^ Bitboard::from(king);
            let steps = shakmaty::attacks::king_attacks(king) & !board.by_color(us);
            if steps.into_iter().any(|to| board.attacks_to(to, !us, without_king).is_empty()) {
                return false;
            }
        }
    }
    pos.is_checkmate()
}

impl<'a> Ctx<'a> {
    /// A fact about the position: check, mate, stalemate, side to move, `initial`/`terminal`, ply, move number, main line or variation, the problemists' mates.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_position_state(&mut self, f: FilterId, filter: &'a PositionStateFilter, at: Loc) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            PositionStateFilter::Check
            | PositionStateFilter::Mate
            | PositionStateFilter::Stalemate
            | PositionStateFilter::ToMove(_) => found(self.position_fact(self.ir.get(f), at)),
            PositionStateFilter::SideToMove => {
                self.pos(at).map(|p| Value::Number(if p.turn().is_white() { 1 } else { -1 }))
            }
            PositionStateFilter::Initial => found(self.position_fact(self.ir.get(f), at)),
            PositionStateFilter::Terminal => match at {
                Loc::Node(n) => found(self.children(n).is_empty()),
                Loc::Temp(_) => Some(Value::None),
                Loc::Header => None,
            },
            PositionStateFilter::Ply => self.ply(at).map(|p| Value::Number(p as i64)),
            PositionStateFilter::MoveNumber => self.move_number(at).map(Value::Number),
            PositionStateFilter::Mainline | PositionStateFilter::Variation => {
                let Some(n) = self.node_of(at) else { return Ok(None) };
                let main = self.game.node(n).is_mainline();
                found(main == matches!(filter, PositionStateFilter::Mainline))
            }
            PositionStateFilter::VirtualMainline => {
                let Some(n) = self.node_of(at) else { return Ok(None) };
                found(self.on_virtual_mainline(n))
            }
        })
    }

    /// The yes-or-no facts among them (`check`, `mate`, `stalemate`, `wtm`/`btm`,
    /// `initial`), for [`Ctx::test`] as well; `false` for any other filter.
    #[inline]
    pub(super) fn position_fact(&self, filter: &Filter, at: Loc) -> bool {
        match filter {
            Filter::PositionState(PositionStateFilter::Check) => self.in_check(at) == Some(true),
            Filter::PositionState(PositionStateFilter::Mate) => {
                self.in_check(at) == Some(true) && self.pos(at).is_some_and(checkmated)
            }
            Filter::PositionState(PositionStateFilter::Stalemate) => {
                self.in_check(at) == Some(false) && self.pos(at).is_some_and(|p| p.is_stalemate())
            }
            Filter::PositionState(PositionStateFilter::ToMove(c)) => self.pos(at).is_some_and(|p| p.turn() == *c),
            Filter::PositionState(PositionStateFilter::Initial) => at == Loc::Node(NodeId::ROOT),
            _ => false,
        }
    }
}
