//! The position held by each node of the game tree: a legal chess position, or, for a
//! set-up that is not one (problem diagrams without a king, with two kings of a colour,
//! with pawns on the first or last rank, with the side not to move in check), a
//! board-only position that can still be replayed.
//!
//! Takes in: a parsed FEN set-up, or a position and a move to play in it.
//! Gives out: a [`Pos`], which answers the same questions as a shakmaty [`Chess`]
//! (board, side to move, check, moves) through shakmaty's [`Position`] trait.
//! Must never: panic on a set-up that the FEN reader accepted, or cost the common
//! (legal) path more than one enum match per question.
//!
//! Rules of a board-only position ([`Lenient`]):
//! - there is no castling; en passant is possible right after a pawn's double step
//!   (or when the FEN names a square a pawn has just crossed);
//! - a move is legal when the piece can make it (pseudo-legal) and afterwards no king
//!   of the mover is attacked. A side without a king has no king-safety rule, so all
//!   its pseudo-legal moves are legal;
//! - check: a king of the side to move is attacked (any of them when there are
//!   several); never without a king;
//! - mate: check and no legal move; stalemate: the side to move has a king, is not in
//!   check and has no legal move. A side without a king is never mated or stalemated;
//! - when a move as written is not legal by that rule but is pseudo-legal (a problem
//!   with two kings where one stays attacked, say), the game is still read with it.

use std::num::NonZeroU32;

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{
    attacks, Bitboard, Board, ByColor, ByRole, Castles, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move,
    MoveList, Outcome, Piece, Position, Rank, RemainingChecks, Role, Square,
};

/// No castling rights at all, shared by every board-only position.
static NO_CASTLES: Castles = Castles::empty(CastlingMode::Standard);

/// A position of the game tree: a legal chess position (the common case) or a
/// board-only one for a set-up that chess rules reject.
///
/// It implements shakmaty's [`Position`], so code written for [`Chess`] works on it;
/// each question costs one match on the variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pos {
    /// A position that obeys the chess rules (one king a side, no pawn on the first or
    /// last rank, the side not to move not in check).
    Legal(Chess),
    /// A set-up that the chess rules reject, replayed on the board alone.
    Lenient(Lenient),
}

impl Default for Pos {
    /// The standard start position.
    fn default() -> Pos {
        Pos::Legal(Chess::default())
    }
}

impl From<Chess> for Pos {
    fn from(pos: Chess) -> Pos {
        Pos::Legal(pos)
    }
}

impl Pos {
    /// The legal chess position, if this is one.
    #[inline]
    pub fn as_chess(&self) -> Option<&Chess> {
        match self {
            Pos::Legal(pos) => Some(pos),
            Pos::Lenient(_) => None,
        }
    }

    /// Is this a board-only position (a set-up the chess rules reject)?
    #[inline]
    pub fn is_lenient(&self) -> bool {
        matches!(self, Pos::Lenient(_))
    }

    /// The position after a null move: the other side to move, no en passant, the
    /// halfmove clock one more and, after Black's null move, the next move number (a null
    /// move is a ply like any other, so move numbers and FEN counters go on). A legal
    /// position whose side to move is in check cannot hand the move over and is
    /// returned unchanged (the convention of the game reader).
    pub fn null_move(&self) -> Pos {
        let next = |turn: Color, halfmoves: &mut u32, fullmoves: &mut NonZeroU32| {
            *halfmoves = halfmoves.saturating_add(1);
            if turn == Color::Black {
                *fullmoves = fullmoves.saturating_add(1);
            }
        };
        match self {
            Pos::Legal(pos) => {
                let mode = pos.castles().mode();
                let mut setup = pos.to_setup(EnPassantMode::Always);
                next(setup.turn, &mut setup.halfmoves, &mut setup.fullmoves);
                setup.swap_turn();
                Pos::Legal(<Chess as shakmaty::FromSetup>::from_setup(setup, mode).unwrap_or_else(|_| pos.clone()))
            }
            Pos::Lenient(pos) => {
                let mut after = pos.clone();
                next(after.turn, &mut after.halfmoves, &mut after.fullmoves);
                after.turn = !after.turn;
                after.ep_square = None;
                Pos::Lenient(after)
            }
        }
    }

