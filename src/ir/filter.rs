//! The filter node of the IR: one variant per family of things a query can ask of a
//! position. Each family's own enum (in [`super::families`]) has one variant per filter, with
//! its meaning in chess terms and its spelling in each front-end.

use super::{
    FilterId, GameTreeFilter, GeometryFilter, HeaderFilter, Keyword62Filter, LegacyFact, LogicFilter, MoveFilter,
    NumberFilter, OutputFilter, PositionStateFilter, SetFilter, TransformKind, VariableFilter, YacpdbPredicate,
};

/// One typed filter node: a family of filters (docs/ has one section per family), each
/// holding its own enum, and a few filters of their own (the constants, `move`, the
/// transforms, the facts of the legacy language and of YACPDB).
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Filter {
    /// Always matches, no value. CQL 6: `true`, an empty `{}`.
    True,
    /// Never matches. CQL 6: `false`; legacy `[ ]`.
    False,
    /// Pieces, squares and sets (docs/pieces-and-sets.md): piece designators, set algebra,
    /// counting, pawn structure.
    Sets(SetFilter),
    /// Attacks and geometry (docs/attacks-and-geometry.md): directions, attacks, rays, pins.
    Geometry(GeometryFilter),
    /// A move filter (played, previous, legal, pseudo-legal moves).
    Move(Box<MoveFilter>),
    /// Facts of the position and of its place in the game (docs/position-state.md): check,
    /// mate, side to move, ply, main line.
    PositionState(PositionStateFilter),
    /// Moving about the game tree (docs/game-tree.md): `find`, positions as values, `line`,
    /// `path`, `echo`.
    GameTree(GameTreeFilter),
    /// Facts of the game read from its header or text (docs/header.md): tags, result, year,
    /// game number, HHdb distinctions, FEN.
    Header(HeaderFilter),
    /// Numbers and strings (docs/numbers.md): constants, comparisons, arithmetic, built-in
    /// functions, regular expressions, substring tests.
    Numbers(NumberFilter),
    /// Logical combinations (docs/numbers.md): `and`, `or`, `not`, `if`, counting matches.
    Logic(LogicFilter),
    /// Variables, dictionaries and iteration (docs/iteration.md, docs/dictionaries.md).
    Variables(VariableFilter),
    /// Output and effects (docs/output.md): comments, messages, sorting, tags, and the
    /// comments of the input.
    Output(OutputFilter),
    /// The CQL 6.2 keywords of no other family (docs/transforms.md and others): the current
    /// transform's name, similar positions, files, `equal`, aborting, debugging, consecutive
    /// moves.
    Keyword62(Keyword62Filter),
    /// A transform of its argument; replaced by `ir::transform::expand`.
    /// `range`: count the matching copies and require the count in range
    /// (`rotate90 4 find Ra1`). `count`: the value is that count (`rotate90 count F`).
    Transform {
        /// Which transform.
        kind: TransformKind,
        /// Count copies and compare to this range.
        range: Option<(i64, i64)>,
        /// Yield the number of matching copies.
        count: bool,
        /// The transformed filter.
        body: FilterId,
    },
    /// `notransform F`: F exactly as written, whatever transform encloses it (a transform
    /// leaves the board of this part alone). Matches and has the value of F.
    NoTransform(FilterId),
    /// A fact only the legacy language asks for (castling rights, repetitions, exchange
    /// values, parsed header fields…); see [`LegacyFact`].
    LegacyFact(LegacyFact),
    /// The count of a YACPDB predicate over the whole solution tree of the game
    /// (`ClosedWalk(wR, 4, *)`); computed once per game, numeric, always matches.
    Yacpdb(YacpdbPredicate),
}

/// A filter of a family prints as the filter inside its family's enum (`Union([…])`, not
/// `Sets(Union([…]))`): the family is a grouping, not a filter of its own.
impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Filter::True => f.write_str("True"),
            Filter::False => f.write_str("False"),
            Filter::Sets(x) => x.fmt(f),
            Filter::Geometry(x) => x.fmt(f),
            Filter::Move(x) => f.debug_tuple("Move").field(x).finish(),
            Filter::PositionState(x) => x.fmt(f),
            Filter::GameTree(x) => x.fmt(f),
            Filter::Header(x) => x.fmt(f),
            Filter::Numbers(x) => x.fmt(f),
            Filter::Logic(x) => x.fmt(f),
            Filter::Variables(x) => x.fmt(f),
            Filter::Output(x) => x.fmt(f),
            Filter::Keyword62(x) => x.fmt(f),
            Filter::Transform { kind, range, count, body } => f
                .debug_struct("Transform")
                .field("kind", kind)
                .field("range", range)
                .field("count", count)
                .field("body", body)
                .finish(),
            Filter::NoTransform(x) => f.debug_tuple("NoTransform").field(x).finish(),
            Filter::LegacyFact(x) => f.debug_tuple("LegacyFact").field(x).finish(),
            Filter::Yacpdb(x) => f.debug_tuple("Yacpdb").field(x).finish(),
        }
    }
}
