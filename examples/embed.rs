//! Embedding cqlrs in a program: compile a query once, then run it on games built in code
//! and on games read from PGN bytes held in memory — no files, no command line.
//!
//! Run it with `cargo run --example embed`; `tests/embedding.rs` runs it too and checks
//! what it finds.

use std::io::BufReader;
use std::sync::Arc;

use cqlrs::eval::Scratch;
use cqlrs::input::Splitter;
use cqlrs::pgn::{GameBuilder, GameParser};
use cqlrs::{CompileOptions, Query};

/// The games of this example that end in mate, by name, and the ply of the mate.
pub fn mates_found() -> Vec<(String, u32)> {
    // One compile, shared by every game (a `Query` is immutable and `Sync`; give each
    // thread its own `Scratch`).
    let query = Query::compile("cql() mate", &mut CompileOptions::default()).expect("the query compiles");
    let mut scratch = Scratch::default();
    let mut found = Vec::new();

    // 1. A game built move by move: the fool's mate.
    let mut builder = GameBuilder::new(1);
    builder.tag("Event", "fool's mate");
    for san in ["f3", "e5", "g4", "Qh4#"] {
        builder.play(san).expect("a legal move");
    }
    let fools_mate = builder.finish(Some("0-1"));

    // 2. Games read from PGN text in memory: cut into games, then read each.
    let pgn = "[Event \"scholar's mate\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n\
               [Event \"no mate\"]\n\n1. d4 d5 2. c4 *\n";
    let mut parser = GameParser::new();
    let mut games = vec![fools_mate];
    for raw in Splitter::new(BufReader::new(pgn.as_bytes()), Arc::from("memory"), 2) {
        let raw = raw.expect("reading memory cannot fail");
        games.push(parser.parse_bytes(raw.number, &raw.bytes).expect("a well-formed game"));
    }

    for game in &games {
        let result = query.eval_game(&mut scratch, game);
        if result.matched {
            let name = game.tag("Event").map(|t| t.text().into_owned()).unwrap_or_default();
            let ply = result.positions.iter().map(|&p| game.node(p).ply).max().unwrap_or(0);
            found.push((name, ply));
        }
    }
    found
}

#[allow(dead_code)]
fn main() {
    for (name, ply) in mates_found() {
        println!("{name}: mate at ply {ply}");
    }
}

/// The example finds the two mates, at the plies they happen (`cargo test` runs this: the
/// example is built as a test target, see `Cargo.toml`).
#[test]
fn the_example_finds_both_mates() {
    assert_eq!(mates_found(), vec![("fool's mate".to_string(), 4), ("scholar's mate".to_string(), 7)]);
}
