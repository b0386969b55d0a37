//! The positions of a PGN file, for `similarposition` and `-similarposition FILE`.
//!
//! Takes in: the name of a PGN file. Gives out: a [`SimilarDb`] that says whether a board
//! (pieces on squares and the side to move) was reached on the main line of one of the
//! file's games, directly or under a symmetry, and where.
//! Must never: write anything, or outlive the compiled query that read the file (each
//! [`crate::eval::Query`] holds the tables it read: no process-wide cache, so a file
//! changed between two compilations is read afresh).
//!
//! The rules are those of CQL 6.2 (`AnticipateDb`, `AnticipateEntry`): castling rights,
//! the en passant square and move counters are not part of the key; a position without
//! pawns is also stored under the 7 other symmetries of the square board; a position with
//! pawns under each horizontal shift that keeps every piece on the board, the mirror
//! a-file ↔ h-file, and that mirror followed by each such shift. `notransform` stores
//! each position as it is.

use std::collections::HashMap;

use shakmaty::{Board, Color, Position, Square};

use crate::input::Games;
use crate::pgn::{Game, GameParser};

/// Where a position of the file was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Number of the game in the file (from 1).
    pub game: u64,
    /// Full-move number of the position in that game.
    pub move_number: u32,
    /// Name of the symmetry that maps the file's position onto the looked-up one (empty
    /// for none), as `currenttransform` names it.
    pub transform: String,
}

/// Every main-line position of a PGN file, under the symmetries `similarposition` allows.
#[derive(Debug, Default)]
pub struct SimilarDb {
    map: HashMap<(Board, Color), Vec<Entry>>,
}

/// One board symmetry: mirror files, mirror ranks, swap file and rank (in that order),
/// then shift files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Symmetry {
    mirror_files: bool,
    mirror_ranks: bool,
    swap: bool,
    dx: i8,
}

impl Symmetry {
    const IDENTITY: Symmetry = Symmetry { mirror_files: false, mirror_ranks: false, swap: false, dx: 0 };

    fn map(self, sq: Square) -> Option<Square> {
        let (mut f, mut r) = (i8::from(sq.file()), i8::from(sq.rank()));
        if self.mirror_files {
            f = 7 - f;
        }
        if self.mirror_ranks {
            r = 7 - r;
        }
        if self.swap {
            std::mem::swap(&mut f, &mut r);
        }
        f += self.dx;
        if !(0..8).contains(&f) {
            return None;
        }
        Some(Square::from_coords(shakmaty::File::new(f as u32), shakmaty::Rank::new(r as u32)))
    }

    fn name(self) -> String {
        let dihedral = match (self.swap, self.mirror_files, self.mirror_ranks) {
            (false, false, false) => "",
            (false, false, true) => "reflect_h",
            (false, true, false) => "reflect_v",
            (false, true, true) => "rotate180",
            (true, false, false) => "reflect_a1h8",
            (true, false, true) => "counterclockwise90",
            (true, true, false) => "clockwise90",
            (true, true, true) => "reflect_a8h1",
        };
        let shift = match self.dx {
            0 => String::new(),
            d if d > 0 => format!("right^{d}"),
            d => format!("left^{}", -d),
        };
        [shift.as_str(), dihedral].iter().filter(|s| !s.is_empty()).copied().collect::<Vec<_>>().join(" ")
    }

    /// The symmetries a board is stored under.
    fn for_board(board: &Board, transform: bool) -> Vec<Symmetry> {
        if !transform {
            return vec![Symmetry::IDENTITY];
        }
        if board.pawns().is_empty() {
            let mut all = Vec::with_capacity(8);
            for mirror_files in [false, true] {
                for mirror_ranks in [false, true] {
                    for swap in [false, true] {
                        all.push(Symmetry { mirror_files, mirror_ranks, swap, dx: 0 });
                    }
                }
            }
            return all;
        }
        let mut all = Vec::with_capacity(30);
        for mirror_files in [false, true] {
            for dx in -7..=7 {
                all.push(Symmetry { mirror_files, mirror_ranks: false, swap: false, dx });
            }
        }
        all
    }

    /// The board moved by this symmetry, or `None` when a piece would leave it.
    fn apply(self, board: &Board) -> Option<Board> {
        let mut out = Board::empty();
        for (sq, piece) in board.clone() {
            out.set_piece_at(self.map(sq)?, piece);
        }
        Some(out)
    }
}

