//! The evaluator's plan (issue 33): parts tested cheapest first, transformed piece
//! patterns tested as masks, a `find` bounded by the ply stopping early. Each test runs the
//! binary on small games whose answers are chess facts worked out by hand.

use std::path::PathBuf;

mod common;
use common::{cqlrs as run, temp_file};

/// The numbers of the games `query` matches (a CQL file body; `cql()` added when it has no
/// header).
fn numbers(pgn: &PathBuf, query: &str) -> String {
    let text = if query.starts_with("cql(") { query.to_string() } else { format!("cql() {query}") };
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (pgn, &text).hash(&mut hasher);
    let script = temp_file(&format!("q{:x}.cql", hasher.finish()), &text);
    let o = run(&["-i", pgn.to_str().unwrap(), "--numbers", script.to_str().unwrap()]);
    assert!(o.status.code() == Some(0) || o.status.code() == Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn game(fen: &str, moves: &str) -> String {
    format!("[Event \"?\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"*\"]\n\n{moves} *\n\n")
}

/// Game 1: 1. Nf7# — knight f7, king h8 boxed by its pawn h7 and the rook on the g-file.
/// Game 2: the same mate with the colours swapped and the board turned upside down
/// (1... Nf2#, king h1, pawn h2, rook g8). Game 3: a back-rank mate, no knight: not the
/// pattern. Game 4: the pattern's pieces stand there, the knight gives check, but a black
/// rook on f8 takes it (1... Rxf7): never mate.
fn corner_games() -> String {
    [
        game("7k/7p/8/6N1/8/8/8/6RK w - - 0 1", "1. Nf7#"),
        game("6rk/8/8/8/6n1/8/7P/7K b - - 0 1", "1... Nf2#"),
        game("6k1/5ppp/8/8/8/8/8/K3R3 w - - 0 1", "1. Re8#"),
        game("5r1k/5N1p/8/8/8/8/8/6RK b - - 0 1", "1... Rxf7"),
    ]
    .concat()
}

#[test]
fn a_transformed_corner_mate_is_found_in_both_colours() {
    let pgn = temp_file("corner.pgn", &corner_games());
    assert_eq!(numbers(&pgn, "mate flipcolor shift flip { Nf7 kh8 ph7 Rg1-7 }"), "1\n2\n");
    // The written order does not matter for the answer.
    assert_eq!(numbers(&pgn, "flipcolor shift flip { Nf7 kh8 ph7 Rg1-7 } mate"), "1\n2\n");
    // Without `mate` the pieces alone match in game 4 too (its first position).
    assert_eq!(numbers(&pgn, "flipcolor shift flip { Nf7 kh8 ph7 Rg1-7 }"), "1\n2\n4\n");
    // A placement denied (`not`) and the side to move, inside the transformed pattern.
    assert_eq!(numbers(&pgn, "mate flipcolor shift flip { Nf7 kh8 ph7 not Bb2 btm }"), "1\n2\n");
    assert_eq!(numbers(&pgn, "mate flipcolor shift flip { Nf7 kh8 ph7 wtm }"), "");
}

#[test]
fn a_comment_beside_the_pattern_is_written_once_at_the_mate() {
    let pgn = temp_file("corner-comment.pgn", &corner_games());
    let o =
        run(&["-i", pgn.to_str().unwrap(), "-o", "-", "-cql", "flipcolor { Nf7 kh8 ph7 } mate comment(\"corner\")"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(out.matches("corner").count(), 2, "{out}");
}

/// Main line 1. e4 e5 2. Bc4 Nc6 3. Bxf7+ (first check at ply 5); a variation
/// 1... f6 2. Qh5+ (a check at ply 3).
const CHECKS: &str = "[Event \"?\"]\n[Result \"*\"]\n\n1. e4 e5 (1... f6 2. Qh5+) 2. Bc4 Nc6 3. Bxf7+ *\n\n";

#[test]
fn a_find_bounded_by_the_ply_sees_exactly_the_positions_up_to_it() {
    let pgn = temp_file("checks.pgn", CHECKS);
    assert_eq!(numbers(&pgn, "initial find {ply <= 4 check}"), "");
    assert_eq!(numbers(&pgn, "initial find {ply <= 5 check}"), "1\n");
    assert_eq!(numbers(&pgn, "initial find {ply < 5 check}"), "");
    assert_eq!(numbers(&pgn, "initial find {ply < 6 check}"), "1\n");
    // A bound read from a variable, set where the search starts.
    assert_eq!(numbers(&pgn, "initial Start = ply find {ply <= Start + 4 check}"), "");
    assert_eq!(numbers(&pgn, "initial Start = ply find {ply <= Start + 5 check}"), "1\n");
    // With variations the search goes on into the variation after the main line's
    // positions beyond the bound.
    assert_eq!(numbers(&pgn, "cql(variations) initial find {ply <= 3 check}"), "1\n");
    assert_eq!(numbers(&pgn, "cql(variations) initial find {ply <= 2 check}"), "");
    // Counting: two checks within five plies with variations, one without.
    assert_eq!(numbers(&pgn, "cql(variations) initial find all {ply <= 5 check} == 2"), "1\n");
    assert_eq!(numbers(&pgn, "initial find all {ply <= 5 check} == 2"), "");
    assert_eq!(numbers(&pgn, "initial find all {ply <= 5 check} == 1"), "1\n");
}

#[test]
fn a_cheap_part_written_last_still_gives_the_same_matches() {
    let pgn = temp_file("order.pgn", &corner_games());
    // `mate` written after a costly search and a pattern: same games either way.
    let first = numbers(&pgn, "mate find {Nf7} flipcolor {kh8 ph7}");
    let last = numbers(&pgn, "flipcolor {kh8 ph7} find {Nf7} mate");
    // Only game 1 has a white knight on f7 (game 2's knight is black, on f2).
    assert_eq!(first, "1\n");
    assert_eq!(first, last);
}
