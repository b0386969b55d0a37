//! Game-level facts of CQL 6.2's study-database filters and the FEN string of a position.
//!
//! Takes in: a replayed [`Game`] (its tags, comments and positions). Gives out: whether some
//! text of the game contains a word (`hhdb cooked`), the distinction a study received as
//! HHdb writes it in the `[Event]` tag (`hhdb award`, `hhdb prize max`, …), and the FEN of
//! a position as CQL 6.2 writes it (`fen`).
//! Must never: panic on any tag text or game.

use shakmaty::{Color, Move, Position, Role, Square};

use super::value::Value;
use crate::ir::HhdbAwardKind;
use crate::pgn::{Game, NodeId, Played};

/// The highest rank assumed for a distinction that names no rank (`p` alone: "a prize").
pub const UNRANKED_MAX: i64 = 10_000;

/// Does some tag value or some comment of the game, in any line, contain `text`?
pub fn game_text_contains(game: &Game, text: &str) -> bool {
    game.tags.iter().any(|t| t.text().contains(text))
        || game.nodes.iter().any(|n| n.comments.iter().any(|c| c.contains(text)))
}

/// A distinction as HHdb records it at the start of the `[Event]` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Distinction {
    /// Best and worst rank (`3` → 3..3, `1/2` → 1..2); `None` when no rank is written.
    pub ranks: Option<(i64, i64)>,
    /// A special distinction (`sp`).
    pub special: bool,
    /// Prize, honourable mention or commendation (never [`HhdbAwardKind::Any`]).
    pub kind: HhdbAwardKind,
}

/// Read the distinction at the start of an `[Event]` tag: an optional rank (`3`, or a
/// shared `1/2`, the second greater than the first), then `sp` for a special one (`.sp`
/// after a rank), then `.p` (prize), `.hm` (honourable mention) or `.c` (commendation).
/// `None` when the event names no distinction or the ranks are malformed.
pub fn read_distinction(event: &str) -> Option<Distinction> {
    let mut rest = event;
    let mut ranks = None;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let first: i64 = rest[..digits].parse().unwrap_or(0);
    if digits > 0 && first > 0 && first <= 100_000_000 {
        rest = &rest[digits..];
        let mut last = first;
        if let Some(after) = rest.strip_prefix('/') {
            let d2 = after.bytes().take_while(u8::is_ascii_digit).count();
            let second: i64 = after[..d2].parse().unwrap_or(0);
            if d2 == 0 || second <= 0 || second > 100_000_000 || second <= first {
                return None;
            }
            last = second;
            rest = &after[d2..];
        }
        ranks = Some((first, last));
    }
    let special_mark = if ranks.is_some() { ".sp" } else { "sp" };
    let special = match rest.strip_prefix(special_mark) {
        Some(after) => {
            rest = after;
            true
        }
        None => false,
    };
    let kind = if rest.starts_with(".p") {
        HhdbAwardKind::Prize
    } else if rest.starts_with(".hm") {
        HhdbAwardKind::HonourableMention
    } else if rest.starts_with(".c") {
        HhdbAwardKind::Commendation
    } else {
        return None;
    };
    Some(Distinction { ranks, special, kind })
}

/// `hhdb [special] KIND [max]`: the game's distinction when it is of the kind asked for
/// (any kind for [`HhdbAwardKind::Any`]; only special ones with `special`). The value is
/// the best rank (the worst with `max`; 1 and [`UNRANKED_MAX`] when no rank is written).
/// A special distinction the query did not ask for with `special` matches without a value,
/// as CQL 6.2 does: it is a distinction, but its rank is not comparable with ordinary ones.
pub fn award(game: &Game, kind: HhdbAwardKind, special: bool, max: bool) -> Option<Value> {
    let event = game.tag("Event").map(|t| t.text().into_owned()).unwrap_or_default();
    let d = read_distinction(&event)?;
    if kind != HhdbAwardKind::Any && kind != d.kind {
        return None;
    }
    if special && !d.special {
        return None;
    }
    if d.special && !special {
        return Some(Value::None);
    }
    let (best, worst) = d.ranks.unwrap_or((1, UNRANKED_MAX));
    Some(Value::Number(if max { worst } else { best }))
}

