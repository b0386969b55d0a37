//! Games built in code, without PGN text: for programs that embed cqlrs and hold their
//! games in another form (a database, a GUI's move list, a generator of studies).
//!
//! Takes in: tags, a start position (the standard one or a FEN), moves in SAN, null
//! moves, comments and NAGs, and where variations branch off.
//! Gives out: a [`Game`] of the same shape the PGN reader builds — positions, piece
//! identities, plies and variation depths — ready for `Query::eval_game`.
//! Must never: accept a move that is not legal in its position (the reader's rules for
//! board-only set-ups apply, see [`Pos`]).

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Position};

use super::{
    initial_ids, moved_ids, Children, Game, GameError, GameErrorKind, MoveText, Node, NodeId, Played, Pos, Tag,
};

/// Builds a [`Game`] move by move. Moves are added after the *current* position; the
/// first move played from a position continues its line, a later one from the same
/// position starts a variation (as `(…)` does in PGN).
///
/// ```
/// use cqlrs::pgn::GameBuilder;
/// let mut b = GameBuilder::new(1);
/// b.tag("White", "Morphy").play("e4").unwrap().play("e5").unwrap();
/// b.back_to(1); // after 1.e4: a variation for Black's first move
/// b.play("c5").unwrap().comment("the Sicilian");
/// let game = b.finish(Some("1-0"));
/// assert_eq!(game.mainline().count(), 3);
/// assert_eq!(game.nodes.len(), 4);
/// ```
#[derive(Clone, Debug)]
pub struct GameBuilder {
    game: Game,
    current: NodeId,
}

impl GameBuilder {
    /// A game from the standard start position, numbered `number` (games are numbered
    /// from 1 in a scan).
    pub fn new(number: u64) -> GameBuilder {
        GameBuilder::starting_from(number, Pos::default())
    }

    /// A game from the position a FEN describes (a `[SetUp "1"]`/`[FEN]` game); the FEN
    /// tags are added. A set-up that breaks the chess rules is kept as a board-only
    /// position, as the PGN reader keeps it.
    pub fn from_fen(number: u64, fen: &str) -> Result<GameBuilder, GameError> {
        let bad = || error(GameErrorKind::BadFen(fen.to_string()));
        let parsed: Fen = fen.trim().parse().map_err(|_| bad())?;
        let pos = Pos::from_fen(parsed, CastlingMode::Standard, CastlingMode::Chess960).ok_or_else(bad)?;
        let mut builder = GameBuilder::starting_from(number, pos);
        builder.tag("SetUp", "1").tag("FEN", fen.trim());
        Ok(builder)
    }

    fn starting_from(number: u64, pos: Pos) -> GameBuilder {
        let ids = initial_ids(&pos);
        let root = Node {
            parent: None,
            children: Children::default(),
            played: None,
            san: MoveText::default(),
            comments: Vec::new(),
            nags: Vec::new(),
            check: pos.is_check(),
            pos,
            ids,
            ply: 0,
            depth: 0,
        };
        let game = Game { number, nodes: vec![root], line: 1, ..Game::default() };
        GameBuilder { game, current: NodeId::ROOT }
    }

    /// Add a tag pair (`White`, `Event`, …) in order.
    pub fn tag(&mut self, name: &str, value: &str) -> &mut GameBuilder {
        self.game.tags.push(Tag { name: name.to_string(), value: value.as_bytes().to_vec() });
        self
    }

