//! The CQL 6.2 type check: every filter has a kind, and every operator, argument and
//! assignment accepts only some kinds.
//!
//! Takes in: the [`Ir`] the CQL 6 parser built, plus the [`KindNotes`] it left where the IR
//! alone cannot tell what CQL 6.2 thinks a filter is (a bare `――` move is not a set of
//! squares, a filter joined with the word `and` has no value, …). Gives out: a diagnostic
//! for every text CQL 6.2 would refuse on the grounds of kinds: `move == 3`, `true != 1`,
//! `"a" >= A`, `x = ――e5`, `2 + e2――`, `k ∪ currentposition` and the like.
//! Must never: refuse what CQL 6.2 accepts. Whatever the check cannot be sure about is of
//! kind [`Kind::Unknown`], which every place accepts.
//!
//! Which filter has which kind is decided in one place, the table of kinds in `ir::props`
//! ([`crate::ir::props::kind`]), asked here for CQL 6.2's reading of the text
//! ([`Reading::Text`]) with the parser's notes and the kinds variables got from their
//! assignments. This module decides which operator takes which kinds, following the
//! behaviour of CQL 6.2 (build 9.493): a set filter stands for squares (`♖`, `a-h8`,
//! `X→Y`, `move to`), a numeric filter for a number (`#X`, `ply`, `find all F`), a position
//! filter for a node of the game tree (`parent`, `find F`), a string filter for text
//! (`player white`). Every other filter only matches or fails.
//!
//! - `operands`: what each operator, keyword and function asks of its parts;
//! - `variables`: assignments and dictionaries, which keep the kind first given;
//! - `syntax`: the checks the parser makes on tokens (repetitions, moves tied to their
//!   neighbours, `move` keywords) and on the finished tree (`lastgamenumber` ignored).

use crate::ir::{GameTreeFilter, GeometryFilter, LogicFilter, NumberFilter, OutputFilter, SetFilter, VariableFilter};
mod operands;
mod syntax;
#[cfg(test)]
mod tests;
mod variables;

pub use crate::ir::props::Kind;
pub use syntax::{
    after_promotion, brace_repetition_at, dash_left_tie, dash_right_tie, dash_spaced_paren, ignored_values,
    is_brace_repetition, line_wildcard_end, move_keyword_kind, move_keywords,
};

use std::collections::{HashMap, HashSet};

use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::props::{KindContext, Reading};
use crate::ir::*;

/// Kinds the parser knows better than the IR: a node the parser made for a construct whose
/// CQL 6.2 kind differs from what its IR form suggests (a bare move `X――Y` is lowered to the
/// same move filter as `move to Y` but is no set; `a and b` is lowered like `{a b}` but has
/// no value). Hash-consing may give two constructs one node: when they disagree the node
/// becomes [`Kind::Unknown`].
#[derive(Clone, Debug, Default)]
pub struct KindNotes {
    notes: HashMap<FilterId, Kind>,
    /// Moves written with a dash or cross: (has a set tied on its left, has one on its right).
    dashes: HashMap<FilterId, (bool, bool)>,
}

impl KindNotes {
    /// Record that the node `id` is a move written with a dash or cross (`X――Y`, `×`),
    /// which can never be the left side of another dash.
    /// `left`/`right`: a set is tied to the dash on that side (`e2――`, `――e4`).
    pub fn note_dash(&mut self, id: FilterId, left: bool, right: bool) {
        self.dashes.insert(id, (left, right));
    }
    fn is_dash(&self, id: FilterId) -> bool {
        self.dashes.contains_key(&id)
    }
    /// CQL 6.2 reads the set operators next to a move differently from cqlrs: in
    /// `k ∪ e2――e4` or `e2――e4 ∩ k` the move takes all of `k ∪ e2` (`e4 ∩ k`) as its
    /// side. Such an operand is not checked: is the dash `id` in position `index` of `len`
    /// operands taken in by the operator next to it?
    fn absorbs(&self, id: FilterId, index: usize, len: usize) -> bool {
        match self.dashes.get(&id) {
            Some(&(left, right)) => (index == 0 || left) && (index + 1 == len || right),
            None => false,
        }
    }
    /// Record that the node `id` has kind `kind` in CQL 6.2.
    pub fn note(&mut self, id: FilterId, kind: Kind) {
        let e = self.notes.entry(id).or_insert(kind);
        if *e != kind {
            *e = Kind::Unknown;
        }
    }
    /// The kind noted for node `id`, if any.
    pub(crate) fn get(&self, id: FilterId) -> Option<Kind> {
        self.notes.get(&id).copied()
    }
}

