//! Position-level output: one record per matching position (`--positions`, `--epd`).
//!
//! Takes in: a replayed [`Game`], its [`GameMatch`] and the [`RawGame`] it was cut from.
//! Gives out: for every matching position, in game-tree order, either a JSON object
//! (`"record": "position"`: the game's locator, the position's ply, move number, side to
//! move, the SAN of the move that led there, its FEN, the variations entered on the way
//! from the start, and the query's comments there) or one EPD line with the locator in its `id`
//! opcode (see docs/output.md).
//! Must never: write anywhere but the buffer it is given, or fail on a board-only
//! (lenient) position: every position has a FEN.

use shakmaty::fen::{Epd, Fen};
use shakmaty::san::SanPlus;
use shakmaty::{Color, EnPassantMode, Position};

use crate::eval::GameMatch;
use crate::input::RawGame;
use crate::pgn::{Game, NodeId, Played};

/// The continuation taken at each step from the start position to `id`: 0 is the main
/// continuation, 1 the first variation, … (empty for the start position). Replaying
/// the game along this path reaches the position.
pub fn path_to(game: &Game, id: NodeId) -> Vec<u32> {
    let mut path = Vec::new();
    let mut cur = id;
    while let Some(parent) = game.nodes.get(cur.index()).and_then(|n| n.parent) {
        let index = game.node(parent).children.iter().position(|&c| c == cur).unwrap_or(0);
        path.push(index as u32);
        cur = parent;
    }
    path.reverse();
    path
}

/// For every node of `game`, the node where its line left the main continuation last:
/// itself when it is a variation's first move (not its parent's first child), else its
/// parent's entry; the start position's entry is the start position. Made once per game
/// (a node's parent always comes before it), so that [`branches_to`] takes a step per
/// variation entered rather than per ply.
pub fn branch_heads(game: &Game) -> Vec<u32> {
    let mut heads: Vec<u32> = Vec::with_capacity(game.nodes.len());
    for (i, node) in game.nodes.iter().enumerate() {
        let head = match node.parent {
            None => i as u32,
            Some(parent) if game.node(parent).children.first() != Some(&NodeId(i as u32)) => i as u32,
            Some(parent) => heads.get(parent.index()).copied().unwrap_or(0),
        };
        heads.push(head);
    }
    heads
}

/// The variations entered on the way from the start position to `id`, as `(ply, k)`
/// pairs in order: the move into ply `ply` was continuation `k` (1 the first variation, …);
/// every other move on the way is the main continuation. Empty on the main line. Its
/// length is the number of variations entered, so writing it for every position of a
/// long game takes time and room in proportion to the game, not to its square.
/// `heads` is [`branch_heads`] of `game`.
pub fn branches_to(game: &Game, heads: &[u32], id: NodeId) -> Vec<(u32, u32)> {
    let mut branches = Vec::new();
    let mut cur = id;
    loop {
        let head = NodeId(heads.get(cur.index()).copied().unwrap_or(0));
        let Some(parent) = game.nodes.get(head.index()).and_then(|n| n.parent) else { break };
        let k = game.node(parent).children.iter().position(|&c| c == head).unwrap_or(0);
        branches.push((game.node(head).ply, k as u32));
        cur = parent;
    }
    branches.reverse();
    branches
}

/// The SAN (with `+` or `#`) of the move that led to `id`, as shakmaty writes it; `--`
/// for a null move; the text of the input for a move in a board-only position; `None`
/// at the start position.
pub fn san_into(game: &Game, id: NodeId) -> Option<String> {
    let node = game.nodes.get(id.index())?;
    let parent = game.nodes.get(node.parent?.index())?;
    Some(match (&node.played, parent.pos.as_chess()) {
        (Some(Played::Move(m)), Some(before)) => SanPlus::from_move(before.clone(), m.clone()).to_string(),
        (Some(Played::Null), _) => "--".to_string(),
        _ => node.san.to_string(),
    })
}

/// The FEN of the position at `id` (en passant square only when a capture there is
/// legal, as shakmaty's `EnPassantMode::Legal` gives it).
pub fn fen_at(game: &Game, id: NodeId) -> String {
    Fen::from_position(&game.node(id).pos, EnPassantMode::Legal).to_string()
}

/// The `--positions` record of every matching position of `game`, one JSON object per
/// line, appended to `out`.
pub fn write_positions(game: &Game, m: &GameMatch, raw: &RawGame, out: &mut Vec<u8>) {
    use serde_json::{json, Value};
    let heads = if m.positions.is_empty() { Vec::new() } else { branch_heads(game) };
    for &id in &m.positions {
        let Some(node) = game.nodes.get(id.index()) else { continue };
        let comments: Vec<Value> =
            m.comments.iter().filter(|(at, _)| *at == id).map(|(_, text)| Value::String(text.clone())).collect();
        let record = json!({
            "record": "position",
            "number": game.number,
            "file": &*raw.file,
            "offset": raw.offset,
            "length": raw.bytes.len(),
            "file_number": raw.file_number,
            "ply": node.ply,
            "move_number": node.pos.fullmoves().get(),
            "side": side_name(node.pos.turn()),
            "san": san_into(game, id),
            "fen": fen_at(game, id),
            "branches": branches_to(game, &heads, id),
            "mainline": node.is_mainline(),
            "comments": comments,
        });
        out.extend_from_slice(record.to_string().as_bytes());
        out.push(b'\n');
    }
}

