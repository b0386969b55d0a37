//! Reading one game's bytes into a [`super::Game`] (minimal stand-in, replaced at merge).
//!
//! Takes in: a [`RawGame`] cut out by `input`.
//! Gives out: the game's tags and, when asked, its replayed position tree.
//! Must never: panic on bad input, print, or recurse on the nesting of variations.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::{Game, GameError, GameErrorKind, Node, NodeId, PieceIds, Played, Tag};
use crate::input::RawGame;

/// Deepest nesting of variations accepted.
const MAX_VARIATION_DEPTH: usize = 200;

/// Reusable reader of games; one per worker thread.
#[derive(Debug, Default)]
pub struct GameParser {}

impl GameParser {
    /// A new parser.
    pub fn new() -> GameParser {
        GameParser {}
    }

    /// Read `raw` into `game` (cleared first). The moves are replayed only when
    /// `want_moves(game)` says so after the tags are read.
    pub fn parse(
        &mut self,
        raw: &RawGame,
        game: &mut Game,
        want_moves: &dyn Fn(&Game) -> bool,
    ) -> Result<(), GameError> {
        game.number = raw.number;
        game.line = raw.line;
        game.tags.clear();
        game.nodes.clear();
        game.termination = None;
        let bytes = &raw.bytes;
        let mut i = 0;
        let mut line = raw.line;
        // Tag section.
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                if bytes[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            if i >= bytes.len() || bytes[i] != b'[' {
                break;
            }
            let end = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |e| i + e);
            let text = bytes[i..end].trim_ascii();
            if !text.ends_with(b"]") {
                return Err(GameError { kind: GameErrorKind::UnterminatedTag, line });
            }
            let inner = &text[1..text.len() - 1];
            let name_end = inner.iter().position(|b| b.is_ascii_whitespace()).unwrap_or(inner.len());
            let name = String::from_utf8_lossy(&inner[..name_end]).into_owned();
            let rest = inner[name_end..].trim_ascii();
            let value = if rest.len() >= 2 && rest[0] == b'"' && rest[rest.len() - 1] == b'"' {
                rest[1..rest.len() - 1].to_vec()
            } else {
                return Err(GameError { kind: GameErrorKind::UnterminatedTag, line });
            };
            game.tags.push(Tag { name, value });
            i = end;
        }
        if !want_moves(game) {
            return Ok(());
        }
        let start = start_position(game, line)?;
        game.nodes.push(Node {
            parent: None,
            children: Vec::new(),
            played: None,
            san: String::new(),
            comments: Vec::new(),
            nags: Vec::new(),
            ids: initial_ids(&start),
            pos: start,
            ply: 0,
            depth: 0,
        });
        let mut cur = NodeId::ROOT;
        let mut stack: Vec<NodeId> = Vec::new();
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b'\n' => {
                    line += 1;
                    i += 1;
                }
                _ if b.is_ascii_whitespace() => i += 1,
                b'{' => {
                    let end = memchr::memchr(b'}', &bytes[i..])
                        .ok_or(GameError { kind: GameErrorKind::UnterminatedComment, line })?;
                    let text = &bytes[i + 1..i + end];
                    line += text.iter().filter(|&&c| c == b'\n').count() as u64;
                    let text = String::from_utf8_lossy(text).trim().to_string();
                    game.nodes[cur.index()].comments.push(text);
                    i += end + 1;
                }
                b';' => i = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |e| i + e),
                b'(' => {
                    if stack.len() >= MAX_VARIATION_DEPTH {
                        return Err(syntax("variations nested too deeply", line));
                    }
                    let parent = game.nodes[cur.index()].parent.ok_or_else(|| syntax("variation before the first move", line))?;
                    stack.push(cur);
                    cur = parent;
                    i += 1;
                }
                b')' => {
                    cur = stack.pop().ok_or_else(|| syntax("unbalanced `)`", line))?;
                    i += 1;
                }
                _ => {
                    let end = bytes[i..]
                        .iter()
                        .position(|c| c.is_ascii_whitespace() || b"{}();".contains(c))
                        .map_or(bytes.len(), |e| i + e);
                    let token = &bytes[i..end];
                    i = end;
                    self.token(game, &mut cur, token, line)?;
                }
            }
        }
        Ok(())
    }

    fn token(&mut self, game: &mut Game, cur: &mut NodeId, token: &[u8], line: u64) -> Result<(), GameError> {
        if matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*") {
            game.termination = Some(String::from_utf8_lossy(token).into_owned());
            return Ok(());
        }
        if let Some(n) = token.strip_prefix(b"$") {
            let nag = std::str::from_utf8(n).ok().and_then(|s| s.parse::<u8>().ok());
            if let Some(nag) = nag {
                game.nodes[cur.index()].nags.push(nag);
            }
            return Ok(());
        }
        let glyph = match token {
            b"!" => Some(1),
            b"?" => Some(2),
            b"!!" => Some(3),
            b"??" => Some(4),
            b"!?" => Some(5),
            b"?!" => Some(6),
            _ => None,
        };
        if let Some(nag) = glyph {
            game.nodes[cur.index()].nags.push(nag);
            return Ok(());
        }
        // Move numbers: digits followed by dots, possibly glued to the move (`1.e4`).
        let digits = token.iter().take_while(|c| c.is_ascii_digit()).count();
        let token = if digits > 0 && token.get(digits) == Some(&b'.') {
            let dots = token[digits..].iter().take_while(|&&c| c == b'.').count();
            &token[digits + dots..]
        } else if digits == token.len() {
            &token[token.len()..]
        } else {
            token
        };
        if token.is_empty() {
            return Ok(());
        }
        let annotated_end = token.iter().position(|c| b"!?".contains(c)).unwrap_or(token.len());
        let written = &token[..annotated_end];
        let parent = &game.nodes[cur.index()];
        let illegal = || GameError {
            kind: GameErrorKind::IllegalMove { san: String::from_utf8_lossy(written).into_owned(), ply: parent.ply + 1 },
            line,
        };
        let (played, pos, ids) = if matches!(written, b"--" | b"Z0") {
            let pos = parent.pos.clone().swap_turn().map_err(|_| illegal())?;
            (Played::Null, pos, parent.ids)
        } else {
            let bare = written.strip_suffix(b"#").or_else(|| written.strip_suffix(b"+")).unwrap_or(written);
            let san = San::from_ascii(bare).map_err(|_| illegal())?;
            let m = san.to_move(&parent.pos).map_err(|_| illegal())?;
            let mut pos = parent.pos.clone();
            pos.play_unchecked(m);
            (Played::Move(m), pos, carry_ids(&parent.ids, &parent.pos, m))
        };
        let first_child = parent.children.is_empty();
        let node = Node {
            parent: Some(*cur),
            children: Vec::new(),
            played: Some(played),
            san: String::from_utf8_lossy(written).into_owned(),
            comments: Vec::new(),
            nags: Vec::new(),
            pos,
            ids,
            ply: parent.ply + 1,
            depth: parent.depth + u32::from(!first_child),
        };
        let id = NodeId(game.nodes.len() as u32);
        game.nodes.push(node);
        game.nodes[cur.index()].children.push(id);
        *cur = id;
        if annotated_end < token.len() {
            self.token(game, cur, &token[annotated_end..], line)?;
        }
        Ok(())
    }
}

