//! `--positions` and `--epd` records round-trip: for every matching position of many
//! bundled games (main lines and variations), the record's FEN is the position reached
//! by replaying the game's own moves — read back from the input bytes the record points
//! at, with a tokenizer of this test and shakmaty, not with cqlrs's game model — along
//! the path the record's `branches` give (the variations entered, every other move the
//! main one).

use std::collections::HashMap;
use std::process::Command;

use shakmaty::fen::{Epd, Fen};
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

const BIN: &str = env!("CARGO_BIN_EXE_cqlrs");

/// A move tree read from PGN movetext: node 0 is the start; each node's first child is
/// the main continuation.
struct Tree {
    san: Vec<String>,
    children: Vec<Vec<usize>>,
}

/// The tags and the move tree of one PGN game, read with a tokenizer of its own.
fn read_game(text: &str) -> (HashMap<String, String>, Tree) {
    let mut tags = HashMap::new();
    let mut movetext = String::new();
    let mut in_tags = true;
    for line in text.lines() {
        let t = line.trim();
        if in_tags && t.starts_with('[') {
            if let Some((name, rest)) = t[1..].split_once(' ') {
                let value = rest.trim_end_matches(']').trim().trim_matches('"');
                tags.insert(name.to_string(), value.to_string());
            }
            continue;
        }
        in_tags = false;
        movetext.push_str(line);
        movetext.push('\n');
    }
    let mut tree = Tree { san: vec![String::new()], children: vec![Vec::new()] };
    let mut parent = vec![0usize];
    let mut cur = 0usize;
    let mut stack = Vec::new();
    let chars: Vec<char> = movetext.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '{' => {
                while i < chars.len() && chars[i] != '}' {
                    i += 1;
                }
                i += 1;
            }
            ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                stack.push(cur);
                cur = parent[cur];
                i += 1;
            }
            ')' => {
                cur = stack.pop().unwrap_or(cur);
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < chars.len() && !chars[i].is_whitespace() && !"(){};".contains(chars[i]) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let word = word.trim_start_matches(|c: char| c.is_ascii_digit());
                let word = word.trim_start_matches('.').trim_end_matches(['!', '?']);
                if word.is_empty() || word.starts_with('$') || ["1-0", "0-1", "1/2-1/2", "*"].contains(&word) {
                    continue;
                }
                tree.san.push(word.to_string());
                tree.children.push(Vec::new());
                parent.push(cur);
                let id = tree.san.len() - 1;
                tree.children[cur].push(id);
                cur = id;
            }
        }
    }
    (tags, tree)
}

/// The start position of a game: its FEN tag or the standard one.
fn start_position(tags: &HashMap<String, String>) -> Option<Chess> {
    match tags.get("FEN") {
        None => Some(Chess::default()),
        Some(fen) => {
            let fen: Fen = fen.parse().ok()?;
            fen.clone()
                .into_position(CastlingMode::Standard)
                .or_else(|_| fen.into_position(CastlingMode::Chess960))
                .ok()
        }
    }
}

/// Replay `path` through the tree from `start`; the position reached and the move into
/// it. `None` when a move cannot be replayed by shakmaty (a null move).
fn replay(tree: &Tree, start: Chess, path: &[u64]) -> Option<(Chess, Option<String>)> {
    let mut pos = start;
    let mut node = 0usize;
    let mut last = None;
    for &k in path {
        node = *tree.children[node].get(k as usize)?;
        let san: San = tree.san[node].parse().ok()?;
        let m = san.to_move(&pos).ok()?;
        last = Some(SanPlus::from_move(pos.clone(), m.clone()).to_string());
        pos.play_unchecked(m);
    }
    Some((pos, last))
}

