//! Test helpers: games built from a FEN and SAN moves (with variations), without the
//! PGN parser, and IR built by hand.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Position};

use super::moves::{ids_after, initial_ids};
use crate::pgn::{Children, Game, MoveText, Node, NodeId, Played, Pos};

/// Builds a [`Game`] node by node.
pub struct GameBuilder {
    pub game: Game,
}

impl GameBuilder {
    /// A game from the standard start (`fen` = None) or a FEN (a board-only position
    /// when the FEN is not a legal chess set-up, as the PGN reader does).
    pub fn new(fen: Option<&str>) -> GameBuilder {
        let pos = match fen {
            Some(f) => {
                let fen = Fen::from_ascii(f.as_bytes()).unwrap();
                Pos::from_fen(fen, CastlingMode::Standard, CastlingMode::Chess960).unwrap()
            }
            None => Pos::default(),
        };
        let ids = initial_ids(&pos);
        let root = Node {
            parent: None,
            children: Children::default(),
            played: None,
            san: MoveText::default(),
            comments: vec![],
            nags: vec![],
            check: pos.is_check(),
            pos,
            ids,
            ply: 0,
            depth: 0,
        };
        GameBuilder { game: Game { number: 1, nodes: vec![root], ..Game::default() } }
    }

    /// Play SAN moves (`--` = null move) from `from`; the first becomes a new child of
    /// `from` (a variation if it already has one). Returns the new nodes.
    pub fn line(&mut self, from: NodeId, sans: &[&str]) -> Vec<NodeId> {
        let mut cur = from;
        let mut out = vec![];
        for san in sans {
            let parent = &self.game.nodes[cur.index()];
            let (pos, ids, played) = if *san == "--" {
                let p = parent.pos.null_move();
                (p, parent.ids, Played::Null)
            } else {
                let m = parent.pos.san_to_move(San::from_ascii(san.as_bytes()).unwrap()).unwrap();
                let mut p = parent.pos.clone();
                let ids = ids_after(&parent.ids, &m, p.turn());
                p.play_unchecked(m);
                (p, ids, Played::Move(m))
            };
            let depth = parent.depth + u32::from(!parent.children.is_empty());
            let node = Node {
                parent: Some(cur),
                children: Children::default(),
                played: Some(played),
                san: MoveText::from(*san),
                comments: vec![],
                nags: vec![],
                check: pos.is_check(),
                pos,
                ids,
                ply: parent.ply + 1,
                depth,
            };
            let id = NodeId(self.game.nodes.len() as u32);
            self.game.nodes.push(node);
            self.game.nodes[cur.index()].children.push(id);
            out.push(id);
            cur = id;
        }
        out
    }

    /// Set a tag.
    pub fn tag(&mut self, name: &str, value: &str) -> &mut Self {
        self.game.tags.push(crate::pgn::Tag { name: name.into(), value: value.as_bytes().to_vec() });
        self
    }
}
