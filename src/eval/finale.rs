//! Problemist qualities of a final position: pure, model and ideal mates and stalemates.
//!
//! Takes in: one position (a shakmaty [`Chess`]).
//! Gives out: a [`Finale`] when the position is checkmate or stalemate, `None` otherwise.
//! Must never: look at the game around the position, or panic on any legal position.
//!
//! This is the YACPDB `Models` predicate. (CQL 6's `puremate`, `idealmate`, … follow CQL
//! 6.2's own, different definitions and are written in CQL itself: see
//! `lang/cql6/mates.rs`.) The rules follow `yacpdb-definitions.md` §11:
//!
//! * the *mated side* M is the side to move, the *attacker* A the other side;
//! * the *field* F is M's king square and its neighbours;
//! * guards are counted with M's king lifted off the board, so lines through the king count,
//!   pawns guard their capture diagonals and pinned A units still guard.

use shakmaty::{attacks, Bitboard, CastlingMode, Chess, EnPassantMode, FromSetup, Position, Role, Square};

/// What kind of finale a checkmate or stalemate position is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Finale {
    /// The side to move is checkmated (false: stalemated).
    pub mate: bool,
    /// Pure: every flight square of the king is denied exactly once, and each blocking
    /// unit of the mated side is either unguarded or pinned (with the pin mattering).
    pub pure: bool,
    /// Model: pure, and every attacking officer (not king, not pawn) takes part.
    pub model: bool,
    /// Ideal: model with no pins, all attacking units take part, and every unit of the
    /// mated side stands in the king's field.
    pub ideal: bool,
    /// Number of mated-side units in the field that are pinned and for which the pin matters.
    pub pins: u32,
}

/// Classify a final position. `None` unless the side to move is checkmated or stalemated.
pub fn classify(pos: &Chess) -> Option<Finale> {
    let mate = pos.is_checkmate();
    if !mate && !pos.is_stalemate() {
        return None;
    }
    let board = pos.board();
    let mated = pos.turn();
    let attacker = !mated;
    let king_square = board.king_of(mated)?;
    let field = attacks::king_attacks(king_square) | Bitboard::from_square(king_square);
    // The mated king is lifted off the board for every guard computation.
    let occupied = board.occupied() & !Bitboard::from_square(king_square);
    let guards = |sq: Square| board.attacks_to(sq, attacker, occupied);

    let mut pure = guards(king_square).count() <= 1;
    let mut pins = 0u32;
    for sq in field & !Bitboard::from_square(king_square) {
        if !pure {
            break;
        }
        let guard_set = guards(sq);
        match board.piece_at(sq) {
            Some(piece) if piece.color == mated => {
                if guard_set.is_empty() {
                    continue;
                }
                if guard_set.count() == 1 && is_pin_that_matters(pos, guard_set, sq, king_square) {
                    pins += 1;
                } else {
                    pure = false;
                }
            }
            _ => {
                if guard_set.count() != 1 {
                    pure = false;
                }
            }
        }
    }

    let guards_field = |sq: Square| -> bool {
        board.piece_at(sq).is_some_and(|piece| !(attacks::attacks(sq, piece, occupied) & field).is_empty())
    };
    let attackers = board.by_color(attacker);
    let officers = attackers & !board.pawns() & !board.kings();
    let model = pure && officers.into_iter().all(guards_field);
    let ideal =
        model && pins == 0 && attackers.into_iter().all(guards_field) && (board.by_color(mated) & !field).is_empty();
    Some(Finale { mate, pure, model, ideal, pins })
}

/// Is the unit on `pinned_sq` pinned by the single guard in `guard_set` against its king,
/// and would it have a legal move if that guard were not there?
fn is_pin_that_matters(pos: &Chess, guard_set: Bitboard, pinned_sq: Square, king_square: Square) -> bool {
    let Some(guard_sq) = guard_set.first() else { return false };
    let board = pos.board();
    let is_line_piece = matches!(board.role_at(guard_sq), Some(Role::Bishop | Role::Rook | Role::Queen));
    if !is_line_piece || !attacks::between(guard_sq, king_square).contains(pinned_sq) {
        return false;
    }
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.board.discard_piece_at(guard_sq);
    setup.castling_rights = Bitboard::EMPTY;
    setup.ep_square = None;
    let freed = Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(|e| e.ignore_too_much_material())
        .or_else(|e| e.ignore_impossible_check());
    match freed {
        Ok(freed) => freed.legal_moves().iter().any(|m| m.from() == Some(pinned_sq)),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn position(fen: &str) -> Chess {
        let fen: Fen = fen.parse().expect("test FEN");
        fen.into_position(CastlingMode::Standard).expect("test position")
    }

    #[test]
    fn not_a_finale() {
        assert_eq!(classify(&Chess::default()), None);
    }

    #[test]
    fn corner_mate_by_rook_and_king_is_ideal() {
        // Black king a8, white king b6 covers a7 b7; rook h8 checks along the rank.
        let f = classify(&position("k6R/8/1K6/8/8/8/8/8 b - - 0 1")).expect("mate");
        assert!(f.mate && f.pure && f.model && f.ideal, "{f:?}");
        assert_eq!(f.pins, 0);
    }

    #[test]
    fn double_guarded_flight_is_not_pure() {
        // Ra1 checks and guards a7; Kc7 alone guards b7 and b8: pure (and ideal).
        let f = classify(&position("k7/2K5/8/8/8/8/8/R7 b - - 0 1")).expect("mate");
        assert!(f.mate && f.pure && f.ideal, "{f:?}");
        // A second rook on b1 guards b7 and b8 again.
        let f2 = classify(&position("k7/2K5/8/8/8/8/8/RR6 b - - 0 1")).expect("mate");
        assert!(!f2.pure, "b7/b8 guarded by king and rook: {f2:?}");
    }

    #[test]
    fn stalemate_is_recognised() {
        // Qb6 alone guards a7, b7 and b8 once each; the idle king h1 spoils "ideal".
        let f = classify(&position("k7/8/1Q6/8/8/8/8/7K b - - 0 1")).expect("stalemate");
        assert!(!f.mate && f.pure && f.model && !f.ideal, "{f:?}");
        // With Kb6 as well, a7 and b7 are guarded twice.
        let f = classify(&position("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1")).expect("stalemate");
        assert!(!f.mate && !f.pure, "{f:?}");
    }

    #[test]
    fn unused_officer_spoils_model() {
        // Mate of the first test plus an idle white knight on h1.
        let f = classify(&position("k6R/8/1K6/8/8/8/8/7N b - - 0 1")).expect("mate");
        assert!(f.pure && !f.model, "{f:?}");
    }
}
