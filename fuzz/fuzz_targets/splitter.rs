//! Fuzz the game splitter and the game parser behind it: any byte stream is cut into
//! games numbered 1, 2, 3, … whose bytes come from the input, each of which parses or
//! fails cleanly; never a panic.
#![no_main]

use std::sync::Arc;

use cqlrs::input::Splitter;
use cqlrs::pgn::{Game, GameParser};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parser = GameParser::new();
    let mut game = Game::default();
    let mut expected = 1;
    let mut total = 0;
    for item in Splitter::new(data, Arc::from("fuzz.pgn"), 1) {
        let raw = item.expect("reading from memory cannot fail");
        assert_eq!(raw.number, expected);
        expected += 1;
        total += raw.bytes.len();
        assert!(total <= data.len() + expected as usize, "games hold more bytes than the input");
        let _ = parser.parse(&raw, &mut game, &|_| true);
    }
});
