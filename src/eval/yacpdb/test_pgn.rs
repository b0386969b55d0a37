//! TEST-ONLY: a small PGN reader that builds [`Game`]s, so that the YACPDB analyses can be
//! checked against real corpora before the project's own PGN parser is merged.
//!
//! Takes in: PGN text (tags, SAN moves, RAV variations, `--`/`Z0` null moves, FEN start).
//! Gives out: replayed [`Game`]s with piece identities numbered 1..n in square order a1..h8
//! at the root, carried by moves, removed on capture; castling moves king and rook;
//! promotion keeps the identity.
//! Must never: be used outside `#[cfg(test)]` code. An illegal move ends its variation, as
//! python-chess does.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, CastlingSide, Chess, EnPassantMode, FromSetup, Move, Position, Square};

use crate::pgn::{Game, Node, NodeId, PieceIds, Played, Tag};

/// Split a PGN text into games and replay each one.
pub fn read_games(text: &str) -> Vec<Game> {
    let text = text.trim_start_matches('\u{feff}');
    let mut games = Vec::new();
    let mut builder = Builder::default();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'[' if !builder.in_movetext() => {
                let end = find_tag_end(bytes, i);
                builder.tag(&text[i + 1..end.saturating_sub(1).max(i + 1)]);
                i = end;
            }
            b'[' => {
                games.push(builder.finish(games.len() as u64 + 1));
                builder = Builder::default();
            }
            b'{' => {
                let end = text[i..].find('}').map_or(bytes.len(), |e| i + e + 1);
                i = end;
            }
            b';' => {
                let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
                i = end;
            }
            b'%' if i == 0 || bytes[i - 1] == b'\n' => {
                let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
                i = end;
            }
            b'(' => {
                builder.open();
                i += 1;
            }
            b')' => {
                builder.close();
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < bytes.len() && !b" \t\r\n(){};[".contains(&bytes[i]) {
                    i += 1;
                }
                if i == start {
                    // A stray delimiter such as an unmatched `}`: skip it.
                    i += 1;
                } else {
                    builder.token(&text[start..i]);
                }
            }
        }
    }
    if builder.started() {
        games.push(builder.finish(games.len() as u64 + 1));
    }
    games
}

/// Index one past the `]` that closes the tag starting at `start`, honouring `\"` escapes.
fn find_tag_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    let mut in_string = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b']' if !in_string => return i + 1,
            b'\n' if !in_string => return i,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

#[derive(Default)]
struct Builder {
    tags: Vec<Tag>,
    nodes: Vec<Node>,
    movetext: bool,
    /// Current node, and whether the current variation was cut by an illegal move.
    cursor: Option<(NodeId, bool)>,
    stack: Vec<(NodeId, bool)>,
    termination: Option<String>,
    unplayable: bool,
}

impl Builder {
    fn in_movetext(&self) -> bool {
        self.movetext
    }
    fn started(&self) -> bool {
        !self.tags.is_empty() || self.movetext
    }

