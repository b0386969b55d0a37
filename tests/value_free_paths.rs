//! Comparisons the evaluator answers without building values (issue 33): numbers, names of
//! pieces, sets at other positions, counts. Each query runs the binary on the scholar's mate;
//! every expected answer is a chess fact of that game, and each was also checked with CQL
//! 6.2 (`cql -s`) on the same game, including the corners where CQL 6.2's reading is not the
//! obvious one (an empty square is named `_`, a captured piece counts 0, `!=` is `not ==`).

mod common;
use common::{cqlrs as run, matches_scholars_mate as matches, temp_file, SCHOLARS_MATE};

#[test]
fn piece_and_type_names_are_compared_where_they_stand() {
    assert!(matches(r#"initial piecename e1 == "K""#));
    assert!(!matches(r#"initial piecename e8 == "K""#), "Black's king is `k`");
    assert!(matches(r#"initial typename e8 == "K""#), "a type has no colour");
    // d1 is the mirror of e1 across the middle of the board: the white queen.
    assert!(matches(r#"initial piecename makesquare(8 - file e1 + 1 rank e1) == "Q""#));
    // An empty square is named `_` by both (CQL 6.2 `piece_to_char`).
    assert!(matches(r#"initial piecename e4 == "_""#));
    assert!(matches(r#"initial typename e4 == "_""#));
    assert!(!matches(r#"initial piecename e4 == "empty""#));
    // Names at the position before the mate: the black pawn still on f7.
    assert!(matches(r#"mate parent:piecename f7 == "p""#));
    assert!(matches(r#"mate piecename f7 == "Q""#));
    assert!(!matches(r#"mate parent:piecename f7 == "Q""#));
}

#[test]
fn numbers_here_and_at_other_positions() {
    assert!(matches("mate ply == 7"));
    assert!(matches("mate ply == parent:ply + 1"));
    assert!(matches("mate sidetomove == -1"), "Black is mated, so Black is to move");
    assert!(!matches("mate sidetomove == parent:sidetomove"));
    assert!(matches("mate #(parent:♟) == 8"));
    assert!(matches("mate #♟ + 1 == parent:#♟"), "the mate took a pawn");
    assert!(matches("mate abs(file f7 - file d1) == 2"));
}

#[test]
fn a_captured_piece_compared_with_a_number_counts_zero() {
    // The f7 pawn is gone after 4.Qxf7#: as a number it counts 0 (CQL 6.2 compares a set
    // with a number through its count), and the comparison matches.
    assert!(matches("initial piece Pawn = f7 find {mate Pawn == 0}"));
    assert!(matches("initial piece Pawn = f7 find {mate 0 == Pawn}"));
    assert!(!matches("initial piece Pawn = f7 find {mate Pawn == 1}"));
    assert!(matches("initial piece Pawn = f7 find {mate Pawn != 1}"));
    assert!(!matches("initial piece Pawn = f7 find {mate Pawn != 0}"));
}

#[test]
fn not_equal_holds_when_a_side_does_not_match() {
    // makesquare(9 1) is off the board: `piecename` of it does not match, so `==` fails and
    // `!=`, which CQL 6.2 reads as `not ==`, holds.
    assert!(!matches(r#"initial piecename makesquare(file e1 + 4 rank e1) == "K""#));
    assert!(matches(r#"initial piecename makesquare(file e1 + 4 rank e1) != "K""#));
    assert!(!matches("initial Q != 1"), "one white queen");
}

#[test]
fn a_count_range_with_two_ends() {
    // One position gives check (the mate).
    assert!(matches("initial find quiet 1 3 check"));
    assert!(!matches("initial find quiet 2 3 check"));
    // Its comment is written once.
    let pgn = temp_file("scholar-range.pgn", SCHOLARS_MATE);
    let o = run(&["-i", pgn.to_str().unwrap(), "-o", "-", "-cql", r#"initial find quiet 1 3 {check comment("seen")}"#]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(out.matches("seen").count(), 1, "{out}");
}
