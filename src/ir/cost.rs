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
use super::visit::children;
use super::{Filter, FilterId, Ir, PieceMask};

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
}

impl Estimator {
    /// A fresh table.
    pub fn new() -> Estimator {
        Estimator::default()
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
            Filter::Number(_) | Filter::Str(_) => e(0.1, 1.0),
            Filter::Squares(b) => e(0.5, if b.is_empty() { 0.0 } else { 1.0 }),
            Filter::Pieces { mask, squares } => e(1.0, pieces_match_share(*mask, squares.count() as u32)),
            Filter::Var(_) => e(1.0, 0.7),
            Filter::Check => e(0.5, 0.05),
            Filter::Mate => e(1.0, 0.002),
            // A stalemate test generates the moves of every position not in check.
            Filter::Stalemate => e(30.0, 0.001),
            Filter::ToMove(_) => e(0.5, 0.5),
            Filter::Initial => e(0.5, 0.01),
            Filter::Terminal => e(1.0, 0.01),
            Filter::Header(_) | Filter::Result(_) | Filter::Year | Filter::GameNumber => e(2.0, 0.3),
            Filter::Move(_) => e(10.0 + self.children_cost(ir, id, depth), 0.3),
            Filter::Not(inner) => {
                let inner = self.estimate_at(ir, *inner, depth + 1);
                e(inner.cost + 0.1, 1.0 - inner.matches)
            }
            Filter::And(parts) => {
                let parts = parts.clone();
                let order = self.order(ir, &parts, false, depth);
                let (mut cost, mut reach) = (0.1, 1.0);
                for p in order {
                    let x = self.estimate_at(ir, p, depth + 1);
                    cost += reach * x.cost;
                    reach *= x.matches;
                }
                e(cost, reach)
            }
            Filter::Or(parts) => {
                let parts = parts.clone();
                let order = self.order(ir, &parts, true, depth);
                let (mut cost, mut reach) = (0.1, 1.0);
                for p in order {
                    let x = self.estimate_at(ir, p, depth + 1);
                    cost += reach * x.cost;
                    reach *= 1.0 - x.matches;
                }
                e(cost, 1.0 - reach)
            }
            // Searches: the body is tested at many positions or for many squares.
            Filter::Find { .. }
            | Filter::Line { .. }
            | Filter::Path { .. }
            | Filter::Echo { .. }
            | Filter::Yacpdb(_)
            | Filter::While { .. }
            | Filter::SimilarPosition { .. } => e(50.0 + 40.0 * self.children_cost(ir, id, depth), 0.3),
            Filter::SquareIter { .. } | Filter::PieceIter { .. } | Filter::IdentityIter { .. } => {
                e(5.0 + 10.0 * self.children_cost(ir, id, depth), 0.3)
            }
            Filter::Attacks { .. } | Filter::AttackChain { .. } | Filter::PinOf { .. } => {
                e(3.0 + self.children_cost(ir, id, depth), 0.3)
            }
            Filter::Compare { .. } => e(0.5 + self.children_cost(ir, id, depth), 0.4),
            _ => e(1.0 + self.children_cost(ir, id, depth), 0.5),
        }
    }

    /// The order in which to test `parts` of an `or` (`any`) or an `and`: within each run of
    /// movable parts, cheapest per decision first (for `and` the parts most likely to fail,
    /// for `or` those most likely to match); the parts that cannot move stay where they are.
    /// Equal keys keep their given order.
    pub fn order(&mut self, ir: &Ir, parts: &[FilterId], any: bool, depth: usize) -> Vec<FilterId> {
        let mut out = Vec::with_capacity(parts.len());
        let mut run: Vec<(f64, FilterId)> = Vec::new();
        for &p in parts {
            if self.movable(ir, p) {
                let x = self.estimate_at(ir, p, depth + 1);
                let decides = if any { x.matches } else { 1.0 - x.matches };
                run.push((x.cost / decides.max(1e-9), p));
                continue;
            }
            flush(&mut run, &mut out);
            out.push(p);
        }
        flush(&mut run, &mut out);
        out
    }
}

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
        Filter::Number(_) => true,
        Filter::And(v) | Filter::Or(v) => v.iter().any(|&c| matched_number(ir, c, depth + 1)),
        Filter::Not(c) => matched_number(ir, *c, depth + 1),
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
        if let Filter::And(parts) | Filter::Or(parts) = node {
            let order = estimator.order(ir, parts, matches!(node, Filter::Or(_)), 0);
            if order != *parts {
                out.push((f, order));
            }
        }
        todo.extend(children(node));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let Filter::And(parts) = ir.get(root) else { panic!("root is not an and") };
        let order = orders.iter().find(|(f, _)| *f == root).map_or(parts.clone(), |(_, o)| o.clone());
        assert_eq!(ir.get(order[0]), &Filter::Mate);
    }

    #[test]
    fn parts_with_effects_stay_in_place() {
        let (ir, orders) = orders("cql() comment(\"a\") ka1 check comment(\"b\") mate");
        let root = ir.root.unwrap();
        let Filter::And(parts) = ir.get(root) else { panic!("root is not an and") };
        let order = orders.iter().find(|(f, _)| *f == root).map_or(parts.clone(), |(_, o)| o.clone());
        let comments: Vec<usize> =
            (0..order.len()).filter(|&i| matches!(ir.get(order[i]), Filter::Comment(_))).collect();
        let written: Vec<usize> =
            (0..parts.len()).filter(|&i| matches!(ir.get(parts[i]), Filter::Comment(_))).collect();
        assert_eq!(comments, written);
        let mut sorted = order.clone();
        sorted.sort();
        let mut given = parts.clone();
        given.sort();
        assert_eq!(sorted, given);
    }
}
