//! The one typed intermediate representation that every front-end lowers to.
//!
//! Takes in: nothing but constructor calls from `lang::{cql6,legacy,yacpdb}`.
//! Gives out: an [`Ir`] — a flat arena of [`Filter`] nodes addressed by [`FilterId`],
//! plus the query [`Settings`] (the `cql(...)` header and CLI overrides) and the
//! variable table. `ir::transform` expands transforms inside the arena before
//! `eval` ever sees it, and `ir::dump` prints it (`--dump-ir`).
//! Must never: look at a game, read source text, or print.
//!
//! # Matching model
//! Every filter is evaluated at one position of a game (a node of the game tree).
//! It either *does not match* there, or it matches and has a [`ValueType`]d value
//! (a set of squares, a number, a position, a piece, a string) or no value at all.
//! A set filter matches when its set is non-empty, unless noted; a numeric filter
//! matches whenever it has a number. A query matches a game when the number of
//! matching positions lies in `Settings::matchcount` (default at least one).
//!
//! Arena nodes are hash-consed: adding a node equal to an existing one returns the
//! existing id, so copies made by transforms share every sub-tree they leave unchanged.

pub mod cost;
pub mod dump;
pub mod legacy;
pub mod loops;
pub mod normalize;
pub mod props;
pub mod transform;
pub mod visit;

mod families;
mod filter;
mod parts;
mod patterns;
mod spans;

use rustc_hash::FxHashMap as HashMap;

pub use families::{
    GameTreeFilter, GeometryFilter, HeaderFilter, HhdbAwardKind, Keyword62Filter, LogicFilter, NumberFilter,
    OutputFilter, PinPart, PositionStateFilter, SetFilter, VariableFilter,
};
pub use filter::Filter;
pub use legacy::{LegacyFact, PawnShare};
pub use parts::{
    ArithOp, Builtin, CmpOp, Directions, FindDirection, GameResult, HeaderField, LineChoice, LineParams, MoveFilter,
    MoveKind, MoveSource, MoveValue, PathParams, PathStatus, PawnStructure, PieceMask, ShiftAxes, TransformKind,
    TreeRelation, TreeStep, YacpdbPredicate,
};
pub use patterns::{compile_pattern, PATTERN_SIZE_LIMIT};

use crate::diag::Span;

/// Index of a filter node in the [`Ir`] arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FilterId(pub u32);

/// Index of a variable in [`Ir::vars`] (square, piece, number, string, position, set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// What kind of value a filter yields when it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// Only matches or not (`check`, `and`, universal iteration).
    None,
    /// A set of squares (`♖`, `a-h8`, `♖→♛`).
    Set,
    /// An integer (`#♙`, `ply`, `power ♕`).
    Number,
    /// A node of the game tree (`find check`, `parent`).
    Position,
    /// A piece identity (a piece variable).
    Piece,
    /// A string (`player white`, `"abc"`).
    String,
}

/// What a variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarKind {
    /// A square (bound by square iteration) — a one-square set.
    Square,
    /// A piece identity.
    Piece,
    /// A number, set, string or position (typed by its first assignment).
    Value,
    /// A position variable (`echo`).
    Position,
    /// A dictionary (`dictionary D`): a map from keys (strings, numbers, sets, positions)
    /// to values. `local`: emptied at the start of every game (`local dictionary D`);
    /// otherwise its entries are kept from one game to the next.
    Dictionary {
        /// Emptied for every game.
        local: bool,
    },
}

/// A variable of the query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarInfo {
    /// The name the user wrote.
    pub name: String,
    /// What it holds.
    pub kind: VarKind,
    /// `persistent`: summed over all games and printed at the end (a `persistent
    /// dictionary` is kept across games and its entries printed at the end).
    pub persistent: bool,
}

/// Query options from the `cql(...)` header, legacy match-list keywords and the CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Input files named by the script (`cql(input f)`); the CLI overrides.
    pub input: Vec<String>,
    /// Output file (`cql(output f)`).
    pub output: Option<String>,
    /// Search variations too (`cql(variations)`, `--variations`).
    pub variations: bool,
    /// Number of matching positions a game needs (inclusive).
    pub matchcount: (u64, u64),
    /// Text written at matching positions instead of `CQL` (`matchstring`).
    pub matchstring: Option<String>,
    /// Only games whose number is in this range (`gamenumber N M`).
    pub gamenumber: Option<(u64, u64)>,
    /// `silent`: no comments of the run's in the written games (see [`crate::output::PgnStyle`]).
    pub silent: bool,
    /// `quiet`: no marks at matching positions; the query's own comments stay.
    pub quiet: bool,
    /// `noremovecomment`: `removecomment` leaves the game's comments in the output.
    pub keep_removed_comments: bool,
    /// `result R` in the header: restrict to games with this result.
    pub result: Option<GameResult>,
    /// Evaluate the body once per game at the root (YACPDB queries, legacy match
    /// lists) instead of at every position.
    pub per_game: bool,
    /// `sort matchcount` in the header: games come out by their number of matching
    /// positions, most first.
    pub sort_matchcount: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            input: Vec::new(),
            output: None,
            variations: false,
            matchcount: (1, u64::MAX),
            sort_matchcount: false,
            matchstring: None,
            gamenumber: None,
            silent: false,
            quiet: false,
            keep_removed_comments: false,
            result: None,
            per_game: false,
        }
    }
}

