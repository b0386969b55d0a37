//! Evaluation of a compiled query over games.
//!
//! Takes in: an [`Ir`] (transforms already expanded) and [`Game`]s.
//! Gives out: for each game a [`GameMatch`] — whether it matched, at which positions,
//! the comments and sort values to write.
//! Must never: read source text, print, or keep state between games except
//! `persistent` variables and dictionaries that are not `local` in its [`Scratch`].

use crate::ir::{
    GameTreeFilter, Keyword62Filter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter, VariableFilter,
};
mod board;
mod dict;
mod engine;
mod files;
pub mod finale;
mod gate;
mod hhdb;
mod kinds;
mod line;
mod moves;
mod path;
mod plan;
mod run;
mod similar;
mod value;
pub mod yacpdb;

#[cfg(test)]
mod tests;

use regex::Regex;

use crate::ir::{Filter, FilterId, Ir, VarKind};
use crate::pgn::{Game, NodeId};

use engine::{Ctx, Loc};
pub use files::{FileAccess, FilePolicy, FileUse};
pub use run::Run;
pub use value::Value;

/// The value a `sort` filter gives a game: a number, or a string (`sort event`), by which
/// CQL 6.2 orders the matching games as well (a string sort puts the greatest string
/// first, bytewise, whether or not `min` is written; observed on the reference binary).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SortValue {
    /// A number (`sort ply`, `sort matchcount`).
    Number(i64),
    /// A string (`sort event`, `sort player white`).
    Text(String),
}

/// The name a `sort` filter's values are gathered under in [`GameMatch::sort`]: its
/// documentation string, or for a `sort` without one a name of its own (starting with
/// U+0001, see [`is_unnamed_sort`]), so that two unnamed sorts are two keys, as CQL 6.2's
/// `<sort-id-1>` and `<sort-id-2>` are.
pub fn sort_name(doc: &str, filter: FilterId) -> String {
    if doc.is_empty() {
        format!("\u{1}{}", filter.0)
    } else {
        doc.to_string()
    }
}

/// Is this name of [`GameMatch::sort`] that of a `sort` written without documentation?
pub fn is_unnamed_sort(name: &str) -> bool {
    name.is_empty() || name.starts_with('\u{1}')
}

impl SortValue {
    /// The value as JSON: a number or a string.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            SortValue::Number(n) => serde_json::Value::from(*n),
            SortValue::Text(t) => serde_json::Value::from(t.as_str()),
        }
    }
}

impl std::fmt::Display for SortValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SortValue::Number(n) => write!(f, "{n}"),
            SortValue::Text(t) => f.write_str(t),
        }
    }
}

/// The error of the eval layer: a query the evaluator cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What is wrong.
    pub message: String,
}

impl Error {
    /// The query was given up on one game because a limit of the run was reached (steps,
    /// time, memory, nesting, loop iterations) or the run was interrupted; `reason` says
    /// which. The game is counted as abandoned and the scan goes on.
    pub fn abandoned(reason: impl std::fmt::Display) -> Error {
        Error { message: format!("query abandoned: {reason}") }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// How much one game may cost the evaluator before the query gives up on it (the game is
/// then abandoned, reported and counted). One value per run, set on the [`Query`] that
/// every worker shares.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Most evaluation steps for one game: a filter evaluated at a position is a step, and
    /// costly work counts for what it costs (a string copy one step per 64 bytes, a
    /// position visited by `line` or `find` one step).
    pub max_steps: u64,
    /// Most wall-clock time for one game (`None`: no time limit). The clock is read every
    /// few thousand steps, so a game may run a little over.
    pub max_time: Option<std::time::Duration>,
    /// Most bytes of strings, dictionary entries and notes (`Found 3 of 7`) made while
    /// evaluating one game, counted as they are made (a copy counts again).
    pub max_memory: u64,
    /// Set (to the signal's number) when the run is interrupted: the game being
    /// evaluated is then given up at the next look at the budget, so that the workers
    /// stop within moments.
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicUsize>>,
}

impl Limits {
    /// Default step budget: [`engine::STEP_LIMIT`].
    pub const DEFAULT_STEPS: u64 = engine::STEP_LIMIT;
    /// Default time budget: 10 seconds a game.
    pub const DEFAULT_TIME: std::time::Duration = std::time::Duration::from_secs(10);
    /// Default memory budget: 256 MiB a game.
    pub const DEFAULT_MEMORY: u64 = 256 << 20;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: Limits::DEFAULT_STEPS,
            max_time: Some(Limits::DEFAULT_TIME),
            max_memory: Limits::DEFAULT_MEMORY,
            interrupt: None,
        }
    }
}

