//! Fuzz the PGN game parser: any bytes handed over as one game either give a game tree
//! (replayed with legal moves) or a game error; never a panic.
#![no_main]

use std::sync::Arc;

use cqlrs::input::RawGame;
use cqlrs::pgn::{Game, GameParser};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let raw = RawGame { number: 1, file: Arc::from("fuzz.pgn"), line: 1, bytes: data.to_vec(), ..RawGame::default() };
    let mut parser = GameParser::new();
    let mut game = Game::default();
    // Once with the tags only, once replaying the moves, as the scan does.
    let _ = parser.parse(&raw, &mut game, &|_| false);
    if parser.parse(&raw, &mut game, &|_| true).is_ok() {
        assert!(game.mainline().count() <= game.nodes.len().max(1));
    }
});