/// Run cqlrs and give its standard output.
fn run(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().expect("cqlrs runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn every_position_record_is_the_position_its_path_reaches() {
    let inputs = [
        ("data/gallery/pychess-studies-and-puzzles.pgn", "1-1319"),
        ("data/lichess-2017-05-sample.pgn", "1-300"),
        ("data/lichess-2016-05-first1500.pgn", "1-300"),
    ];
    let mut files: HashMap<String, Vec<u8>> = HashMap::new();
    let (mut checked, mut in_variations, mut unreplayable) = (0u64, 0u64, 0u64);
    for (input, games) in inputs {
        let text = run(&["-cql", "cql(variations) wtm or btm", "-i", input, "--gamenumber", games, "--positions"]);
        for line in text.lines() {
            let r: serde_json::Value = serde_json::from_str(line).expect("a JSON record");
            assert_eq!(r["record"], "position");
            let file = r["file"].as_str().unwrap().to_string();
            let bytes = files.entry(file.clone()).or_insert_with(|| std::fs::read(&file).unwrap());
            let (offset, length) = (r["offset"].as_u64().unwrap() as usize, r["length"].as_u64().unwrap() as usize);
            let game = String::from_utf8_lossy(&bytes[offset..offset + length]).into_owned();
            let (tags, tree) = read_game(&game);
            // The path from the start: the main continuation at every ply but the
            // variations the record's branches name (`[ply, k]`: the move into `ply` was
            // continuation `k`).
            let mut path = vec![0u64; r["ply"].as_u64().unwrap() as usize];
            for b in r["branches"].as_array().unwrap() {
                let (ply, k) = (b[0].as_u64().unwrap() as usize, b[1].as_u64().unwrap());
                assert!(ply >= 1 && ply <= path.len() && k > 0, "{line}");
                path[ply - 1] = k;
            }
            let Some(start) = start_position(&tags) else {
                unreplayable += 1;
                continue;
            };
            let Some((pos, san)) = replay(&tree, start, &path) else {
                unreplayable += 1;
                continue;
            };
            let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
            assert_eq!(r["fen"].as_str().unwrap(), fen, "game at {file}@{offset}, path {path:?}");
            assert_eq!(r["san"].as_str().map(str::to_string), san, "{line}");
            let side = if pos.turn().is_white() { "white" } else { "black" };
            assert_eq!(r["side"], side);
            assert_eq!(r["move_number"].as_u64().unwrap(), u64::from(pos.fullmoves().get()));
            assert_eq!(r["mainline"].as_bool().unwrap(), path.iter().all(|&k| k == 0));
            checked += 1;
            in_variations += u64::from(path.iter().any(|&k| k > 0));
        }
    }
    // The bundled puzzles and studies have many variations; nearly every record replays.
    eprintln!("{checked} records checked, {in_variations} in variations, {unreplayable} not replayable");
    assert!(checked > 30_000, "only {checked} records checked");
    assert!(in_variations > 500, "only {in_variations} records in variations");
    assert!(unreplayable * 100 < checked, "{unreplayable} records could not be replayed");
}

#[test]
fn epd_lines_match_the_position_records() {
    let args = ["-cql", "cql(variations) check", "-i", "data/gallery/pychess-studies-and-puzzles.pgn"];
    let positions = run(&[&args[..], &["--positions"]].concat());
    let epd = run(&[&args[..], &["--epd"]].concat());
    let records: Vec<serde_json::Value> = positions.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let lines: Vec<&str> = epd.lines().collect();
    assert_eq!(records.len(), lines.len());
    assert!(records.len() > 1_000);
    for (r, line) in records.iter().zip(&lines) {
        let fen: Fen = r["fen"].as_str().unwrap().parse().unwrap();
        let epd = Epd::from_fen(fen).to_string();
        assert!(line.starts_with(&format!("{epd} id \"")), "{line} vs {epd}");
        let locator = format!("id \"{}@{}\";", r["file"].as_str().unwrap(), r["offset"]);
        assert!(line.contains(&locator), "{line}");
        assert!(line.contains(&format!("c0 \"game {} ply {}\";", r["number"], r["ply"])), "{line}");
        assert_eq!(line.contains(" c1 \"branches "), !r["mainline"].as_bool().unwrap(), "{line}");
    }
}

#[test]
fn records_carry_the_comments_the_query_wrote() {
    let text = run(&[
        "-cql",
        "mate comment(\"mate here\")",
        "-i",
        "data/lichess-2016-05-first1500.pgn",
        "--limit",
        "5",
        "--positions",
    ]);
    let records: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 5);
    for r in &records {
        assert_eq!(r["comments"], serde_json::json!(["mate here"]));
        assert!(r["san"].as_str().unwrap().ends_with('#'), "{r}");
    }
}