/// A compiled query: immutable, shared by all worker threads. It carries the [`Run`] it
/// belongs to (a fresh one from [`Query::new`]): what the run owns beyond the query.
#[derive(Debug)]
pub struct Query {
    ir: Ir,
    /// The per-game budgets of this run.
    limits: Limits,
    /// Compiled `~~` patterns, indexed by the id of their `RegexMatch` node, and the
    /// anchored patterns of YACPDB `Stip(…)` predicates, by the id of their `Yacpdb` node
    /// (`None` there: no pattern, or one that does not compile, which matches nothing).
    regexes: Vec<Option<Regex>>,
    /// Conjuncts of the root that need only the game's tags.
    header_conjuncts: Vec<FilterId>,
    /// The whole root needs only the tags.
    header_only: bool,
    /// The query has YACPDB predicates (build the game analysis).
    has_yacpdb: bool,
    /// Per filter: evaluating it changes nothing but its own result (see [`props::is_pure`]), so an
    /// iteration over it that only asks "does any square match?" may stop at the first match.
    pure: Vec<bool>,
    /// Per filter: how the evaluator runs it (see [`Shape`]).
    shapes: Vec<Shape>,
    /// Per filter: is its value, whenever it matches, a number ([`props::is_always_number`])?
    always_number: Vec<bool>,
    /// The kinds of values the evaluator asks about, computed once (see [`kinds::Kinds`]).
    kinds: kinds::Kinds,
    /// Per filter: it is the right side of a plain `=` assignment and its value is a square
    /// set. CQL 6.2 binds such a variable even where the set filter does not match (to the
    /// empty set), so the assignment itself always matches (`v = e4――(to)`).
    set_assigned: Vec<bool>,
    /// Per variable: what it holds as a dictionary, as far as the query's text tells.
    dictionaries: Vec<DictionaryContents>,
    /// Per filter: how an `and`/`or` is tested where only its match counts (the order of
    /// its parts, or a table of piece placements; see [`plan::Plan`]).
    plans: Vec<plan::Plan>,
    /// The positions where the whole query may match (see [`plan::PositionGate`]).
    gate: plan::PositionGate,
    /// Does the evaluator follow the evaluation plan (cost order, gates, header tests before
    /// replay, prechecks), or evaluate every filter in the script's own order at every
    /// position ([`Query::without_plan`])?
    planned: bool,
    /// Which files the query's `readfile` and `writefile` may reach.
    files: files::FilePolicy,
    /// The tables of the `similarposition` files, read when the query was compiled: per
    /// `SimilarPosition` filter, its table (a file named twice is read once).
    similar: Vec<(FilterId, std::sync::Arc<similar::SimilarDb>)>,
    /// The run this query belongs to: the `cql_abort` flag, the files it reads and writes.
    /// A fresh one per compiled query, so another query in the same process runs on
    /// unaffected; the survey hands one to all its themes ([`Query::set_run`]).
    run: std::sync::Arc<Run>,
}

