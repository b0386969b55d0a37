//! Canonical form of an [`Ir`]: meaning-preserving rewrites that make two queries with
//! the same meaning, written in different front-ends or spellings, print the same
//! `--dump-ir`.
//!
//! Takes in: an [`Ir`] whose transforms are already expanded (`ir::transform::expand`).
//! Gives out: the same `Ir`, rewritten in place: its root (and the `per_game` setting)
//! replaced by the canonical tree. Old nodes stay in the arena, unreferenced.
//! Must never: change which games match, or recurse without bound.
//!
//! # Rewrites
//! A node's *value* is what an enclosing filter reads from it (a set, a number …). Many
//! places only ask whether a filter matches — the root, a conjunct that is not last, the
//! body of `find`, the argument of `not`, a condition — and there more rewrites are
//! allowed, because only matching counts:
//! - nested `And` / `Or` are flattened (everywhere: that keeps values);
//! - `true` conjuncts and `false` alternatives are dropped;
//! - where only matching counts and nothing has a side effect (assignments, comments,
//!   regex groups, `line` marks …): conjuncts and alternatives are put in a canonical
//!   order (cheap header tests first) and duplicates removed, conjuncts common to every
//!   alternative of an `Or` are factored out of it, `not not F` becomes `F`, a
//!   comparison chain `a <= x <= b` becomes the two comparisons `x >= a`, `x <= b`, a
//!   constant is moved to the right of its comparison (`3 < x` → `x > 3`), and
//!   `find all F` with a count range becomes comparisons of the count;
//! - a query evaluated once per game at the root (legacy match lists) becomes the
//!   per-position query `initial F`; and a per-position `initial find F` whose other
//!   conjuncts only read the game's header becomes plain `F` — a game then matches at
//!   some position exactly when `F` matches at some position, as `find` from the start
//!   says;
//! - at the start position, a legacy tag (`IdentityIter`) becomes CQL 6's iteration over
//!   the pieces that are or can become its kinds (`piece T in [NP] {find {T & N} …}`);
//! - CQL 6's `"s" in t` on strings becomes `Contains`, and a case-insensitive `Contains`
//!   compares lower-cased strings;
//! - `#S > 0` on a set becomes `S`, and a `Union` whose value is not read becomes an `Or`;
//! - variables that are not `persistent` are named by kind and number (`piece1`).

use crate::ir::{
    GameTreeFilter, GeometryFilter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter, VariableFilter,
};
use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::props::{self, is_set_expression, value_type, Memo};
use super::transform::MAX_DEPTH;
use super::visit::{children, map_children, skeleton};
use shakmaty::{Bitboard, Color, Role};

use super::{Builtin, CmpOp, Filter, FilterId, FindDirection, Ir, PieceMask, Span, ValueType, VarId, VarKind};

/// Rewrite `ir` into its canonical form (see the module documentation).
pub fn normalize(ir: &mut Ir) {
    let Some(mut root) = ir.root else {
        return;
    };
    let mut n = Normalizer { notes_off: ir.settings.quiet || ir.settings.silent, ..Normalizer::default() };
    let default_count = ir.settings.matchcount == (1, u64::MAX);
    if ir.settings.per_game && default_count && !n.contains_yacpdb(ir, root) {
        // Evaluating once at the root is evaluating at every position and requiring
        // the initial one: only that position can match, and one match is enough.
        let span = ir.first_span(root);
        let initial = ir.add(Filter::PositionState(PositionStateFilter::Initial), span);
        root = ir.add(Filter::Logic(LogicFilter::And(vec![initial, root])), span);
        ir.settings.per_game = false;
    }
    root = n.node(ir, root, false, 0);
    if let Some(converted) = n.tags_to_pieces(ir, root) {
        root = n.node(ir, converted, false, 0);
    }
    if !ir.settings.per_game && default_count {
        if let Some(collapsed) = n.collapse_initial(ir, root) {
            root = n.node(ir, collapsed, false, 0);
        }
    }
    ir.root = Some(root);
}

/// The pieces of the start position that can be, or become, a piece of `mask`: its own
/// kinds, and the pawns of a colour for which it names a queen, rook, bishop or knight.
fn could_become(mask: PieceMask) -> PieceMask {
    let mut out = mask;
    for color in [Color::White, Color::Black] {
        let promoted = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
        if promoted.iter().any(|&r| mask.contains_piece(color, r)) {
            out = out.with(PieceMask::piece(color, Role::Pawn));
        }
    }
    out
}

