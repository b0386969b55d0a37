//! Variables, dictionaries and iteration (docs/iteration.md, docs/dictionaries.md).
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::Variables`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::{ArithOp, FilterId, PieceMask, VarId};

/// A filter that reads or writes variables and dictionaries, or iterates over squares,
/// pieces or repetitions.
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VariableFilter {
    /// The value of a variable; no match when unbound.
    Var(VarId),
    /// `x = v`, `x += v` …: assign and match (value: the new value).
    Assign {
        /// The variable.
        var: VarId,
        /// `None` for plain `=`, else the compound operator.
        op: Option<ArithOp>,
        /// The assigned value.
        value: FilterId,
    },
    /// `isbound x` / `isunbound x`.
    IsBound(VarId),
    /// `unbind x`.
    Unbind(VarId),
    /// `D[k]` (CQL 6.2 dictionaries): the value dictionary `D` holds under the key `k` (a
    /// string, number, set of squares or position). No match when `k` does not match or
    /// `D` has no entry for it.
    DictGet {
        /// The dictionary (a variable of kind [`VarKind::Dictionary`](super::VarKind::Dictionary)).
        dict: VarId,
        /// The key.
        key: FilterId,
    },
    /// `D[k] = v` (or `+=` …): store `v` under the key `k`, replacing any earlier entry, and
    /// match with the stored value. A compound operator starts from 0 when `k` is absent.
    /// No match (and nothing stored) when `k` or `v` does not match.
    DictSet {
        /// The dictionary.
        dict: VarId,
        /// The key.
        key: FilterId,
        /// `None` for plain `=`, else the compound operator.
        op: Option<ArithOp>,
        /// The stored value.
        value: FilterId,
    },
    /// `unbind D[k]` removes the entry of one key (when there is one); `unbind D` empties
    /// the dictionary. Always matches.
    DictUnbind {
        /// The dictionary.
        dict: VarId,
        /// The key, or `None` for every entry.
        key: Option<FilterId>,
    },
    /// `#D`: the number of entries of the dictionary. Always matches.
    DictCount(VarId),
    /// `x∊Z F` / `∀x∊Z F` / `square [all] x in Z F`: bind a square variable to each
    /// square of Z. Existential form's value: the set of squares for which F matched.
    /// Universal form: no value; vacuously true over an empty Z.
    SquareIter {
        /// The square variable.
        var: VarId,
        /// The domain set.
        domain: FilterId,
        /// The body.
        body: FilterId,
        /// `∀` / `[forall]` / `all`.
        forall: bool,
    },
    /// `◭y∊Z F` / `∀◭y∊Z F` / `piece [all] y in Z F`: bind a piece variable to the
    /// identity of each piece on a square of Z. Existential value: the squares of Z
    /// whose piece made F match.
    PieceIter {
        /// The piece variable.
        var: VarId,
        /// The domain set (its squares in the current position).
        domain: FilterId,
        /// The body.
        body: FilterId,
        /// Universal form.
        forall: bool,
    },
    /// Bind a piece variable to every identity that at some position of the game is
    /// a piece of `mask` (legacy `:forany NAME designator` tags); matches when the body
    /// matches for some identity. Evaluated at the root; tags bound together never share
    /// an identity.
    IdentityIter {
        /// The tag variable.
        var: VarId,
        /// Piece kinds the identity must have at some point.
        mask: PieceMask,
        /// The body.
        body: FilterId,
    },
    /// `while (C) body`, `loop body`: repeat while C matches (loop: while body matches).
    While {
        /// Condition; `None` for `loop`.
        cond: Option<FilterId>,
        /// The repeated filter.
        body: FilterId,
    },
}