    /// The position a FEN describes: a legal one if chess allows it (with the usual
    /// repairs of bad castling rights, en passant squares and too much material, in
    /// `first` castling mode, then `second`), otherwise a board-only one. `None` only
    /// for an empty board.
    pub fn from_fen(fen: Fen, first: CastlingMode, second: CastlingMode) -> Option<Pos> {
        let first_error = match fen.clone().into_position::<Chess>(first) {
            Ok(pos) => return Some(Pos::Legal(pos)),
            Err(e) => e,
        };
        if let Ok(pos) = fen.clone().into_position::<Chess>(second) {
            return Some(Pos::Legal(pos));
        }
        let repaired = first_error
            .ignore_invalid_ep_square()
            .or_else(|e| e.ignore_invalid_castling_rights())
            .or_else(|e| e.ignore_too_much_material())
            .or_else(|e| e.ignore_impossible_check());
        match repaired {
            Ok(pos) => Some(Pos::Legal(pos)),
            Err(_) => Lenient::from_fen(fen).map(Pos::Lenient),
        }
    }

    /// The move a SAN means here. In a legal position this is shakmaty's reading; in a
    /// board-only one a legal move is preferred and, failing that, the only
    /// pseudo-legal move the SAN can mean.
    pub fn san_to_move(&self, san: San) -> Option<Move> {
        match self {
            Pos::Legal(pos) => san.to_move(pos).ok(),
            Pos::Lenient(pos) => san.to_move(pos).ok().or_else(|| pos.pseudo_legal_san(san)),
        }
    }
}

/// Delegate a [`Position`] method to the variant.
macro_rules! delegate {
    ($self:ident, $pos:ident => $e:expr) => {
        match $self {
            Pos::Legal($pos) => $e,
            Pos::Lenient($pos) => $e,
        }
    };
}

impl Position for Pos {
    #[inline]
    fn board(&self) -> &Board {
        delegate!(self, p => p.board())
    }
    #[inline]
    fn promoted(&self) -> Bitboard {
        delegate!(self, p => p.promoted())
    }
    #[inline]
    fn pockets(&self) -> Option<&ByColor<ByRole<u8>>> {
        delegate!(self, p => p.pockets())
    }
    #[inline]
    fn turn(&self) -> Color {
        delegate!(self, p => p.turn())
    }
    #[inline]
    fn castles(&self) -> &Castles {
        delegate!(self, p => p.castles())
    }
    #[inline]
    fn maybe_ep_square(&self) -> Option<Square> {
        delegate!(self, p => p.maybe_ep_square())
    }
    #[inline]
    fn remaining_checks(&self) -> Option<&ByColor<RemainingChecks>> {
        delegate!(self, p => p.remaining_checks())
    }
    #[inline]
    fn halfmoves(&self) -> u32 {
        delegate!(self, p => p.halfmoves())
    }
    #[inline]
    fn fullmoves(&self) -> NonZeroU32 {
        delegate!(self, p => p.fullmoves())
    }
    #[inline]
    fn legal_moves(&self) -> MoveList {
        delegate!(self, p => p.legal_moves())
    }
    #[inline]
    fn san_candidates(&self, role: Role, to: Square) -> MoveList {
        delegate!(self, p => p.san_candidates(role, to))
    }
    #[inline]
    fn castling_moves(&self, side: CastlingSide) -> MoveList {
        delegate!(self, p => p.castling_moves(side))
    }
    #[inline]
    fn en_passant_moves(&self) -> MoveList {
        delegate!(self, p => p.en_passant_moves())
    }
    #[inline]
    fn capture_moves(&self) -> MoveList {
        delegate!(self, p => p.capture_moves())
    }
    #[inline]
    fn promotion_moves(&self) -> MoveList {
        delegate!(self, p => p.promotion_moves())
    }
    #[inline]
    fn is_irreversible(&self, m: Move) -> bool {
        delegate!(self, p => p.is_irreversible(m))
    }
    #[inline]
    fn king_attackers(&self, square: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        delegate!(self, p => p.king_attackers(square, attacker, occupied))
    }
    #[inline]
    fn is_variant_end(&self) -> bool {
        delegate!(self, p => p.is_variant_end())
    }
    #[inline]
    fn has_insufficient_material(&self, color: Color) -> bool {
        delegate!(self, p => p.has_insufficient_material(color))
    }
    #[inline]
    fn variant_outcome(&self) -> Outcome {
        delegate!(self, p => p.variant_outcome())
    }
    #[inline]
    fn play_unchecked(&mut self, m: Move) {
        delegate!(self, p => p.play_unchecked(m))
    }
    #[inline]
    fn checkers(&self) -> Bitboard {
        delegate!(self, p => p.checkers())
    }
    #[inline]
    fn is_check(&self) -> bool {
        delegate!(self, p => p.is_check())
    }
    #[inline]
    fn is_checkmate(&self) -> bool {
        delegate!(self, p => p.is_checkmate())
    }
    #[inline]
    fn is_stalemate(&self) -> bool {
        delegate!(self, p => p.is_stalemate())
    }
}