/// How the evaluator runs one filter, decided once per query so that the hot paths read a
/// small table instead of the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A fixed square set.
    Squares(shakmaty::Bitboard),
    /// The squares among the second set whose content the mask accepts.
    Pieces(crate::ir::PieceMask, shakmaty::Bitboard),
    /// The value of a variable.
    Var(crate::ir::VarId),
    /// A number.
    Number(i64),
    /// Always matches, no value.
    True,
    /// Never matches.
    False,
    /// An effect-free set operation (`between`, `ray`, `∪`, `∩` of sets, `~`) computed
    /// straight from the set values of its parts.
    DirectSet,
    /// An effect-free number computed straight from the numbers and sets of its parts
    /// (arithmetic, `-x`, `#S`, `file`, `rank`, `abs`; see [`props::is_always_number`]),
    /// without building [`Value`]s.
    DirectNumber,
    /// Any other effect-free filter (see [`props::is_pure`]): nothing to roll back when it fails.
    Pure,
    /// A filter that may write variables, output or other state.
    Other,
}

/// Per-worker mutable state: variable slots, caches, persistent sums.
#[derive(Debug, Default)]
pub struct Scratch {
    /// One slot per query variable; persistent ones keep their values across games.
    vars: Vec<Option<Value>>,
    /// One dictionary per query variable (empty, and never allocated, for variables that are
    /// not dictionaries); `local` ones are emptied for every game.
    dicts: Vec<dict::Dict>,
    /// Where each piece identity was last looked up, kept from game to game.
    squares: engine::SquareMemo,
    /// The square memo of the header tests ([`Query::may_match_tags`]).
    header_squares: engine::SquareMemo,
    /// Bytes held by the dictionaries kept from game to game (not `local`), as the memory
    /// budget counts them: each game's budget starts from this and the strings of the
    /// persistent variables, so state carried across games is bounded too.
    kept_dicts: u64,
}

/// What a query found in one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameMatch {
    /// Did the game match (matchcount satisfied)?
    pub matched: bool,
    /// The matching positions, in game-tree order.
    pub positions: Vec<NodeId>,
    /// Comments to write after the move into a position (`comment`, `///`).
    pub comments: Vec<(NodeId, String)>,
    /// For each of `positions`, how many of `comments` had been written when it matched:
    /// its mark comes after those of them at that position and before the later ones, as
    /// CQL 6.2 writes it (missing: after all of them).
    pub marked_after: Vec<usize>,
    /// Sort keys (`sort`): documentation and value, outermost first.
    pub sort: Vec<(String, SortValue)>,
    /// The documentation of the `sort quiet` keys among [`GameMatch::sort`]: they order the
    /// games but are not written into the game's comment.
    pub quiet_sort: Vec<String>,
    /// Tags to set in the output (`settag`).
    pub set_tags: Vec<(String, String)>,
    /// Lines for the console (`message`).
    pub messages: Vec<String>,
    /// YACPDB predicate instances found, with their counts (for `--json`).
    pub predicates: Vec<(String, i64)>,
    /// Positions whose original comments `removecomment` deletes in the output.
    pub removed_comments: Vec<NodeId>,
    /// Set when the query had to be abandoned on this game (runaway work); the game
    /// then does not match.
    pub error: Option<Error>,
}

use crate::ir::props::{self, DictionaryContents};
use crate::ir::visit::children as children_of;

/// Arithmetic, a negation, or `file`/`rank`/`abs` that is always a number
/// ([`props::is_always_number`]), or the ply, the side to move or a position's id:
/// computed from the numbers and sets of its parts or read from the position
/// ([`Shape::DirectNumber`]). (A count is decided with the shape of its set.)
fn is_direct_number(ir: &Ir, f: FilterId) -> bool {
    matches!(
        ir.get(f),
        Filter::PositionState(PositionStateFilter::Ply | PositionStateFilter::SideToMove)
            | Filter::GameTree(GameTreeFilter::PositionId)
    ) || matches!(ir.get(f), Filter::Numbers(NumberFilter::Arith(..) | NumberFilter::Neg(_) | NumberFilter::Call(..)))
        && props::is_always_number(ir, f)
}

