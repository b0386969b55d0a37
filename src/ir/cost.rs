//! Estimated cost and selectivity of filters, and the order in which the parts of an
//! `and` or `or` are best tested.
//!
//! Takes in: a normalized [`Ir`].
//! Gives out: for a node, an [`Estimate`] — the work one test of it takes, in units of
//! one simple board lookup, and the share of positions where it matches; and for an
//! `and`/`or`, the order of its parts that tests the cheap, deciding ones first
//! ([`evaluation_order`]).
//! Must never: change what a query finds. Only parts that neither change state nor read
//! state a sibling may have set ([`props::depends_on_evaluation_order`]) are moved, and
//! only among their neighbours between two parts that cannot move, so every part with an
//! effect sees exactly the parts before it that it saw in the written order.
//!
//! The canonical form that `ir::normalize` gives an `and` (ordered by a structural hash,
//! so that two spellings of one query print the same) says nothing about speed: in
//! `mate flipcolor shift flip {Nf7 kh8 ph7 Rg1-7}` it may put the 600-way `or` of the
//! transformed patterns before `mate`. The evaluator tests the parts in the order found
//! here instead; CQL 6.2 tests them in the written order, which for such scripts puts the
//! cheap, rare fact first.
//!
//! The numbers are rough guesses about ordinary games (how often a king stands on a given
//! square, how often a position is mate); they only need to rank parts sensibly.

use super::props::{self, Memo};
use super::transform::MAX_DEPTH;
use super::visit::{children, for_each_child};
use super::{Filter, FilterId, Ir, PieceMask, VarId};
use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, Keyword62Filter, LogicFilter, NumberFilter, PositionStateFilter,
    SetFilter, VariableFilter,
};

/// The expected work and the chance of matching of one test of a filter at a position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Expected work, in units of one board lookup (a piece on a square is 1).
    pub cost: f64,
    /// Share of ordinary positions at which the filter matches (0 to 1).
    pub matches: f64,
}

/// How many pieces of each kind an ordinary position has, by the bit order of
/// [`PieceMask`] (pawn, knight, bishop, rook, queen, king), for one colour.
const TYPICAL_COUNT: [f64; 6] = [6.0, 1.3, 1.4, 1.6, 0.7, 1.0];
/// Typical number of empty squares.
const TYPICAL_EMPTY: f64 = 40.0;

/// The share of ordinary positions where some square of `squares` holds a piece of `mask`.
pub fn pieces_match_share(mask: PieceMask, squares: u32) -> f64 {
    let mut per_square = 0.0;
    for bit in 0..12 {
        if mask.0 & (1 << bit) != 0 {
            per_square += TYPICAL_COUNT[bit % 6] / 64.0;
        }
    }
    if mask.contains_empty() {
        per_square += TYPICAL_EMPTY / 64.0;
    }
    let per_square = per_square.min(0.97);
    1.0 - (1.0 - per_square).powi(squares as i32)
}

/// Estimates of the nodes of one IR, each found once.
#[derive(Default)]
pub struct Estimator {
    known: Vec<Option<Estimate>>,
    order_sensitive: Memo,
    pure: Memo,
    /// Per node, the variables named anywhere in it (see [`Estimator::variables_in`]).
    variables: Vec<Option<VarSet>>,
    /// Per node, the variables written anywhere in it (see [`Estimator::written_in`]).
    written: Vec<Option<VarSet>>,
    /// Per variable, whether it is assigned before every read (see
    /// [`Estimator::assigned_before_every_read`]).
    dead: rustc_hash::FxHashMap<VarId, bool>,
    /// Nodes the searches of [`Estimator::dead_on_failure`] may still visit, over the whole
    /// query (beyond it every assignment stays where it is written).
    search_budget: usize,
}

/// Variables as a bit set of their indexes; `ALL` stands for "any variable" (an index too
/// large for the set, or a node nested deeper than the analysis looks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct VarSet(u128);

impl VarSet {
    const NONE: VarSet = VarSet(0);
    const ALL: VarSet = VarSet(u128::MAX);

    fn of(var: VarId) -> VarSet {
        if var.0 < 127 {
            VarSet(1 << var.0)
        } else {
            VarSet::ALL
        }
    }

    fn meets(self, other: VarSet) -> bool {
        self.0 & other.0 != 0
    }
}

/// The variables a node itself writes or binds (its children aside).
fn own_writes(filter: &Filter) -> VarSet {
    match filter {
        Filter::Variables(
            VariableFilter::Assign { var, .. }
            | VariableFilter::Unbind(var)
            | VariableFilter::SquareIter { var, .. }
            | VariableFilter::PieceIter { var, .. }
            | VariableFilter::IdentityIter { var, .. },
        ) => VarSet::of(*var),
        Filter::Variables(VariableFilter::DictSet { dict, .. } | VariableFilter::DictUnbind { dict, .. }) => {
            VarSet::of(*dict)
        }
        Filter::GameTree(GameTreeFilter::Echo { source, target, .. }) => {
            VarSet(VarSet::of(*source).0 | VarSet::of(*target).0)
        }
        _ => VarSet::NONE,
    }
}

