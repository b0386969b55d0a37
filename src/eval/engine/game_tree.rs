//! The game tree: `find`, other positions, tree relations, `line`, `path`, `echo`, YACPDB predicates.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/game-tree.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;

/// What the path status filters report: the path being matched, or the last one matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathNow {
    /// Where the path started (`pathstart`).
    pub start: NodeId,
    /// Position reached.
    pub last: NodeId,
    /// What `pathlastposition` names: inside the path, the end of the best complete path
    /// found so far from this start (none before the first one, as in CQL 6.2's
    /// `PathLastPositionNode`, which reads the path's `bestSoFar`); after it, its end.
    pub best: Option<NodeId>,
    /// Focused moves made (`pathcount`).
    pub count: u32,
    /// Unfocused moves skipped (`pathcountunfocused`).
    pub unfocused: u32,
}

impl<'a> Ctx<'a> {
    /// A filter that looks at other positions of the game: `find`, `:`, tree steps and relations, `line`, `path`, `echo`, `try`, YACPDB predicates.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_game_tree(&mut self, f: FilterId, filter: &'a GameTreeFilter, at: Loc, vm: bool) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            GameTreeFilter::Find { direction, all, range, quiet, body } => {
                let notes = !*quiet && self.writes_notes();
                return self.find(f, *direction, (*all || range.is_some(), notes), *range, *body, at);
            }
            GameTreeFilter::AtPosition { at: where_, body } => {
                let Some(n) = self.position_value(*where_, at)? else { return Ok(None) };
                let there = Loc::Node(n);
                match self.eval(*body, there, vm)? {
                    // `parent:$p` is the square the piece stood on in that position, not
                    // the piece itself (whose square would be read again here).
                    Some(piece @ Value::Piece(_)) => self.as_set(&piece, there).map(Value::Set),
                    other => other,
                }
            }
            GameTreeFilter::Tree(step) => match (step, at) {
                (_, Loc::Header) => None,
                (TreeStep::Initial, _) => (!self.game.nodes.is_empty()).then_some(Value::Position(NodeId::ROOT)),
                (TreeStep::Current, Loc::Node(n)) => Some(Value::Position(n)),
                (TreeStep::Current, _) => None,
                (TreeStep::Parent, _) => match self.parent(at) {
                    Some(Loc::Node(p)) => Some(Value::Position(p)),
                    _ => None,
                },
                (TreeStep::Last, Loc::Node(n)) => {
                    let mut cur = n;
                    while let Some(&c) = self.children(cur).first() {
                        cur = c;
                    }
                    Some(Value::Position(cur))
                }
                (TreeStep::Last, _) => None,
            },
            GameTreeFilter::Child(index) => {
                let Loc::Node(n) = at else { return Ok(None) };
                let Some(i) = self.number_value(*index, at)? else { return Ok(None) };
                let kids = self.children(n);
                usize::try_from(i).ok().and_then(|i| kids.get(i)).map(|&c| Value::Position(c))
            }
            GameTreeFilter::TreeRelation(rel, a, b) => {
                let (Some(x), Some(y)) = (self.position_value(*a, at)?, self.position_value(*b, at)?) else {
                    return Ok(None);
                };
                let ok = match rel {
                    TreeRelation::Ancestor => x != y && self.is_ancestor_or_self(x, y),
                    TreeRelation::AncestorOrSelf => self.is_ancestor_or_self(x, y),
                    TreeRelation::Descendant => x != y && self.is_ancestor_or_self(y, x),
                    TreeRelation::DescendantOrSelf => self.is_ancestor_or_self(y, x),
                };
                found(ok)
            }
            GameTreeFilter::Lca(a, b) => {
                let (Some(x), Some(y)) = (self.position_value(*a, at)?, self.position_value(*b, at)?) else {
                    return Ok(None);
                };
                self.lca(x, y).map(Value::Position)
            }
            GameTreeFilter::Distance(a, b) => {
                let (Some(x), Some(y)) = (self.position_value(*a, at)?, self.position_value(*b, at)?) else {
                    return Ok(None);
                };
                let Some(l) = self.lca(x, y) else { return Ok(None) };
                let ply = |n: NodeId| self.game.node(n).ply as i64;
                Some(Value::Number(ply(x) + ply(y) - 2 * ply(l)))
            }
            GameTreeFilter::Depth => self.node_of(at).map(|n| Value::Number(self.game.node(n).depth as i64)),
            GameTreeFilter::PositionById(n) => {
                let Some(id) = self.number_value(*n, at)? else { return Ok(None) };
                self.position_with_id(id).map(Value::Position)
            }
            GameTreeFilter::PositionId => match at {
                Loc::Node(n) => Some(Value::Number(self.position_id(n))),
                _ => None,
            },
            GameTreeFilter::Line { params, body } => return self.line(f, *params, *body, at),
            GameTreeFilter::Path { params, focus, best, title, body } => {
                return self.path(f, (*params, title.as_deref()), *focus, *best, *body, at)
            }
            GameTreeFilter::PathStatus(what) => self.path_status(*what),
            GameTreeFilter::SeqConcat(_) | GameTreeFilter::SeqRepeat { .. } | GameTreeFilter::SeqAlt(_) => {
                return Err(internal("sequence constituent outside of a line"))
            }
            GameTreeFilter::Echo { source, target, in_all, variations, marks, body } => {
                return self.echo(*source, *target, (*in_all, *variations, *marks), *body, at)
            }
            GameTreeFilter::Try => {
                let Some(n) = self.node_of(at) else { return Ok(None) };
                found(is_white_try(self.game, n))
            }
        })
    }

    /// The count of a YACPDB predicate over the game's solution tree (the analysis is
    /// built on first use, once per game); `f` is the predicate's node, whose `Stip`
    /// pattern the query compiled.
    pub(super) fn eval_yacpdb(&mut self, f: FilterId, pred: &crate::ir::YacpdbPredicate) -> Value {
        if self.analysis.is_none() {
            self.analysis = Some(yacpdb::Analysis::of(self.game));
        }
        Value::Number(self.analysis.as_ref().map_or(0, |a| a.count(pred, self.q.stip_regex(f), self.game)))
    }
}

