//! Pieces, squares and sets (docs/pieces-and-sets.md): piece designators, set algebra,
//! counting, pawn structure.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::Sets`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::{FilterId, PawnStructure, PieceMask};
use shakmaty::Bitboard;

/// A filter of pieces, squares and sets: its value is a set of squares (or, for `#`, a
/// number).
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SetFilter {
    /// A fixed set of squares. CQL 6: `a1`, `a-h1-8`, `[a1,h8]`, `.` (all squares).
    Squares(Bitboard),
    /// The squares of `squares` whose content is accepted by `mask`.
    /// CQL 6: `♖`, `R`, `[RQ]a-h7`, `_d4`, `◭`, `□`; legacy `R?2`, `[RQ][a1-8]`.
    Pieces {
        /// Accepted piece kinds (and empty squares).
        mask: PieceMask,
        /// Squares looked at.
        squares: Bitboard,
    },
    /// Union of set filters. CQL 6: `A | B`, `∪`, `[...]` of sets.
    Union(Vec<FilterId>),
    /// Intersection of set filters. CQL 6: `A & B`, `∩`.
    Intersection(Vec<FilterId>),
    /// All squares not in the set. CQL 6: `~A`.
    Complement(FilterId),
    /// Subset test `A in B` (true when A is empty). Matches without a value.
    In(FilterId, FilterId),
    /// Number of squares of a set (`#A`), or length of a string; always matches.
    Count(FilterId),
    /// Pawn structure sets (`passedpawns` …), restricted to the argument if given.
    PawnStructure(PawnStructure),
}
