//! Move facts for the evaluator: what a move's from/to/capture squares are in CQL terms,
//! pseudo-legal move generation, and how piece identities follow a move.
//!
//! Takes in: shakmaty positions and moves. Gives out: [`MoveFacts`], move lists,
//! [`PieceIds`]. Must never: panic on any position or move, or look at the game tree.

use shakmaty::{Bitboard, Color, Move, MoveList, Position, Role, Square};

use crate::ir::{MoveFilter, MoveKind};

/// The squares of one move as CQL sees them. `None` for a null move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveFacts {
    /// Square the moving piece leaves (the king's square for castling).
    pub from: Square,
    /// Square the moving piece arrives on (the king's destination for castling).
    pub to: Square,
    /// Square of the captured piece (the taken pawn's square for en passant).
    pub capture: Option<Square>,
    /// Role promoted to.
    pub promotion: Option<Role>,
    /// Castling side: `Some(true)` king-side, `Some(false)` queen-side.
    pub castle_kingside: Option<bool>,
    /// En passant capture.
    pub en_passant: bool,
    /// For castling, the rook's from and to squares: CQL 6.2 treats castling as a move of
    /// the rook as well as of the king.
    pub rook: Option<(Square, Square)>,
}

impl MoveFacts {
    /// The same castling move seen as a move of its rook (from/to are the rook's squares);
    /// `None` for any other move.
    pub fn as_rook_move(&self) -> Option<MoveFacts> {
        let (from, to) = self.rook?;
        Some(MoveFacts { from, to, ..*self })
    }
}

/// The CQL view of a move made by `mover`.
pub fn facts(m: &Move, mover: Color) -> Option<MoveFacts> {
    match *m {
        Move::Normal { from, capture, to, promotion, .. } => Some(MoveFacts {
            from,
            to,
            capture: capture.map(|_| to),
            promotion,
            castle_kingside: None,
            en_passant: false,
            rook: None,
        }),
        Move::EnPassant { from, to } => Some(MoveFacts {
            from,
            to,
            capture: Some(Square::from_coords(to.file(), from.rank())),
            promotion: None,
            castle_kingside: None,
            en_passant: true,
            rook: None,
        }),
        Move::Castle { king, rook } => {
            let side = m.castling_side()?;
            Some(MoveFacts {
                from: king,
                to: side.king_to(mover),
                capture: None,
                promotion: None,
                castle_kingside: Some(king < rook),
                en_passant: false,
                rook: Some((rook, side.rook_to(mover))),
            })
        }
        Move::Put { .. } => None,
    }
}

/// Does a move (given by its facts, `None` = null move) satisfy the shape of a move filter
/// given the already evaluated from/to/capture sets?
pub fn shape_matches(
    filter: &MoveFilter,
    facts: Option<&MoveFacts>,
    from: Option<Bitboard>,
    to: Option<Bitboard>,
    capture: Option<Bitboard>,
) -> bool {
    let f = match facts {
        None => {
            // A null move only satisfies filters that ask for nothing but a move.
            return filter.kind == MoveKind::Null
                || (filter.kind == MoveKind::Any
                    && from.is_none()
                    && to.is_none()
                    && capture.is_none()
                    && filter.promote == 0);
        }
        Some(f) => f,
    };
    let kind_ok = match filter.kind {
        MoveKind::Any => true,
        MoveKind::CastleKingside => f.castle_kingside == Some(true),
        MoveKind::CastleQueenside => f.castle_kingside == Some(false),
        MoveKind::Castle => f.castle_kingside.is_some(),
        MoveKind::EnPassant => f.en_passant,
        MoveKind::Null => false,
    };
    if !kind_ok {
        return false;
    }
    if let Some(set) = from {
        if !set.contains(f.from) {
            return false;
        }
    }
    if let Some(set) = to {
        if !set.contains(f.to) {
            return false;
        }
    }
    if let Some(set) = capture {
        match f.capture {
            Some(sq) if set.contains(sq) => {}
            _ => return false,
        }
    }
    if filter.promote != 0 {
        match f.promotion {
            Some(role) if filter.promote & (1u8 << (role as u8)) != 0 => {}
            _ => return false,
        }
    }
    true
}

/// The view of a move under which it satisfies a move filter's shape: the move itself, or
/// for castling that fails as a king move, the rook's move (`♖――f1` matches `O-O`).
/// `rook_first` tries the rook's view first (the position was reached by a path or a move
/// filter that followed the rook). Only a filter that sees castling as a rook move too
/// ([`MoveFilter::rook_of_castling`]) gets the rook's view. `None` when no view matches.
pub fn matching_view(
    filter: &MoveFilter,
    facts: &MoveFacts,
    rook_first: bool,
    from: Option<Bitboard>,
    to: Option<Bitboard>,
    capture: Option<Bitboard>,
) -> Option<(MoveFacts, bool)> {
    let rook = if filter.rook_of_castling { facts.as_rook_move() } else { None };
    let views: [Option<(MoveFacts, bool)>; 2] = if rook_first {
        [rook.map(|r| (r, true)), Some((*facts, false))]
    } else {
        [Some((*facts, false)), rook.map(|r| (r, true))]
    };
    views.into_iter().flatten().find(|(v, _)| shape_matches(filter, Some(v), from, to, capture))
}