impl<'a> Ctx<'a> {
    fn echo(&mut self, source: VarId, target: VarId, scope: (bool, bool, bool), body: FilterId, at: Loc) -> Eval {
        let Loc::Node(s) = at else { return Ok(None) };
        let (in_all, variations, marks) = scope;
        // Targets: every searched position (the main line, or the whole tree when variations
        // are searched), the source itself only with `in all` (CQL 6.2 `EchoNode::match_position`);
        // the legacy `:relation (:variations)` takes in the variations in any case.
        let searched = self.variations;
        let walked = searched || variations;
        let saved_s = self.set_var(source, Some(Value::Position(s)));
        let saved_t = self.set_var(target, None);
        let mut best: Option<Value> = None;
        // Only a number kept from the body counts (the largest is the value); a body that
        // only matches or not is tested, which lets it stop at its first failing part in
        // the evaluation plan's order.
        let tested = self.q.kinds().value_kind(self.ir, body) == crate::ir::props::Kind::Logical;
        // A body without effects that asks for `source < target` fails at every target whose
        // position id is not above the source's: those are passed over unevaluated.
        let order = match tested && self.q.planned() && self.q.is_pure(body) {
            true => self.source_before_target(body, source, target),
            false => None,
        };
        let floor = order.is_some().then(|| self.position_id(s));
        // A body that asks only whether the two boards are the same (`source & target == .`)
        // is answered by comparing the boards, without building the set of equal squares
        // (its value, a set, counts only as a match: only numbers are kept from the body).
        let same_board = self.q.planned() && self.asks_same_board(body, source, target);
        // The targets are walked in place, in game-tree order (no list per source).
        let mut next = (!self.game.nodes.is_empty()).then_some(NodeId::ROOT);
        while let Some(t) = next {
            self.variations = walked;
            next = self.next_searched(t);
            self.variations = searched;
            if !in_all && t == s || floor.is_some_and(|id| self.position_id(t) <= id) {
                continue;
            }
            self.set_var(target, Some(Value::Position(t)));
            let found = if same_board {
                self.count_step()?;
                (self.game.node(s).pos.board() == self.game.node(t).pos.board()).then_some(Value::None)
            } else if let Some((parts, known)) = order {
                // The rest of the conjuncts, in the plan's order (`source < target` holds).
                self.test_conjuncts_but(parts, known, Loc::Node(t))?.then_some(Value::None)
            } else if tested {
                self.test(body, Loc::Node(t))?.then_some(Value::None)
            } else {
                self.eval(body, Loc::Node(t), false)?
            };
            if let Some(v) = found {
                if marks && self.writes_notes() {
                    self.echo_marks(source, target, s, t);
                }
                best = Some(match (best, v) {
                    (Some(Value::Number(a)), Value::Number(b)) => Value::Number(a.max(b)),
                    (None, Value::Number(b)) => Value::Number(b),
                    (Some(old), _) => old,
                    (None, _) => Value::None,
                });
            }
        }
        self.set_var(source, saved_s);
        self.set_var(target, saved_t);
        Ok(best)
    }