/// Check the kinds of a parsed CQL 6 query; one diagnostic per offending place (at most
/// `limit`).
pub fn check(ir: &Ir, notes: &KindNotes, src: &str, limit: usize) -> Vec<Diagnostic> {
    let mut c = Checker {
        ir,
        notes,
        src,
        vars: HashMap::new(),
        dict_kinds: HashMap::new(),
        seen: HashSet::new(),
        stack: Vec::new(),
        diags: Vec::new(),
        limit,
    };
    if let Some(root) = ir.root {
        c.walk(root, 0);
    }
    c.diags
}

/// Deepest nesting the check follows; the parser refuses deeper queries anyway.
const MAX_DEPTH: usize = 400;

struct Checker<'a> {
    ir: &'a Ir,
    notes: &'a KindNotes,
    src: &'a str,

    /// Kinds of value variables, from their first assignment in source order.
    vars: HashMap<VarId, Kind>,
    /// Kinds of the keys and of the values of dictionaries, from their first use.
    dict_kinds: HashMap<VarId, (Option<Kind>, Option<Kind>)>,
    seen: HashSet<FilterId>,
    /// The node being checked and its ancestors, root first.
    stack: Vec<FilterId>,
    diags: Vec<Diagnostic>,
    limit: usize,
}

/// The check asks the table of kinds for CQL 6.2's reading of the text, with the parser's
/// notes and the kinds value variables got from the assignments seen so far.
impl KindContext for Checker<'_> {
    fn reading(&self) -> Reading {
        Reading::Text
    }

    fn noted(&self, id: FilterId) -> Option<Kind> {
        self.notes.get(id)
    }

    fn variable(&self, _ir: &Ir, var: VarId) -> Kind {
        self.var_kind(var)
    }
}

