//! How far the body of a counting `find` (`find all F`, `find 2 5 F`) reaches: CQL 6.2
//! reads a whole filter there, comparisons and arithmetic included, except that an
//! operator after an operand without a value (`check`) ends the body and applies to the
//! count. Each query runs the binary on the scholar's mate; every expected answer is a
//! chess fact of that game, and each was also checked with CQL 6.2 (`cql -s`) on it.

mod common;
use common::matches_scholars_mate as matches;

#[test]
fn a_comparison_after_a_value_belongs_to_the_body() {
    // The positions of ply 3: there is one.
    assert!(matches("initial find all ply == 3"));
    assert!(!matches("initial find 2 100 ply == 3"), "only one position has ply 3");
    // `{ply < 3}` has the value ply where it holds, never 3: no position counts.
    assert!(!matches("initial find all {ply < 3} == 3"));
    // Parenthesised, the comparison is of the count (plies 0, 1 and 2).
    assert!(matches("initial (find all {ply < 3}) == 3"));
    // A set compared with a number is its size: one white queen, never eight.
    assert!(matches("initial find all Q == 1"));
    assert!(!matches("initial find all Q == 8"));
    assert!(matches("initial (find all Q) == 8"), "the queen is on the board in all eight positions");
}

#[test]
fn an_operator_after_a_filter_without_value_applies_to_the_count() {
    assert!(matches("initial find all check == 1"));
    assert!(matches("initial find all check + 1 == 2"));
    assert!(matches("initial find all check * 3 == 3"));
    // The comparison ends the body; `and mate` then asks the start position for mate.
    assert!(!matches("initial find all check >= 1 and mate"));
    // Without a comparison, `and` belongs to the body: a position with check and mate.
    assert!(matches("initial find all check and mate"));
}
