//! How the evaluator tests each `and` and `or`: decided once per query, from the
//! estimates of [`crate::ir::cost`].
//!
//! Takes in: a normalized [`Ir`].
//! Gives out: per filter a [`Plan`] — test the parts in the stored order, in another
//! order (cheap deciding parts first), or, for a combination of plain piece placements
//! (the images of a transformed mate pattern: `flipcolor shift flip {Nf7 kh8 ph7 Rg1-7}`
//! is an `or` of some 600 such `and`s), as a table of bitboard masks checked in one tight
//! loop instead of hundreds of separately evaluated filters.
//! Must never: change which positions match. A table is built only from filters without
//! effects or values that anyone reads (their `and`/`or` is only asked whether it matches),
//! and each entry tests exactly what the filter it replaces tests.

use crate::ir::{GameTreeFilter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter, VariableFilter};
use shakmaty::{Bitboard, Color, Position};

use super::board;
use crate::ir::cost;
use crate::ir::props::{self, Memo};
use crate::ir::transform::MAX_DEPTH;
use crate::ir::{CmpOp, Filter, FilterId, FindDirection, Ir, PieceMask, ValueType, VarId, VarKind};
use crate::pgn::{PieceId, Pos};

/// How to test one filter when only whether it matches counts.
#[derive(Debug, Default)]
pub(crate) enum Plan {
    /// As stored (not an `and`/`or`, or its stored order is already the best).
    #[default]
    AsStored,
    /// The parts of an `and`/`or`, in the order to test them.
    Order(Box<[FilterId]>),
    /// An `or` of `and`s (or one `and`) of plain position facts, as masks.
    Patterns(Box<Patterns>),
    /// A `find` whose body is free of effects and holds only up to some ply, or only where
    /// some placements of pieces held in variables hold (see [`FindPlan`]).
    Find(Box<FindPlan>),
    /// An existential square or piece iteration whose body fails for every square when one
    /// of `guards` fails (they do not depend on the square, see [`cost::iteration_guards`]):
    /// they are tested once, before the squares are tried. With `movers_only` the body
    /// fails at once, without effects, for a square no next move starts from (see
    /// [`cost::mover_iterations`]): only the squares moves start from are tried.
    Iteration { guards: Box<[FilterId]>, movers_only: bool },
    /// An `and` whose parts are tested in `order` and reach a `path` after parts that a
    /// failure hides (see [`cost::path_prechecks`]): the moves the path must begin with are
    /// looked for first.
    Prechecked { order: Box<[FilterId]>, check: Box<cost::PathPrecheck> },
}

/// What a `find` whose body is free of effects may skip without testing the body.
#[derive(Debug)]
pub(crate) struct FindPlan {
    /// A forward search whose body holds only up to some ply (`find {ply <= Start + 10 …}`):
    /// the ply only grows along the moves, so the search skips what lies beyond it. The
    /// bound is a number that no position changes (numbers, variables, arithmetic), read
    /// once where the search starts; `true` for `<`.
    pub(crate) up_to_ply: Option<(FilterId, bool)>,
    /// Parts of the body that are intersections of variables and constant square sets
    /// (`First ∩ SecondHome`), each given as its items. No position changes what a set
    /// variable holds, and the body writes no variable, so each is read once where the
    /// search starts; only the squares of the pieces held in variables change from one
    /// position to the next. A position where one of them is empty is passed over
    /// without testing the body (which fails there: it requires every part).
    pub(crate) placements: Box<[Box<[FilterId]>]>,
}

/// Most placements of a [`FindPlan`] checked at each position, and most pieces named in
/// one of them (further ones are left to the body's own test).
const MOST_PLACEMENTS: usize = 4;
/// Most pieces named in one placement of a [`FindPlan`].
pub(super) const MOST_PLACED_PIECES: usize = 3;

