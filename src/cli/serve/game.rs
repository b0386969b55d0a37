//! One matching game as the page's board shows it: every position with its FEN, the move
//! that led there, CQL's comments and whether the query matched it, and the movetext as
//! a list of pieces (move numbers, moves, comments, variations) in PGN order.
//!
//! Takes in: a matching game's bytes as `-o` writes them (with CQL's comments) and the
//! plies the query matched (the `plies` of its `--json-pgn` line).
//! Gives out: JSON for the page.
//! Must never: fail on a game the scan wrote (a game that cannot be read again is an
//! error message, not a crash), or nest deeper than [`MAX_VARIATION_DEPTH`].

use std::sync::Arc;

use serde_json::{json, Value};
use shakmaty::{File, Move, Square};

use crate::input::RawGame;
use crate::pgn::{Game, GameParser, NodeId, Played};

/// Variations nested deeper than this are shown as `(…)`.
pub const MAX_VARIATION_DEPTH: usize = 40;

/// The squares a move is drawn from and to (castling: the king's).
fn squares(m: &Move) -> (Option<Square>, Square) {
    match m {
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() { File::G } else { File::C };
            (Some(*king), Square::from_coords(file, king.rank()))
        }
        _ => (m.from(), m.to()),
    }
}

/// The sign of a numeric annotation glyph (`$1` is `!`), or `$n`.
fn nag_text(nag: u8) -> String {
    match nag {
        1 => "!".into(),
        2 => "?".into(),
        3 => "!!".into(),
        4 => "??".into(),
        5 => "!?".into(),
        6 => "?!".into(),
        n => format!("${n}"),
    }
}

/// The page's view of game `number` whose output bytes are `pgn`, with the positions at
/// `plies` marked.
pub fn view(number: u64, pgn: &[u8], plies: &[u32]) -> Result<Value, String> {
    let raw =
        RawGame { number, file: Arc::from("match"), line: 1, bytes: pgn.to_vec(), offset: 0, file_number: number };
    let mut game = Game::default();
    GameParser::new().parse(&raw, &mut game, &|_| true).map_err(|e| format!("game {number} cannot be shown: {e}"))?;
    if game.nodes.is_empty() {
        return Err(format!("game {number} has no positions to show"));
    }
    let fens: Vec<String> =
        (0..game.nodes.len()).map(|i| crate::output::positions::fen_at(&game, NodeId(i as u32))).collect();
    let nodes: Vec<Value> = game
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (from, to) = match &n.played {
                Some(Played::Move(m)) => {
                    let (f, t) = squares(m);
                    (f.map(|s| s.to_string()), Some(t.to_string()))
                }
                _ => (None, None),
            };
            json!({
                "parent": n.parent.map(|p| p.0),
                "main": n.children.first().map(|c| c.0),
                "san": n.san.as_str(),
                "ply": n.ply,
                "depth": n.depth,
                "fen": fens[i],
                "from": from,
                "to": to,
                "comments": n.comments,
                "marked": plies.contains(&n.ply),
            })
        })
        .collect();
    let mut tokens = Vec::new();
    for c in &game.nodes[0].comments {
        tokens.push(json!({ "k": "comment", "t": c }));
    }
    line(&game, &fens, NodeId::ROOT, true, 0, &mut tokens);
    if let Some(t) = &game.termination {
        tokens.push(json!({ "k": "result", "t": t }));
    }
    let tags: Vec<Value> = game.tags.iter().map(|t| json!([t.name, t.text()])).collect();
    let last = game.mainline().last().map_or(0, |n| n.0);
    Ok(json!({ "number": number, "tags": tags, "nodes": nodes, "tokens": tokens, "last": last }))
}

/// The move number to write before the move out of `parent`: `12.` before White's,
/// `12...` before Black's when `always` (at the start of a line, after a comment or a
/// variation), else nothing.
fn number_before(fen: &str, always: bool) -> Option<String> {
    let fields: Vec<&str> = fen.split(' ').collect();
    let full = fields.get(5).copied().unwrap_or("1");
    match fields.get(1).copied() {
        Some("b") if always => Some(format!("{full}...")),
        Some("b") => None,
        _ => Some(format!("{full}.")),
    }
}

/// The movetext from `start` on (its main continuation, with the variations at each move).
fn line(game: &Game, fens: &[String], start: NodeId, mut numbered: bool, depth: usize, out: &mut Vec<Value>) {
    let mut at = start;
    loop {
        let children: Vec<NodeId> = game.node(at).children.iter().copied().collect();
        let Some(&main) = children.first() else { break };
        numbered = one_move(game, fens, at, main, numbered, out);
        for &alt in &children[1..] {
            out.push(json!({ "k": "open" }));
            if depth >= MAX_VARIATION_DEPTH {
                out.push(json!({ "k": "comment", "t": "…" }));
            } else {
                let after = one_move(game, fens, at, alt, true, out);
                line(game, fens, alt, after, depth + 1, out);
            }
            out.push(json!({ "k": "close" }));
            numbered = true;
        }
        at = main;
    }
}

/// One move (from `parent` into `node`) with its number, glyphs and comments; gives
/// whether the next move needs its number written.
fn one_move(game: &Game, fens: &[String], parent: NodeId, node: NodeId, numbered: bool, out: &mut Vec<Value>) -> bool {
    if let Some(n) = number_before(&fens[parent.index()], numbered) {
        out.push(json!({ "k": "num", "t": n }));
    }
    let n = game.node(node);
    let glyphs: String = n.nags.iter().map(|&g| nag_text(g)).collect();
    out.push(json!({ "k": "move", "t": format!("{}{glyphs}", n.san.as_str()), "n": node.0 }));
    for c in &n.comments {
        out.push(json!({ "k": "comment", "t": c }));
    }
    !n.comments.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &[u8] = b"[Event \"t\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n{Game number 3} 1. e4 e5 (1... c5 {Sicilian} 2. Nf3) 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# {CQL} 1-0\n";

    #[test]
    fn a_game_is_shown_with_its_marks_numbers_and_variations() {
        let v = view(3, GAME, &[7]).unwrap();
        let nodes = v["nodes"].as_array().unwrap();
        let mate = &nodes[v["last"].as_u64().unwrap() as usize];
        assert_eq!(mate["san"], "Qxf7#");
        assert_eq!(mate["marked"], true);
        assert_eq!(mate["from"], "h5");
        assert_eq!(mate["to"], "f7");
        assert!(mate["fen"].as_str().unwrap().starts_with("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b"));
        assert_eq!(mate["comments"][0], "CQL");
        let text: Vec<String> = v["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| match t["k"].as_str().unwrap() {
                "open" => "(".to_string(),
                "close" => ")".to_string(),
                "comment" => format!("{{{}}}", t["t"].as_str().unwrap()),
                _ => t["t"].as_str().unwrap().to_string(),
            })
            .collect();
        assert_eq!(
            text.join(" "),
            "{Game number 3} 1. e4 e5 ( 1... c5 {Sicilian} 2. Nf3 ) 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# {CQL} 1-0"
        );
    }

    #[test]
    fn a_damaged_game_is_shown_as_far_as_it_reads() {
        // No moves at all: the start position alone.
        let empty = view(1, b"", &[]).unwrap();
        assert_eq!(empty["nodes"].as_array().unwrap().len(), 1);
        // Read up to the move that cannot be played, as the scan reads it.
        let shown = view(1, b"[Event \"x\"]\n\n1. e4 Ke7 2. Zz9 *\n", &[]).unwrap();
        assert_eq!(shown["nodes"].as_array().unwrap().len(), 2);
    }
}