/// `makesquare f r` of two parts that are always numbers: a square computed from their
/// numbers ([`Shape::DirectSet`]).
fn is_square_of_numbers(ir: &Ir, f: FilterId) -> bool {
    matches!(ir.get(f), Filter::Numbers(NumberFilter::Call(crate::ir::Builtin::MakeSquare, args))
        if args.len() == 2 && args.iter().all(|&a| props::is_always_number(ir, a)))
}

impl Query {
    /// Is evaluating filter `f` free of effects beyond its result (see [`props::is_pure`])?
    pub(crate) fn is_pure(&self, f: FilterId) -> bool {
        self.pure.get(f.0 as usize).copied().unwrap_or(false)
    }

    /// Is the value of filter `f`, whenever it matches, a number (see
    /// [`props::is_always_number`])?
    #[inline]
    pub(crate) fn is_always_number(&self, f: FilterId) -> bool {
        self.always_number.get(f.0 as usize).copied().unwrap_or(false)
    }

    /// The kinds of values the evaluator asks about (see [`kinds::Kinds`]).
    #[inline]
    pub(crate) fn kinds(&self) -> &kinds::Kinds {
        &self.kinds
    }

    /// How the evaluator runs filter `f` (see [`Shape`]).
    #[inline]
    pub(crate) fn shape(&self, f: FilterId) -> Shape {
        self.shapes.get(f.0 as usize).copied().unwrap_or(Shape::Other)
    }