/// The placements of a [`FindPlan`] as read where the search starts: per placement, the
/// squares its constant sets and set variables leave, and the pieces whose squares must
/// lie among them. Allocation-free: the search checks it at every position it passes.
///
/// A placement of one piece cannot hold anywhere in a forward search unless the piece
/// stands on one of its squares at some position of the search. The squares each such
/// piece stands on over a whole search are gathered and remembered per start position
/// and last ply (`Ctx::remember_walked_squares`), so a later search from the same
/// position (the same piece against another square: `◭Second∊… {…find {…First ∩
/// SecondHome…}}` for each Second) is decided without walking when they miss.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Placements {
    /// Per placement: its squares, the pieces that must lie among them, how many pieces.
    pub(super) parts: [(Bitboard, [PieceId; MOST_PLACED_PIECES], u8); MOST_PLACEMENTS],
    /// How many placements `parts` holds.
    pub(super) len: u8,
    /// Pieces whose squares are being gathered over the search, with the squares so far.
    pub(super) gathered: [(PieceId, Bitboard); MOST_PLACEMENTS],
    /// How many pieces `gathered` holds.
    pub(super) gathered_len: u8,
    /// Some placement holds at no position of the search: nothing needs walking.
    pub(super) never: bool,
}

/// One fact of a [`Patterns`] alternative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    /// Some square of the set holds a piece of this one kind (index into the kinds of
    /// [`kind_boards`]: 0–5 white pawn to king, 6–11 black, 12 empty).
    Kind(u8, Bitboard),
    /// Some square of the set holds a piece the mask accepts.
    Mask(PieceMask, Bitboard),
    /// No square of the set holds a piece the mask accepts (`not` of a placement).
    NoneOf(PieceMask, Bitboard),
    /// This side is to move.
    ToMove(Color),
    /// The side to move is in check (`true`) or not (`false`).
    Check(bool),
    /// Never holds (an empty constant set).
    Never,
}

/// Alternatives of facts: the filter matches when every fact of some alternative holds.
#[derive(Debug)]
pub(crate) struct Patterns {
    /// Every alternative's facts, one after another (cheapest deciding fact first).
    needs: Vec<Need>,
    /// Where each alternative's facts end in `needs`.
    ends: Vec<u32>,
    /// Some alternative looks at the piece kinds one by one.
    uses_kinds: bool,
    /// Some alternative asks whether the side to move is in check.
    pub(crate) uses_check: bool,
}

/// The board of each piece kind (index as in [`Need::Kind`]) and of the empty squares.
fn kind_boards(board: &shakmaty::Board) -> [Bitboard; 13] {
    let mut out = [Bitboard::EMPTY; 13];
    for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
        let side = board.by_color(color);
        for (r, role) in shakmaty::Role::ALL.into_iter().enumerate() {
            out[c * 6 + r] = side & board.by_role(role);
        }
    }
    out[12] = !board.occupied();
    out
}

impl Patterns {
    /// Does some alternative hold at this position? `in_check`: is the side to move in check.
    pub(crate) fn matches(&self, pos: &Pos, in_check: bool) -> bool {
        let board = pos.board();
        let kinds = if self.uses_kinds { kind_boards(board) } else { [Bitboard::EMPTY; 13] };
        let turn = pos.turn();
        let mut start = 0usize;
        'alternatives: for &end in &self.ends {
            let end = end as usize;
            for need in &self.needs[start..end] {
                let holds = match *need {
                    Need::Kind(k, squares) => (kinds[k as usize] & squares).any(),
                    Need::Mask(mask, squares) => board::pieces(board, mask, squares).any(),
                    Need::NoneOf(mask, squares) => board::pieces(board, mask, squares).is_empty(),
                    Need::ToMove(color) => turn == color,
                    Need::Check(wanted) => in_check == wanted,
                    Need::Never => false,
                };
                if !holds {
                    start = end;
                    continue 'alternatives;
                }
            }
            return true;
        }
        false
    }
}

/// The fact a plain position test stands for, if it is one.
fn need_of(ir: &Ir, f: FilterId) -> Option<Need> {
    Some(match ir.get(f) {
        Filter::Sets(SetFilter::Pieces { mask, squares }) => {
            let bits = mask.0 & PieceMask::ANYTHING.0;
            if bits == 0 {
                Need::Never
            } else if bits.count_ones() == 1 {
                Need::Kind(bits.trailing_zeros() as u8, *squares)
            } else {
                Need::Mask(*mask, *squares)
            }
        }
        Filter::Sets(SetFilter::Squares(b)) if b.is_empty() => Need::Never,
        Filter::Logic(LogicFilter::Not(inner)) => match ir.get(*inner) {
            Filter::Sets(SetFilter::Pieces { mask, squares }) => Need::NoneOf(*mask, *squares),
            Filter::PositionState(PositionStateFilter::Check) => Need::Check(false),
            _ => return None,
        },
        Filter::PositionState(PositionStateFilter::ToMove(color)) => Need::ToMove(*color),
        Filter::PositionState(PositionStateFilter::Check) => Need::Check(true),
        _ => return None,
    })
}

