//! Attacks and geometry (docs/attacks-and-geometry.md): directions, attacks, rays,
//! pins, squares between.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::Geometry`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::{Directions, FilterId, VarId};

/// A filter of attacks and board geometry: its value is a set of squares.
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GeometryFilter {
    /// Squares reachable from the argument's squares in `dirs`, at a distance in
    /// `min..=max` (blocking pieces are ignored). CQL 6: `up 1 ♔`, `diagonal 2 7 X`. A
    /// negative distance counts the other way (`up -1 ♔` is the square below the king), and
    /// 0 is the square itself.
    Direction {
        /// The directions.
        dirs: Directions,
        /// Smallest distance, -7 to 7.
        min: i8,
        /// Largest distance, -7 to 7.
        max: i8,
        /// Numeric variables written for `min` / `max` (`up 1 n ♔`): their values, read
        /// when the filter runs, stand for that end.
        range_variables: (Option<VarId>, Option<VarId>),
        /// The origin set.
        arg: FilterId,
    },
    /// `A → B`: the squares of A holding a piece that attacks some square of B.
    /// `attacks` in ASCII; `B ← A` is `Attacks { attackers: A, targets: B, value_is_targets: true }`.
    Attacks {
        /// The attacking pieces.
        attackers: FilterId,
        /// The attacked squares.
        targets: FilterId,
        /// `←` / `attackedby`: the value is the attacked squares, not the attackers.
        value_is_targets: bool,
    },
    /// A chain of attack arrows `A → B → C …` (three or more sets). CQL 6 reads a chain
    /// as an x-ray along one line: a line piece of A attacks a piece of B, and the same line
    /// continues through it to C (and on, through each later link). So `△→x→♚` means x is
    /// pinned against its king. `sets` are in attacking order (attacker first).
    /// Value: the squares of the first set (for `→`), or of the last set when the
    /// chain was written with `←` (`♚ ← x ← △`).
    AttackChain {
        /// The sets, attacker first.
        sets: Vec<FilterId>,
        /// `←` spelling: the value is the last set of `sets` (the attacked end).
        value_is_last: bool,
    },
    /// Squares strictly between two squares on a line, over all pairs that are
    /// aligned. CQL 6: `between(a b)`.
    Between(FilterId, FilterId),
    /// `ray dirs (A B C …)`: a straight line in `dirs` from a square of A through a
    /// square of B … with only empty squares between consecutive ones. Value: the
    /// squares of the last argument reached.
    Ray {
        /// Allowed directions.
        dirs: Directions,
        /// The sets along the line, in order.
        sets: Vec<FilterId>,
        /// `xray`: the first link is an attack, later links may jump pieces of
        /// the attacker's line.
        xray: bool,
    },
    /// CQL 6.2 `pin [from A] [through B] [to C]`: a line piece of A (default: any) attacks, along
    /// its line, a square of C (default: the kings) that is empty or holds a piece of the other
    /// colour, with exactly one piece between them, a piece of B (default: any) of the other
    /// colour — the pinned piece. The value is the pinning pieces, the pinned pieces or the
    /// squares of C, as `part` says (CQL 6.2: the first parameter written; pinned by default).
    PinOf {
        /// Pinning pieces.
        from: Option<FilterId>,
        /// Pinned pieces.
        through: Option<FilterId>,
        /// The squares pinned to (default: kings).
        to: Option<FilterId>,
        /// Which of the three sets is the value.
        part: PinPart,
    },
}

/// Which set a CQL 6.2 `pin` yields ([`GeometryFilter::PinOf`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PinPart {
    /// The pinning line pieces (`pin from …` first).
    Pinners,
    /// The pinned pieces (`pin`, `pin through …` first).
    Pinned,
    /// The squares the pieces are pinned to (`pin to …` first).
    Targets,
}