    /// Play a move written in SAN (`Nf3`, `exd6`, `O-O`, `e8=Q+`; `--` is a null move)
    /// from the current position; the new position becomes current.
    pub fn play(&mut self, san: &str) -> Result<&mut GameBuilder, GameError> {
        let parent = self.current;
        let before = &self.game.nodes[parent.index()];
        let ply = before.ply + 1;
        let (played, pos, ids) = if san == "--" || san == "Z0" {
            (Played::Null, before.pos.null_move(), before.ids)
        } else {
            let illegal = || error(GameErrorKind::IllegalMove { san: san.to_string(), ply });
            let parsed: San = san.trim_end_matches(['+', '#', '!', '?']).parse().map_err(|_| illegal())?;
            let mv = before.pos.san_to_move(parsed).ok_or_else(illegal)?;
            let mover = before.pos.turn();
            let ids = moved_ids(&before.ids, &mv, mover);
            let mut pos = before.pos.clone();
            pos.play_unchecked(mv.clone());
            (Played::Move(mv), pos, ids)
        };
        // A second continuation from a position is a variation: one level deeper.
        let depth = before.depth + u32::from(!before.children.is_empty());
        let id = NodeId(self.game.nodes.len() as u32);
        self.game.nodes.push(Node {
            parent: Some(parent),
            children: Children::default(),
            played: Some(played),
            san: MoveText::from(san),
            comments: Vec::new(),
            nags: Vec::new(),
            check: pos.is_check(),
            pos,
            ids,
            ply,
            depth,
        });
        self.game.nodes[parent.index()].children.push(id);
        self.current = id;
        Ok(self)
    }

    /// Add a comment after the move into the current position (at the start: before the
    /// first move).
    pub fn comment(&mut self, text: &str) -> &mut GameBuilder {
        self.game.nodes[self.current.index()].comments.push(text.to_string());
        self
    }

    /// Add a numeric annotation glyph (`1` = `!`, `2` = `?`, …) to the current move.
    pub fn nag(&mut self, nag: u8) -> &mut GameBuilder {
        self.game.nodes[self.current.index()].nags.push(nag);
        self
    }

    /// Make the position after `ply` plies on the path to the current position current
    /// again (0 = the start), so that the next [`play`](GameBuilder::play) starts a
    /// variation there. A ply beyond the current one changes nothing.
    pub fn back_to(&mut self, ply: u32) -> &mut GameBuilder {
        while self.game.nodes[self.current.index()].ply > ply {
            match self.game.nodes[self.current.index()].parent {
                Some(parent) => self.current = parent,
                None => break,
            }
        }
        self
    }

    /// Play a line of SAN moves from the position `from`, which becomes current first: the
    /// first move continues `from`'s line, or starts a variation when `from` already has
    /// a continuation. Gives the new positions in order; `from` must be a position of this
    /// game (else a [`GameErrorKind::Syntax`] error).
    pub fn line(&mut self, from: NodeId, sans: &[&str]) -> Result<Vec<NodeId>, GameError> {
        if from.index() >= self.game.nodes.len() {
            return Err(error(GameErrorKind::Syntax(format!("no position {} in this game", from.index()))));
        }
        self.current = from;
        let mut out = Vec::with_capacity(sans.len());
        for san in sans {
            self.play(san)?;
            out.push(self.current);
        }
        Ok(out)
    }

    /// The game as built so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The position that is current (where the next move is played).
    pub fn current(&self) -> NodeId {
        self.current
    }

    /// The finished game, with its termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`);
    /// a `Result` tag is added from it when the game has none.
    pub fn finish(mut self, termination: Option<&str>) -> Game {
        if let Some(result) = termination {
            if self.game.tag("Result").is_none() {
                self.tag("Result", result);
            }
            self.game.termination = Some(result.to_string());
        }
        self.game
    }
}

impl super::GameParser {
    /// Read one game from the PGN text in `bytes` (tags and movetext of a single game;
    /// cut a file of many games with [`crate::input::Splitter`] first), numbered
    /// `number`, with every position replayed.
    pub fn parse_bytes(&mut self, number: u64, bytes: &[u8]) -> Result<Game, GameError> {
        let raw = crate::input::RawGame {
            number,
            file: std::sync::Arc::from("<bytes>"),
            line: 1,
            bytes: bytes.to_vec(),
            offset: 0,
            file_number: number,
        };
        let mut game = Game::default();
        self.parse(&raw, &mut game, &|_| true)?;
        Ok(game)
    }
}