fn syntax(message: &str, line: u64) -> GameError {
    GameError { kind: GameErrorKind::Syntax(message.to_string()), line }
}

fn start_position(game: &Game, line: u64) -> Result<Chess, GameError> {
    let Some(fen) = game.tag("FEN") else { return Ok(Chess::default()) };
    let bad = || GameError { kind: GameErrorKind::BadFen(fen.text().into_owned()), line };
    let fen = Fen::from_ascii(&fen.value).map_err(|_| bad())?;
    fen.into_position(CastlingMode::Standard)
        .or_else(|e| e.ignore_invalid_castling_rights().and_then(|p| Ok(p)))
        .map_err(|_| bad())
}

fn initial_ids(pos: &Chess) -> PieceIds {
    let mut ids = PieceIds::default();
    let mut next = 1u8;
    for sq in pos.board().occupied() {
        ids.0[sq as usize] = next;
        next = next.saturating_add(1);
    }
    ids
}

fn carry_ids(ids: &PieceIds, before: &Chess, m: Move) -> PieceIds {
    let mut out = *ids;
    match m {
        Move::Normal { from, to, .. } => {
            out.0[to as usize] = ids.0[from as usize];
            out.0[from as usize] = 0;
        }
        Move::EnPassant { from, to } => {
            out.0[to as usize] = ids.0[from as usize];
            out.0[from as usize] = 0;
            let captured = shakmaty::Square::from_coords(to.file(), from.rank());
            out.0[captured as usize] = 0;
        }
        Move::Castle { king, rook } => {
            let side = shakmaty::CastlingSide::from_queen_side(rook < king);
            let color = before.turn();
            let (k, r) = (ids.0[king as usize], ids.0[rook as usize]);
            out.0[king as usize] = 0;
            out.0[rook as usize] = 0;
            out.0[side.king_to(color) as usize] = k;
            out.0[side.rook_to(color) as usize] = r;
        }
        Move::Put { .. } => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn raw(text: &str) -> RawGame {
        RawGame { number: 7, file: Arc::from("t.pgn"), line: 1, bytes: text.as_bytes().to_vec() }
    }

    #[test]
    fn builds_tree_with_variation_comments_and_nags() {
        let mut g = Game::default();
        let r = raw("[White \"A\"]\n\n1. e4 $1 {good} (1. d4 d5) 1... e5 2. Nf3! 1-0\n");
        GameParser::new().parse(&r, &mut g, &|_| true).unwrap();
        assert_eq!(g.number, 7);
        assert_eq!(g.tag("White").unwrap().text(), "A");
        let main: Vec<_> = g.mainline().map(|n| g.node(n).san.clone()).collect();
        assert_eq!(main, ["", "e4", "e5", "Nf3"]);
        let e4 = g.node(g.node(NodeId::ROOT).children[0]);
        assert_eq!(e4.nags, vec![1]);
        assert_eq!(e4.comments, vec!["good".to_string()]);
        assert_eq!(g.node(NodeId::ROOT).children.len(), 2);
        assert_eq!(g.termination.as_deref(), Some("1-0"));
        assert_eq!(g.node(g.mainline().last().unwrap()).nags, vec![1]);
    }

    #[test]
    fn illegal_move_is_an_error_and_header_only_skips_moves() {
        let mut g = Game::default();
        let r = raw("[White \"A\"]\n\n1. e5 1-0\n");
        let e = GameParser::new().parse(&r, &mut g, &|_| true).unwrap_err();
        assert!(matches!(e.kind, GameErrorKind::IllegalMove { .. }));
        GameParser::new().parse(&r, &mut g, &|_| false).unwrap();
        assert!(g.nodes.is_empty());
    }
}