/// The variables a node itself names (its children aside): read, written, bound by an
/// iteration or `echo`, or written as the end of a range.
fn own_variables(filter: &Filter) -> VarSet {
    let one = VarSet::of;
    let range =
        |(a, b): (Option<VarId>, Option<VarId>)| VarSet(a.map_or(VarSet::NONE, one).0 | b.map_or(VarSet::NONE, one).0);
    match filter {
        Filter::Variables(
            VariableFilter::Var(v)
            | VariableFilter::IsBound(v)
            | VariableFilter::Unbind(v)
            | VariableFilter::DictCount(v),
        ) => one(*v),
        Filter::Variables(
            VariableFilter::Assign { var, .. }
            | VariableFilter::SquareIter { var, .. }
            | VariableFilter::PieceIter { var, .. }
            | VariableFilter::IdentityIter { var, .. },
        ) => one(*var),
        Filter::Variables(
            VariableFilter::DictGet { dict, .. }
            | VariableFilter::DictSet { dict, .. }
            | VariableFilter::DictUnbind { dict, .. },
        ) => one(*dict),
        Filter::GameTree(GameTreeFilter::Echo { source, target, .. }) => VarSet(one(*source).0 | one(*target).0),
        Filter::Geometry(GeometryFilter::Direction { range_variables, .. }) => range(*range_variables),
        Filter::GameTree(GameTreeFilter::Line { params, .. }) => range(params.range_variables),
        Filter::GameTree(GameTreeFilter::Path { params, .. }) => range(params.range_variables),
        _ => VarSet::NONE,
    }
}

impl Estimator {
    /// A fresh table.
    pub fn new() -> Estimator {
        Estimator { search_budget: SEARCH_BUDGET, ..Estimator::default() }
    }

    /// The variables named anywhere in `id` (see [`own_variables`]).
    fn variables_in(&mut self, ir: &Ir, id: FilterId, depth: usize) -> VarSet {
        Self::gather(ir, id, depth, &mut self.variables, own_variables)
    }

    /// The variables written or bound anywhere in `id` (see [`own_writes`]).
    fn written_in(&mut self, ir: &Ir, id: FilterId, depth: usize) -> VarSet {
        Self::gather(ir, id, depth, &mut self.written, own_writes)
    }

    /// The union of `own` over `id` and everything in it, remembered per node in `memo`.
    fn gather(
        ir: &Ir,
        id: FilterId,
        depth: usize,
        memo: &mut Vec<Option<VarSet>>,
        own: fn(&Filter) -> VarSet,
    ) -> VarSet {
        if let Some(Some(known)) = memo.get(id.0 as usize) {
            return *known;
        }
        let set = if depth > MAX_DEPTH {
            VarSet::ALL
        } else {
            let mut set = own(ir.get(id));
            for c in children(ir.get(id)) {
                set.0 |= Self::gather(ir, c, depth + 1, memo, own).0;
            }
            set
        };
        let i = id.0 as usize;
        if memo.len() <= i {
            memo.resize(i + 1, None);
        }
        memo[i] = Some(set);
        set
    }

    /// Is part `index` of the `and` `owner` a plain assignment (`x = v`, with `v` free of
    /// effects, `x` not kept across games) whose variable is read only after some plain
    /// assignment to it, made earlier in an enclosing `and` (see
    /// [`Estimator::assigned_before_every_read`])? Then, when `owner` fails, nobody sees
    /// whether the assignment was made: every reader runs only after the variable has been
    /// assigned again. Parts free of effects that do not name the variable may then be
    /// tested before it (`Start = ply  First――  find {…Start…}`: the rare move first).
    fn dead_on_failure(&mut self, ir: &Ir, owner: FilterId, index: usize) -> bool {
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(owner) else { return false };
        let Some(&part) = parts.get(index) else { return false };
        let Filter::Variables(VariableFilter::Assign { var, op: None, value }) = ir.get(part) else { return false };
        let (var, value) = (*var, *value);
        var.0 < 127
            && !props::outlives_the_game(ir, var)
            && props::is_pure(ir, value, &mut self.pure)
            && self.assigned_before_every_read(ir, var)
    }

    /// Is every place that names `var` (other than plain assignments to it) evaluated only
    /// after a plain assignment to it: inside a part of some `and` that comes after a part
    /// `var = …` of that `and`? Then a value `var` held before that `and` ran is never read.
    fn assigned_before_every_read(&mut self, ir: &Ir, var: VarId) -> bool {
        if let Some(&known) = self.dead.get(&var) {
            return known;
        }
        let answer = self.find_assigned_before_every_read(ir, var);
        self.dead.insert(var, answer);
        answer
    }

    fn find_assigned_before_every_read(&mut self, ir: &Ir, var: VarId) -> bool {
        let Some(root) = ir.root else { return false };
        let plain_write =
            |f: &Filter| matches!(f, Filter::Variables(VariableFilter::Assign { var: v, op: None, .. }) if *v == var);
        let wanted = VarSet::of(var);
        let mut seen = vec![false; ir.len()];
        let mut todo = vec![root];
        while let Some(f) = todo.pop() {
            if std::mem::replace(&mut seen[f.0 as usize], true) {
                continue;
            }
            if self.search_budget == 0 {
                return false;
            }
            self.search_budget -= 1;
            let node = ir.get(f);
            if !plain_write(node) && own_variables(node).meets(wanted) {
                return false;
            }
            match node {
                // The parts after the first assignment run only once it is made.
                Filter::Logic(LogicFilter::And(parts)) => match parts.iter().position(|&p| plain_write(ir.get(p))) {
                    Some(i) => todo.extend(parts[..=i].iter().copied()),
                    None => todo.extend(parts.iter().copied()),
                },
                _ => for_each_child(node, |c| todo.push(c)),
            }
        }
        true
    }

