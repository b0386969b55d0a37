//! CQL 6.2 keywords (docs/transforms.md and others): the name of the current transform,
//! similar positions, files, `equal`, aborting, debugging, consecutive moves.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::Keyword62`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::FilterId;

/// One of the CQL 6.2 keywords that belong to no other family.
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Keyword62Filter {
    /// `currenttransform`: the string naming the transform that made this copy of the
    /// enclosing transform's body, outermost first, in angle brackets: `"<>"` untransformed,
    /// `"<invertcolor reflect_h>"` for the colour swap, `"<right^2 up^1>"` for a shift. The
    /// string is filled in while transforms are expanded.
    CurrentTransform(String),
    /// `similarposition [notransform] "FILE.pgn"`: the board (pieces on squares and the side
    /// to move; castling rights and en passant do not count) is one reached on the main line of
    /// a game of FILE, directly or (unless `transform` is false) under a symmetry that keeps
    /// the position legal: the 8 board symmetries when there are no pawns, else horizontal
    /// shifts and the mirror a-file ↔ h-file. When `game_number` is set the value is the number
    /// of the first game of FILE that has the position (used as the sort key).
    SimilarPosition {
        /// The PGN file of the positions to look for.
        file: String,
        /// Also look for the symmetric images of the positions.
        transform: bool,
        /// Yield the smallest game number of FILE with this position.
        game_number: bool,
    },
    /// `readfile S`: the whole text of the file named by the string S (`.pgn`, `.cql` or
    /// `.cqo`); does not match when the file cannot be read.
    ReadFile(FilterId),
    /// `writefile (NAME TEXT)`: appends the string TEXT to the file NAME (`.cql` or `.cqo`),
    /// created empty the first time it is written in the run. Never writes over an input.
    WriteFile(FilterId, FilterId),
    /// `equal (A B)`: A and B have the same value here, of the same kind (a filter that
    /// does not match has the value "false"; two such are equal).
    Equal(FilterId, FilterId),
    /// `cql_abort`, or an `assert` that failed: stops the whole run with an error naming
    /// the place in the query (line and column in the string, then what stopped there
    /// when it was not `cql_abort`).
    Abort(String),
    /// `pathdebug`: inside a `path`, writes the path's state (start, length so far) to
    /// the console as a message; always matches.
    PathDebug,
    /// `lastgamenumber`: the number of the last game of the input (by counting games, and
    /// no larger than the upper bound of `cql(gamenumber …)`).
    LastGameNumber,
    /// `consecutivemoves [quiet] [MIN [MAX]] (x y)`: the length of the longest run of
    /// identical consecutive moves that both lines from the common ancestor down to x and
    /// to y contain (at any offset), matching only when it lies in `min..=max` (1.. without
    /// a range). Unless `quiet`, the longest run a matching game had is marked at the end of
    /// the game: `x-move[i]` and `y-move[i]` after the i-th move of the run on each line.
    ConsecutiveMoves {
        /// First position (a position variable).
        x: FilterId,
        /// Second position (a position variable).
        y: FilterId,
        /// Shortest run that matches.
        min: i64,
        /// Longest run that matches.
        max: i64,
        /// `quiet`: no marks.
        quiet: bool,
    },
}