/// Does the kind of `need` need the boards of the kinds?
fn uses_kinds(need: &Need) -> bool {
    matches!(need, Need::Kind(..))
}

/// The facts of one alternative, in `order` (an `and` of plain tests, or one plain test);
/// `None` when some part is not a plain test. A constant non-empty set always holds and
/// adds nothing.
fn alternative(ir: &Ir, f: FilterId, orders: &rustc_hash::FxHashMap<FilterId, Vec<FilterId>>) -> Option<Vec<Need>> {
    let parts: Vec<FilterId> = match ir.get(f) {
        Filter::Logic(LogicFilter::And(parts)) => orders.get(&f).cloned().unwrap_or_else(|| parts.clone()),
        _ => vec![f],
    };
    let mut needs = Vec::with_capacity(parts.len());
    for p in parts {
        match ir.get(p) {
            Filter::Sets(SetFilter::Squares(b)) if b.any() => continue,
            Filter::True => continue,
            _ => needs.push(need_of(ir, p)?),
        }
    }
    Some(needs)
}

/// Is `f` a number that is the same at every position: numbers, variables and arithmetic
/// on them?
fn fixed_number(ir: &Ir, f: FilterId, depth: usize) -> bool {
    depth <= MAX_DEPTH
        && match ir.get(f) {
            Filter::Numbers(NumberFilter::Number(_)) | Filter::Variables(VariableFilter::Var(_)) => true,
            Filter::Numbers(NumberFilter::Arith(_, a, b)) => {
                fixed_number(ir, *a, depth + 1) && fixed_number(ir, *b, depth + 1)
            }
            Filter::Numbers(NumberFilter::Neg(a)) => fixed_number(ir, *a, depth + 1),
            _ => false,
        }
}

/// The plan of a `find` whose body has no effects (see [`FindPlan`]): the ply bound of a
/// forward search whose body requires `ply <= bound` or `ply < bound` with a fixed bound,
/// and the placements the body requires. `None` when there is neither.
fn find_plan(ir: &Ir, f: FilterId, pure: &mut Memo, set_variables: &[bool]) -> Option<Plan> {
    let Filter::GameTree(GameTreeFilter::Find { direction, body, .. }) = ir.get(f) else { return None };
    if !props::is_pure(ir, *body, pure) {
        return None;
    }
    let parts = match ir.get(*body) {
        Filter::Logic(LogicFilter::And(parts)) => parts.clone(),
        _ => vec![*body],
    };
    let up_to_ply = parts.iter().find_map(|&p| match ir.get(p) {
        Filter::Numbers(NumberFilter::Compare { first, rest })
            if *direction == FindDirection::Forward
                && rest.len() == 1
                && matches!(ir.get(*first), Filter::PositionState(PositionStateFilter::Ply)) =>
        {
            let (op, bound) = rest[0];
            let strict = match op {
                CmpOp::Le => false,
                CmpOp::Lt => true,
                _ => return None,
            };
            fixed_number(ir, bound, 0).then_some((bound, strict))
        }
        _ => None,
    });
    let placements: Vec<Box<[FilterId]>> =
        parts.iter().filter_map(|&p| placement_items(ir, p, set_variables)).take(MOST_PLACEMENTS).collect();
    (up_to_ply.is_some() || !placements.is_empty())
        .then(|| Plan::Find(Box::new(FindPlan { up_to_ply, placements: placements.into_boxed_slice() })))
}

