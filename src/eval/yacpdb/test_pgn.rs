//! Test support: read a PGN text into replayed [`Game`]s with the project's own splitter and
//! game parser, so the YACPDB analyses are tested on exactly the trees the scanner builds.
//! A game the parser refuses (e.g. a diagram without kings) comes back with no nodes.

use std::io::Cursor;
use std::sync::Arc;

use crate::input::Splitter;
use crate::pgn::{Game, GameParser};

/// Split a PGN text into games and replay each one (all variations).
pub fn read_games(text: &str) -> Vec<Game> {
    let mut parser = GameParser::new();
    let splitter = Splitter::new(Cursor::new(text.as_bytes().to_vec()), Arc::from("<test>"), 1);
    let mut games = Vec::new();
    for raw in splitter {
        let Ok(raw) = raw else { break };
        let mut game = Game::default();
        if parser.parse(&raw, &mut game, &|_| true).is_err() {
            game.nodes.clear();
        }
        game.number = raw.number;
        games.push(game);
    }
    games
}