    /// Compile an IR (transforms expanded) into a query: compiles every regular
    /// expression once and finds the header-only parts of the query.
    pub fn new(ir: Ir) -> Result<Query, Error> {
        let mut regexes = Vec::with_capacity(ir.len());
        let mut has_yacpdb = false;
        let mut similar: Vec<(FilterId, std::sync::Arc<similar::SimilarDb>)> = Vec::new();
        let mut similar_read: Vec<((&str, bool), std::sync::Arc<similar::SimilarDb>)> = Vec::new();
        // Only nodes reachable from the root run; the arena may still hold the
        // unexpanded originals of transformed sub-trees.
        let mut reachable = vec![false; ir.len()];
        let mut todo: Vec<FilterId> = ir.root.into_iter().collect();
        while let Some(f) = todo.pop() {
            if !std::mem::replace(&mut reachable[f.0 as usize], true) {
                todo.extend(children_of(ir.get(f)));
            }
        }
        for (i, &runs) in reachable.iter().enumerate() {
            let node = ir.get(FilterId(i as u32));
            if !runs {
                regexes.push(None);
                continue;
            }
            match node {
                Filter::Numbers(NumberFilter::RegexMatch { pattern, .. }) => {
                    let re = crate::ir::compile_pattern(pattern)
                        .map_err(|e| Error { message: format!("invalid regular expression `{pattern}`: {e}") })?;
                    regexes.push(Some(re));
                    continue;
                }
                Filter::Transform { .. } => {
                    return Err(Error { message: "internal error: transform not expanded before evaluation".into() })
                }
                Filter::Yacpdb(pred) => {
                    has_yacpdb = true;
                    regexes.push(yacpdb::stip_regex(pred));
                    continue;
                }
                // A `similarposition` file is read when the query is compiled, not at the first game.
                Filter::Keyword62(Keyword62Filter::SimilarPosition { file, transform, .. }) => {
                    let key = (file.as_str(), *transform);
                    let table = match similar_read.iter().find(|(k, _)| *k == key) {
                        Some((_, table)) => table.clone(),
                        None => {
                            let table =
                                similar::SimilarDb::load(file, *transform).map_err(|message| Error { message })?;
                            let table = std::sync::Arc::new(table);
                            similar_read.push((key, table.clone()));
                            table
                        }
                    };
                    similar.push((FilterId(i as u32), table));
                }
                _ => {}
            }
            regexes.push(None);
        }
        let mut header_conjuncts = Vec::new();
        let mut header_only = false;
        if let Some(root) = ir.root {
            header_only = props::is_header_only_before_replay(&ir, root);
            let mut todo = vec![root];
            while let Some(f) = todo.pop() {
                match ir.get(f) {
                    Filter::Logic(LogicFilter::And(items)) => todo.extend(items.iter().rev()),
                    _ if props::is_header_only_before_replay(&ir, f) => header_conjuncts.push(f),
                    // A game skipped on its tags never runs this conjunct: tags tested after
                    // something seen whether or not the game matches (a message, a file, a
                    // variable later games read) must not skip the game.
                    _ if props::effects(&ir, f) == props::Effects::BeyondTheGame => break,
                    _ => {}
                }
            }
        }
        let mut memo = props::Memo::default();
        let pure: Vec<bool> = (0..ir.len()).map(|i| props::is_pure(&ir, FilterId(i as u32), &mut memo)).collect();
        let set_variables = plan::set_variables(&ir);
        let always_number: Vec<bool> =
            (0..ir.len()).map(|i| props::is_always_number(&ir, FilterId(i as u32))).collect();
        let mut shapes = (0..ir.len())
            .map(|i| {
                let f = FilterId(i as u32);
                match ir.get(f) {
                    Filter::Sets(SetFilter::Squares(b)) => Shape::Squares(*b),
                    Filter::Sets(SetFilter::Pieces { mask, squares }) => Shape::Pieces(*mask, *squares),
                    Filter::Variables(VariableFilter::Var(v)) => Shape::Var(*v),
                    Filter::Numbers(NumberFilter::Number(n)) => Shape::Number(*n),
                    Filter::True => Shape::True,
                    Filter::False => Shape::False,
                    _ if pure[i]
                        && (props::is_direct_set(&ir, f)
                            || plan::is_intersection_of_sets(&ir, f, &set_variables)
                            || is_square_of_numbers(&ir, f)) =>
                    {
                        Shape::DirectSet
                    }
                    _ if pure[i] && is_direct_number(&ir, f) => Shape::DirectNumber,
                    _ if pure[i] => Shape::Pure,
                    _ => Shape::Other,
                }
            })
            .collect::<Vec<Shape>>();
        // A count is computed directly when its set is (a variable may hold a string, whose
        // count is its length): decided once the shapes of its parts are known.
        let counted_sets: Vec<bool> = (0..ir.len())
            .map(|i| match ir.get(FilterId(i as u32)) {
                Filter::Sets(SetFilter::Count(set)) => {
                    pure[i]
                        && matches!(
                            shapes.get(set.0 as usize),
                            Some(Shape::Squares(_) | Shape::Pieces(..) | Shape::DirectSet)
                        )
                }
                _ => false,
            })
            .collect();
        for (shape, direct) in shapes.iter_mut().zip(counted_sets) {
            if direct {
                *shape = Shape::DirectNumber;
            }
        }
        let mut set_assigned = vec![false; ir.len()];
        for i in 0..ir.len() {
            if let Some(value) = props::set_assigned_value(&ir, FilterId(i as u32)) {
                set_assigned[value.0 as usize] = true;
            }
        }
        let dictionaries = props::dictionary_contents(&ir);
        let kinds = kinds::Kinds::new(&ir);
        let plans = plan::plans(&ir);
        let gate = ir.root.map_or_else(Default::default, |root| plan::position_gate(&ir, root, &plans, &pure));
        Ok(Query {
            ir,
            limits: Limits::default(),
            regexes,
            header_conjuncts,
            header_only,
            has_yacpdb,
            pure,
            shapes,
            always_number,
            kinds,
            set_assigned,
            dictionaries,
            plans,
            gate,
            planned: true,
            files: files::FilePolicy::default(),
            similar,
            run: std::sync::Arc::new(Run::new()),
        })
    }