/// The items of `f` if it is a placement a [`FindPlan`] checks: an intersection the
/// evaluator works out from its parts' sets ([`is_intersection_of_sets`]) whose parts are
/// all variables or constant square sets, naming at most [`MOST_PLACED_PIECES`] piece
/// variables (the ones whose squares change from one position to the next).
fn placement_items(ir: &Ir, f: FilterId, set_variables: &[bool]) -> Option<Box<[FilterId]>> {
    if let Some(items) = piece_on_square(ir, f) {
        return Some(items);
    }
    let Filter::Sets(SetFilter::Intersection(items)) = ir.get(f) else { return None };
    if !is_intersection_of_sets(ir, f, set_variables) {
        return None;
    }
    let mut pieces = 0;
    for &i in items {
        match ir.get(i) {
            Filter::Sets(SetFilter::Squares(_)) => {}
            Filter::Variables(VariableFilter::Var(v)) => {
                let kind = ir.vars.get(v.0 as usize).map(|info| info.kind);
                if !matches!(kind, Some(VarKind::Square)) && !set_variables.get(v.0 as usize).copied().unwrap_or(false)
                {
                    pieces += 1;
                }
            }
            _ => return None,
        }
    }
    (pieces <= MOST_PLACED_PIECES).then(|| items.clone().into_boxed_slice())
}

/// `T == c1` (or `c1 == T`) for a piece variable `T` and one square: the piece stands on
/// that square, which is the placement `T ∩ c1` (a piece's set is its one square, or
/// empty once it is taken, and the comparison of sets holds only when both are `{c1}`).
/// Its items as a placement: the variable and the square.
fn piece_on_square(ir: &Ir, f: FilterId) -> Option<Box<[FilterId]>> {
    let Filter::Numbers(NumberFilter::Compare { first, rest }) = ir.get(f) else { return None };
    let [(CmpOp::Eq, second)] = rest.as_slice() else { return None };
    let is_piece_var = |g: FilterId| matches!(ir.get(g), Filter::Variables(VariableFilter::Var(v)) if matches!(ir.vars.get(v.0 as usize).map(|i| i.kind), Some(VarKind::Piece)));
    let is_one_square = |g: FilterId| matches!(ir.get(g), Filter::Sets(SetFilter::Squares(b)) if b.count() == 1);
    ((is_piece_var(*first) && is_one_square(*second)) || (is_one_square(*first) && is_piece_var(*second)))
        .then(|| vec![*first, *second].into_boxed_slice())
}

/// Most facts one table holds (a bigger `or` is evaluated the general way).
const MOST_NEEDS: usize = 1 << 16;

/// What a position must be for the query to match there, read off the conjuncts of its
/// root that are tested before anything with effects: in check (a conjunct `mate` or
/// `check`), the start position (a conjunct `initial`). The evaluator passes over the
/// other positions without testing the query at all, which is the same: there the query
/// fails on such a conjunct before it writes anything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PositionGate {
    /// Only positions whose side to move is in check can match.
    pub(crate) in_check: bool,
    /// Only the start position can match.
    pub(crate) start_only: bool,
}

/// The [`PositionGate`] of a root filter, given every filter's plan and whether it is
/// free of effects (`pure`, by filter).
pub(crate) fn position_gate(ir: &Ir, root: FilterId, plans: &[Plan], pure: &[bool]) -> PositionGate {
    let mut gate = PositionGate::default();
    add_gates(ir, root, plans, pure, &mut gate, 0);
    gate
}

/// Add to `gate` what filter `f` requires of a position before it has any effect.
fn add_gates(ir: &Ir, f: FilterId, plans: &[Plan], pure: &[bool], gate: &mut PositionGate, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match ir.get(f) {
        // A compound `{a b}` (or `a and b`) matches where all of its parts do, and tests them
        // in its plan's order up to the first that fails.
        Filter::Logic(LogicFilter::And(items)) => {
            let order: &[FilterId] = match plans.get(f.0 as usize) {
                // Without effects, the order does not matter: it fails wherever a part does.
                _ if pure.get(f.0 as usize).copied().unwrap_or(false) => items,
                Some(Plan::Order(order) | Plan::Prechecked { order, .. }) => order,
                Some(Plan::AsStored) | None => items,
                // Another plan tests the parts its own way: nothing is read off.
                Some(_) => return,
            };
            for &part in order {
                add_gates(ir, part, plans, pure, gate, depth + 1);
                if !pure.get(part.0 as usize).copied().unwrap_or(false) {
                    break;
                }
            }
        }
        Filter::PositionState(PositionStateFilter::Mate | PositionStateFilter::Check) => gate.in_check = true,
        Filter::PositionState(PositionStateFilter::Initial) => gate.start_only = true,
        _ => {}
    }
}