/// A whole query in IR form: the arena, its variables, the root filter and settings.
#[derive(Clone, Debug, Default)]
pub struct Ir {
    nodes: Vec<Filter>,
    /// The span each node was first added with.
    spans: Vec<Span>,
    /// The span each node was last added with (see [`Ir::span`]).
    latest: Vec<Span>,
    /// The further distinct spans a node was added with: equal nodes written in several
    /// places share one id, and these let a diagnostic point at the place it is about.
    occurrences: spans::Occurrences,
    dedup: HashMap<Filter, FilterId>,
    /// Variables, indexed by [`VarId`].
    pub vars: Vec<VarInfo>,
    /// Where each variable [`Ir::var`] made is in `vars`, by name: a name is found in
    /// constant time however many variables the inlined function calls made (checked
    /// against `vars`, and looked for there when the two disagree).
    var_index: HashMap<String, u32>,
    /// The filter evaluated at each position (or once per game).
    pub root: Option<FilterId>,
    /// Header options.
    pub settings: Settings,
}

impl Ir {
    /// An empty query.
    pub fn new() -> Ir {
        Ir::default()
    }

    /// Add a node (or find the equal one already there) and return its id.
    ///
    /// Equal nodes are one node: adding a node that is already there records `span` as
    /// one more place it is written (see [`Ir::span`], [`Ir::span_within`]).
    pub fn add(&mut self, filter: Filter, span: Span) -> FilterId {
        if let Some(&id) = self.dedup.get(&filter) {
            self.note_occurrence(id, span);
            return id;
        }
        let id = FilterId(self.nodes.len() as u32);
        self.nodes.push(filter.clone());
        self.spans.push(span);
        self.latest.push(span);
        self.dedup.insert(filter, id);
        id
    }

    /// Add a node made from `original` (its image under a transform, or its rebuilt form
    /// after a child changed): the new node is written wherever the original is, so it
    /// gets every span of the original, the first one first.
    pub fn add_copy(&mut self, filter: Filter, original: FilterId) -> FilterId {
        let id = self.add(filter, self.first_span(original));
        if id != original {
            let more = self.occurrences.of(original).to_vec();
            for span in more {
                self.note_occurrence(id, span);
            }
            let latest = self.span(original);
            self.note_occurrence(id, latest);
        }
        id
    }

    /// Record that node `id` is also written at `span`. A span without text (the
    /// default, for nodes a caller made up) is not a place.
    fn note_occurrence(&mut self, id: FilterId, span: Span) {
        let i = id.0 as usize;
        if span == Span::default() || self.latest[i] == span {
            return;
        }
        self.latest[i] = span;
        if self.spans[i] == span {
            return;
        }
        self.occurrences.record(id, span);
    }

    /// The node behind an id.
    pub fn get(&self, id: FilterId) -> &Filter {
        &self.nodes[id.0 as usize]
    }

    /// Source span of a node: the place it was last added for. While a front-end builds
    /// the tree bottom-up, that is the text just parsed, so a parent's span, joined from
    /// its children's, covers the children as written inside it (not an equal filter
    /// written earlier). A diagnostic after parsing should name the place it is about
    /// with [`Ir::span_within`] or [`Ir::span_along`].
    pub fn span(&self, id: FilterId) -> Span {
        self.latest[id.0 as usize]
    }

    /// The span a node was first added with: its first place in the text.
    pub fn first_span(&self, id: FilterId) -> Span {
        self.spans[id.0 as usize]
    }

    /// Number of nodes in the arena.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Is the arena empty?
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Declare a variable, or return the existing one of that name.
    pub fn var(&mut self, name: &str, kind: VarKind) -> VarId {
        if let Some(id) = self.find_var(name) {
            return id;
        }
        self.vars.push(VarInfo { name: name.to_string(), kind, persistent: false });
        self.var_index.insert(name.to_string(), self.vars.len() as u32 - 1);
        VarId(self.vars.len() as u32 - 1)
    }

    /// Copy the tree below `id` of another query into this arena (hash-consed, so shared
    /// nodes stay shared) and return its new id. Used to embed one front-end's query in
    /// another's, e.g. a YACPDB predicate inside a CQL 6 script. Every copied node gets
    /// `span`, since the other query's spans point into another text. The other query must
    /// have no variables.
    pub fn import(&mut self, other: &Ir, id: FilterId, span: Span) -> FilterId {
        let mut memo: HashMap<FilterId, FilterId> = HashMap::default();
        // Children before parents, without recursion: a post-order walk.
        let mut stack = vec![(id, false)];
        while let Some((node, expanded)) = stack.pop() {
            if memo.contains_key(&node) {
                continue;
            }
            let filter = other.get(node);
            if !expanded {
                stack.push((node, true));
                for child in visit::children(filter) {
                    if !memo.contains_key(&child) {
                        stack.push((child, false));
                    }
                }
                continue;
            }
            let copied = visit::map_children::<()>(filter, |c| Ok(memo[&c])).unwrap_or_else(|_| filter.clone());
            let new_id = self.add(copied, span);
            memo.insert(node, new_id);
        }
        memo[&id]
    }

    /// Look a variable up by name.
    pub fn find_var(&self, name: &str) -> Option<VarId> {
        match self.var_index.get(name) {
            Some(&i) if self.vars.get(i as usize).is_some_and(|v| v.name == name) => return Some(VarId(i)),
            // Every variable is in the index: the name is none of them.
            None if self.var_index.len() == self.vars.len() => return None,
            _ => {}
        }
        self.vars.iter().position(|v| v.name == name).map(|i| VarId(i as u32))
    }
}