    /// The estimate of one test of `id`.
    pub fn estimate(&mut self, ir: &Ir, id: FilterId) -> Estimate {
        self.estimate_at(ir, id, 0)
    }

    /// Can `id` be moved past its pure neighbours: it changes no state, reads none a
    /// sibling may have set, and is no bare number (matching one stops the run, so it must
    /// be reached exactly where CQL 6.2 reaches it)?
    pub fn movable(&mut self, ir: &Ir, id: FilterId) -> bool {
        !props::depends_on_evaluation_order(ir, id, &mut self.order_sensitive) && !matched_number(ir, id, 0)
    }

    fn estimate_at(&mut self, ir: &Ir, id: FilterId, depth: usize) -> Estimate {
        if let Some(Some(known)) = self.known.get(id.0 as usize) {
            return *known;
        }
        let estimate = if depth > MAX_DEPTH { Estimate { cost: 1e6, matches: 0.5 } } else { self.own(ir, id, depth) };
        let i = id.0 as usize;
        if self.known.len() <= i {
            self.known.resize(i + 1, None);
        }
        self.known[i] = Some(estimate);
        estimate
    }

    /// The summed cost of the children of `id`.
    fn children_cost(&mut self, ir: &Ir, id: FilterId, depth: usize) -> f64 {
        children(ir.get(id)).into_iter().map(|c| self.estimate_at(ir, c, depth + 1).cost).sum()
    }

    fn own(&mut self, ir: &Ir, id: FilterId, depth: usize) -> Estimate {
        let e = |cost: f64, matches: f64| Estimate { cost, matches };
        match ir.get(id) {
            Filter::True => e(0.1, 1.0),
            Filter::False => e(0.1, 0.0),
            Filter::Numbers(NumberFilter::Number(_) | NumberFilter::Str(_)) => e(0.1, 1.0),
            Filter::Sets(SetFilter::Squares(b)) => e(0.5, if b.is_empty() { 0.0 } else { 1.0 }),
            Filter::Sets(SetFilter::Pieces { mask, squares }) => {
                e(1.0, pieces_match_share(*mask, squares.count() as u32))
            }
            Filter::Variables(VariableFilter::Var(_)) => e(1.0, 0.7),
            Filter::PositionState(PositionStateFilter::Check) => e(0.5, 0.05),
            Filter::PositionState(PositionStateFilter::Mate) => e(1.0, 0.002),
            // A stalemate test generates the moves of every position not in check.
            Filter::PositionState(PositionStateFilter::Stalemate) => e(30.0, 0.001),
            Filter::PositionState(PositionStateFilter::ToMove(_)) => e(0.5, 0.5),
            Filter::PositionState(PositionStateFilter::Initial) => e(0.5, 0.01),
            Filter::PositionState(PositionStateFilter::Terminal) => e(1.0, 0.01),
            Filter::Header(
                HeaderFilter::Field(_) | HeaderFilter::Result(_) | HeaderFilter::Year | HeaderFilter::GameNumber,
            ) => e(2.0, 0.3),
            Filter::Move(_) => e(10.0 + self.children_cost(ir, id, depth), 0.3),
            Filter::Logic(LogicFilter::Not(inner)) => {
                let inner = self.estimate_at(ir, *inner, depth + 1);
                e(inner.cost + 0.1, 1.0 - inner.matches)
            }
            Filter::Logic(LogicFilter::And(_)) => {
                let order = self.order(ir, id, depth);
                let (mut cost, mut reach) = (0.1, 1.0);
                for p in order {
                    let x = self.estimate_at(ir, p, depth + 1);
                    cost += reach * x.cost;
                    reach *= x.matches;
                }
                e(cost, reach)
            }
            Filter::Logic(LogicFilter::Or(_)) => {
                let order = self.order(ir, id, depth);
                let (mut cost, mut reach) = (0.1, 1.0);
                for p in order {
                    let x = self.estimate_at(ir, p, depth + 1);
                    cost += reach * x.cost;
                    reach *= 1.0 - x.matches;
                }
                e(cost, 1.0 - reach)
            }
            // Searches: the body is tested at many positions or for many squares.
            Filter::GameTree(
                GameTreeFilter::Find { .. }
                | GameTreeFilter::Line { .. }
                | GameTreeFilter::Path { .. }
                | GameTreeFilter::Echo { .. },
            )
            | Filter::Yacpdb(_)
            | Filter::Variables(VariableFilter::While { .. })
            | Filter::Keyword62(Keyword62Filter::SimilarPosition { .. }) => {
                e(50.0 + 40.0 * self.children_cost(ir, id, depth), 0.3)
            }
            Filter::Variables(
                VariableFilter::SquareIter { .. }
                | VariableFilter::PieceIter { .. }
                | VariableFilter::IdentityIter { .. },
            ) => e(5.0 + 10.0 * self.children_cost(ir, id, depth), 0.3),
            Filter::Geometry(
                GeometryFilter::Attacks { .. } | GeometryFilter::AttackChain { .. } | GeometryFilter::PinOf { .. },
            ) => e(3.0 + self.children_cost(ir, id, depth), 0.3),
            Filter::Numbers(NumberFilter::Compare { .. }) => e(0.5 + self.children_cost(ir, id, depth), 0.4),
            // `p:F` matches where F matches at p (a piece there, a set not empty there).
            Filter::GameTree(GameTreeFilter::AtPosition { body, .. }) => {
                let matches = self.estimate_at(ir, *body, depth + 1).matches;
                e(1.0 + self.children_cost(ir, id, depth), matches)
            }
            _ => e(1.0 + self.children_cost(ir, id, depth), 0.5),
        }
    }