/// The plan of every filter of the IR, indexed by filter.
pub(crate) fn plans(ir: &Ir) -> Vec<Plan> {
    let orders: rustc_hash::FxHashMap<FilterId, Vec<FilterId>> = cost::evaluation_orders(ir).into_iter().collect();
    let mut plans: Vec<Plan> = (0..ir.len()).map(|_| Plan::AsStored).collect();
    let guards: rustc_hash::FxHashMap<FilterId, Vec<FilterId>> =
        cost::iteration_guards(ir, &orders).into_iter().collect();
    for (&f, guards) in &guards {
        plans[f.0 as usize] = Plan::Iteration { guards: guards.clone().into_boxed_slice(), movers_only: false };
    }
    for f in cost::mover_iterations(ir, &orders, &guards) {
        match &mut plans[f.0 as usize] {
            Plan::Iteration { movers_only, .. } => *movers_only = true,
            plan => *plan = Plan::Iteration { guards: Box::default(), movers_only: true },
        }
    }
    for (f, check) in cost::path_prechecks(ir, &orders) {
        let order = match ir.get(f) {
            Filter::Logic(LogicFilter::And(parts)) => orders.get(&f).cloned().unwrap_or_else(|| parts.clone()),
            _ => continue,
        };
        plans[f.0 as usize] = Plan::Prechecked { order: order.into_boxed_slice(), check: Box::new(check) };
    }
    let mut pure = Memo::default();
    let set_variables = set_variables(ir);
    for i in 0..ir.len() {
        if matches!(plans[i], Plan::Prechecked { .. }) {
            continue;
        }
        let f = FilterId(i as u32);
        if let Some(plan) = find_plan(ir, f, &mut pure, &set_variables) {
            plans[i] = plan;
            continue;
        }
        let alternatives: Vec<FilterId> = match ir.get(f) {
            Filter::Logic(LogicFilter::Or(parts)) => orders.get(&f).cloned().unwrap_or_else(|| parts.clone()),
            Filter::Logic(LogicFilter::And(_)) => vec![f],
            _ => continue,
        };
        let mut needs = Vec::new();
        let mut ends = Vec::with_capacity(alternatives.len());
        let mut plain =
            alternatives.len() >= 2 || matches!(ir.get(f), Filter::Logic(LogicFilter::And(parts)) if parts.len() >= 2);
        for &a in &alternatives {
            match alternative(ir, a, &orders) {
                Some(facts) if plain && needs.len() + facts.len() <= MOST_NEEDS => {
                    needs.extend(facts);
                    ends.push(needs.len() as u32);
                }
                _ => {
                    plain = false;
                    break;
                }
            }
        }
        if plain {
            let uses_kinds = needs.iter().any(uses_kinds);
            let uses_check = needs.iter().any(|n| matches!(n, Need::Check(_)));
            plans[i] = Plan::Patterns(Box::new(Patterns { needs, ends, uses_kinds, uses_check }));
        } else if let Some(order) = orders.get(&f) {
            plans[i] = Plan::Order(order.clone().into_boxed_slice());
        }
    }
    plans
}

/// Per variable: does it hold a set of squares whenever it is bound? True for a variable
/// of no declared kind (not kept across games) that is only ever given values by plain
/// assignments of sets or pieces (a piece assigned to such a variable is kept as its
/// square): `FirstHome = First`, `Guarded = ▦ ← Defender`. Read where the evaluator
/// decides how to run an intersection (see [`is_intersection_of_sets`]).
pub(crate) fn set_variables(ir: &Ir) -> Vec<bool> {
    let mut holds_set: Vec<bool> = ir.vars.iter().map(|v| v.kind == VarKind::Value && !v.persistent).collect();
    let mut assigned = vec![false; holds_set.len()];
    let not_set = |v: VarId, holds_set: &mut Vec<bool>| {
        if let Some(slot) = holds_set.get_mut(v.0 as usize) {
            *slot = false;
        }
    };
    for i in 0..ir.len() {
        match ir.get(FilterId(i as u32)) {
            Filter::Variables(VariableFilter::Assign { var, op, value }) => {
                if let Some(slot) = assigned.get_mut(var.0 as usize) {
                    *slot = true;
                }
                let set = op.is_none() && matches!(props::value_type(ir, *value), ValueType::Set | ValueType::Piece);
                if !set {
                    not_set(*var, &mut holds_set);
                }
            }
            Filter::Variables(
                VariableFilter::SquareIter { var, .. }
                | VariableFilter::PieceIter { var, .. }
                | VariableFilter::IdentityIter { var, .. },
            ) => not_set(*var, &mut holds_set),
            Filter::GameTree(GameTreeFilter::Echo { source, target, .. }) => {
                not_set(*source, &mut holds_set);
                not_set(*target, &mut holds_set);
            }
            _ => {}
        }
    }
    holds_set.iter().zip(&assigned).map(|(&set, &assigned)| set && assigned).collect()
}

