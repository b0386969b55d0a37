//! The example scripts printed on Scidb's CQL-S help pages (CQL-Examples, CQL-Match-List,
//! CQL-Position-List), run with the release binary on small games written here; the
//! expected game numbers are worked out by hand in the comments.

use std::process::Command;

/// Run a legacy script on a PGN text; the numbers of the matching games.
fn run(script: &str, pgn: &str) -> Vec<u64> {
    let dir = std::env::temp_dir().join(format!("cqlrs-legacy-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let n = std::sync::atomic::AtomicUsize::new(0).fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tag = format!("{:x}", script.len() * 31 + pgn.len() + n);
    let (s, p) = (dir.join(format!("s{tag}.cql")), dir.join(format!("g{tag}.pgn")));
    std::fs::write(&s, script).unwrap();
    std::fs::write(&p, pgn).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cqlrs"))
        .args(["--syntax", "legacy", "--numbers", "--input"])
        .arg(&p)
        .arg(&s)
        .output()
        .expect("run cqlrs");
    assert!(matches!(out.status.code(), Some(0) | Some(1)), "{script}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).split_whitespace().filter_map(|w| w.parse().ok()).collect()
}

fn fen_game(event: &str, fen: &str, moves: &str) -> String {
    format!("[Event \"{event}\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{moves} *\n\n")
}

/// 1: three white passed pawns (a5, c5, h5); 2: only two; 3: a black pawn on b6 stops a5
/// and c5; 4: three white and two black passers (a4/b4 black pawns… on the queen side).
fn passers() -> String {
    [
        fen_game("three", "7k/8/8/P1P4P/8/8/8/K7 w - - 0 1", "1. Kb2"),
        fen_game("two", "7k/8/8/P1P5/8/8/8/K7 w - - 0 1", "1. Kb2"),
        fen_game("blocked", "7k/8/1p6/P1P4P/8/8/8/K7 w - - 0 1", "1. Kb2"),
        fen_game("both", "7k/8/8/4P1PP/pp6/8/8/4K3 w - - 0 1", "1. Kd2"),
    ]
    .concat()
}

#[test]
fn examples_page_accumulators_count_passed_pawns() {
    let white3 = "(match (position Pd2 :piececount [pP][d3-7] 0 :piececount p[c3-7,e3-7] 0 :shift \
                  :accumulate white_passer_counter :sumrange white_passer_counter 3 8))";
    // Games 1 and 4 have three white passers; game 3 has only h5.
    assert_eq!(run(white3, &passers()), vec![1, 4]);
    let black2 = "(match (position pd7 :piececount [pP][d2-6] 0 :piececount P[c2-6,e2-6] 0 :shift \
                  :accumulate black_passer_counter :sumrange black_passer_counter 2 8))";
    // Only game 4 has black passers (a4, b4).
    assert_eq!(run(black2, &passers()), vec![4]);
    let both = "(match (position :sumrange white_passer_counter 3 8 :sumrange black_passer_counter 2 8 :and (\
        (position Pd2 :piececount [pP][d3-7] 0 :piececount p[c3-7,e3-7] 0 :shift :accumulate white_passer_counter) \
        (position pd7 :piececount [pP][d2-6] 0 :piececount P[c2-6,e2-6] 0 :shift :accumulate black_passer_counter))))";
    // The page's combined list: the sub-lists define the counters the outer list reads.
    assert_eq!(run(both, &passers()), vec![4]);
    let star = "(match (position :or ((position :sumrange counter 3 8 Pd2 :piececount [pP][d3-7] 0 \
                :piececount p[c3-7,e3-7] 0 :shift :flipcolor :accumulate* counter))))";
    // At least three passers of one colour: games 1 and 4.
    assert_eq!(run(star, &passers()), vec![1, 4]);
}

#[test]
fn examples_page_tagging() {
    let pgn = [
        // A white pawn from a7 (a pawn on the 7th rank at the start) promotes.
        fen_game("excelsior", "8/P7/8/8/8/8/8/k6K w - - 0 1", "1. a8=Q"),
        // A pawn on the 5th rank promotes: not from the 2nd/7th rank.
        fen_game("short", "k7/8/8/P7/8/8/8/7K w - - 0 1", "1. a6 Kb8 2. a7 Kc7 3. a8=Q"),
        // A rook visits only two corners.
        fen_game("corners", "7k/8/8/8/8/8/8/R6K w - - 0 1", "1. Ra8+ Kh7 2. Ra1"),
    ]
    .concat();
    let excelsior = "(match :forany pawn [Pp] (position :initial :tagmatch pawn [Pp]?[27] \
                     :gappedsequence ((position :movefrom $pawn :promote U))))";
    assert_eq!(run(excelsior, &pgn), vec![1]);
    let corners = "(match :forany rook [rR] (position $rook[a1]) (position $rook[h1]) (position $rook[h8]) \
                   (position $rook[a8]))";
    assert_eq!(run(corners, &pgn), Vec::<u64>::new());
    let two_corners = "(match :forany rook [rR] (position $rook[a1]) (position $rook[a8]))";
    assert_eq!(run(two_corners, &pgn), vec![3]);
}

#[test]
fn match_list_page_cond_equals_eithercolor() {
    let pgn = "[White \"Kasparov, Garry\"]\n[Black \"X\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
[White \"X\"]\n[Black \"Kasparov, Garry\"]\n[Result \"0-1\"]\n\n1. e4 0-1\n\n\
[White \"Kasparov, Garry\"]\n[Black \"X\"]\n[Result \"0-1\"]\n\n1. e4 0-1\n";
    let cond = "(match :cond ((match :result 1-0) (match :whiteplayer \"Kasparov, Garry\") \
                (match :result 0-1) (match :blackplayer \"Kasparov, Garry\")))";
    let either = "(match :eithercolor :result 1-0 :whiteplayer \"Kasparov, Garry\")";
    // Kasparov's wins: games 1 and 2.
    assert_eq!(run(cond, pgn), vec![1, 2]);
    assert_eq!(run(either, pgn), vec![1, 2]);
    // The `:and` example: Shuffle Chess games that are not Chess960 ones.
    let shuffle = fen_game("s", "rrbqkbnn/pppppppp/8/8/8/8/PPPPPPPP/RRBQKBNN w - - 0 1", "1. e4")
        + &fen_game("960", "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1", "1. e4");
    let and = "(match :and ((match :isshufflechess) (match :ischess960 :not)))";
    assert_eq!(run(and, &shuffle), vec![1]);
    assert_eq!(run("(match :isshufflechess !:ischess960)", &shuffle), vec![1]);
}