    /// How an `and`/`or` is tested where only its match counts (see [`plan::Plan`]);
    /// always as stored for a query [`without_plan`](Query::without_plan).
    #[inline]
    pub(crate) fn plan(&self, f: FilterId) -> &plan::Plan {
        static AS_STORED: plan::Plan = plan::Plan::AsStored;
        if !self.planned {
            return &AS_STORED;
        }
        self.plans.get(f.0 as usize).unwrap_or(&AS_STORED)
    }

    /// The same query evaluated the plain way: every filter in the script's own order, at
    /// every position of every game, with no cost ordering, no position gate, no header
    /// test before the moves are replayed, no prechecks and no early stops beyond those
    /// CQL 6.2 itself makes (`and`/`or` stop at the first part that decides them, `find`
    /// at its first match). Slow, and the reference every optimization is checked against:
    /// what it writes (games, comments, messages, sort order) must be what the planned
    /// query writes.
    pub fn without_plan(mut self) -> Query {
        self.planned = false;
        self.gate = plan::PositionGate::default();
        self.header_conjuncts.clear();
        self
    }

    /// Does the evaluator follow the evaluation plan (see [`Query::without_plan`])?
    #[inline]
    pub(crate) fn planned(&self) -> bool {
        self.planned
    }

    /// Is filter `f` the square-set right side of an `=` assignment (see `set_assigned`)?
    pub(crate) fn is_set_assigned(&self, f: FilterId) -> bool {
        self.set_assigned.get(f.0 as usize).copied().unwrap_or(false)
    }

    /// What dictionary `dict` holds, as far as the query's text tells (see
    /// [`props::dictionary_contents`]).
    pub(crate) fn dictionary_contents(&self, dict: crate::ir::VarId) -> DictionaryContents {
        self.dictionaries.get(dict.0 as usize).copied().unwrap_or(DictionaryContents::DecidedByEntries)
    }

    /// Set the per-game budgets (steps, time, memory) of the runs of this query.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// The per-game budgets of the runs of this query.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Has this query's run reached a `cql_abort` (or a failed `assert`)? It then
    /// evaluates no further game.
    pub fn abort_requested(&self) -> bool {
        self.run.abort_requested()
    }

    /// The run this query belongs to (see [`Run`]): register the run's inputs there.
    pub fn run(&self) -> &std::sync::Arc<Run> {
        &self.run
    }

    /// Make this query part of `run`: queries run together over the same games (the
    /// survey's themes) share one, and a query evaluated again over other games is given
    /// a fresh one, so that nothing of the earlier run (a stop, an open file) carries over.
    pub fn set_run(&mut self, run: std::sync::Arc<Run>) {
        self.run = run;
    }

    /// The table of the `similarposition` file of filter `f`, read when the query was
    /// compiled.
    pub(crate) fn similar_table(&self, f: FilterId) -> Option<&similar::SimilarDb> {
        self.similar.iter().find(|(g, _)| *g == f).map(|(_, table)| &**table)
    }

    /// Which files the query's `readfile` and `writefile` may reach.
    pub fn file_policy(&self) -> &files::FilePolicy {
        &self.files
    }

    /// Set the files the query may reach, after checking the file names it writes as
    /// quoted strings: the diagnostics of those the policy refuses (nothing changed then).
    pub fn set_file_policy(&mut self, policy: files::FilePolicy) -> Result<(), Vec<crate::diag::Diagnostic>> {
        let refused = files::check_constant_names(&self.ir, &policy);
        if !refused.is_empty() {
            return Err(refused);
        }
        self.files = policy;
        Ok(())
    }

    /// The IR this query runs.
    pub fn ir(&self) -> &Ir {
        &self.ir
    }

    /// Must the games be evaluated one after another on a single worker? True when the
    /// query has a dictionary that is not `local`: its entries are carried from game to
    /// game, so what a game sees must not depend on how games are shared out to threads.
    pub fn sequential(&self) -> bool {
        self.ir.vars.iter().any(|v| v.kind == VarKind::Dictionary { local: false })
            // `readfile`/`writefile` run on one thread, as in CQL 6.2, so that a file is
            // written in game order.
            || (0..self.ir.len()).any(|i| matches!(self.ir.get(FilterId(i as u32)), Filter::Keyword62(Keyword62Filter::WriteFile(..))))
    }