    /// The order in which to test the parts of the `or` or `and` `owner`: within each run
    /// of movable parts, cheapest per decision first (for `and` the parts most likely to
    /// fail, for `or` those most likely to match); the parts that cannot move stay where
    /// they are. In an `and`, an assignment that is [dead on failure](Self::dead_on_failure)
    /// lets the movable parts after it that do not name its variable join the run before
    /// it; it keeps its place among the parts that cannot move. Equal keys keep their
    /// given order.
    pub fn order(&mut self, ir: &Ir, owner: FilterId, depth: usize) -> Vec<FilterId> {
        let (parts, any) = match ir.get(owner) {
            Filter::Logic(LogicFilter::And(parts)) => (parts.clone(), false),
            Filter::Logic(LogicFilter::Or(parts)) => (parts.clone(), true),
            _ => return Vec::new(),
        };
        let mut out = Vec::with_capacity(parts.len());
        let mut run: Vec<(f64, FilterId)> = Vec::new();
        // Dead assignments passed over by the current run, and their variables.
        let mut held: Vec<FilterId> = Vec::new();
        let mut held_vars = VarSet::NONE;
        for (index, &p) in parts.iter().enumerate() {
            if self.movable(ir, p) {
                if !held.is_empty() && self.variables_in(ir, p, depth + 1).meets(held_vars) {
                    flush(&mut run, &mut out);
                    out.append(&mut held);
                    held_vars = VarSet::NONE;
                }
                let x = self.estimate_at(ir, p, depth + 1);
                let decides = if any { x.matches } else { 1.0 - x.matches };
                run.push((x.cost / decides.max(1e-9), p));
                continue;
            }
            if !any && self.dead_on_failure(ir, owner, index) {
                if let Filter::Variables(VariableFilter::Assign { var, .. }) = ir.get(p) {
                    held_vars.0 |= VarSet::of(*var).0;
                }
                held.push(p);
                continue;
            }
            flush(&mut run, &mut out);
            out.append(&mut held);
            held_vars = VarSet::NONE;
            out.push(p);
        }
        flush(&mut run, &mut out);
        out.append(&mut held);
        out
    }
}

/// Most nodes the searches for assignments that are dead on failure visit for one query.
const SEARCH_BUDGET: usize = 4_000_000;

/// Append a run of movable parts, cheapest per decision first (a stable sort).
fn flush(run: &mut Vec<(f64, FilterId)>, out: &mut Vec<FilterId>) {
    run.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.extend(run.drain(..).map(|(_, p)| p));
}

/// Is a bare number matched against the position somewhere in `id` (the node itself, or a
/// member of its blocks, `and`, `or`, `not`)? CQL 6.2 stops the run where it reaches one.
fn matched_number(ir: &Ir, id: FilterId, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    match ir.get(id) {
        Filter::Numbers(NumberFilter::Number(_)) => true,
        Filter::Logic(LogicFilter::And(v) | LogicFilter::Or(v)) => v.iter().any(|&c| matched_number(ir, c, depth + 1)),
        Filter::Logic(LogicFilter::Not(c)) => matched_number(ir, *c, depth + 1),
        _ => false,
    }
}

/// The evaluation order of every `and` and `or` reachable from the root whose best order
/// differs from the stored one: (node, parts in the order to test them).
pub fn evaluation_orders(ir: &Ir) -> Vec<(FilterId, Vec<FilterId>)> {
    let mut estimator = Estimator::new();
    let mut out = Vec::new();
    let mut seen = vec![false; ir.len()];
    let mut todo: Vec<FilterId> = ir.root.into_iter().collect();
    while let Some(f) = todo.pop() {
        if std::mem::replace(&mut seen[f.0 as usize], true) {
            continue;
        }
        let node = ir.get(f);
        if let Filter::Logic(LogicFilter::And(parts) | LogicFilter::Or(parts)) = node {
            let order = estimator.order(ir, f, 0);
            if order != *parts {
                out.push((f, order));
            }
        }
        todo.extend(children(node));
    }
    out
}

/// For every existential square or piece iteration (`◭x∊Z F`, `x∊Z F`) whose domain has
/// no effects: the parts of its body that decide it for every square alike, if any. These
/// are the parts the body tests first (the movable parts before any part that cannot
/// move, in the body's evaluation order `orders`) that name neither the iteration's
/// variable nor any variable the body writes. When one of them fails at a position, the
/// body fails for every square, before any effect, so the iteration fails without trying
/// them (`◭Second∊… {… First――  find …}` tests the move of First once, not per Second).
pub fn iteration_guards(
    ir: &Ir,
    orders: &rustc_hash::FxHashMap<FilterId, Vec<FilterId>>,
) -> Vec<(FilterId, Vec<FilterId>)> {
    let mut estimator = Estimator::new();
    let mut out = Vec::new();
    let mut seen = vec![false; ir.len()];
    let mut todo: Vec<FilterId> = ir.root.into_iter().collect();
    while let Some(f) = todo.pop() {
        if std::mem::replace(&mut seen[f.0 as usize], true) {
            continue;
        }
        let node = ir.get(f);
        todo.extend(children(node));
        let Filter::Variables(
            VariableFilter::SquareIter { var, domain, body, forall: false }
            | VariableFilter::PieceIter { var, domain, body, forall: false },
        ) = node
        else {
            continue;
        };
        if !props::is_pure(ir, *domain, &mut estimator.pure) {
            continue;
        }
        let parts = match ir.get(*body) {
            Filter::Logic(LogicFilter::And(parts)) => orders.get(body).cloned().unwrap_or_else(|| parts.clone()),
            _ => vec![*body],
        };
        let mut varying = VarSet::of(*var);
        for &p in &parts {
            varying.0 |= estimator.written_in(ir, p, 1).0;
        }
        let mut guards = Vec::new();
        for &p in &parts {
            if !estimator.movable(ir, p) {
                break;
            }
            if !estimator.variables_in(ir, p, 1).meets(varying) {
                guards.push(p);
            }
        }
        if !guards.is_empty() {
            out.push((f, guards));
        }
    }
    out
}

