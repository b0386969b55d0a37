//! The reading floors as a program of their own: what pgn-reader and shakmaty alone
//! cost to read a PGN file, so that a benchmark can compare whole processes (cqlrs's
//! processor time against this program's on the same file).
//!
//! ```sh
//! cargo build --release --example floor
//! target/release/examples/floor replay games.pgn   # tags, and every main-line move replayed
//! target/release/examples/floor tags games.pgn     # tags only, the moves skipped
//! ```
//!
//! It prints the games read and those that did not replay. The file is plain PGN (the
//! benchmarks cut and decompress their corpus first). `benches/pipeline.rs` measures the
//! same two floors inside its own process.

use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// Reads each game's tags and skips its moves.
struct TagsOnly;

impl Visitor for TagsOnly {
    type Tags = ();
    type Movetext = ();
    /// Always true: nothing in the movetext is looked at.
    type Output = bool;
    fn begin_tags(&mut self) -> ControlFlow<bool, ()> {
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<bool, ()> {
        ControlFlow::Break(true)
    }
    fn end_game(&mut self, _movetext: ()) -> bool {
        true
    }
}

/// Reads each game and plays its main line on a board (from the `FEN` tag where there
/// is one); variations are skipped.
struct Replay;

impl Visitor for Replay {
    type Tags = Option<Chess>;
    type Movetext = (Chess, bool);
    /// Whether the game replayed without an illegal or unreadable move.
    type Output = bool;
    fn begin_tags(&mut self) -> ControlFlow<bool, Option<Chess>> {
        ControlFlow::Continue(None)
    }
    fn tag(&mut self, tags: &mut Option<Chess>, name: &[u8], value: RawTag<'_>) -> ControlFlow<bool> {
        if name == b"FEN" {
            let pos = Fen::from_ascii(value.as_bytes()).ok().and_then(|f| f.into_position(CastlingMode::Chess960).ok());
            match pos {
                Some(p) => *tags = Some(p),
                None => return ControlFlow::Break(false),
            }
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Option<Chess>) -> ControlFlow<bool, (Chess, bool)> {
        ControlFlow::Continue((tags.unwrap_or_default(), true))
    }
    fn san(&mut self, movetext: &mut (Chess, bool), san_plus: SanPlus) -> ControlFlow<bool> {
        match san_plus.san.to_move(&movetext.0) {
            Ok(m) => {
                movetext.0.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(_) => {
                movetext.1 = false;
                ControlFlow::Break(false)
            }
        }
    }
    fn end_game(&mut self, movetext: (Chess, bool)) -> bool {
        movetext.1
    }
}

/// Read every game of `path` with `visitor`: (games read, games that did not replay).
fn read_all<V: Visitor<Output = bool>>(visitor: &mut V, path: &str) -> std::io::Result<(u64, u64)> {
    let mut reader = Reader::new(std::fs::File::open(path)?);
    let (mut read, mut failed) = (0, 0);
    while let Some(ok) = reader.read_game(visitor)? {
        read += 1;
        failed += u64::from(!ok);
    }
    Ok((read, failed))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [mode, path] if mode == "replay" => read_all(&mut Replay, path),
        [mode, path] if mode == "tags" => read_all(&mut TagsOnly, path),
        _ => {
            eprintln!("usage: floor replay|tags FILE.pgn");
            std::process::exit(2);
        }
    };
    match result {
        Ok((read, failed)) => println!("{read} games read, {failed} not replayed"),
        Err(e) => {
            eprintln!("floor: {e}");
            std::process::exit(2);
        }
    }
}