    /// Does the query need positions (move replay)? `false` for header-only queries.
    pub fn needs_positions(&self) -> bool {
        let (lo, hi) = self.ir.settings.matchcount;
        !(self.planned && self.header_only && lo <= 1 && hi >= 1)
    }

    /// Can a game with these tags (no moves read yet) still match? Header filters
    /// are checked here, before replay, with the worker's `scratch` (whose square memo
    /// of the header tests they use; they never look at a position).
    pub fn may_match_tags(&self, scratch: &Scratch, game: &Game) -> bool {
        if !self.game_selected(game) || self.abort_requested() {
            return false;
        }
        let mut vars = Vec::new();
        let mut dicts = Vec::new();
        let mut ctx = Ctx::new(self, game, &mut vars, &mut dicts, &scratch.header_squares);
        for &f in &self.header_conjuncts {
            match ctx.test(f, Loc::Header) {
                Ok(true) => {}
                Ok(false) => return false,
                Err(_) => return true,
            }
        }
        true
    }

    /// The compiled pattern of the YACPDB `Stip(…)` predicate at node `f`, if it has one.
    pub(crate) fn stip_regex(&self, f: FilterId) -> Option<&Regex> {
        self.regexes.get(f.0 as usize).and_then(Option::as_ref)
    }

    /// Game-number and result restrictions of the settings.
    fn game_selected(&self, game: &Game) -> bool {
        let s = &self.ir.settings;
        if let Some((lo, hi)) = s.gamenumber {
            if game.number < lo || game.number > hi {
                return false;
            }
        }
        if let Some(r) = s.result {
            if engine::game_result(game) != Some(r) {
                return false;
            }
        }
        true
    }

    /// Evaluate the query on a replayed game.
    pub fn eval_game(&self, scratch: &mut Scratch, game: &Game) -> GameMatch {
        let mut result = GameMatch::default();
        scratch.prepare(&self.ir);
        let Some(root) = self.ir.root else { return result };
        if !self.game_selected(game) || self.abort_requested() {
            return result;
        }
        // The memory budget counts what earlier games left behind.
        let kept = scratch.kept_dicts.saturating_add(scratch.persistent_string_bytes(&self.ir));
        let mut ctx = Ctx::new(self, game, &mut scratch.vars, &mut scratch.dicts, &scratch.squares);
        ctx.memory = kept;
        if game.nodes.is_empty() {
            if self.needs_positions() {
                return result;
            }
            match ctx.test(root, Loc::Header) {
                Ok(ok) => result.matched = ok,
                Err(e) => result.error = Some(e),
            }
            scratch.kept_dicts = scratch.kept_dicts.saturating_add_signed(ctx.out.kept_bytes);
            return result;
        }
        // Every searched position in game-tree order (only the start with `per_game`),
        // walked in place rather than listed first.
        // A query without effects writes no output: there is nothing to roll back.
        let writes = !self.is_pure(root);
        let gate = self.gate;
        let mut next = Some(NodeId::ROOT);
        while let Some(n) = next {
            next = if self.ir.settings.per_game || gate.start_only { None } else { ctx.next_searched(n) };
            if gate.in_check && !game.nodes[n.index()].check {
                continue;
            }
            let mark = ctx.out.mark();
            ctx.origin = n;
            match ctx.test(root, Loc::Node(n)) {
                Ok(true) => {
                    result.positions.push(n);
                    result.marked_after.push(ctx.out.comments.len());
                }
                Ok(false) if writes => ctx.out.rollback(mark),
                Ok(false) => {}
                Err(e) => {
                    result.error = Some(e);
                    break;
                }
            }
        }
        let count = result.positions.len() as u64;
        let (lo, hi) = self.ir.settings.matchcount;
        result.matched = result.error.is_none() && count >= lo && count <= hi;
        let out = std::mem::take(&mut ctx.out);
        scratch.kept_dicts = scratch.kept_dicts.saturating_add_signed(out.kept_bytes);
        result.comments = out.comments;
        result.comments.extend(ctx.consecutive_run_marks());
        result.set_tags = out.tags;
        result.messages = out.messages;
        result.removed_comments = out.removed;
        for (doc, min, quiet, value) in out.sorts {
            if quiet && !result.quiet_sort.contains(&doc) {
                result.quiet_sort.push(doc.clone());
            }
            match result.sort.iter_mut().find(|(d, _)| *d == doc) {
                Some(entry) => {
                    let better = if min { value < entry.1 } else { value > entry.1 };
                    if better {
                        entry.1 = value;
                    }
                }
                None => result.sort.push((doc, value)),
            }
        }
        // After the sort values are known: the comments of the best `sort` evaluations.
        let held = ctx.held_sort_comments(&result.sort);
        result.comments.extend(held);
        if self.has_yacpdb {
            if let Some(a) = &ctx.analysis {
                result.predicates = a.instances();
            }
        }
        result
    }