impl Checker<'_> {
    /// The kind of node `id` as CQL 6.2 reads the text.
    fn kind(&self, id: FilterId) -> Kind {
        props::kind(self.ir, id, self)
    }

    /// The kind variable `v` holds: a square or piece variable a set, a position variable a
    /// position, a value variable the kind of its first assignment (unknown before it).
    fn var_kind(&self, v: VarId) -> Kind {
        match self.ir.vars.get(v.0 as usize).map(|i| i.kind) {
            Some(VarKind::Square | VarKind::Piece) => Kind::Set,
            Some(VarKind::Position) => Kind::Position,
            Some(VarKind::Value) => self.vars.get(&v).copied().unwrap_or(Kind::Unknown),
            _ => Kind::Unknown,
        }
    }

    fn var_name(&self, v: VarId) -> &str {
        self.ir.vars.get(v.0 as usize).map_or("?", |i| i.name.as_str())
    }

    /// Where node `id` is written in the filter being checked: equal filters written in
    /// several places are one node, so the place is found inside the node's ancestors.
    fn place(&self, id: FilterId) -> Span {
        let outer = self.ir.span_along(&self.stack);
        if self.stack.last() == Some(&id) {
            outer
        } else {
            self.ir.span_within(id, outer)
        }
    }

    fn error(&mut self, id: FilterId, message: String, hint: &str) {
        if self.diags.len() < self.limit {
            let span = self.place(id);
            if self.diags.iter().any(|d| d.span == span) {
                return;
            }
            self.diags.push(Diagnostic::new(message, span).with_hint(hint));
        }
    }

    /// `id` must have kind `want` (or an unknown kind).
    fn want(&mut self, id: FilterId, want: Kind, place: &str) {
        let k = self.kind(id);
        if !k.is(want) {
            let text = format!("{place} must be {}, but this is {}", want.name(), k.name());
            self.error(id, text, hint_for(want));
        }
    }

    /// `id` must have one of the kinds `want`.
    fn want_any(&mut self, id: FilterId, want: &[Kind], place: &str) {
        let k = self.kind(id);
        if k != Kind::Unknown && !want.contains(&k) {
            let names: Vec<&str> = want.iter().map(|w| w.name()).collect();
            let text = format!("{place} must be {}, but this is {}", names.join(" or "), k.name());
            self.error(id, text, hint_for(want[0]));
        }
    }

    fn walk(&mut self, id: FilterId, depth: usize) {
        if depth > MAX_DEPTH || self.diags.len() >= self.limit || !self.seen.insert(id) {
            return;
        }
        let filter = self.ir.get(id).clone();
        self.stack.push(id);
        // Children first, in source order, so that variables get their kinds from the
        // assignments that come before their uses.
        if let Filter::Variables(VariableFilter::Assign { value, .. }) = &filter {
            self.walk(*value, depth + 1);
        } else {
            for c in crate::ir::visit::children(&filter) {
                self.walk(c, depth + 1);
            }
        }
        self.check_node_escaping(id, &filter);
        self.stack.pop();
    }

    /// Check one node, unless its left operand is of a kind the operator refuses and CQL 6.2
    /// would parse the text differently: it ends the enclosing prefix filter (`find`, `not`,
    /// a transform …) at the left operand and applies the operator to that filter
    /// (`find all check + 3` is `{find all check} + 3`, `find check & parent` compares two
    /// positions).
    fn check_node_escaping(&mut self, id: FilterId, filter: &Filter) {
        if let Some(l) = self.left_operand(filter) {
            let lk = self.kind(l);
            if !self.op_ok(filter, lk) && self.escapes(filter, lk) {
                return;
            }
            // A prefix filter on the left takes the operator into its argument in CQL 6.2:
            // `#k | q` is `#(k | q)`, `find all k in k` is `find all (k in k)`.
            if !self.op_ok(filter, lk) {
                if let Some(inner) = self.absorbed(l, filter) {
                    // The operator applies to `inner`; its other operands are still checked
                    // (`piecename d4 & piecename d5` is `piecename (d4 & piecename d5)`, whose
                    // right side is a string).
                    if let Some(regrouped) = with_left_operand(filter, inner) {
                        self.check_node(id, &regrouped);
                    }
                    return;
                }
            }
        }
        self.check_node(id, filter);
    }

    /// The operand written on the left of a binary operator node.
    fn left_operand(&self, filter: &Filter) -> Option<FilterId> {
        Some(match filter {
            Filter::Numbers(NumberFilter::Arith(_, a, _))
            | Filter::GameTree(GameTreeFilter::TreeRelation(_, a, _))
            | Filter::Sets(SetFilter::In(a, _)) => *a,
            Filter::Numbers(NumberFilter::Compare { first, .. }) => *first,
            Filter::Sets(SetFilter::Union(v) | SetFilter::Intersection(v)) => *v.first()?,
            Filter::Geometry(GeometryFilter::Attacks { attackers, targets, value_is_targets }) => {
                if *value_is_targets {
                    *targets
                } else {
                    *attackers
                }
            }
            Filter::Geometry(GeometryFilter::AttackChain { sets, value_is_last }) => {
                if *value_is_last {
                    *sets.last()?
                } else {
                    *sets.first()?
                }
            }
            Filter::GameTree(GameTreeFilter::AtPosition { at, .. }) => *at,
            Filter::Numbers(NumberFilter::RegexMatch { subject, .. }) => *subject,
            _ => return None,
        })
    }

    /// Is `l` (the left operand of the operator node `filter`) a prefix filter whose last
    /// argument, or the last argument of that, would accept the operator?
    fn absorbed(&self, l: FilterId, filter: &Filter) -> Option<FilterId> {
        let mut cur = l;
        for _ in 0..4 {
            let prefix = matches!(
                self.ir.get(cur),
                Filter::Sets(SetFilter::Count(_))
                    | Filter::GameTree(GameTreeFilter::Find { .. })
                    | Filter::Output(OutputFilter::Sort { .. })
                    | Filter::Logic(LogicFilter::Not(_))
                    | Filter::Transform { .. }
                    | Filter::Variables(VariableFilter::SquareIter { .. } | VariableFilter::PieceIter { .. })
                    | Filter::Numbers(NumberFilter::Call(..))
                    | Filter::GameTree(GameTreeFilter::AtPosition { .. })
                    | Filter::Variables(VariableFilter::Assign { .. })
                    | Filter::Logic(LogicFilter::If { .. })
            );
            if !prefix {
                return None;
            }
            let last = crate::ir::visit::children(self.ir.get(cur)).last().copied()?;
            if self.op_ok(filter, self.kind(last)) {
                return Some(last);
            }
            cur = last;
        }
        None
    }

    /// Is there a transform or an iteration around the node being checked? CQL 6.2 parses
    /// their bodies with rules of their own; moves tied to other filters there are not
    /// checked.
    fn in_loose_body(&self) -> bool {
        self.stack.iter().any(|&a| {
            matches!(
                self.ir.get(a),
                Filter::Transform { .. }
                    | Filter::Variables(VariableFilter::SquareIter { .. } | VariableFilter::PieceIter { .. })
            )
        })
    }

    /// Would the operator node accept a left operand of kind `lk`?
    fn op_ok(&self, filter: &Filter, lk: Kind) -> bool {
        if lk == Kind::Unknown {
            return true;
        }
        match filter {
            Filter::Numbers(NumberFilter::Arith(ArithOp::Add, _, r)) => {
                let rk = self.kind(*r);
                matches!(lk, Kind::Number | Kind::String) && (rk == lk || rk == Kind::Unknown)
            }
            Filter::Numbers(NumberFilter::Arith(ArithOp::Sub, ..)) => true,
            Filter::Numbers(NumberFilter::Arith(_, _, r)) => lk == Kind::Number && self.kind(*r).is(Kind::Number),
            Filter::Numbers(NumberFilter::Compare { rest, .. }) => {
                rest.first().map_or(true, |&(op, r)| pair_ok(op, lk, self.kind(r)))
            }
            Filter::GameTree(GameTreeFilter::TreeRelation(_, _, r)) => pair_ok(CmpOp::Lt, lk, self.kind(*r)),
            Filter::Sets(SetFilter::Union(_))
            | Filter::Geometry(GeometryFilter::Attacks { .. } | GeometryFilter::AttackChain { .. }) => lk == Kind::Set,
            Filter::Sets(SetFilter::Intersection(_)) => matches!(lk, Kind::Set | Kind::Position),
            Filter::Sets(SetFilter::In(_, r)) => {
                let rk = self.kind(*r);
                matches!(lk, Kind::Set | Kind::String) && (rk == lk || rk == Kind::Unknown)
            }
            Filter::GameTree(GameTreeFilter::AtPosition { .. }) => lk == Kind::Position,
            Filter::Numbers(NumberFilter::RegexMatch { .. }) => lk == Kind::String,
            _ => true,
        }
    }

    /// Is there an enclosing prefix filter, ending where the operator node ends, that CQL 6.2
    /// would close before the operator so that the operator accepts it as its left side?
    fn escapes(&self, filter: &Filter, lk: Kind) -> bool {
        let mut lk = lk;
        for &a in self.stack.iter().rev().skip(1).take(6) {
            lk = match self.ir.get(a) {
                // Constituent lists and a move's tied side do not change what the
                // operator would see.
                Filter::GameTree(
                    GameTreeFilter::SeqConcat(_) | GameTreeFilter::SeqRepeat { .. } | GameTreeFilter::SeqAlt(_),
                )
                | Filter::Move(_) => continue,
                // Filters whose kind their parts do not change.
                Filter::GameTree(GameTreeFilter::Line { .. } | GameTreeFilter::Find { .. })
                | Filter::Logic(LogicFilter::Not(_))
                | Filter::Variables(
                    VariableFilter::Assign { .. }
                    | VariableFilter::SquareIter { .. }
                    | VariableFilter::PieceIter { .. },
                ) => self.kind(a),
                Filter::Transform { count, range, .. } => {
                    if *count || range.is_some() {
                        Kind::Number
                    } else {
                        lk
                    }
                }
                Filter::Output(OutputFilter::Sort { .. }) if lk == Kind::Set => Kind::Number,
                Filter::Output(OutputFilter::Sort { .. }) | Filter::GameTree(GameTreeFilter::AtPosition { .. }) => lk,
                _ => return false,
            };
            if self.op_ok(filter, lk) {
                return true;
            }
        }
        false
    }
}