impl SimilarDb {
    /// Read every game of `path` and store its main-line positions (each under the
    /// allowed symmetries unless `transform` is false). Games that cannot be read are
    /// skipped; a file that cannot be opened, or has no readable game, is an error.
    pub fn load(path: &str, transform: bool) -> Result<SimilarDb, String> {
        let mut db = SimilarDb::default();
        let mut parser = GameParser::new();
        let mut game = Game::default();
        let mut games = 0u64;
        for raw in Games::new(vec![path.to_string()]) {
            let raw = raw.map_err(|e| format!("similarposition: {e}"))?;
            if parser.parse(&raw, &mut game, &|_| true).is_err() {
                continue;
            }
            games += 1;
            for n in game.mainline() {
                let node = game.node(n);
                let board = node.pos.board().clone();
                let turn = node.pos.turn();
                let move_number = node.ply / 2 + 1;
                db.insert(&board, turn, raw.number, move_number, transform);
            }
        }
        if games == 0 {
            return Err(format!("similarposition: no game could be read from {path}"));
        }
        Ok(db)
    }

    fn insert(&mut self, board: &Board, turn: Color, game: u64, move_number: u32, transform: bool) {
        for sym in Symmetry::for_board(board, transform) {
            let Some(image) = sym.apply(board) else { continue };
            let entries = self.map.entry((image, turn)).or_default();
            if entries.iter().any(|e| e.game == game && e.move_number == move_number) {
                continue;
            }
            entries.push(Entry { game, move_number, transform: sym.name() });
        }
    }

    /// Where this board with this side to move occurs in the file (empty when nowhere).
    pub fn lookup(&self, board: &Board, turn: Color) -> &[Entry] {
        self.map.get(&(board.clone(), turn)).map_or(&[], |v| v.as_slice())
    }

    /// Number of distinct keys stored.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Piece, Role};

    fn piece(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    fn board(pieces: &[(Square, Color, Role)]) -> Board {
        let mut b = Board::empty();
        for &(sq, c, r) in pieces {
            b.set_piece_at(sq, piece(c, r));
        }
        b
    }

    #[test]
    fn pawnless_positions_are_stored_under_the_eight_symmetries() {
        let mut db = SimilarDb::default();
        let b = board(&[(Square::A1, Color::White, Role::King), (Square::C3, Color::Black, Role::King)]);
        db.insert(&b, Color::White, 1, 1, true);
        let turned = board(&[(Square::H8, Color::White, Role::King), (Square::F6, Color::Black, Role::King)]);
        assert_eq!(db.lookup(&turned, Color::White).len(), 1);
        assert_eq!(db.lookup(&turned, Color::White)[0].transform, "rotate180");
        assert!(db.lookup(&turned, Color::Black).is_empty(), "the side to move is part of the key");
        // a1 and c3 both lie on the a1-h8 diagonal, so the board is its own image under the
        // diagonal reflections: the eight symmetries give 4 distinct boards.
        assert_eq!(db.len(), 4);
    }

    #[test]
    fn positions_with_pawns_shift_along_ranks_and_mirror_files_only() {
        let mut db = SimilarDb::default();
        let b = board(&[
            (Square::E1, Color::White, Role::King),
            (Square::E2, Color::White, Role::Pawn),
            (Square::E8, Color::Black, Role::King),
        ]);
        db.insert(&b, Color::White, 3, 5, true);
        let shifted = board(&[
            (Square::B1, Color::White, Role::King),
            (Square::B2, Color::White, Role::Pawn),
            (Square::B8, Color::Black, Role::King),
        ]);
        assert_eq!(db.lookup(&shifted, Color::White)[0].game, 3);
        let turned = board(&[
            (Square::D8, Color::White, Role::King),
            (Square::D7, Color::White, Role::Pawn),
            (Square::D1, Color::Black, Role::King),
        ]);
        assert!(db.lookup(&turned, Color::White).is_empty(), "no rank mirror with pawns");
        // Files a..h for the column: 8 boards (the mirror gives the same ones).
        assert_eq!(db.len(), 8);
    }

    #[test]
    fn notransform_stores_the_board_as_it_is() {
        let mut db = SimilarDb::default();
        let b = board(&[(Square::A1, Color::White, Role::King), (Square::C3, Color::Black, Role::King)]);
        db.insert(&b, Color::Black, 2, 9, false);
        assert_eq!(db.len(), 1);
        assert_eq!(db.lookup(&b, Color::Black)[0], Entry { game: 2, move_number: 9, transform: String::new() });
    }
}