    /// Is `body` the comparison `source & target == .` (in either order, on either side):
    /// every square holds the same in both positions, that is, the boards are equal?
    fn asks_same_board(&self, body: FilterId, source: VarId, target: VarId) -> bool {
        let ir = self.ir;
        let Filter::Numbers(NumberFilter::Compare { first, rest }) = ir.get(body) else { return false };
        let [(CmpOp::Eq, second)] = rest.as_slice() else { return false };
        let whole = |f: FilterId| matches!(ir.get(f), Filter::Sets(SetFilter::Squares(b)) if *b == Bitboard::FULL);
        let both = |f: FilterId| match ir.get(f) {
            Filter::Sets(SetFilter::Intersection(items)) => match items.as_slice() {
                [a, b] => {
                    let var = |g: FilterId| match ir.get(g) {
                        Filter::Variables(VariableFilter::Var(v)) => Some(*v),
                        _ => None,
                    };
                    matches!((var(*a), var(*b)), (Some(x), Some(y)) if (x, y) == (source, target) || (x, y) == (target, source))
                }
                _ => false,
            },
            _ => false,
        };
        (both(*first) && whole(*second)) || (whole(*first) && both(*second))
    }

    /// When one of the conjuncts of an `echo` body is `source < target` (or `target >
    /// source`), the conjuncts in the order [`Self::test`] tries them and that one.
    /// Positions compare by their ids (`positionid`), so the body fails whenever the
    /// target's id is not above the source's, and that conjunct holds otherwise.
    fn source_before_target(&self, body: FilterId, source: VarId, target: VarId) -> Option<(&'a [FilterId], FilterId)> {
        let ir: &'a Ir = self.ir;
        let q: &'a Query = self.q;
        let Filter::Logic(LogicFilter::And(items)) = ir.get(body) else { return None };
        let order: &'a [FilterId] = match q.plan(body) {
            super::super::plan::Plan::Order(order) => order,
            super::super::plan::Plan::AsStored => items,
            _ => return None,
        };
        let is_var = |g: FilterId, v: VarId| matches!(ir.get(g), Filter::Variables(VariableFilter::Var(w)) if *w == v);
        let known = order.iter().copied().find(|&p| match ir.get(p) {
            Filter::Numbers(NumberFilter::Compare { first, rest }) => match rest.as_slice() {
                [(CmpOp::Lt, second)] => is_var(*first, source) && is_var(*second, target),
                [(CmpOp::Gt, second)] => is_var(*first, target) && is_var(*second, source),
                _ => false,
            },
            _ => false,
        })?;
        Some((order, known))
    }

    /// [`Self::test`] of an `and` without effects whose conjunct `known` holds: the other
    /// conjuncts, in `order`, up to the first that fails.
    fn test_conjuncts_but(&mut self, order: &[FilterId], known: FilterId, at: Loc) -> Result<bool, Error> {
        self.depth += 1;
        let mut result = Ok(true);
        for &part in order {
            if part == known {
                continue;
            }
            match self.test(part, at) {
                Ok(true) => {}
                other => {
                    result = other;
                    break;
                }
            }
        }
        self.depth -= 1;
        result
    }

    /// The comments CQL 6.2's `echo` writes for a matching pair, in its order
    /// (`EchoNode::compute`): `LCA` on the common ancestor when it is neither position,
    /// each position's variable name, `-->` and the source at the target, `<--` and the
    /// target at the source.
    fn echo_marks(&mut self, source: VarId, target: VarId, s: NodeId, t: NodeId) {
        let name = |var: VarId| self.q.ir().vars.get(var.0 as usize).map_or(String::new(), |v| v.name.clone());
        let (source_name, target_name) = (name(source), name(target));
        if let Some(l) = self.lca(s, t).filter(|&l| l != s && l != t) {
            self.out.comments.push((l, "LCA".into()));
        }
        self.out.comments.push((s, source_name));
        self.out.comments.push((t, target_name));
        let to_source = format!("-->{}", self.position_text(s));
        self.out.comments.push((t, to_source));
        let to_target = format!("<--{}", self.position_text(t));
        self.out.comments.push((s, to_target));
    }
}