/// The FEN CQL 6.2 gives for the position at node `n`: the board, the side to move, the
/// castling rights still possible (king and rook on their squares in this position and in
/// every position before it), the en passant square after a double pawn step (whether or
/// not a capture is possible), then always `0 1`.
pub fn current_fen(game: &Game, n: NodeId) -> String {
    let node = game.node(n);
    let board = node.pos.board();
    let mut out = String::new();
    for rank in (0..8u32).rev() {
        let mut empty = 0;
        for file in 0..8u32 {
            let sq = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
            match board.piece_at(sq) {
                Some(p) => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    out.push(p.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out.push(' ');
    out.push(if node.pos.turn() == Color::White { 'w' } else { 'b' });
    out.push(' ');
    // A right survives while king and rook have stood on their home squares in every
    // position from the root to here.
    let mut rights = [true; 4]; // K Q k q
    let homes = [
        (Square::E1, Square::H1, Color::White),
        (Square::E1, Square::A1, Color::White),
        (Square::E8, Square::H8, Color::Black),
        (Square::E8, Square::A8, Color::Black),
    ];
    let mut cursor = Some(n);
    while let Some(c) = cursor {
        let b = game.node(c).pos.board();
        for (k, &(king, rook, color)) in homes.iter().enumerate() {
            let king_home = b.piece_at(king) == Some(shakmaty::Piece { color, role: Role::King });
            let rook_home = b.piece_at(rook) == Some(shakmaty::Piece { color, role: Role::Rook });
            if !(king_home && rook_home) {
                rights[k] = false;
            }
        }
        cursor = game.node(c).parent;
    }
    let letters: String = ['K', 'Q', 'k', 'q'].iter().zip(rights).filter(|(_, ok)| *ok).map(|(c, _)| *c).collect();
    out.push_str(if letters.is_empty() { "-" } else { &letters });
    out.push(' ');
    match &node.played {
        Some(Played::Move(Move::Normal { role: Role::Pawn, from, to, .. }))
            if (from.rank() as i32 - to.rank() as i32).abs() == 2 =>
        {
            let mid =
                Square::from_coords(from.file(), shakmaty::Rank::new((from.rank() as u32 + to.rank() as u32) / 2));
            out.push_str(&mid.to_string());
        }
        _ => out.push('-'),
    }
    out.push_str(" 0 1");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinctions_are_read_from_the_event() {
        let d = read_distinction("3.p 2nd UAPA internet ty#22").unwrap();
        assert_eq!(d, Distinction { ranks: Some((3, 3)), special: false, kind: HhdbAwardKind::Prize });
        let d = read_distinction("1/2.hm Moscow").unwrap();
        assert_eq!(d.ranks, Some((1, 2)));
        assert_eq!(d.kind, HhdbAwardKind::HonourableMention);
        let d = read_distinction("sp.c Shakhmaty").unwrap();
        assert_eq!(d, Distinction { ranks: None, special: true, kind: HhdbAwardKind::Commendation });
        let d = read_distinction("2.sp.p x").unwrap();
        assert!(d.special && d.ranks == Some((2, 2)));
        // Not a distinction, or malformed shared ranks.
        assert_eq!(read_distinction("Moscow ty"), None);
        assert_eq!(read_distinction("2/1.p"), None);
        assert_eq!(read_distinction("2/.p"), None);
        assert_eq!(read_distinction(""), None);
    }

    use crate::pgn::GameBuilder;

    fn game_with_event(event: &str) -> Game {
        let mut b = GameBuilder::new(1);
        b.line(NodeId(0), &["e4", "e5"]).unwrap();
        b.tag("Event", event);
        b.finish(None)
    }

    #[test]
    fn award_values_follow_the_kind_asked_for() {
        let g = game_with_event("1/2.hm Moscow");
        assert_eq!(award(&g, HhdbAwardKind::Any, false, false), Some(Value::Number(1)));
        assert_eq!(award(&g, HhdbAwardKind::HonourableMention, false, true), Some(Value::Number(2)));
        assert_eq!(award(&g, HhdbAwardKind::Prize, false, false), None);
        assert_eq!(award(&g, HhdbAwardKind::Any, true, false), None);
        let g = game_with_event("sp.p Tourney");
        assert_eq!(award(&g, HhdbAwardKind::Prize, false, false), Some(Value::None));
        assert_eq!(award(&g, HhdbAwardKind::Prize, true, false), Some(Value::Number(1)));
        assert_eq!(award(&g, HhdbAwardKind::Prize, true, true), Some(Value::Number(UNRANKED_MAX)));
    }

    #[test]
    fn text_anywhere_in_the_game() {
        let mut b = GameBuilder::new(1);
        b.line(NodeId(0), &["e4", "e5"]).unwrap();
        let side = b.line(NodeId(0), &["d4"]).unwrap();
        let mut g = b.finish(None);
        g.nodes[side[0].index()].comments.push("<cook> refutes".into());
        assert!(game_text_contains(&g, "<cook"));
        assert!(!game_text_contains(&g, "<eg>"));
    }

    #[test]
    fn fen_of_positions() {
        let mut b = GameBuilder::new(1);
        let mut line = vec![NodeId(0)];
        line.extend(b.line(NodeId(0), &["e4", "Nf6", "Ke2"]).unwrap());
        let g = b.finish(None);
        assert_eq!(current_fen(&g, line[0]), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(current_fen(&g, line[1]), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        assert_eq!(current_fen(&g, line[3]), "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPPKPPP/RNBQ1BNR b kq - 0 1");
    }
}
