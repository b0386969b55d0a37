//! Piece identities: the number each piece of the start position gets, carried by moves.
//!
//! Takes in: a start position, or identities and a move. Gives out: [`PieceIds`].
//! Must never: give a square without a piece an identity.

use shakmaty::{CastlingSide, Move, Position, Square};

use crate::pgn::PieceIds;

/// Number the pieces of a start position 1..=n in square order a1, b1, …, h8.
pub fn initial_ids<P: Position>(pos: &P) -> PieceIds {
    let mut ids = PieceIds::default();
    for (n, sq) in pos.board().occupied().into_iter().enumerate() {
        ids.0[sq as usize] = (n + 1).min(255) as u8;
    }
    ids
}

/// Piece identities after `mv` is played by `mover` from a position with `before`.
pub fn moved_ids(before: &PieceIds, mv: &Move, mover: shakmaty::Color) -> PieceIds {
    let mut ids = *before;
    move_ids(&mut ids, mv, mover);
    ids
}

/// Carry the piece identities `ids` over move `mv`, played by `mover`.
pub(super) fn move_ids(ids: &mut PieceIds, mv: &Move, mover: shakmaty::Color) {
    match *mv {
        Move::Normal { from, to, .. } => {
            ids.0[to as usize] = ids.0[from as usize];
            ids.0[from as usize] = 0;
        }
        Move::EnPassant { from, to } => {
            let victim = Square::from_coords(to.file(), from.rank());
            ids.0[victim as usize] = 0;
            ids.0[to as usize] = ids.0[from as usize];
            ids.0[from as usize] = 0;
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook.file() < king.file());
            let king_id = ids.0[king as usize];
            let rook_id = ids.0[rook as usize];
            ids.0[king as usize] = 0;
            ids.0[rook as usize] = 0;
            ids.0[side.king_to(mover) as usize] = king_id;
            ids.0[side.rook_to(mover) as usize] = rook_id;
        }
        Move::Put { to, .. } => {
            ids.0[to as usize] = 0;
        }
    }
}
