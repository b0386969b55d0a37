//! Output and effects (docs/output.md): comments, messages, sorting, tags.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::Output`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::FilterId;

/// A filter that writes into the output (comments, messages, tags, sort keys) or reads
/// the comments of the input.
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OutputFilter {
    /// `comment(a b …)`, `///`: attach text to this position in the output (kept only
    /// if the enclosing filters match). Always matches.
    Comment(Vec<FilterId>),
    /// `message(a b …)`: print a line (on stderr; on stdout in GUI mode). Always
    /// matches. Unless `quiet`, the line starts with the game and the position, as CQL
    /// 6.2 prints it: `Game: N move M(wtm): …`.
    Message {
        /// The parts of the text.
        args: Vec<FilterId>,
        /// `message quiet`: the text alone.
        quiet: bool,
    },
    /// `sort [min] ["doc"] value`: match like `value`, and rank games by it.
    Sort {
        /// Documentation shown in the output.
        doc: String,
        /// Ascending (`sort min`) instead of descending.
        min: bool,
        /// `sort quiet`: the value is not written into the game's comment.
        quiet: bool,
        /// The numeric filter.
        value: FilterId,
    },
    /// `settag("Name" value)`.
    SetTag(FilterId, FilterId),
    /// `removecomment`.
    RemoveComment,
    /// Does the position have a comment? `hascomment`.
    HasComment,
    /// The original PGN comment after the move into this position. `originalcomment`.
    OriginalComment,
}
