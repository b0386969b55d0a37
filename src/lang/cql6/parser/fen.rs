//! CQL 6.2 `fen`: a board pattern in FEN notation, or the FEN of the current position.
//!
//! Takes in: the tokens after the word `fen`. Gives out: `fen "BOARD"` as the conjunction
//! of "these squares hold this" tests ([`SetFilter::In`](crate::ir::SetFilter::In) of a square set in a piece set), or
//! `fen` alone as [`HeaderFilter::CurrentFen`](crate::ir::HeaderFilter::CurrentFen) (a string).
//! Must never: panic on any input.
//!
//! CQL's extended FEN (manual page `fen`; reference `fen.cpp`): the eight ranks from the 8th
//! down, `/` between them, a digit 1–8 for that many empty squares, a piece letter for that
//! piece, `A` any white piece, `a` any black piece, `_` an empty square, `.` any content.
//! Whatever follows the eighth rank (side to move, castling, …) is not looked at.

use super::*;
use crate::ir::{HeaderFilter, LogicFilter, SetFilter};

/// The squares each designator of a FEN board pattern must hold, in the order first seen;
/// `.` squares (anything) are left out. `Err` says what is malformed.
pub(super) fn fen_board(text: &str) -> Result<Vec<(char, Bitboard)>, String> {
    let mut groups: Vec<(char, Bitboard)> = Vec::new();
    let (mut file, mut rank) = (0u32, 7u32);
    let mut put = |c: char, file: u32, rank: u32| {
        let sq =
            Bitboard::from_square(shakmaty::Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank)));
        match groups.iter_mut().find(|g| g.0 == c) {
            Some(g) => g.1 |= sq,
            None => groups.push((c, sq)),
        }
    };
    for (i, c) in text.chars().enumerate() {
        if rank == 0 && file == 8 {
            break;
        }
        match c {
            '/' => {
                if file != 8 || rank == 0 {
                    return Err(format!("`/` comes too soon (character {})", i + 1));
                }
                rank -= 1;
                file = 0;
            }
            'K' | 'Q' | 'R' | 'B' | 'N' | 'P' | 'k' | 'q' | 'r' | 'b' | 'n' | 'p' | 'A' | 'a' | '_' | '.' => {
                if file > 7 {
                    return Err(format!("rank {} has more than eight squares", rank + 1));
                }
                if c != '.' {
                    put(c, file, rank);
                }
                file += 1;
            }
            '1'..='8' => {
                let n = c as u32 - '0' as u32;
                if file + n > 8 {
                    return Err(format!("rank {} has more than eight squares", rank + 1));
                }
                for f in file..file + n {
                    put('_', f, rank);
                }
                file += n;
            }
            other => return Err(format!("`{other}` cannot stand in a FEN board (character {})", i + 1)),
        }
    }
    if rank != 0 || file != 8 {
        return Err("the board is incomplete: a FEN gives eight ranks of eight squares".into());
    }
    Ok(groups)
}

impl Parser<'_> {
    /// `fen "BOARD …"` or `fen` (the keyword is already read; `sp` is its span).
    pub(super) fn parse_fen(&mut self, sp: Span) -> PResult<FilterId> {
        let Tok::Str(text) = self.peek().tok.clone() else {
            return Ok(self.add(Filter::Header(HeaderFilter::CurrentFen), sp));
        };
        let t = self.bump();
        let span = Self::join(sp, t.span);
        let groups = match fen_board(&text) {
            Ok(g) => g,
            Err(why) => {
                self.error_hint(
                    format!("malformed FEN: {why}"),
                    t.span,
                    Some("e.g. `fen \"8/8/8/8/8/8/8/K1k5\"`; `A` `a` `_` `.` stand for any white piece, any black piece, empty, anything".to_string()),
                );
                return Err(());
            }
        };
        let mut tests = Vec::with_capacity(groups.len());
        for (c, squares) in groups {
            let Some(mask) = letter_mask(c) else { continue };
            let want = self.add(Filter::Sets(SetFilter::Squares(squares)), span);
            let have = self.add(Filter::Sets(SetFilter::Pieces { mask, squares: Bitboard::FULL }), span);
            tests.push(self.add(Filter::Sets(SetFilter::In(want, have)), span));
        }
        Ok(self.add(Filter::Logic(LogicFilter::And(tests)), span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_group_squares_by_designator() {
        let g = fen_board("8/8/8/8/8/8/8/K1k5 w - - 0 1").unwrap();
        let find = |c: char| g.iter().find(|x| x.0 == c).map(|x| x.1);
        assert_eq!(find('K'), Some(Bitboard::from_square(shakmaty::Square::A1)));
        assert_eq!(find('k'), Some(Bitboard::from_square(shakmaty::Square::C1)));
        assert_eq!(find('_').map(|b| b.count()), Some(62));
        // `.` squares are not constrained; `A` `a` `_` are designators.
        let g = fen_board("rnbqkbnr/pppppppp/8/8/8/8/Aa._PPPP/RNBQKBNR").unwrap();
        assert!(g.iter().all(|x| x.0 != '.'));
        assert_eq!(g.iter().find(|x| x.0 == 'A').map(|x| x.1.count()), Some(1));
    }

    #[test]
    fn what_follows_the_board_is_ignored_and_bad_boards_refused() {
        assert!(fen_board("8/8/8/8/8/8/8/8 t KKQkq b4").is_ok());
        assert!(fen_board("8/8/8/8/8/8/8/8/8").is_ok());
        assert!(fen_board("8/8/8/8/8/8/8").is_err());
        assert!(fen_board("9/8/8/8/8/8/8/8").is_err());
        assert!(fen_board("7/8/8/8/8/8/8/8").is_err());
        assert!(fen_board("8/8/8/8/8/8/8/7x").is_err());
        assert!(fen_board("ppppppppp/8/8/8/8/8/8/8").is_err());
    }
}