/// May a comparison `op` have a left side of kind `a` and a right side of kind `b`? Two
/// sets only with `==`/`!=`, a set with a number (the set counts its squares), positions with
/// positions (not `!=`), numbers with numbers, strings with strings.
fn pair_ok(op: CmpOp, a: Kind, b: Kind) -> bool {
    match (a, b) {
        (Kind::Unknown, _) | (_, Kind::Unknown) => true,
        (Kind::Set, Kind::Set) => matches!(op, CmpOp::Eq | CmpOp::Ne),
        (Kind::Position, Kind::Position) => op != CmpOp::Ne,
        (Kind::Set, Kind::Number) | (Kind::Number, Kind::Set) => true,
        (x, y) => x == y && x != Kind::Logical,
    }
}

fn hint_for(k: Kind) -> &'static str {
    match k {
        Kind::Set => {
            "a set of squares is e.g. `♖`, `a-h8`, `♖→♛` or `move to`; a bare move `――` or a comparison is not one"
        }
        Kind::Number => "a number is e.g. `3`, `#♙`, `ply` or `find all F`",
        Kind::Position => "a position is e.g. `parent`, `currentposition`, `find check` or a position variable",
        Kind::String => "a string is e.g. `\"abc\"`, `player white` or `str(x)`",
        _ => "",
    }
}

/// `filter` with the operand written on its left replaced by `left`, for the operators whose
/// other operands the type check looks at again after a regrouping (sets, comparisons,
/// arithmetic); `None` for any other node.
fn with_left_operand(filter: &Filter, left: FilterId) -> Option<Filter> {
    Some(match filter {
        Filter::Sets(SetFilter::Union(v) | SetFilter::Intersection(v)) if !v.is_empty() => {
            let mut v = v.clone();
            v[0] = left;
            if matches!(filter, Filter::Sets(SetFilter::Union(_))) {
                Filter::Sets(SetFilter::Union(v))
            } else {
                Filter::Sets(SetFilter::Intersection(v))
            }
        }
        Filter::Numbers(NumberFilter::Compare { rest, .. }) => {
            Filter::Numbers(NumberFilter::Compare { first: left, rest: rest.clone() })
        }
        Filter::Numbers(NumberFilter::Arith(op, _, b)) => Filter::Numbers(NumberFilter::Arith(*op, left, *b)),
        _ => return None,
    })
}
