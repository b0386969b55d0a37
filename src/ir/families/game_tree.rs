//! The game tree (docs/game-tree.md): searching ancestors and descendants, positions
//! as values, `line`, `path`, `echo`.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::GameTree`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::{FilterId, FindDirection, LineParams, PathParams, PathStatus, TreeRelation, TreeStep, VarId};

/// A filter that moves about the game tree or yields positions of it.
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameTreeFilter {
    /// `find [<--] [all] [N M] F`: search this position and its descendants (or
    /// ancestors). Without a range or `all`: matches when some position matches, value
    /// the first one found. With `all` or a range: value the number of matching positions,
    /// matching when it lies in the range (default 1..).
    Find {
        /// Forward (descendants) or backward (ancestors).
        direction: FindDirection,
        /// Count the matches instead of stopping at the first.
        all: bool,
        /// Bounds on the count (`find 3 5 F`).
        range: Option<(i64, i64)>,
        /// `find quiet`, and every `find` the compiler makes itself: no comments. Otherwise
        /// `find` writes CQL 6.2's notes: `Found` at the position it found, or
        /// `Found i of n` at each position it counted.
        quiet: bool,
        /// The filter looked for.
        body: FilterId,
    },
    /// Evaluate `body` at the position given by `at` (CQL 6: `X:f`, `parent:check`).
    AtPosition {
        /// A position-valued filter.
        at: FilterId,
        /// Filter evaluated there.
        body: FilterId,
    },
    /// A position relative to the current one.
    Tree(TreeStep),
    /// `child(n)`: the n-th continuation (0 = main); `child` = 0.
    Child(FilterId),
    /// Ancestry test between two positions.
    TreeRelation(TreeRelation, FilterId, FilterId),
    /// `lca(x y)` — nearest common ancestor.
    Lca(FilterId, FilterId),
    /// `distance(x y)` — plies between two positions through their common ancestor.
    Distance(FilterId, FilterId),
    /// `depth` — number of variation levels at this position (0 on the main line).
    Depth,
    /// `position N` — the position of the current game whose `positionid` is N (a position
    /// value); no match when the game has none.
    PositionById(FilterId),
    /// `positionid` — a number identifying this node in the game tree.
    PositionId,
    /// `line --> A --> B* …`: positions matching the constituents one after another.
    /// Value: the number of positions matched (or the last position, with
    /// `lastposition`).
    Line {
        /// Direction and options.
        params: LineParams,
        /// The constituents (made of `Seq*` nodes and plain filters).
        body: FilterId,
    },
    /// `⊢ [params] constituents` (CQL 6.2 `path`): a chain of moves from this position.
    /// A move constituent (`――`, `X――Y`, `×` …) consumes one move of the focused pieces
    /// (moves of other pieces before it are skipped), any other constituent is tested at the
    /// position reached. Value: the number of focused moves of the best path (or the value
    /// of `max F`, or the last position with `lastposition`).
    Path {
        /// Options.
        params: PathParams,
        /// `focus S` / `◎S`: the pieces standing on `S` at the start; `None` = every move counts.
        focus: Option<FilterId>,
        /// `max F`: numeric filter evaluated at the end of each candidate path;
        /// the best path maximises it. `None`: the longest path is best.
        best: Option<FilterId>,
        /// `title "…"`: a comment written at the start of the best path (and before each
        /// move's note with `verbose`).
        title: Option<String>,
        /// The constituents (made of `Seq*` nodes, move filters and plain filters).
        body: FilterId,
    },
    /// A path status filter (`pathcount`, `pathcountunfocused`, `pathstart`,
    /// `pathlastposition`).
    PathStatus(PathStatus),
    /// A sequence constituent list (for `line`, `path`, legacy `:sequence`).
    SeqConcat(Vec<FilterId>),
    /// A repeated constituent `F{min,max}` (`*` = 0..∞, `+` = 1..∞, `?` = 0..1).
    SeqRepeat {
        /// The repeated constituent.
        body: FilterId,
        /// Minimum repetitions.
        min: u32,
        /// Maximum repetitions (`u32::MAX` = unbounded).
        max: u32,
    },
    /// Alternatives inside a sequence (`(A | B)` in `path`).
    SeqAlt(Vec<FilterId>),
    /// `echo (s t) [in all] body`: for each position t (of the game, or the
    /// descendants of s), with s the current one; matches if body matches for some t.
    Echo {
        /// Variable bound to the source position.
        source: VarId,
        /// Variable bound to each target position.
        target: VarId,
        /// `in all`: the source position itself is a target too (CQL 6.2 `EchoNode`).
        in_all: bool,
        /// Targets in variations too, even when the scan keeps to the main line (the legacy
        /// `:relation (:variations)`); CQL 6 `echo` keeps to the searched positions.
        variations: bool,
        /// Write CQL 6.2's marks on each matching pair (CQL 6 `echo` without `quiet`): the
        /// source's variable name and `<--` with the target, the target's name and `-->` with
        /// the source, `LCA` on their common ancestor when it is neither.
        marks: bool,
        /// Filter evaluated per pair.
        body: FilterId,
    },
    /// A study "try": the position lies in a variation that branches directly off the main line with a
    /// white move (an alternative White move that the composer rejected). `try`.
    Try,
}