/// Memo tables of one normalisation run.
#[derive(Default)]
struct Normalizer {
    /// Canonical node of (node, value used).
    done: HashMap<(FilterId, bool), FilterId>,
    /// Does a sub-tree depend on evaluation order ([`props::depends_on_evaluation_order`])?
    order_sensitive: Memo,
    /// Does a sub-tree read only the game header ([`props::is_header_only_when_normalizing`])?
    header_only: Memo,
    /// Structural hash of a sub-tree.
    hashes: HashMap<FilterId, u64>,
    /// Does a sub-tree search other positions ([`props::searches_other_positions`])?
    searches: Memo,
    /// The run writes no notes (`quiet` or `silent`): every `find` may be read as quiet.
    notes_off: bool,
}

/// Flip a comparison so that its operands can be swapped: `a < b` ⇔ `b > a`.
fn flipped(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// Can the set's value hold at most one square? (A piece variable, one square, the
/// attackers of such a set …)
fn at_most_one_square(ir: &Ir, id: FilterId, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match ir.get(id) {
        Filter::Variables(VariableFilter::Var(v)) => {
            ir.vars.get(v.0 as usize).is_some_and(|info| info.kind == VarKind::Piece || info.kind == VarKind::Square)
        }
        Filter::Sets(SetFilter::Squares(b) | SetFilter::Pieces { squares: b, .. }) => b.count() <= 1,
        Filter::Geometry(GeometryFilter::Attacks { attackers, value_is_targets: false, .. }) => {
            at_most_one_square(ir, *attackers, depth + 1)
        }
        Filter::Geometry(GeometryFilter::Attacks { targets, value_is_targets: true, .. }) => {
            at_most_one_square(ir, *targets, depth + 1)
        }
        Filter::Sets(SetFilter::Intersection(parts)) => parts.iter().any(|&p| at_most_one_square(ir, p, depth + 1)),
        _ => false,
    }
}

impl Normalizer {
    /// The canonical form of `id`. `used`: an enclosing filter reads its value.
    fn node(&mut self, ir: &mut Ir, id: FilterId, used: bool, depth: usize) -> FilterId {
        if depth > MAX_DEPTH {
            return id;
        }
        if let Some(&done) = self.done.get(&(id, used)) {
            return done;
        }
        let span = ir.first_span(id);
        let node = ir.get(id).clone();
        let out = match node {
            Filter::Logic(LogicFilter::And(parts)) => self.and(ir, parts, used, span, depth),
            Filter::Logic(LogicFilter::Or(parts)) => self.or(ir, parts, used, span, depth),
            Filter::Logic(LogicFilter::Not(a)) => {
                let a = self.node(ir, a, false, depth + 1);
                match ir.get(a) {
                    Filter::Logic(LogicFilter::Not(inner)) if !used && !self.is_order_sensitive(ir, a) => *inner,
                    _ => ir.add(Filter::Logic(LogicFilter::Not(a)), span),
                }
            }
            Filter::Logic(LogicFilter::If { cond, then, otherwise }) => {
                let cond = self.node(ir, cond, false, depth + 1);
                let then = self.node(ir, then, used, depth + 1);
                let otherwise = otherwise.map(|o| self.node(ir, o, used, depth + 1));
                ir.add(Filter::Logic(LogicFilter::If { cond, then, otherwise }), span)
            }
            Filter::GameTree(GameTreeFilter::Find { direction, all, range, quiet, body }) => {
                let body = self.node(ir, body, false, depth + 1);
                let quiet = quiet || self.notes_off;
                self.find(ir, (direction, all, range, quiet), body, used, span, depth)
            }
            Filter::Numbers(NumberFilter::Compare { first, rest }) => {
                let first = self.node(ir, first, true, depth + 1);
                let rest: Vec<(CmpOp, FilterId)> =
                    rest.iter().map(|&(op, x)| (op, self.node(ir, x, true, depth + 1))).collect();
                self.compare(ir, first, rest, used, span, depth)
            }
            Filter::Sets(SetFilter::In(a, b))
                if value_type(ir, a) == ValueType::String || value_type(ir, b) == ValueType::String =>
            {
                // CQL 6 `"ab" in s` on strings is a substring test.
                let haystack = self.node(ir, b, true, depth + 1);
                let needle = self.node(ir, a, true, depth + 1);
                ir.add(Filter::Numbers(NumberFilter::Contains { haystack, needle, ignore_case: false }), span)
            }
            Filter::Numbers(NumberFilter::Contains { haystack, needle, ignore_case: true }) => {
                // Ignoring case is comparing the lower-case forms (both use Unicode
                // lower-casing); a constant needle is lower-cased here.
                let haystack = self.node(ir, haystack, true, depth + 1);
                let lowered_haystack =
                    ir.add(Filter::Numbers(NumberFilter::Call(Builtin::Lowercase, vec![haystack])), span);
                let needle = self.node(ir, needle, true, depth + 1);
                let needle = match ir.get(needle) {
                    Filter::Numbers(NumberFilter::Str(text)) => {
                        let lowered = text.to_lowercase();
                        ir.add(Filter::Numbers(NumberFilter::Str(lowered)), span)
                    }
                    _ => ir.add(Filter::Numbers(NumberFilter::Call(Builtin::Lowercase, vec![needle])), span),
                };
                ir.add(
                    Filter::Numbers(NumberFilter::Contains { haystack: lowered_haystack, needle, ignore_case: false }),
                    span,
                )
            }
            Filter::Sets(SetFilter::Union(parts))
                if !used && parts.iter().all(|&p| is_set_expression(ir, p) && !self.is_order_sensitive(ir, p)) =>
            {
                // A union matches when some part is non-empty. (Parts with effects are all
                // evaluated, as CQL 6.2 evaluates every image of a transform: no `or`.)
                let or = ir.add(Filter::Logic(LogicFilter::Or(parts)), span);
                self.node(ir, or, false, depth + 1)
            }
            Filter::Logic(LogicFilter::CountMatching(parts)) => {
                let parts = parts.iter().map(|&p| self.node(ir, p, false, depth + 1)).collect();
                ir.add(Filter::Logic(LogicFilter::CountMatching(parts)), span)
            }
            Filter::Variables(VariableFilter::SquareIter { var, domain, body, forall }) => {
                let domain = self.node(ir, domain, true, depth + 1);
                let body = self.node(ir, body, false, depth + 1);
                ir.add(Filter::Variables(VariableFilter::SquareIter { var, domain, body, forall }), span)
            }
            Filter::Variables(VariableFilter::PieceIter { var, domain, body, forall }) => {
                let domain = self.node(ir, domain, true, depth + 1);
                let body = self.node(ir, body, false, depth + 1);
                ir.add(Filter::Variables(VariableFilter::PieceIter { var, domain, body, forall }), span)
            }
            Filter::Variables(VariableFilter::IdentityIter { var, mask, body }) => {
                let body = self.node(ir, body, false, depth + 1);
                ir.add(Filter::Variables(VariableFilter::IdentityIter { var, mask, body }), span)
            }
            other => {
                let rebuilt = map_children::<()>(&other, |c| Ok(self.node(ir, c, true, depth + 1)))
                    .unwrap_or_else(|()| other.clone());
                if rebuilt == other {
                    id
                } else {
                    ir.add_copy(rebuilt, id)
                }
            }
        };
        self.done.insert((id, used), out);
        out
    }

    /// `And`: flatten, drop `true`, and where only matching counts sort and dedup.
    fn and(&mut self, ir: &mut Ir, parts: Vec<FilterId>, used: bool, span: Span, depth: usize) -> FilterId {
        let last = parts.len().saturating_sub(1);
        let mut flat = Vec::new();
        for (i, &p) in parts.iter().enumerate() {
            let p = self.node(ir, p, used && i == last, depth + 1);
            match ir.get(p) {
                Filter::Logic(LogicFilter::And(inner)) => flat.extend(inner.iter().copied()),
                _ => flat.push(p),
            }
        }
        let n = flat.len();
        let mut kept: Vec<FilterId> = Vec::new();
        for (i, &p) in flat.iter().enumerate() {
            let keep_true = used && i + 1 == n;
            if matches!(ir.get(p), Filter::True) && !keep_true {
                continue;
            }
            kept.push(p);
        }
        if !used && kept.iter().all(|&p| !self.is_order_sensitive(ir, p) && !matched_number(ir, p, 0)) {
            self.sort_dedup(ir, &mut kept);
        }
        match kept.len() {
            0 => ir.add(Filter::True, span),
            1 => kept[0],
            _ => ir.add(Filter::Logic(LogicFilter::And(kept)), span),
        }
    }

    /// `Or`: flatten, drop `false`; where only matching counts sort, dedup and factor
    /// out the conjuncts every alternative shares.
    fn or(&mut self, ir: &mut Ir, parts: Vec<FilterId>, used: bool, span: Span, depth: usize) -> FilterId {
        let mut flat = Vec::new();
        for &p in &parts {
            let p = self.node(ir, p, used, depth + 1);
            match ir.get(p) {
                Filter::Logic(LogicFilter::Or(inner)) => flat.extend(inner.iter().copied()),
                Filter::False => {}
                _ => flat.push(p),
            }
        }
        let pure = flat.iter().all(|&p| !self.is_order_sensitive(ir, p) && !matched_number(ir, p, 0));
        if !used && pure {
            self.sort_dedup(ir, &mut flat);
            if flat.len() > 1 {
                if let Some(factored) = self.factor(ir, &flat, span, depth) {
                    return factored;
                }
            }
        }
        match flat.len() {
            0 => ir.add(Filter::False, span),
            1 => flat[0],
            _ => ir.add(Filter::Logic(LogicFilter::Or(flat)), span),
        }
    }

    /// `Or(And(c, a1), And(c, a2) …)` → `And(c, Or(a1, a2 …))` when every alternative
    /// has the conjunct `c`. `None` when nothing is shared.
    fn factor(&mut self, ir: &mut Ir, alternatives: &[FilterId], span: Span, depth: usize) -> Option<FilterId> {
        let conjuncts = |ir: &Ir, p: FilterId| -> Vec<FilterId> {
            match ir.get(p) {
                Filter::Logic(LogicFilter::And(v)) => v.clone(),
                _ => vec![p],
            }
        };
        let lists: Vec<Vec<FilterId>> = alternatives.iter().map(|&p| conjuncts(ir, p)).collect();
        let common: Vec<FilterId> =
            lists[0].iter().copied().filter(|c| lists[1..].iter().all(|l| l.contains(c))).collect();
        if common.is_empty() {
            return None;
        }
        let mut rests = Vec::new();
        for l in &lists {
            let rest: Vec<FilterId> = l.iter().copied().filter(|c| !common.contains(c)).collect();
            if rest.is_empty() {
                // One alternative is just the shared part: the `Or` is always satisfied.
                let t = ir.add(Filter::True, span);
                rests = vec![t];
                break;
            }
            rests.push(if rest.len() == 1 { rest[0] } else { ir.add(Filter::Logic(LogicFilter::And(rest)), span) });
        }
        let or = ir.add(Filter::Logic(LogicFilter::Or(rests)), span);
        let mut parts = common;
        parts.push(or);
        let and = ir.add(Filter::Logic(LogicFilter::And(parts)), span);
        Some(self.node(ir, and, false, depth + 1))
    }

    /// `find` where only matching counts: `all` is dropped (unless the body has side
    /// effects), and a count range becomes comparisons of the count.
    #[allow(clippy::too_many_arguments)]
    fn find(
        &mut self,
        ir: &mut Ir,
        (direction, all, range, quiet): (FindDirection, bool, Option<(i64, i64)>, bool),
        body: FilterId,
        used: bool,
        span: Span,
        depth: usize,
    ) -> FilterId {
        // A `find` that writes its notes is kept as written: which positions it notes
        // depends on its form.
        if used || !quiet {
            return ir.add(Filter::GameTree(GameTreeFilter::Find { direction, all, range, quiet, body }), span);
        }
        match range {
            Some((lo, hi)) if lo >= 1 && (lo, hi) != (1, i64::MAX) => {
                let counted = ir.add(
                    Filter::GameTree(GameTreeFilter::Find { direction, all: true, range: None, quiet, body }),
                    span,
                );
                let mut parts = Vec::new();
                let lo_id = ir.add(Filter::Numbers(NumberFilter::Number(lo)), span);
                if lo == hi {
                    parts.push(ir.add(
                        Filter::Numbers(NumberFilter::Compare { first: counted, rest: vec![(CmpOp::Eq, lo_id)] }),
                        span,
                    ));
                } else {
                    parts.push(ir.add(
                        Filter::Numbers(NumberFilter::Compare { first: counted, rest: vec![(CmpOp::Ge, lo_id)] }),
                        span,
                    ));
                    if hi != i64::MAX {
                        let hi_id = ir.add(Filter::Numbers(NumberFilter::Number(hi)), span);
                        parts.push(ir.add(
                            Filter::Numbers(NumberFilter::Compare { first: counted, rest: vec![(CmpOp::Le, hi_id)] }),
                            span,
                        ));
                    }
                }
                let and = ir.add(Filter::Logic(LogicFilter::And(parts)), span);
                self.node(ir, and, false, depth + 1)
            }
            // Stopping at the first match is only the same when the body has no effects
            // (`find all {Sum += …}` must visit every position).
            Some((1, i64::MAX)) | None => {
                let all = all && self.is_order_sensitive(ir, body);
                ir.add(Filter::GameTree(GameTreeFilter::Find { direction, all, range: None, quiet, body }), span)
            }
            Some(r) => {
                ir.add(Filter::GameTree(GameTreeFilter::Find { direction, all, range: Some(r), quiet, body }), span)
            }
        }
    }

    /// Comparisons where only matching counts: chains split into pairs, constants on
    /// the right.
    fn compare(
        &mut self,
        ir: &mut Ir,
        first: FilterId,
        rest: Vec<(CmpOp, FilterId)>,
        used: bool,
        span: Span,
        depth: usize,
    ) -> FilterId {
        let operands_pure =
            !self.is_order_sensitive(ir, first) && rest.iter().all(|&(_, x)| !self.is_order_sensitive(ir, x));
        if used || !operands_pure || rest.is_empty() {
            return ir.add(Filter::Numbers(NumberFilter::Compare { first, rest }), span);
        }
        // A chain splits into its comparisons when no set stands before its last one: there
        // a set counts its squares (see `NumberFilter::Compare`), which a comparison of its own
        // would not know.
        let plain = |ir: &Ir, x: FilterId| matches!(value_type(ir, x), ValueType::Number | ValueType::String);
        let counts_sets =
            rest.len() > 1 && !(plain(ir, first) && rest[..rest.len() - 1].iter().all(|&(_, x)| plain(ir, x)));
        if counts_sets {
            return ir.add(Filter::Numbers(NumberFilter::Compare { first, rest }), span);
        }
        if rest.len() > 1 {
            let mut parts = Vec::new();
            let mut left = first;
            for &(op, right) in &rest {
                parts.push(
                    ir.add(Filter::Numbers(NumberFilter::Compare { first: left, rest: vec![(op, right)] }), span),
                );
                left = right;
            }
            let and = ir.add(Filter::Logic(LogicFilter::And(parts)), span);
            return self.node(ir, and, false, depth + 1);
        }
        let (mut op, mut right) = rest[0];
        let mut first = first;
        let is_const =
            |ir: &Ir, x: FilterId| matches!(ir.get(x), Filter::Numbers(NumberFilter::Number(_) | NumberFilter::Str(_)));
        if is_const(ir, first) && !is_const(ir, right) {
            (first, op, right) = (right, flipped(op), first);
        }
        // `#S > 0`, `#S >= 1` (and `#S == 1` for a set of at most one square) only ask
        // whether the set is non-empty, which is what the set itself matches on.
        if let (Filter::Sets(SetFilter::Count(set)), Filter::Numbers(NumberFilter::Number(n))) =
            (ir.get(first), ir.get(right))
        {
            let (set, n) = (*set, *n);
            if is_set_expression(ir, set) {
                let nonempty = matches!((op, n), (CmpOp::Gt, 0) | (CmpOp::Ge, 1) | (CmpOp::Ne, 0))
                    || (op == CmpOp::Eq && n == 1 && at_most_one_square(ir, set, 0));
                if nonempty {
                    return set;
                }
            }
        }
        ir.add(Filter::Numbers(NumberFilter::Compare { first, rest: vec![(op, right)] }), span)
    }

    /// Turn a per-position `initial find F` (with header-only conjuncts beside it) into
    /// `F`; `initial` beside header-only conjuncts alone is dropped. `None` when the root
    /// has another shape.
    fn collapse_initial(&mut self, ir: &mut Ir, root: FilterId) -> Option<FilterId> {
        let parts = match ir.get(root) {
            Filter::Logic(LogicFilter::And(v)) => v.clone(),
            Filter::PositionState(PositionStateFilter::Initial) => vec![root],
            _ => return None,
        };
        let initial =
            parts.iter().position(|&p| matches!(ir.get(p), Filter::PositionState(PositionStateFilter::Initial)))?;
        let mut kept = Vec::new();
        let mut body = None;
        for (i, &p) in parts.iter().enumerate() {
            if i == initial {
                continue;
            }
            match ir.get(p) {
                // Only a quiet `find`: CQL 6.2 marks the initial position and notes what
                // `find` found, which `F` alone would not.
                Filter::GameTree(GameTreeFilter::Find {
                    direction: FindDirection::Forward,
                    all: false,
                    range: None,
                    quiet: true,
                    body: b,
                }) => {
                    if body.replace(*b).is_some() {
                        return None;
                    }
                }
                _ if self.is_header_only(ir, p) => kept.push(p),
                _ => return None,
            }
        }
        kept.extend(body);
        let span = ir.first_span(root);
        Some(ir.add(Filter::Logic(LogicFilter::And(kept)), span))
    }

    /// At the start position, a legacy tag (`IdentityIter`: each piece identity that is
    /// at some time a piece of `mask`) is CQL 6's `piece T in <pieces that can become
    /// mask> { find {T & mask} … }`: every identity of a game is on the board at the start,
    /// and promotion keeps the identity. Nested tags never share an identity, which CQL 6
    /// writes `not (T1 & T2)`. Applies to the conjuncts of a root that holds `initial`.
    fn tags_to_pieces(&mut self, ir: &mut Ir, root: FilterId) -> Option<FilterId> {
        let parts = match ir.get(root) {
            Filter::Logic(LogicFilter::And(v)) => v.clone(),
            _ => return None,
        };
        if !parts.iter().any(|&p| matches!(ir.get(p), Filter::PositionState(PositionStateFilter::Initial)))
            || !parts.iter().any(|&p| matches!(ir.get(p), Filter::Variables(VariableFilter::IdentityIter { .. })))
        {
            return None;
        }
        let span = ir.first_span(root);
        let mut out = Vec::new();
        for p in parts {
            out.push(self.identity_chain(ir, p, &mut Vec::new(), 0));
        }
        Some(ir.add(Filter::Logic(LogicFilter::And(out)), span))
    }

    /// One `IdentityIter` (and those directly nested in it) as `PieceIter`s; `outer`
    /// holds the tags already bound around it, `pending` the conditions on them, which
    /// go into the innermost body.
    fn identity_chain(&mut self, ir: &mut Ir, id: FilterId, outer: &mut Vec<VarId>, depth: usize) -> FilterId {
        self.identity_chain_with(ir, id, outer, &mut Vec::new(), depth)
    }

    fn identity_chain_with(
        &mut self,
        ir: &mut Ir,
        id: FilterId,
        outer: &mut Vec<VarId>,
        pending: &mut Vec<FilterId>,
        depth: usize,
    ) -> FilterId {
        let span = ir.first_span(id);
        let Filter::Variables(VariableFilter::IdentityIter { var, mask, body }) = ir.get(id).clone() else {
            if pending.is_empty() {
                return id;
            }
            let mut conjuncts = std::mem::take(pending);
            conjuncts.push(id);
            return ir.add(Filter::Logic(LogicFilter::And(conjuncts)), span);
        };
        if depth > MAX_DEPTH {
            return id;
        }
        let all = Bitboard::FULL;
        let this = ir.add(Filter::Variables(VariableFilter::Var(var)), span);
        for &o in outer.iter() {
            let other = ir.add(Filter::Variables(VariableFilter::Var(o)), span);
            let both = ir.add(Filter::Sets(SetFilter::Intersection(vec![other, this])), span);
            pending.push(ir.add(Filter::Logic(LogicFilter::Not(both)), span));
        }
        let domain_mask = could_become(mask);
        if domain_mask != mask {
            // Only when some piece of the domain is not yet of the tag's kinds.
            let kinds = ir.add(Filter::Sets(SetFilter::Pieces { mask, squares: all }), span);
            let is_kind = ir.add(Filter::Sets(SetFilter::Intersection(vec![this, kinds])), span);
            pending.push(ir.add(
                Filter::GameTree(GameTreeFilter::Find {
                    direction: FindDirection::Forward,
                    all: false,
                    range: None,
                    quiet: true,
                    body: is_kind,
                }),
                span,
            ));
        }
        outer.push(var);
        let body = self.identity_chain_with(ir, body, outer, pending, depth + 1);
        outer.pop();
        let domain = ir.add(Filter::Sets(SetFilter::Pieces { mask: domain_mask, squares: all }), span);
        ir.add(Filter::Variables(VariableFilter::PieceIter { var, domain, body, forall: false }), span)
    }

    /// Sort by (cost, structure) and remove repeated nodes (hash-consing makes equal
    /// canonical sub-trees the same node).
    fn sort_dedup(&mut self, ir: &Ir, parts: &mut Vec<FilterId>) {
        let mut keyed: Vec<(u8, u64, FilterId)> =
            parts.iter().map(|&p| (self.cost(ir, p), self.hash(ir, p, 0), p)).collect();
        keyed.sort();
        keyed.dedup_by_key(|k| k.2);
        let mut seen = rustc_hash::FxHashSet::default();
        *parts = keyed.into_iter().map(|k| k.2).filter(|p| seen.insert(*p)).collect();
    }

    /// Evaluation cost class: header tests first, position tests, then searches.
    fn cost(&mut self, ir: &Ir, id: FilterId) -> u8 {
        if self.is_header_only(ir, id) {
            0
        } else if props::searches_other_positions(ir, id, &mut self.searches) {
            2
        } else {
            1
        }
    }

    /// Structural hash of a sub-tree, independent of arena ids.
    fn hash(&mut self, ir: &Ir, id: FilterId, depth: usize) -> u64 {
        if let Some(&h) = self.hashes.get(&id) {
            return h;
        }
        let node = ir.get(id);
        let mut hasher = DefaultHasher::new();
        skeleton(node).hash(&mut hasher);
        if depth <= MAX_DEPTH {
            for c in children(node) {
                self.hash(ir, c, depth + 1).hash(&mut hasher);
            }
        }
        let h = hasher.finish();
        self.hashes.insert(id, h);
        h
    }

    /// Does the sub-tree change state or read state a sibling may have set? Such nodes are
    /// never reordered ([`props::depends_on_evaluation_order`]).
    fn is_order_sensitive(&mut self, ir: &Ir, id: FilterId) -> bool {
        props::depends_on_evaluation_order(ir, id, &mut self.order_sensitive)
    }

    /// Does the sub-tree read only the game header ([`props::is_header_only_when_normalizing`])?
    fn is_header_only(&mut self, ir: &Ir, id: FilterId) -> bool {
        props::is_header_only_when_normalizing(ir, id, &mut self.header_only)
    }

    /// Does the tree use a YACPDB analysis (which is defined per game only)?
    fn contains_yacpdb(&mut self, ir: &Ir, root: FilterId) -> bool {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if matches!(ir.get(id), Filter::Yacpdb(_)) {
                return true;
            }
            stack.extend(children(ir.get(id)));
        }
        false
    }
}