/// The `--epd` line of every matching position of `game`, appended to `out`: the four
/// EPD fields, then `id "FILE@OFFSET"` (what `--extract` takes), `c0 "game N ply P"` and,
/// off the main line, `c1 "branches P:K …"` with the variations of [`branches_to`].
pub fn write_epd(game: &Game, m: &GameMatch, raw: &RawGame, out: &mut Vec<u8>) {
    let mut heads: Option<Vec<u32>> = None;
    for &id in &m.positions {
        let Some(node) = game.nodes.get(id.index()) else { continue };
        let epd = Epd::from_position(&node.pos, EnPassantMode::Legal);
        let file = epd_string(&raw.file);
        let mut line = format!("{epd} id \"{file}@{}\"; c0 \"game {} ply {}\";", raw.offset, game.number, node.ply);
        if !node.is_mainline() {
            let heads = heads.get_or_insert_with(|| branch_heads(game));
            let branches: Vec<String> =
                branches_to(game, heads, id).iter().map(|(ply, k)| format!("{ply}:{k}")).collect();
            line.push_str(&format!(" c1 \"branches {}\";", branches.join(" ")));
        }
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    }
}

/// `white` or `black`.
fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Text safe inside an EPD string operand: no quotation marks, no line breaks, no
/// semicolons (which end an operation).
fn epd_string(text: &str) -> String {
    text.chars().map(|c| if matches!(c, '"' | ';') || c.is_control() { '_' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn game_of(pgn: &str) -> (Game, RawGame) {
        let raw = RawGame {
            number: 7,
            file: Arc::from("g.pgn"),
            line: 1,
            bytes: pgn.as_bytes().to_vec(),
            offset: 120,
            file_number: 3,
        };
        let mut game = Game::default();
        crate::pgn::GameParser::new().parse(&raw, &mut game, &|_| true).expect("a legal game");
        (game, raw)
    }

    #[test]
    fn records_give_the_position_the_move_and_the_path() {
        let (game, raw) = game_of("[Event \"x\"]\n\n1. e4 e5 (1... c5 2. Nf3) 2. Qh5 *\n");
        // Nodes: the start, e4, e5, c5, Nf3 (in the variation), Qh5.
        let c5 = game.nodes.iter().position(|n| n.san.starts_with("c5")).map(|i| NodeId(i as u32)).unwrap();
        let nf3 = game.node(c5).children[0];
        let m = GameMatch {
            matched: true,
            positions: vec![NodeId::ROOT, nf3],
            comments: vec![(nf3, "Sicilian".into())],
            ..Default::default()
        };
        let mut out = Vec::new();
        write_positions(&game, &m, &raw, &mut out);
        let lines: Vec<serde_json::Value> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["ply"], 0);
        assert_eq!(lines[0]["san"], serde_json::Value::Null);
        assert_eq!(lines[0]["side"], "white");
        assert_eq!(lines[0]["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(lines[1]["ply"], 3);
        assert_eq!(lines[1]["san"], "Nf3");
        assert_eq!(lines[1]["side"], "black");
        assert_eq!(lines[1]["move_number"], 2);
        assert_eq!(lines[1]["branches"], serde_json::json!([[2, 1]]));
        assert_eq!(lines[0]["branches"], serde_json::json!([]));
        // The branches are the path's non-zero steps.
        let heads = branch_heads(&game);
        for id in (0..game.nodes.len()).map(|i| NodeId(i as u32)) {
            let path = path_to(&game, id);
            let steps: Vec<(u32, u32)> =
                path.iter().enumerate().filter(|(_, &k)| k != 0).map(|(i, &k)| (i as u32 + 1, k)).collect();
            assert_eq!(branches_to(&game, &heads, id), steps);
        }
        assert_eq!(lines[1]["mainline"], false);
        assert_eq!(lines[1]["comments"], serde_json::json!(["Sicilian"]));
        assert_eq!(lines[1]["offset"], 120);
        assert_eq!(lines[1]["fen"], "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    }

    #[test]
    fn epd_lines_carry_the_locator() {
        let (game, raw) = game_of("[Event \"x\"]\n\n1. e4 e5 (1... c5) 2. Qh5 *\n");
        let c5 = game.nodes.iter().position(|n| n.san.starts_with("c5")).map(|i| NodeId(i as u32)).unwrap();
        let last = game.mainline().last().unwrap();
        let m = GameMatch { matched: true, positions: vec![c5, last], ..Default::default() };
        let mut out = Vec::new();
        write_epd(&game, &m, &raw, &mut out);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id \"g.pgn@120\"; c0 \"game 7 ply 2\"; \
             c1 \"branches 2:1\";"
        );
        assert!(lines[1].starts_with("rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - id"), "{}", lines[1]);
        assert!(!lines[1].contains("c1"));
        assert_eq!(epd_string("a\"b;c\n"), "a_b_c_");
    }
}