/// Every existential square or piece iteration (`◭x∊Z F`, `x∊Z F`) whose body fails,
/// before any effect, at a square from which no move into a continuation starts: the body
/// requires `x` to make the next move. That holds when a part the body tests before any
/// part with an effect — one of the movable parts an `and` begins with (in its evaluation
/// order `orders`), one of the [`iteration_guards`] `guards` of an iteration, or the body
/// itself when it is movable — is a `move` of the next moves whose `from` set is `x`
/// itself and that matches only when some move fits it (not a count, not a null move).
/// Only the squares moves start from need to be tried then (`◭First∊… {◭Second∊… {…
/// First―― …}}`: the piece that moves, not every piece of the side).
pub fn mover_iterations(
    ir: &Ir,
    orders: &rustc_hash::FxHashMap<FilterId, Vec<FilterId>>,
    guards: &rustc_hash::FxHashMap<FilterId, Vec<FilterId>>,
) -> Vec<FilterId> {
    let mut estimator = Estimator::new();
    let mut out = Vec::new();
    let mut seen = vec![false; ir.len()];
    let mut todo: Vec<FilterId> = ir.root.into_iter().collect();
    while let Some(f) = todo.pop() {
        if std::mem::replace(&mut seen[f.0 as usize], true) {
            continue;
        }
        let node = ir.get(f);
        todo.extend(children(node));
        let Filter::Variables(
            VariableFilter::SquareIter { var, body, forall: false, .. }
            | VariableFilter::PieceIter { var, body, forall: false, .. },
        ) = node
        else {
            continue;
        };
        let first_tested: Vec<FilterId> = match ir.get(*body) {
            Filter::Logic(LogicFilter::And(parts)) => {
                let order = orders.get(body).cloned().unwrap_or_else(|| parts.clone());
                order.into_iter().take_while(|&p| estimator.movable(ir, p)).collect()
            }
            Filter::Variables(
                VariableFilter::SquareIter { forall: false, .. } | VariableFilter::PieceIter { forall: false, .. },
            ) => guards.get(body).cloned().unwrap_or_default(),
            _ if estimator.movable(ir, *body) => vec![*body],
            _ => Vec::new(),
        };
        let moves_from_var = |p: FilterId| match ir.get(p) {
            Filter::Move(mf) => {
                mf.source == super::MoveSource::Next
                    && mf.kind != super::MoveKind::Null
                    && mf.value != super::MoveValue::Count
                    && mf.from.is_some_and(|from| *ir.get(from) == Filter::Variables(VariableFilter::Var(*var)))
            }
            _ => false,
        };
        if first_tested.into_iter().any(moves_from_var) {
            out.push(f);
        }
    }
    out
}

/// One move a `path` must begin with, as far as it can be checked before the path runs:
/// its move constituent and those of its square sets that may be worked out at the
/// position the move is made from (`None`: not checked, any square will do).
#[derive(Clone, Debug)]
pub struct StepShape {
    /// The move constituent (a `move next` filter).
    pub filter: FilterId,
    /// Its `from` set, when checked.
    pub from: Option<FilterId>,
    /// Its `to` set, when checked.
    pub to: Option<FilterId>,
    /// Its `capture` set, when checked.
    pub capture: Option<FilterId>,
    /// Parts of its `then` filter checked at the position after the move (`btm mate`):
    /// those free of effects that name no variable written before the path or inside it.
    pub then: Vec<FilterId>,
}

/// The moves a `path` (`⊢`) must begin with: a chain of continuations whose moves fit these
/// shapes, one after another (only the first with a focus, after which moves of other
/// pieces may be skipped). Without such a chain the path cannot match.
#[derive(Clone, Debug)]
pub struct PathPrecheck {
    /// The path.
    pub path: FilterId,
    /// Its first move constituents, in order.
    pub steps: Vec<StepShape>,
    /// Facts of a position found in few games (`mate`, `stalemate`) that the `then` filter
    /// of some move constituent of the path requires (a part of it, in a constituent every
    /// match of the path passes: one of the top-level sequence): without a position of the
    /// game where the fact holds the path cannot match (`⊢◎T ―― ――Home btm mate`).
    pub somewhere: Vec<FilterId>,
}