/// Is a bare number matched against the position somewhere in `id` (the node itself, or a
/// member of its blocks, `and`, `or`, `not`)? Matching one is an error (CQL 6.2 stops on it),
/// so its block keeps the written order: it is reached exactly where CQL 6.2 reaches it.
fn matched_number(ir: &Ir, id: FilterId, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match ir.get(id) {
        Filter::Numbers(NumberFilter::Number(_)) => true,
        Filter::Logic(LogicFilter::And(v) | LogicFilter::Or(v)) => v.iter().any(|&c| matched_number(ir, c, depth + 1)),
        Filter::Logic(LogicFilter::Not(c)) => matched_number(ir, *c, depth + 1),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::dump::dump;
    use crate::ir::OutputFilter;
    use crate::lang::{parse, Syntax};

    /// Parse, expand transforms and normalise; the dump of the result.
    fn canonical(text: &str, syntax: Syntax) -> (Ir, String) {
        let mut ir = parse(text, syntax).expect("query parses");
        crate::ir::transform::expand(&mut ir).expect("transforms expand");
        normalize(&mut ir);
        let text = dump(&ir);
        (ir, text)
    }

    fn cql6(text: &str) -> String {
        canonical(text, Syntax::Cql6).1
    }

    fn legacy(text: &str) -> String {
        canonical(text, Syntax::Legacy).1
    }

    #[test]
    fn conjunct_order_and_nesting_do_not_matter() {
        assert_eq!(cql6("cql() check {wtm mate}"), cql6("cql() {mate check} wtm true"));
        assert_eq!(cql6("cql() check or {mate or stalemate}"), cql6("cql() stalemate or check or mate"));
    }

    #[test]
    fn values_that_are_read_keep_their_order() {
        // `#{...}` reads the value of the last conjunct: `a1` must stay last.
        let (ir, _) = canonical("cql() #{check a1} == 1", Syntax::Cql6);
        let root = ir.root.expect("root");
        let Filter::Numbers(NumberFilter::Compare { first, .. }) = ir.get(root) else { panic!("{:?}", ir.get(root)) };
        let Filter::Sets(SetFilter::Count(inner)) = ir.get(*first) else { panic!("{:?}", ir.get(*first)) };
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(*inner) else { panic!("{:?}", ir.get(*inner)) };
        assert!(matches!(ir.get(parts[0]), Filter::PositionState(PositionStateFilter::Check)));
        assert!(matches!(ir.get(parts[1]), Filter::Sets(SetFilter::Squares(_))));
    }

    #[test]
    fn side_effects_are_not_reordered() {
        let (ir, _) = canonical("cql() comment(\"b\") check comment(\"a\")", Syntax::Cql6);
        let root = ir.root.expect("root");
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(root) else { panic!("{:?}", ir.get(root)) };
        let texts: Vec<String> = parts
            .iter()
            .filter_map(|&p| match ir.get(p) {
                Filter::Output(OutputFilter::Comment(args)) => match ir.get(args[0]) {
                    Filter::Numbers(NumberFilter::Str(s)) => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["b", "a"]);
    }

    #[test]
    fn range_chains_become_two_comparisons() {
        assert_eq!(cql6("cql() 2 <= #R <= 3"), cql6("cql() #R >= 2 #R <= 3"));
        assert_eq!(cql6("cql() 3 > #R"), cql6("cql() #R < 3"));
        assert_ne!(cql6("cql() #R >= 2"), cql6("cql() #R >= 3"));
    }

    #[test]
    fn a_match_list_becomes_a_per_position_query() {
        let (ir, text) = canonical("(match (position :mate))", Syntax::Legacy);
        assert!(!ir.settings.per_game);
        assert!(matches!(ir.get(ir.root.expect("root")), Filter::PositionState(PositionStateFilter::Mate)), "{text}");
        assert_eq!(text, cql6("cql() mate"));
        // Two lists stay searches from the start position (without notes: a CQL 6 `find`
        // notes what it found, a legacy position list does not).
        assert_eq!(
            legacy("(match (position :mate) (position :check))"),
            cql6("cql() initial find quiet mate find quiet check")
        );
        assert_ne!(cql6("cql() initial find quiet mate"), cql6("cql() initial find mate"));
    }

    #[test]
    fn a_count_range_becomes_comparisons() {
        assert_eq!(
            legacy("(match (position :check :matchcount 3 7))"),
            cql6("cql() initial find quiet all check >= 3 find quiet all check <= 7")
        );
        // With a range `find all` is not the same as `find`.
        assert_ne!(legacy("(match (position :check :matchcount 3 7))"), cql6("cql() initial find quiet check"));
        // Without a range, a quiet `find all` is `find`, unless the body has effects; one that
        // notes what it finds notes every position it counts.
        assert_eq!(cql6("cql() find quiet all check"), cql6("cql() find quiet check"));
        assert_ne!(cql6("cql() find all check"), cql6("cql() find check"));
        let (ir, _) = canonical("cql() initial find quiet all {Counter = 1 true}", Syntax::Cql6);
        let root = ir.root.expect("root");
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(root) else { panic!("{:?}", ir.get(root)) };
        assert!(parts.iter().any(|&p| matches!(ir.get(p), Filter::GameTree(GameTreeFilter::Find { all: true, .. }))));
    }

    #[test]
    fn string_in_is_a_substring_test_and_case_is_folded() {
        let (ir, text) = canonical("cql() \"ab\" in player white", Syntax::Cql6);
        let root = ir.root.expect("root");
        assert!(matches!(ir.get(root), Filter::Numbers(NumberFilter::Contains { ignore_case: false, .. })), "{text}");
        assert_eq!(legacy("(match :whiteplayer AB)"), cql6("cql() \"ab\" in lowercase player white"));
    }

    #[test]
    fn set_counts_that_only_ask_for_non_empty_sets() {
        assert_eq!(cql6("cql() #R > 0"), cql6("cql() R"));
        assert_eq!(cql6("cql() #(R attacks k) >= 1"), cql6("cql() R attacks k"));
        // `== 1` is only "non-empty" for a set that can hold one square at most.
        assert_ne!(cql6("cql() #R == 1"), cql6("cql() R"));
    }

    #[test]
    fn common_conjuncts_leave_a_disjunction() {
        assert_eq!(cql6("cql() {mate Qg7} or {Qh7 mate}"), cql6("cql() mate {Qg7 or Qh7}"));
    }

    #[test]
    fn legacy_tags_become_piece_iterations() {
        assert_eq!(
            legacy("(match :forany n N (position $n[e5]))"),
            cql6("cql() initial piece Knight in [NP] { find quiet {Knight & N} find quiet {Knight & e5} }")
        );
        // Two tags never share a piece.
        assert_eq!(
            legacy("(match :forany x [Pp] :forany y [Pp] (position $x[e4]) (position $y[d5]))"),
            cql6("cql() initial piece X1 in [Pp] piece Y1 in [Pp] { not (X1 & Y1) find quiet {X1 & e4} find quiet {Y1 & d5} }")
        );
    }

    #[test]
    fn persistent_variables_keep_their_names() {
        // The dump names a persistent variable as written, any other by kind and number;
        // the IR keeps every name as written (`<unbound: Tally>` in a comment).
        let (ir, text) = canonical("cql() persistent Count += 1 Tally = 2", Syntax::Cql6);
        assert!(text.contains("Count") && !text.contains("Tally"), "{text}");
        let names: Vec<&str> = ir.vars.iter().map(|v| v.name.as_str()).collect();
        assert!(names.contains(&"Count") && names.contains(&"Tally"), "{names:?}");
    }

    #[test]
    fn yacpdb_queries_stay_per_game() {
        let (ir, _) = canonical("Phases > 1", Syntax::Yacpdb);
        assert!(ir.settings.per_game);
    }
}