/// A board-only position: pieces, side to move, an en passant square and the move
/// counters; no castling rights. See the module documentation for its rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lenient {
    board: Board,
    turn: Color,
    ep_square: Option<Square>,
    halfmoves: u32,
    fullmoves: NonZeroU32,
}

impl Lenient {
    /// The board-only position of a FEN set-up; castling rights are dropped, and the
    /// en passant square kept only if a pawn of the side that just moved stands right
    /// past it. `None` for an empty board (nothing could ever move).
    pub fn from_fen(fen: Fen) -> Option<Lenient> {
        let setup = fen.into_setup();
        if setup.board.occupied().is_empty() {
            return None;
        }
        let turn = setup.turn;
        let ep_square = setup.ep_square.filter(|&ep| {
            let (rank, pawn_rank) =
                if turn.is_white() { (Rank::Sixth, Rank::Fifth) } else { (Rank::Third, Rank::Fourth) };
            ep.rank() == rank
                && !setup.board.occupied().contains(ep)
                && setup.board.piece_at(Square::from_coords(ep.file(), pawn_rank)) == Some(Role::Pawn.of(!turn))
        });
        Some(Lenient { board: setup.board, turn, ep_square, halfmoves: setup.halfmoves, fullmoves: setup.fullmoves })
    }

    /// Squares of the kings of `color` attacked by the other side.
    fn attacked_kings(&self, color: Color) -> Bitboard {
        let occupied = self.board.occupied();
        let mut out = Bitboard::EMPTY;
        for king in self.board.kings() & self.board.by_color(color) {
            if self.board.attacks_to(king, !color, occupied).any() {
                out |= Bitboard::from(king);
            }
        }
        out
    }

    /// The one pseudo-legal move a SAN can mean (king safety ignored), if exactly one.
    fn pseudo_legal_san(&self, san: San) -> Option<Move> {
        let mut found = None;
        for m in pseudo_legal_moves(self) {
            if san.matches(m) {
                if found.is_some() {
                    return None;
                }
                found = Some(m);
            }
        }
        found
    }
}