/// A game built in code has no input lines: its errors say line 1.
fn error(kind: GameErrorKind) -> GameError {
    GameError { kind, line: 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::GameParser;

    /// The same game read from PGN text.
    fn read(text: &str) -> Game {
        GameParser::new().parse_bytes(1, text.as_bytes()).expect("test game parses")
    }

    fn shape(game: &Game) -> Vec<(Option<u32>, String, u32, u32, String, Vec<String>)> {
        game.nodes
            .iter()
            .map(|n| {
                let fen = Fen::from_position(&n.pos, shakmaty::EnPassantMode::Legal).to_string();
                (n.parent.map(|p| p.0), n.san.to_string(), n.ply, n.depth, fen, n.comments.clone())
            })
            .collect()
    }

    #[test]
    fn a_built_game_has_the_shape_of_the_same_game_read_from_pgn() {
        let mut b = GameBuilder::new(1);
        b.tag("White", "A").tag("Black", "B");
        b.play("e4").unwrap().play("e5").unwrap().play("Nf3").unwrap().comment("develops");
        b.back_to(1).play("c5").unwrap().play("Nf3").unwrap();
        b.back_to(0).play("d4").unwrap();
        let built = b.finish(Some("*"));
        let read = read("[White \"A\"]\n[Black \"B\"]\n\n1. e4 (1. d4) e5 (1... c5 2. Nf3) 2. Nf3 {develops} *\n");
        let mut a = shape(&built);
        let mut r = shape(&read);
        // Node order differs (the reader numbers nodes as it meets them); compare as sets
        // keyed by position and path facts.
        a.iter_mut().for_each(|n| n.0 = None);
        r.iter_mut().for_each(|n| n.0 = None);
        a.sort();
        r.sort();
        assert_eq!(a, r);
        assert_eq!(built.mainline().count(), 4);
        assert_eq!(built.termination.as_deref(), Some("*"));
    }

    #[test]
    fn piece_identities_follow_the_moves() {
        let mut b = GameBuilder::new(1);
        b.play("e4").unwrap().play("d5").unwrap().play("exd5").unwrap();
        let game = b.finish(None);
        let last = game.nodes.last().unwrap();
        let first = &game.nodes[0];
        use shakmaty::Square;
        assert_eq!(last.ids.at(Square::D5), first.ids.at(Square::E2));
        assert_eq!(last.ids.at(Square::E2), 0);
    }

    #[test]
    fn illegal_moves_and_bad_fens_are_errors() {
        let mut b = GameBuilder::new(1);
        assert!(matches!(b.play("e5").unwrap_err().kind, GameErrorKind::IllegalMove { ply: 1, .. }));
        assert!(GameBuilder::from_fen(1, "not a fen").is_err());
        let mut set_up = GameBuilder::from_fen(2, "7k/8/8/8/8/8/8/K6R w - - 0 1").unwrap();
        set_up.play("Rh1+").unwrap_err();
        set_up.play("Rb1").unwrap().play("--").unwrap();
        let game = set_up.finish(None);
        assert_eq!(game.tag("FEN").unwrap().text(), "7k/8/8/8/8/8/8/K6R w - - 0 1");
        assert!(matches!(game.nodes[2].played, Some(Played::Null)));
    }

    #[test]
    fn a_line_from_a_position_with_a_continuation_is_a_variation() {
        let mut b = GameBuilder::new(1);
        // Built in the order the PGN reader meets the moves of 1. e4 e5 (1... c5) 2. Nf3.
        let main = b.line(NodeId::ROOT, &["e4", "e5"]).unwrap();
        let side = b.line(main[0], &["c5"]).unwrap();
        let next = b.line(main[1], &["Nf3"]).unwrap();
        let read_back = read("1. e4 e5 (1... c5) 2. Nf3 *");
        assert_eq!(shape(b.game()), shape(&read_back));
        assert_eq!(b.game().nodes[side[0].index()].depth, 1);
        assert_eq!(b.game().nodes[next[0].index()].ply, 3);
        assert!(b.line(NodeId(99), &["e4"]).is_err());
    }
}