    /// Persistent variables accumulated in the given scratches, merged: name and
    /// printed value, in declaration order. Numbers are summed over the workers.
    pub fn persistent_totals(&self, scratches: &[Scratch]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (i, info) in self.ir.vars.iter().enumerate() {
            if !info.persistent {
                continue;
            }
            if matches!(info.kind, VarKind::Dictionary { .. }) {
                let merged = dict::merge(scratches.iter().filter_map(|s| s.dicts.get(i)));
                out.push((info.name.clone(), dict::text(&merged)));
                continue;
            }
            let mut sum: Option<i64> = None;
            let mut other: Option<String> = None;
            for s in scratches {
                match s.vars.get(i).and_then(|v| v.as_ref()) {
                    Some(Value::Number(n)) => sum = Some(sum.unwrap_or(0).saturating_add(*n)),
                    Some(Value::Str(t)) => other = Some(t.clone()),
                    Some(Value::Set(b)) => other = Some(value::squares_text(*b)),
                    _ => {}
                }
            }
            if let Some(n) = sum {
                out.push((info.name.clone(), n.to_string()));
            } else if let Some(t) = other {
                out.push((info.name.clone(), t));
            } else {
                out.push((info.name.clone(), "0".to_string()));
            }
        }
        out
    }
}

impl Scratch {
    /// Make room for the query's variables and unbind every non-persistent one; empty
    /// every `local` dictionary.
    fn prepare(&mut self, ir: &Ir) {
        if self.vars.len() < ir.vars.len() {
            self.vars.resize(ir.vars.len(), None);
        }
        if self.dicts.len() < ir.vars.len() {
            self.dicts.resize(ir.vars.len(), dict::Dict::new());
        }
        for ((slot, d), info) in self.vars.iter_mut().zip(self.dicts.iter_mut()).zip(ir.vars.iter()) {
            if !info.persistent {
                *slot = None;
            }
            if info.kind == (VarKind::Dictionary { local: true }) {
                d.clear();
            }
        }
    }

    /// Bytes of the strings held by persistent variables (kept from game to game).
    fn persistent_string_bytes(&self, ir: &Ir) -> u64 {
        self.vars
            .iter()
            .zip(ir.vars.iter())
            .filter(|(_, info)| info.persistent)
            .map(|(slot, _)| if let Some(Value::Str(t)) = slot { t.len() as u64 } else { 0 })
            .sum()
    }

    /// The current value of a variable slot (after a game: its last value).
    pub fn var(&self, var: crate::ir::VarId) -> Option<&Value> {
        self.vars.get(var.0 as usize).and_then(|v| v.as_ref())
    }
}
