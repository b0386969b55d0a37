//! Numbers and strings (docs/numbers.md): constants, comparisons, arithmetic, built-in
//! functions, regular expressions.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::Numbers`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::{ArithOp, Builtin, CmpOp, FilterId};

/// A number or a string, or a comparison of values.
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NumberFilter {
    /// An integer constant. CQL 6: `3`, `white` (1), `black` (-1).
    Number(i64),
    /// A string constant. CQL 6: `"Kasparov"`.
    Str(String),
    /// A chain of comparisons `a < b <= c`: matches when each link holds. Sets
    /// compared with numbers are counted; strings compare as strings; positions by
    /// their id. In every link but the last a set counts its squares even beside another
    /// set (CQL 6.2 reads `♕ == ♛ == 2` as `♕ == (♛ == 2)`: as many white as black
    /// queens, two of each). Value: the value of the first operand.
    Compare {
        /// The first operand.
        first: FilterId,
        /// The following `(op, operand)` links.
        rest: Vec<(CmpOp, FilterId)>,
    },
    /// Integer arithmetic (or string `+`). No match if an operand does not match.
    Arith(ArithOp, FilterId, FilterId),
    /// Unary minus.
    Neg(FilterId),
    /// A built-in function of evaluated arguments (`abs`, `min`, `str`, `power`, …).
    Call(Builtin, Vec<FilterId>),
    /// Does the string match the regular expression? Value: the matched text; sets
    /// the capture groups `\1`… for later `RegexGroup`. CQL 6: `s ~~ "re"`.
    RegexMatch {
        /// The string to search.
        subject: FilterId,
        /// The pattern source (compiled once per query by `eval`).
        pattern: String,
    },
    /// `\N` — the text of group N of the last successful `~~` match.
    RegexGroup(u8),
    /// `\-N` — where group N of the last successful `~~` match starts in the matched
    /// string (a byte offset from 0); no match when the group took no part (CQL 6.2
    /// `GroupNumberNode` with its index flag).
    RegexGroupStart(u8),
    /// Substring test `a` contains `b` (CQL 6 implicit search: `event "ch"`).
    Contains {
        /// The haystack.
        haystack: FilterId,
        /// The needle.
        needle: FilterId,
        /// Compare ignoring ASCII case (legacy `:player`).
        ignore_case: bool,
    },
}