    fn tag(&mut self, inner: &str) {
        let inner = inner.trim();
        let (name, rest) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        let rest = rest.trim();
        let quoted = rest.strip_prefix('"').map(|r| r.strip_suffix('"').unwrap_or(r)).unwrap_or(rest);
        let mut value = String::new();
        let mut chars = quoted.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                if let Some(n) = chars.next() {
                    value.push(n);
                }
            } else {
                value.push(c);
            }
        }
        self.tags.push(Tag { name: name.to_string(), value: value.into_bytes() });
    }

    fn root(&mut self) {
        if !self.nodes.is_empty() || self.unplayable {
            return;
        }
        let fen = self.tags.iter().find(|t| t.name == "FEN").map(|t| t.text().into_owned());
        let pos = match fen {
            None => Chess::default(),
            Some(f) => {
                let pos = Fen::from_ascii(f.trim().as_bytes()).ok().and_then(|f| {
                    f.into_position::<Chess>(CastlingMode::Standard)
                        .or_else(|e| e.ignore_invalid_castling_rights())
                        .or_else(|e| e.ignore_invalid_ep_square())
                        .or_else(|e| e.ignore_too_much_material())
                        .ok()
                });
                match pos {
                    Some(pos) => pos,
                    None => {
                        // A diagram shakmaty cannot hold: the game gets no nodes.
                        self.unplayable = true;
                        return;
                    }
                }
            }
        };
        let mut ids = PieceIds::default();
        let mut next = 1u8;
        for sq in Square::ALL {
            if pos.board().piece_at(sq).is_some() {
                ids.0[sq as usize] = next;
                next = next.saturating_add(1);
            }
        }
        self.nodes.push(Node {
            parent: None,
            children: Vec::new(),
            played: None,
            san: String::new(),
            comments: Vec::new(),
            nags: Vec::new(),
            pos,
            ids,
            ply: 0,
            depth: 0,
        });
        self.cursor = Some((NodeId::ROOT, false));
    }

    fn open(&mut self) {
        self.movetext = true;
        self.root();
        let Some((cur, dead)) = self.cursor else { return };
        self.stack.push((cur, dead));
        let parent = self.nodes[cur.index()].parent.unwrap_or(NodeId::ROOT);
        // A variation replaces the last move: it starts from that move's parent.
        let dead = dead || self.nodes[cur.index()].parent.is_none();
        self.cursor = Some((parent, dead));
    }

    fn close(&mut self) {
        if let Some(c) = self.stack.pop() {
            self.cursor = Some(c);
        }
    }

    fn token(&mut self, tok: &str) {
        if matches!(tok, "1-0" | "0-1" | "1/2-1/2" | "*") {
            self.termination = Some(tok.to_string());
            self.movetext = true;
            self.root();
            return;
        }
        if tok.starts_with('$') {
            return;
        }
        let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
        if tok.is_empty() {
            self.movetext = true;
            return;
        }
        self.movetext = true;
        self.root();
        let Some((cur, dead)) = self.cursor else { return };
        if dead {
            return;
        }
        let san_text = tok.trim_end_matches(['!', '?', '+', '#']);
        let parent = &self.nodes[cur.index()];
        let (played, pos, ids) = if san_text == "--" || san_text == "Z0" {
            let mut setup = parent.pos.to_setup(EnPassantMode::Legal);
            setup.turn = !setup.turn;
            setup.ep_square = None;
            let pos = Chess::from_setup(setup, CastlingMode::Standard)
                .or_else(|e| e.ignore_impossible_check())
                .unwrap_or_else(|_| parent.pos.clone());
            (Played::Null, pos, parent.ids)
        } else {
            let Ok(san) = San::from_ascii(san_text.as_bytes()) else {
                self.cursor = Some((cur, true));
                return;
            };
            let Ok(m) = san.to_move(&parent.pos) else {
                self.cursor = Some((cur, true));
                return;
            };
            let mut pos = parent.pos.clone();
            pos.play_unchecked(m);
            let ids = move_ids(&parent.ids, &m);
            (Played::Move(m), pos, ids)
        };
        let depth = self.stack.len() as u32;
        let ply = parent.ply + 1;
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            parent: Some(cur),
            children: Vec::new(),
            played: Some(played),
            san: tok.to_string(),
            comments: Vec::new(),
            nags: Vec::new(),
            pos,
            ids,
            ply,
            depth,
        });
        self.nodes[cur.index()].children.push(id);
        self.cursor = Some((id, false));
    }

    fn finish(mut self, number: u64) -> Game {
        self.root();
        Game { number, tags: self.tags, nodes: self.nodes, termination: self.termination, line: 0 }
    }
}

/// The identities after a move: the mover carries its id, a captured unit loses its id.
pub fn move_ids(ids: &PieceIds, m: &Move) -> PieceIds {
    let mut out = *ids;
    match *m {
        Move::Normal { from, to, .. } => {
            out.0[to as usize] = ids.0[from as usize];
            out.0[from as usize] = 0;
        }
        Move::EnPassant { from, to } => {
            let victim = Square::from_coords(to.file(), from.rank());
            out.0[victim as usize] = 0;
            out.0[to as usize] = ids.0[from as usize];
            out.0[from as usize] = 0;
        }
        Move::Castle { king, rook } => {
            let side = if rook.file() > king.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let king_to = Square::from_coords(side.king_to_file(), king.rank());
            let rook_to = Square::from_coords(side.rook_to_file(), king.rank());
            let (k, r) = (ids.0[king as usize], ids.0[rook as usize]);
            out.0[king as usize] = 0;
            out.0[rook as usize] = 0;
            out.0[king_to as usize] = k;
            out.0[rook_to as usize] = r;
        }
        Move::Put { .. } => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_moves_and_variations() {
        let games = read_games("[Event \"a \\\"b\\\"\"]\n\n1. e4 (1. d4 d5) e5 2. Nf3 *\n\n[Event \"x\"]\n*\n");
        assert_eq!(games.len(), 2);
        let g = &games[0];
        assert_eq!(g.tag("Event").map(|t| t.text().into_owned()), Some("a \"b\"".to_string()));
        assert_eq!(g.nodes[0].children.len(), 2);
        assert_eq!(g.mainline().count(), 4);
        assert!(games[1].nodes[0].children.is_empty());
    }

    #[test]
    fn castling_moves_both_ids() {
        let games = read_games("[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n1. O-O *");
        let g = &games[0];
        let end = g.node(NodeId(1));
        let root = g.node(NodeId::ROOT);
        assert_eq!(end.ids.at(Square::G1), root.ids.at(Square::E1));
        assert_eq!(end.ids.at(Square::F1), root.ids.at(Square::H1));
    }
}