/// Is `f` an intersection whose every part gives a set of squares when it has a value (a set
/// filter, a square or piece variable, a variable of [`set_variables`])? Then it is worked
/// out from its parts' sets, as the other set operations are, without making a value of each
/// part (an intersection of positions compares boards and needs the general way).
pub(crate) fn is_intersection_of_sets(ir: &Ir, f: FilterId, set_variables: &[bool]) -> bool {
    let Filter::Sets(SetFilter::Intersection(parts)) = ir.get(f) else { return false };
    parts.iter().all(|&p| {
        props::is_always_set(ir, p)
            || match ir.get(p) {
                Filter::Variables(VariableFilter::Var(v)) => {
                    set_variables.get(v.0 as usize).copied().unwrap_or(false)
                        || ir.vars.get(v.0 as usize).is_some_and(|i| matches!(i.kind, VarKind::Piece | VarKind::Square))
                }
                _ => false,
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CompileOptions, Query};

    fn plan_of_root(text: &str) -> (Query, FilterId) {
        let query = Query::compile(text, &mut CompileOptions::default()).unwrap();
        let root = query.ir().root.unwrap();
        (query, root)
    }

    #[test]
    fn a_transformed_placement_becomes_one_table() {
        let (query, root) = plan_of_root("cql() flipcolor shift flip { Nf7 kh8 ph7 Rg1-7 }");
        let plans = plans(query.ir());
        let Plan::Patterns(p) = &plans[root.0 as usize] else { panic!("no table: {:?}", plans[root.0 as usize]) };
        assert!(p.ends.len() > 100, "{} alternatives", p.ends.len());
    }

    #[test]
    fn the_table_agrees_with_the_pattern_on_a_position() {
        use shakmaty::fen::Fen;
        use shakmaty::CastlingMode;
        let (query, root) = plan_of_root("cql() flipcolor shift flip { Nf7 kh8 ph7 Rg1-7 }");
        let plans = plans(query.ir());
        let Plan::Patterns(p) = &plans[root.0 as usize] else { panic!("no table") };
        let position = |fen: &str| -> Pos {
            let fen: Fen = fen.parse().unwrap();
            Pos::from_fen(fen, CastlingMode::Standard, CastlingMode::Chess960).unwrap()
        };
        // The corner mate itself, its colour-swapped image one file over, and a near miss.
        assert!(p.matches(&position("7k/5N1p/8/8/8/8/8/6RK b - - 0 1"), true));
        assert!(p.matches(&position("k5r1/8/8/8/8/8/5n1P/7K w - - 0 1"), true));
        assert!(!p.matches(&position("7k/5N2/8/8/8/8/8/6RK b - - 0 1"), true));
    }

    /// The position gate of the root of `text`.
    fn gate_of(text: &str) -> PositionGate {
        let query = Query::compile(text, &mut CompileOptions::default()).unwrap();
        query.gate
    }

    #[test]
    fn the_query_is_tested_only_where_its_first_conjuncts_can_hold() {
        let check = PositionGate { in_check: true, start_only: false };
        let start = PositionGate { in_check: false, start_only: true };
        assert_eq!(gate_of("cql() mate"), check);
        assert_eq!(gate_of("cql() btm mate not ♚→□△"), check);
        assert_eq!(gate_of("cql() wtm check ♕"), check);
        // `find` writes notes, but `initial` is tested before it.
        assert_eq!(gate_of("cql() initial ◭T∊♖ { find T==a1 find T==h8 }"), start);
        // A plain assignment that nobody reads before it is made again may wait for the
        // fact (the plan tests `mate` first), but a sum kept from position to position
        // must be added to at every position.
        assert_eq!(gate_of("cql() { x = ply mate }"), check);
        assert_eq!(gate_of("cql() persistent Seen = 0 { Seen += 1 mate }"), PositionGate::default());
        // Either side of an `or` may hold: no gate.
        assert_eq!(gate_of("cql() mate or initial"), PositionGate::default());
        assert_eq!(gate_of("cql() not check"), PositionGate::default());
    }

    /// The plan of the only `find` of `text`.
    fn find_plan_of(text: &str) -> Option<(Option<(FilterId, bool)>, usize)> {
        let query = Query::compile(text, &mut CompileOptions::default()).unwrap();
        let ir = query.ir();
        let find = (0..ir.len())
            .map(|i| FilterId(i as u32))
            .find(|&f| matches!(ir.get(f), Filter::GameTree(GameTreeFilter::Find { .. })))
            .unwrap();
        match &plans(ir)[find.0 as usize] {
            Plan::Find(plan) => Some((plan.up_to_ply, plan.placements.len())),
            Plan::AsStored => None,
            other => panic!("{other:?}"),
        }
    }

    const SWAP: &str = "cql() piece First in [QR] piece Second in [QR] { FirstHome = First \
        SecondHome = Second  Start = ply  move from First \
        find { ply <= Start + 10  First & SecondHome  Second & FirstHome } }";

    #[test]
    fn a_find_knows_its_last_ply_and_the_placements_its_body_requires() {
        let (up_to_ply, placements) = find_plan_of(SWAP).expect("no plan");
        assert!(matches!(up_to_ply, Some((_, false))));
        assert_eq!(placements, 2);
        // Backwards there is no last ply, but the placements still decide each position.
        let back = SWAP.replace("find {", "find <-- {");
        assert_eq!(find_plan_of(&back).map(|(p, n)| (p.is_some(), n)), Some((false, 2)));
        // A constant square set is read once too.
        let constant = SWAP.replace("Second & FirstHome", "Second & [a-h1-4]");
        assert_eq!(find_plan_of(&constant).map(|(_, n)| n), Some(2));
    }

    #[test]
    fn a_body_with_effects_or_a_set_of_the_board_gets_no_placements() {
        // A body that writes something: every position is tested as written.
        let effect = SWAP.replace("Second & FirstHome", "Second & FirstHome  comment(\"x\")");
        assert_eq!(find_plan_of(&effect), None);
        // The pieces on the board change from one position to the next: not read once.
        let board = SWAP.replace("Second & FirstHome", "Second & [qr]");
        assert_eq!(find_plan_of(&board).map(|(_, n)| n), Some(1));
        // Neither a last ply nor a placement: nothing to plan.
        assert_eq!(find_plan_of("cql() piece X in [QR] find { X & [qr] check }"), None);
    }

    #[test]
    fn a_variable_given_only_sets_makes_its_intersections_direct() {
        // `Home` only ever holds a square set (a piece assigned to it is kept as its square);
        // `Moves` holds numbers.
        let text = "cql() piece First in [QR] { Home = First  Moves = 0  Moves += 1 \
            find { First & Home } }";
        let query = Query::compile(text, &mut CompileOptions::default()).unwrap();
        let ir = query.ir();
        let sets = set_variables(ir);
        let var = |name: &str| ir.find_var(name).unwrap().0 as usize;
        assert!(sets[var("Home")] && !sets[var("Moves")]);
        let home = ir.find_var("Home").unwrap();
        let intersection = (0..ir.len())
            .map(|i| FilterId(i as u32))
            .find(|&f| matches!(ir.get(f), Filter::Sets(SetFilter::Intersection(parts)) if parts.iter().any(|&p| ir.get(p) == &Filter::Variables(VariableFilter::Var(home)))))
            .unwrap();
        assert!(is_intersection_of_sets(ir, intersection, &sets));
        // Without knowing what `Home` holds, the intersection keeps the general way.
        assert!(!is_intersection_of_sets(ir, intersection, &vec![false; sets.len()]));
    }
}