/// For a castling that fits a filter seeing it as a rook move too, the view other than the
/// one found first (`via_rook`: the rook's was found) when it fits the filter as well: CQL
/// 6.2's `from` and `to` after `O-O` are {e1, h1} and {g1, f1} (`QMove::smartFrom`,
/// `smartTo`: the king's squares and the rook's, each when it fits). `None` otherwise.
pub fn other_view(
    filter: &MoveFilter,
    facts: &MoveFacts,
    via_rook: bool,
    from: Option<Bitboard>,
    to: Option<Bitboard>,
    capture: Option<Bitboard>,
) -> Option<MoveFacts> {
    if !filter.rook_of_castling {
        return None;
    }
    let other = if via_rook { *facts } else { facts.as_rook_move()? };
    shape_matches(filter, Some(&other), from, to, capture).then_some(other)
}

/// Every pseudo-legal move of the side to move: legal moves plus moves that leave (or
/// put) the own king in check. Castling is taken from the legal moves only. Works on
/// board-only positions too (which have no castling).
pub fn pseudo_legal_moves<P: Position>(pos: &P) -> MoveList {
    let mut out = crate::pgn::pseudo_legal_moves(pos);
    for m in pos.legal_moves() {
        if m.is_castle() {
            out.push(m);
        }
    }
    out
}

/// Piece identities are tracked by the game model; the evaluator uses the same code for
/// positions it generates itself (after a legal move that was not played).

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess};

    fn pos(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn pseudo_legal_includes_moves_into_check() {
        // the e2 knight is pinned: moving it is pseudo-legal only
        let p = pos("4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1");
        let legal = p.legal_moves().len();
        let pseudo = pseudo_legal_moves(&p).len();
        assert!(pseudo > legal, "{pseudo} vs {legal}");
        assert!(pseudo_legal_moves(&p).iter().any(|m| m.from() == Some(Square::E2)));
        assert!(!p.legal_moves().iter().any(|m| m.from() == Some(Square::E2)));
    }

    #[test]
    fn pseudo_legal_equals_legal_in_start_position() {
        let p = Chess::default();
        assert_eq!(pseudo_legal_moves(&p).len(), 20);
    }

    #[test]
    fn castling_facts_use_king_destination() {
        let p = pos("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        let m = p.legal_moves().into_iter().find(|m| m.is_castle()).unwrap();
        let f = facts(&m, Color::White).unwrap();
        assert_eq!(f.to, Square::G1);
        assert_eq!(f.castle_kingside, Some(true));
        let ids = crate::pgn::moved_ids(&crate::pgn::initial_ids(&p), &m, Color::White);
        assert_ne!(ids.at(Square::G1), 0);
        assert_ne!(ids.at(Square::F1), 0);
        assert_eq!(ids.at(Square::H1), 0);
    }

    #[test]
    fn castling_is_a_rook_move_too() {
        use crate::ir::MoveSource;
        let p = pos("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        let m = p.legal_moves().into_iter().find(|m| m.is_castle()).unwrap();
        let f = facts(&m, Color::White).unwrap();
        assert_eq!(f.rook, Some((Square::H1, Square::F1)));
        let shape = MoveFilter::any(MoveSource::Next);
        // A rook on h1 going to f1: only the rook's view of O-O fits.
        let (v, rook) =
            matching_view(&shape, &f, false, Some(Bitboard::from(Square::H1)), Some(Bitboard::from(Square::F1)), None)
                .unwrap();
        assert!(rook);
        assert_eq!((v.from, v.to), (Square::H1, Square::F1));
        // The king's route is seen first unless the rook is followed.
        let (v, rook) = matching_view(&shape, &f, false, None, None, None).unwrap();
        assert!(!rook);
        assert_eq!((v.from, v.to), (Square::E1, Square::G1));
        let (v, rook) = matching_view(&shape, &f, true, None, None, None).unwrap();
        assert!(rook);
        assert_eq!(v.to, Square::F1);
        // King from and rook destination mixed: neither piece makes that move.
        assert!(matching_view(
            &shape,
            &f,
            false,
            Some(Bitboard::from(Square::E1)),
            Some(Bitboard::from(Square::F1)),
            None
        )
        .is_none());
        // Other moves have no rook view.
        let n = p.legal_moves().into_iter().find(|m| m.from() == Some(Square::H1)).unwrap();
        assert!(facts(&n, Color::White).unwrap().as_rook_move().is_none());
    }

    #[test]
    fn en_passant_capture_square_is_the_pawn() {
        let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        let m = p.legal_moves().into_iter().find(|m| m.is_en_passant()).unwrap();
        let f = facts(&m, Color::White).unwrap();
        assert_eq!(f.capture, Some(Square::D5));
        assert_eq!(f.to, Square::D6);
    }
}
