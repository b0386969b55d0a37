//! Logic (docs/numbers.md): `and`, `or`, `not`, `if`, and counting matching copies.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::Logic`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::FilterId;

/// A logical combination of filters.
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LogicFilter {
    /// All must match. Value: that of the last one. CQL 6: juxtaposition, `and`, `{ }`.
    And(Vec<FilterId>),
    /// Some must match (evaluated left to right, first matching one's value).
    Or(Vec<FilterId>),
    /// Matches when the argument does not. CQL 6: `not F`.
    Not(FilterId),
    /// `if C then A [else B]`: value of the branch taken. Without `else`, the filter
    /// matches (with no value) when C fails, as in CQL 6.2: `if C A` reads "A whenever C".
    If {
        /// Condition.
        cond: FilterId,
        /// Taken when the condition matches.
        then: FilterId,
        /// Taken otherwise.
        otherwise: Option<FilterId>,
    },
    /// Number of matching filters of the list (transform copies with a range:
    /// `rotate90 count find Ra1`). Always matches.
    CountMatching(Vec<FilterId>),
}