impl Position for Lenient {
    fn board(&self) -> &Board {
        &self.board
    }
    fn promoted(&self) -> Bitboard {
        Bitboard::EMPTY
    }
    fn pockets(&self) -> Option<&ByColor<ByRole<u8>>> {
        None
    }
    fn turn(&self) -> Color {
        self.turn
    }
    fn castles(&self) -> &Castles {
        &NO_CASTLES
    }
    fn maybe_ep_square(&self) -> Option<Square> {
        self.ep_square
    }
    fn remaining_checks(&self) -> Option<&ByColor<RemainingChecks>> {
        None
    }
    fn halfmoves(&self) -> u32 {
        self.halfmoves
    }
    fn fullmoves(&self) -> NonZeroU32 {
        self.fullmoves
    }
    /// Pseudo-legal moves after which no king of the mover is attacked.
    fn legal_moves(&self) -> MoveList {
        let mut moves = pseudo_legal_moves(self);
        if (self.board.kings() & self.board.by_color(self.turn)).any() {
            moves.retain(|m| {
                let mut after = self.clone();
                after.play_unchecked(*m);
                after.attacked_kings(self.turn).is_empty()
            });
        }
        moves
    }
    fn is_variant_end(&self) -> bool {
        false
    }
    /// Never claimed: the material of a board-only position says nothing certain.
    fn has_insufficient_material(&self, _color: Color) -> bool {
        false
    }
    fn variant_outcome(&self) -> Outcome {
        Outcome::Unknown
    }
    fn play_unchecked(&mut self, m: Move) {
        let us = self.turn;
        self.ep_square = None;
        let zeroing = m.is_zeroing();
        match m {
            Move::Normal { role, from, to, promotion, .. } => {
                self.board.discard_piece_at(from);
                self.board.set_piece_at(to, promotion.unwrap_or(role).of(us));
                if role == Role::Pawn && from.file() == to.file() && from.distance(to) == 2 {
                    self.ep_square = from.offset(if us.is_white() { 8 } else { -8 });
                }
            }
            Move::EnPassant { from, to } => {
                self.board.discard_piece_at(from);
                self.board.discard_piece_at(Square::from_coords(to.file(), from.rank()));
                self.board.set_piece_at(to, Role::Pawn.of(us));
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_queen_side(rook.file() < king.file());
                self.board.discard_piece_at(king);
                self.board.discard_piece_at(rook);
                self.board.set_piece_at(side.king_to(us), Role::King.of(us));
                self.board.set_piece_at(side.rook_to(us), Role::Rook.of(us));
            }
            Move::Put { role, to } => self.board.set_piece_at(to, role.of(us)),
        }
        self.halfmoves = if zeroing { 0 } else { self.halfmoves.saturating_add(1) };
        if us.is_black() {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !us;
    }
    /// The pieces attacking any king of the side to move.
    fn checkers(&self) -> Bitboard {
        let occupied = self.board.occupied();
        let mut out = Bitboard::EMPTY;
        for king in self.board.kings() & self.board.by_color(self.turn) {
            out |= self.board.attacks_to(king, !self.turn, occupied);
        }
        out
    }
    fn is_check(&self) -> bool {
        self.checkers().any()
    }
    fn is_checkmate(&self) -> bool {
        self.is_check() && self.legal_moves().is_empty()
    }
    fn is_stalemate(&self) -> bool {
        (self.board.kings() & self.board.by_color(self.turn)).any() && !self.is_check() && self.legal_moves().is_empty()
    }
}

/// Every pseudo-legal move of the side to move: each piece's moves by its own rules,
/// onto empty squares or enemy pieces, king safety ignored; en passant onto the
/// position's en passant square; no castling. Squares are visited a1 to h8, pawn
/// promotions in the order queen, rook, bishop, knight.
pub fn pseudo_legal_moves<P: Position>(pos: &P) -> MoveList {
    let mut out = MoveList::new();
    let board = pos.board();
    let us = pos.turn();
    let ours = board.by_color(us);
    let theirs = board.by_color(!us);
    let occupied = board.occupied();
    for from in ours {
        let Some(role) = board.role_at(from) else { continue };
        if role == Role::Pawn {
            pawn_moves(pos, from, &mut out);
            continue;
        }
        let targets = attacks::attacks(from, Piece { color: us, role }, occupied) & !ours;
        for to in targets {
            let capture = if theirs.contains(to) { board.role_at(to) } else { None };
            out.push(Move::Normal { role, from, capture, to, promotion: None });
        }
    }
    out
}

/// A pawn move, or its four promotions when it reaches the last rank.
fn push_pawn(out: &mut MoveList, from: Square, to: Square, capture: Option<Role>, last_rank: bool) {
    if last_rank {
        for promo in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
            out.push(Move::Normal { role: Role::Pawn, from, capture, to, promotion: Some(promo) });
        }
    } else {
        out.push(Move::Normal { role: Role::Pawn, from, capture, to, promotion: None });
    }
}

/// The pseudo-legal moves of the pawn on `from`: one step, two from its start rank,
/// diagonal captures and en passant.
fn pawn_moves<P: Position>(pos: &P, from: Square, out: &mut MoveList) {
    let board = pos.board();
    let us = pos.turn();
    let occupied = board.occupied();
    let forward: i32 = if us.is_white() { 8 } else { -8 };
    let last = if us.is_white() { Rank::Eighth } else { Rank::First };
    let start = if us.is_white() { Rank::Second } else { Rank::Seventh };
    if let Some(one) = from.offset(forward) {
        if !occupied.contains(one) {
            push_pawn(out, from, one, None, one.rank() == last);
            if from.rank() == start {
                if let Some(two) = one.offset(forward) {
                    if !occupied.contains(two) {
                        out.push(Move::Normal { role: Role::Pawn, from, capture: None, to: two, promotion: None });
                    }
                }
            }
        }
    }
    let theirs = board.by_color(!us);
    for to in attacks::pawn_attacks(us, from) {
        if theirs.contains(to) {
            push_pawn(out, from, to, board.role_at(to), to.rank() == last);
        } else if pos.ep_square(EnPassantMode::Always) == Some(to) {
            out.push(Move::EnPassant { from, to });
        }
    }
}

#[cfg(test)]
mod tests;
