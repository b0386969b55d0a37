//! The evaluator's plan (issue 33), second part: a `find` passes over the positions where
//! a placement its body requires (`First ∩ SecondHome`) fails, and remembers where each
//! piece stood over the search; a piece iteration whose body needs the piece to make the
//! next move tries only the pieces that move. Each test runs the binary with one thread
//! (the remembered squares are kept from game to game by the worker) on small games whose
//! answers are chess facts worked out by hand; CQL 6.2 finds the same games.

mod common;
use common::{cqlrs as run, temp_file};

/// The numbers of the games `script` matches in `pgn` (one worker thread).
fn numbers(name: &str, pgn: &str, script: &str) -> String {
    let games = temp_file(&format!("{name}.pgn"), pgn);
    let query = temp_file(&format!("{name}.cql"), script);
    let o = run(&["--threads", "1", "-i", games.to_str().unwrap(), "--numbers", query.to_str().unwrap()]);
    assert!(o.status.code() == Some(0) || o.status.code() == Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn game(fen: Option<&str>, moves: &str) -> String {
    match fen {
        Some(fen) => format!("[Event \"?\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"*\"]\n\n{moves} *\n\n"),
        None => format!("[Event \"?\"]\n[Result \"*\"]\n\n{moves} *\n\n"),
    }
}

/// White rooks on a1 and a3 (and Black's on a8 and a6) that swap squares, or do not:
/// 1. the a1 rook goes b1–b3–a3 while the a3 rook drops to a1: swapped after 4. Rba3, at
///    ply 7, seven plies after the a1 rook's first move;
/// 2. the same but 4. Rb2: no swap;
/// 3. one waiting move more (3. Rb2 4. Rb3 5. Rba3): swapped at ply 9, inside ten plies;
/// 4. two more (5. Kf1 6. Rba3): swapped at ply 11, beyond ten plies;
/// 5. game 2's main line, with game 3's swap in a variation;
/// 6. Black's rooks a8 and a6 swap at ply 7 (Black moves first);
/// 7. an Italian opening with 4. O-O: the h1 rook moves with the king;
/// 8. both sides' knights go out and back (1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3).
fn games() -> String {
    let rooks = "4k3/8/8/8/8/R7/8/R3K3 w - - 0 1";
    [
        game(Some(rooks), "1. Rb1 Kd8 2. Raa1 Ke8 3. Rb3 Kd8 4. Rba3 Ke8"),
        game(Some(rooks), "1. Rb1 Kd8 2. Raa1 Ke8 3. Rb3 Kd8 4. Rb2 Ke8"),
        game(Some(rooks), "1. Rb1 Kd8 2. Raa1 Ke8 3. Rb2 Kd8 4. Rb3 Ke8 5. Rba3"),
        game(Some(rooks), "1. Rb1 Kd8 2. Raa1 Ke8 3. Rb2 Kd8 4. Rb3 Ke8 5. Kf1 Kd8 6. Rba3"),
        game(Some(rooks), "1. Rb1 Kd8 2. Raa1 Ke8 3. Rb3 (3. Rb2 Kd8 4. Rb3 Ke8 5. Rba3) 3... Kd8 4. Rb2"),
        game(Some("r3k3/8/r7/8/8/8/8/4K3 b - - 0 1"), "1... Rb8 2. Kd1 Raa8 3. Ke1 Rb6 4. Kd1 Rba6 5. Ke1"),
        game(None, "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6"),
        game(None, "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3"),
    ]
    .concat()
}

/// The gallery's platzwechsel: two pieces of a side swap squares within ten plies.
const SWAP: &str = "
flipcolor {
  wtm
  ◭First∊(♕∪♖∪♗∪♘)
  ◭Second∊(♕∪♖∪♗∪♘) {
    #(First ∪ Second) == 2
    FirstHome = First
    SecondHome = Second
    Start = ply
    First――
    find {ply <= Start + 10  First ∩ SecondHome  Second ∩ FirstHome}
  }
}";

#[test]
fn two_pieces_that_swap_squares_within_ten_plies_are_found() {
    assert_eq!(numbers("swap", &games(), &format!("cql() {SWAP}")), "1\n3\n6\n");
    // The search goes into the variation too with `variations`.
    assert_eq!(numbers("swap-variations", &games(), &format!("cql(variations) {SWAP}")), "1\n3\n5\n6\n");
}

#[test]
fn the_squares_remembered_for_one_search_do_not_answer_for_another_bound() {
    // The same start position and pieces, two searches with different last plies: the
    // squares gathered over the shorter one must not rule out the swap for the longer.
    let script = "cql()
wtm
◭First∊♖
◭Second∊♖ {
  #(First ∪ Second) == 2
  FirstHome = First
  SecondHome = Second
  Start = ply
  First――
  not find {ply <= Start + 6  First ∩ SecondHome  Second ∩ FirstHome}
  find {ply <= Start + 8  First ∩ SecondHome  Second ∩ FirstHome}
}";
    // Game 1 swaps at ply 7 (not within six plies of the first move, within eight), game 3
    // at ply 9 (within ten, not eight).
    assert_eq!(numbers("two-bounds", &games(), script), "1\n");
    let later = script.replace("+ 8", "+ 10").replace("+ 6", "+ 8");
    assert_eq!(numbers("two-bounds-later", &games(), &later), "3\n");
}

#[test]
fn a_counting_find_counts_every_position_where_the_placement_holds() {
    // The positions within eight plies after a White rook's or knight's first move (not
    // its first position) where it stands on its home square again. Only game 8 has any:
    // the g1 knight is back on g1 at plies 3 and 4 (after 2. Ng1 and 2... Ng8), the f3
    // knight (moving at ply 2) is back on f3 at ply 5.
    let script = "cql()
◭Mover∊(♖∪♘) {
  Home = Mover
  Start = ply
  Mover――
  Returns = find all {ply < Start + 9  ply > Start  Mover ∩ Home}
  Returns == 2
}";
    assert_eq!(numbers("count-two", &games(), script), "8\n");
    assert_eq!(numbers("count-one", &games(), &script.replace("== 2", "== 1")), "8\n");
    assert_eq!(numbers("count-three", &games(), &script.replace("== 2", "== 3")), "");
}

#[test]
fn only_the_piece_that_moves_is_tried_and_castling_moves_the_rook() {
    // A rook that makes the next move (as a dash filter sees it, castling moves the rook
    // too), with a king on the board: every game has a rook move from a White position
    // except game 6 (only Black's rooks move) and game 8 (knights only).
    let script = "cql()
wtm
◭Mover∊♖ {
  ◭Other∊(♔∪♘) {
    Mover――
    Other ∩ ♔
  }
}";
    assert_eq!(numbers("castle", &games(), script), "1\n2\n3\n4\n5\n7\n");
    // The king-view `move from` of castling leaves the rook out.
    let king_view = script.replace("Mover――", "move from Mover");
    assert_eq!(numbers("castle-king-view", &games(), &king_view), "1\n2\n3\n4\n5\n");
}

/// A White rook on e8 (its way along the back rank blocked by a knight on f8) that leaves
/// and comes back: 1. the knight goes to b6 and 3. Re8 is mate, a switchback mate; 2. the
/// same with 3. Re7, no mate; 3. the rook comes back only to be taken (5. Rxf8+ Kxf8), no
/// mate; 4. the rook mates on e8 (4. Re8#) but came from e7, not from e1: no switchback.
fn switchback_games() -> String {
    let fen = "4Rnk1/5ppp/8/8/8/8/8/6K1 w - - 0 1";
    [
        game(Some(fen), "1. Re1 Nd7 2. Kf2 Nb6 3. Re8#"),
        game(Some(fen), "1. Re1 Nd7 2. Kf2 Nb6 3. Re7"),
        game(Some(fen), "1. Re1 Nd7 2. Kf2 Nb6 3. Re2 Nd7 4. Re8+ Nf8 5. Rxf8+ Kxf8"),
        game(Some(fen), "1. Re1 Nd7 2. Kf2 Nb6 3. Re7 Nd5 4. Re8#"),
    ]
    .concat()
}

#[test]
fn a_path_that_must_end_in_mate_is_found_only_in_games_with_a_mate() {
    // The gallery's switchback: a piece leaves and mates on the square it left.
    let script = "cql()
flipcolor {
  wtm
  ◭Traveller∊(♕∪♖∪♗∪♘) {
    Home = Traveller
    ⊢◎Traveller ―― ――Home btm mate
  }
}";
    assert_eq!(numbers("switchback", &switchback_games(), script), "1\n");
    // Games 1 and 4 have a mate; game 4's is no switchback, games 2 and 3 have none.
    assert_eq!(numbers("mates", &switchback_games(), "cql() mate"), "1\n4\n");
    // Two moves of one piece, the second mating on the e-file: game 4's 3. Re7 4. Re8# too.
    let to_file = script.replace("――Home btm mate", "――e1-8 btm mate");
    assert_eq!(numbers("switchback-file", &switchback_games(), &to_file), "1\n4\n");
    // A stalemate the path must reach: none in any game.
    let stalemate = script.replace("btm mate", "btm stalemate");
    assert_eq!(numbers("switchback-stalemate", &switchback_games(), &stalemate), "");
}
