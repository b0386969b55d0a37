//! The game tree: `find`, other positions, tree relations, `line`, `path`, `echo`, YACPDB predicates.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/game-tree.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;

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
    /// built on first use, once per game).
    pub(super) fn eval_yacpdb(&mut self, pred: &crate::ir::YacpdbPredicate) -> Value {
        if self.analysis.is_none() {
            self.analysis = Some(yacpdb::Analysis::of(self.game));
        }
        Value::Number(self.analysis.as_ref().map_or(0, |a| a.count(pred, self.game)))
    }
}