/// For every `and` that reaches a `path` having tested only parts free of effects and
/// assignments that are [dead on failure](Estimator::dead_on_failure): the moves that path
/// must begin with. Testing them first, before those parts, changes nothing when they fail
/// (the `and` fails then anyway, and nobody sees the assignments not made) and saves the
/// assignments and the path search: `◭Defender∊… {Guarded = ▦ ← Defender  ⊢ ―― Defender―― …}`
/// looks first whether Defender moves at the second ply. A set that names a variable
/// written before the path or inside it is not checked.
pub fn path_prechecks(
    ir: &Ir,
    orders: &rustc_hash::FxHashMap<FilterId, Vec<FilterId>>,
) -> Vec<(FilterId, PathPrecheck)> {
    let mut estimator = Estimator::new();
    let mut out = Vec::new();
    let mut seen = vec![false; ir.len()];
    let mut todo: Vec<FilterId> = ir.root.into_iter().collect();
    while let Some(f) = todo.pop() {
        if std::mem::replace(&mut seen[f.0 as usize], true) {
            continue;
        }
        let node = ir.get(f);
        todo.extend(children(node));
        let Filter::Logic(LogicFilter::And(parts)) = node else { continue };
        let order = orders.get(&f).cloned().unwrap_or_else(|| parts.clone());
        let mut written = VarSet::NONE;
        let mut found = None;
        for &p in &order {
            if let Filter::GameTree(GameTreeFilter::Path { .. }) = ir.get(p) {
                found = Some(p);
                break;
            }
            let index = parts.iter().position(|&x| x == p).unwrap_or(usize::MAX);
            if !estimator.movable(ir, p) && !estimator.dead_on_failure(ir, f, index) {
                break;
            }
            written.0 |= estimator.written_in(ir, p, 1).0;
        }
        let Some(path) = found else { continue };
        if let Some(check) = estimator.path_precheck(ir, path, written) {
            out.push((f, check));
        }
    }
    out
}

impl Estimator {
    /// The moves `path` must begin with (see [`PathPrecheck`]), checking no set that names
    /// a variable of `written` or one the path writes; `None` when nothing is checked.
    fn path_precheck(&mut self, ir: &Ir, path: FilterId, written: VarSet) -> Option<PathPrecheck> {
        let Filter::GameTree(GameTreeFilter::Path { focus, body, .. }) = ir.get(path) else { return None };
        let forbidden = VarSet(written.0 | self.written_in(ir, path, 1).0);
        let usable = |e: &mut Estimator, set: FilterId| {
            props::is_pure(ir, set, &mut e.pure) && !e.variables_in(ir, set, 1).meets(forbidden)
        };
        if let Some(focus) = focus {
            if !usable(self, *focus) {
                return None;
            }
        }
        let items = match ir.get(*body) {
            Filter::GameTree(GameTreeFilter::SeqConcat(items)) => items.clone(),
            _ => vec![*body],
        };
        // With a focus, moves of other pieces may come between the later constituents.
        let most = if focus.is_some() { 1 } else { items.len() };
        let mut steps = Vec::new();
        let mut decides = focus.is_some();
        for &item in items.iter().take(most) {
            let Filter::Move(mf) = ir.get(item) else { break };
            if mf.source != super::MoveSource::Next {
                break;
            }
            let mut keep = |set: Option<FilterId>| set.filter(|&s| usable(self, s));
            let (from, to, capture) = (keep(mf.from), keep(mf.to), keep(mf.capture));
            let then_parts = match mf.then.map(|t| (t, ir.get(t))) {
                None => Vec::new(),
                Some((_, Filter::Logic(LogicFilter::And(parts)))) => parts.clone(),
                Some((t, _)) => vec![t],
            };
            let then: Vec<FilterId> =
                then_parts.into_iter().filter(|&p| self.movable(ir, p) && usable(self, p)).collect();
            let step = StepShape { filter: item, from, to, capture, then };
            decides |= step.from.is_some()
                || step.to.is_some()
                || step.capture.is_some()
                || !step.then.is_empty()
                || mf.promote != 0
                || mf.kind != super::MoveKind::Any;
            steps.push(step);
        }
        let mut somewhere = Vec::new();
        for &item in &items {
            let Filter::Move(mf) = ir.get(item) else { continue };
            let then_parts = match mf.then.map(|t| (t, ir.get(t))) {
                _ if mf.source != super::MoveSource::Next => Vec::new(),
                None => Vec::new(),
                Some((_, Filter::Logic(LogicFilter::And(parts)))) => parts.clone(),
                Some((t, _)) => vec![t],
            };
            for p in then_parts {
                if matches!(
                    ir.get(p),
                    Filter::PositionState(PositionStateFilter::Mate | PositionStateFilter::Stalemate)
                ) && !somewhere.contains(&p)
                {
                    somewhere.push(p);
                }
            }
        }
        let decides = (decides && !steps.is_empty()) || !somewhere.is_empty();
        decides.then_some(PathPrecheck { path, steps, somewhere })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::OutputFilter;
    use crate::{CompileOptions, Query};

    fn orders(text: &str) -> (Ir, Vec<(FilterId, Vec<FilterId>)>) {
        let query = Query::compile(text, &mut CompileOptions::default()).unwrap();
        let ir = query.ir().clone();
        let orders = evaluation_orders(&ir);
        (ir, orders)
    }

    #[test]
    fn a_king_on_one_square_is_rarer_than_a_pawn_on_a_file() {
        let king = pieces_match_share(PieceMask(1 << 11), 1);
        let pawns = pieces_match_share(PieceMask(1), 8);
        assert!(king < 0.05 && pawns > 0.3, "{king} {pawns}");
    }

    #[test]
    fn mate_is_tested_before_a_transformed_pattern() {
        let (ir, orders) = orders("cql() mate flipcolor shift flip { Nf7 kh8 ph7 Rg1-7 }");
        let root = ir.root.unwrap();
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(root) else { panic!("root is not an and") };
        let order = orders.iter().find(|(f, _)| *f == root).map_or(parts.clone(), |(_, o)| o.clone());
        assert_eq!(ir.get(order[0]), &Filter::PositionState(PositionStateFilter::Mate));
    }

    #[test]
    fn parts_with_effects_stay_in_place() {
        let (ir, orders) = orders("cql() comment(\"a\") ka1 check comment(\"b\") mate");
        let root = ir.root.unwrap();
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(root) else { panic!("root is not an and") };
        let order = orders.iter().find(|(f, _)| *f == root).map_or(parts.clone(), |(_, o)| o.clone());
        let comments: Vec<usize> = (0..order.len())
            .filter(|&i| matches!(ir.get(order[i]), Filter::Output(OutputFilter::Comment(_))))
            .collect();
        let written: Vec<usize> = (0..parts.len())
            .filter(|&i| matches!(ir.get(parts[i]), Filter::Output(OutputFilter::Comment(_))))
            .collect();
        assert_eq!(comments, written);
        let mut sorted = order.clone();
        sorted.sort();
        let mut given = parts.clone();
        given.sort();
        assert_eq!(sorted, given);
    }

    /// The and of the body of the innermost piece iteration of `text` (its root an `and`
    /// holding a piece iteration holding another), with its evaluation order.
    fn inner_body(text: &str) -> (Ir, FilterId, FilterId, Vec<FilterId>) {
        let (ir, orders) = orders(text);
        let mut inner = None;
        for i in 0..ir.len() {
            if let Filter::Variables(VariableFilter::PieceIter { body, .. }) = ir.get(FilterId(i as u32)) {
                if matches!(ir.get(*body), Filter::Logic(LogicFilter::And(_))) {
                    inner = Some((FilterId(i as u32), *body));
                }
            }
        }
        let (iteration, body) = inner.expect("no iteration with an and as body");
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(body) else { unreachable!() };
        let order = orders.iter().find(|(f, _)| *f == body).map_or(parts.clone(), |(_, o)| o.clone());
        (ir, iteration, body, order)
    }

    #[test]
    fn a_piece_elsewhere_is_tested_after_the_comparison_that_reads_it() {
        // `Later:x` holds wherever piece x is still on the board there (most of the time); the
        // comparison reads it anyway and decides more often. Both written orders agree.
        for text in [
            "cql() Later = position 3 piece x in [Aa] piece y in [Aa] { Later:x  x != Later:x  y }",
            "cql() Later = position 3 piece x in [Aa] piece y in [Aa] { x != Later:x  Later:x  y }",
        ] {
            let (ir, _, _, order) = inner_body(text);
            let compare =
                order.iter().position(|&p| matches!(ir.get(p), Filter::Numbers(NumberFilter::Compare { .. }))).unwrap();
            let elsewhere = order
                .iter()
                .position(|&p| matches!(ir.get(p), Filter::GameTree(GameTreeFilter::AtPosition { .. })))
                .unwrap();
            assert!(compare < elsewhere, "{text}: {order:?}");
        }
    }

    const SWAP: &str = "cql() piece First in [QRBN] piece Second in [QRBN] { \
        #(First | Second) == 2  FirstHome = First  Start = ply  move from First \
        find { ply <= Start + 10  Second & FirstHome } }";

    #[test]
    fn a_move_test_goes_before_assignments_only_later_parts_read() {
        let (ir, _, _, order) = inner_body(SWAP);
        let position = |pick: fn(&Filter) -> bool| order.iter().position(|&p| pick(ir.get(p))).unwrap();
        let first_assign = position(|f| matches!(f, Filter::Variables(VariableFilter::Assign { .. })));
        assert!(position(|f| matches!(f, Filter::Move(_))) < first_assign, "{order:?}");
        // The find reads the assigned variables: it stays after them.
        assert!(position(|f| matches!(f, Filter::GameTree(GameTreeFilter::Find { .. }))) > first_assign);
    }

    #[test]
    fn an_assignment_read_elsewhere_keeps_the_move_test_after_it() {
        // `FirstHome` is read after the iteration too: a failed body's assignment is seen.
        let text = SWAP.replace("} }", "} } FirstHome & a1");
        let (ir, _, _, order) = inner_body(&text);
        let position = |pick: fn(&Filter) -> bool| order.iter().position(|&p| pick(ir.get(p))).unwrap();
        let first_assign = position(|f| matches!(f, Filter::Variables(VariableFilter::Assign { .. })));
        assert!(position(|f| matches!(f, Filter::Move(_))) > first_assign, "{order:?}");
    }

    #[test]
    fn the_move_of_the_outer_piece_guards_the_inner_iteration() {
        let (ir, iteration, body, _) = inner_body(SWAP);
        let orders: rustc_hash::FxHashMap<_, _> = evaluation_orders(&ir).into_iter().collect();
        let guards = iteration_guards(&ir, &orders);
        let (_, parts) = guards.iter().find(|(f, _)| *f == iteration).expect("no guards");
        assert!(parts.iter().all(|&p| matches!(ir.get(p), Filter::Move(_))), "{parts:?}");
        assert_eq!(parts.len(), 1);
        // The count names Second: it is no guard, nor is any part of the outer iteration's.
        assert!(!guards.iter().any(|(f, _)| *f == body));
    }

    /// The piece iterations of `text` that try only the squares next moves start from,
    /// by the name of their variable.
    fn narrowed(text: &str) -> Vec<String> {
        let (ir, orders) = orders(text);
        let orders: rustc_hash::FxHashMap<_, _> = orders.into_iter().collect();
        let guards: rustc_hash::FxHashMap<_, _> = iteration_guards(&ir, &orders).into_iter().collect();
        let mut names: Vec<String> = mover_iterations(&ir, &orders, &guards)
            .into_iter()
            .map(|f| match ir.get(f) {
                Filter::Variables(VariableFilter::PieceIter { var, .. } | VariableFilter::SquareIter { var, .. }) => {
                    ir.vars[var.0 as usize].name.clone()
                }
                other => panic!("not an iteration: {other:?}"),
            })
            .collect();
        names.sort();
        names
    }

    #[test]
    fn only_the_moving_piece_is_tried_where_the_body_needs_its_move() {
        // The inner iteration's guard is the move of First: the outer one tries the mover.
        assert_eq!(narrowed(SWAP), ["First"]);
        // The move as the whole body, or first in an `and`.
        assert_eq!(narrowed("cql() piece X in [QR] move from X"), ["X"]);
        assert_eq!(narrowed("cql() square X in [a-h1-8] { move from X  X & [RN] }"), ["X"]);
    }

    #[test]
    fn a_move_that_may_not_decide_the_body_does_not_narrow_it() {
        // An assignment seen after the iteration is made before the move is tested.
        assert!(narrowed(&SWAP.replace("} }", "} } FirstHome & a1")).is_empty());
        // The previous move, a move to the piece's square, a move from a set around it.
        assert!(narrowed("cql() piece X in [QR] move previous from X").is_empty());
        assert!(narrowed("cql() piece X in [QR] move to X").is_empty());
        assert!(narrowed("cql() piece X in [QR] move from (X | a1)").is_empty());
        // A count of moves matches without a move; a null move starts from no square.
        assert!(narrowed("cql() piece X in [QR] #(move from X) >= 0").is_empty());
        // Every square, not some square.
        assert!(narrowed("cql() square all X in [QR] move from X").is_empty());
    }

    #[test]
    fn the_moves_a_path_begins_with_are_looked_for_before_the_assignment() {
        let text = "cql() wtm piece Defender in [qrbnp] { Guarded = . attackedby Defender \
            path -- Defender--({Taken = to}) A--({mate to & Guarded}) }";
        let (ir, orders) = orders(text);
        let orders: rustc_hash::FxHashMap<_, _> = orders.into_iter().collect();
        let checks = path_prechecks(&ir, &orders);
        assert_eq!(checks.len(), 1, "{checks:?}");
        let steps = &checks[0].1.steps;
        assert_eq!(steps.len(), 3);
        // The any-move, the Defender's move (from its square), a move from a White piece.
        assert!(steps[0].from.is_none() && steps[1].from.is_some() && steps[2].from.is_some());
        assert!(matches!(ir.get(steps[1].from.unwrap()), Filter::Variables(VariableFilter::Var(_))));
    }

    /// The `somewhere` facts of the only path precheck of `text`.
    fn somewhere(text: &str) -> Vec<Filter> {
        let (ir, orders) = orders(text);
        let orders: rustc_hash::FxHashMap<_, _> = orders.into_iter().collect();
        let checks = path_prechecks(&ir, &orders);
        checks.iter().flat_map(|(_, c)| c.somewhere.iter().map(|&f| ir.get(f).clone())).collect()
    }

    #[test]
    fn a_path_that_must_reach_a_mate_needs_a_mate_in_the_game() {
        let text = "cql() wtm ◭T∊(♕∪♖∪♗∪♘) { Home = T  ⊢◎T ―― ――Home btm mate }";
        assert_eq!(somewhere(text), [Filter::PositionState(PositionStateFilter::Mate)]);
        let text = "cql() wtm ◭T∊♖ { Home = T  ⊢ ―― T――({stalemate}) }";
        assert_eq!(somewhere(text), [Filter::PositionState(PositionStateFilter::Stalemate)]);
    }

    #[test]
    fn a_mate_the_path_may_pass_by_is_not_required() {
        // In a repeated constituent, or under `not`.
        assert!(somewhere("cql() ◭T∊♖ { Home = T  ⊢ (T――({mate})){0,2} ――Home }").is_empty());
        assert!(somewhere("cql() ◭T∊♖ { Home = T  ⊢ T――({not mate}) ――Home }").is_empty());
    }

    #[test]
    fn a_set_naming_a_variable_assigned_before_the_path_is_not_checked() {
        // `Line` is assigned before the path, not only read after it: its value is unknown.
        let text = "cql() wtm piece Defender in [qrb] { Line = between(Defender a1) \
            path A--Line -- A--({mate}) }";
        let (ir, orders) = orders(text);
        let orders: rustc_hash::FxHashMap<_, _> = orders.into_iter().collect();
        for (_, check) in path_prechecks(&ir, &orders) {
            for step in &check.steps {
                for set in [step.from, step.to, step.capture].into_iter().flatten() {
                    assert!(!matches!(ir.get(set), Filter::Variables(VariableFilter::Var(_))), "{check:?}");
                }
            }
        }
    }
}
