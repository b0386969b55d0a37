//! The children of a filter: the one traversal every walk over the IR uses.
//!
//! Takes in: one [`Filter`] node. Gives out: its direct sub-filters (the filters it is
//! made of — the body of a `find`, the operands of `+`, the sets of a `ray`…), in field
//! order, or a copy of the node with each child replaced.
//! Must never: look at the arena (a node's children are its own fields) or skip a variant.
//!
//! Every variant of [`Filter`] is named in [`each_child!`], with no catch-all, so a new
//! variant does not compile until someone decides what its children are. The walks of
//! the transform expander, the normalizer, the dump, the loop check, the type check and
//! the evaluator's preparation all go through these functions.

use super::{Filter, FilterId};
use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, Keyword62Filter, LogicFilter, NumberFilter, OutputFilter,
    PositionStateFilter, SetFilter, VariableFilter,
};

/// Visit every direct child of `$filter` with `$visit` (a closure taking `&FilterId` or
/// `&mut FilterId`, whichever `$filter` gives, and returning a `Result`), in field order;
/// `$opt` is `as_ref` or `as_mut` to match. Every variant is listed.
macro_rules! each_child {
    ($filter:expr, $visit:ident, $opt:ident) => {
        match $filter {
            // Leaves: no sub-filters (variables, squares, constants, whole-position tests).
            Filter::True
            | Filter::False
            | Filter::Numbers(NumberFilter::Number(_) | NumberFilter::Str(_))
            | Filter::Sets(SetFilter::Squares(_) | SetFilter::Pieces { .. } | SetFilter::PawnStructure(_))
            | Filter::Numbers(NumberFilter::RegexGroup(_) | NumberFilter::RegexGroupStart(_))
            | Filter::PositionState(
                PositionStateFilter::Check
                | PositionStateFilter::Mate
                | PositionStateFilter::Stalemate
                | PositionStateFilter::ToMove(_)
                | PositionStateFilter::SideToMove
                | PositionStateFilter::Initial
                | PositionStateFilter::Terminal
                | PositionStateFilter::Ply
                | PositionStateFilter::MoveNumber
                | PositionStateFilter::Mainline
                | PositionStateFilter::Variation
                | PositionStateFilter::VirtualMainline,
            )
            | Filter::GameTree(GameTreeFilter::Try)
            | Filter::Output(OutputFilter::HasComment | OutputFilter::OriginalComment)
            | Filter::Header(
                HeaderFilter::Field(_) | HeaderFilter::Result(_) | HeaderFilter::Year | HeaderFilter::GameNumber,
            )
            | Filter::GameTree(
                GameTreeFilter::Tree(_)
                | GameTreeFilter::Depth
                | GameTreeFilter::PositionId
                | GameTreeFilter::PathStatus(_),
            )
            | Filter::Variables(
                VariableFilter::Var(_)
                | VariableFilter::IsBound(_)
                | VariableFilter::Unbind(_)
                | VariableFilter::DictCount(_),
            )
            | Filter::Output(OutputFilter::RemoveComment)
            | Filter::Yacpdb(_)
            | Filter::LegacyFact(_)
            | Filter::Keyword62(
                Keyword62Filter::CurrentTransform(_)
                | Keyword62Filter::SimilarPosition { .. }
                | Keyword62Filter::Abort(_)
                | Keyword62Filter::PathDebug
                | Keyword62Filter::LastGameNumber,
            )
            | Filter::Header(
                HeaderFilter::GameTextContains(_) | HeaderFilter::HhdbAward { .. } | HeaderFilter::CurrentFen,
            ) => {}
            // Lists.
            Filter::Sets(SetFilter::Union(v) | SetFilter::Intersection(v))
            | Filter::Numbers(NumberFilter::Call(_, v))
            | Filter::Logic(LogicFilter::And(v) | LogicFilter::Or(v) | LogicFilter::CountMatching(v))
            | Filter::GameTree(GameTreeFilter::SeqConcat(v) | GameTreeFilter::SeqAlt(v))
            | Filter::Output(OutputFilter::Comment(v) | OutputFilter::Message { args: v, .. })
            | Filter::Geometry(GeometryFilter::Ray { sets: v, .. } | GeometryFilter::AttackChain { sets: v, .. }) => {
                for c in v {
                    $visit(c)?;
                }
            }
            // One child.
            Filter::Sets(SetFilter::Complement(a) | SetFilter::Count(a))
            | Filter::Geometry(GeometryFilter::Direction { arg: a, .. })
            | Filter::Numbers(NumberFilter::Neg(a) | NumberFilter::RegexMatch { subject: a, .. })
            | Filter::Logic(LogicFilter::Not(a))
            | Filter::GameTree(
                GameTreeFilter::Find { body: a, .. }
                | GameTreeFilter::Child(a)
                | GameTreeFilter::PositionById(a)
                | GameTreeFilter::Line { body: a, .. }
                | GameTreeFilter::SeqRepeat { body: a, .. }
                | GameTreeFilter::Echo { body: a, .. },
            )
            | Filter::Variables(
                VariableFilter::Assign { value: a, .. }
                | VariableFilter::DictGet { key: a, .. }
                | VariableFilter::IdentityIter { body: a, .. },
            )
            | Filter::Output(OutputFilter::Sort { value: a, .. })
            | Filter::Transform { body: a, .. }
            | Filter::NoTransform(a)
            | Filter::Keyword62(Keyword62Filter::ReadFile(a)) => $visit(a)?,
            // Two children.
            Filter::Sets(SetFilter::In(a, b))
            | Filter::Geometry(
                GeometryFilter::Attacks { attackers: a, targets: b, .. } | GeometryFilter::Between(a, b),
            )
            | Filter::Numbers(NumberFilter::Arith(_, a, b) | NumberFilter::Contains { haystack: a, needle: b, .. })
            | Filter::GameTree(
                GameTreeFilter::AtPosition { at: a, body: b }
                | GameTreeFilter::TreeRelation(_, a, b)
                | GameTreeFilter::Lca(a, b)
                | GameTreeFilter::Distance(a, b),
            )
            | Filter::Variables(
                VariableFilter::DictSet { key: a, value: b, .. }
                | VariableFilter::SquareIter { domain: a, body: b, .. }
                | VariableFilter::PieceIter { domain: a, body: b, .. },
            )
            | Filter::Output(OutputFilter::SetTag(a, b))
            | Filter::Keyword62(
                Keyword62Filter::WriteFile(a, b)
                | Keyword62Filter::Equal(a, b)
                | Keyword62Filter::ConsecutiveMoves { x: a, y: b, .. },
            ) => {
                $visit(a)?;
                $visit(b)?;
            }
            // Optional children.
            Filter::Geometry(GeometryFilter::PinOf { from, through, to, .. }) => {
                for c in [from, through, to] {
                    if let Some(c) = c.$opt() {
                        $visit(c)?;
                    }
                }
            }
            Filter::Variables(VariableFilter::DictUnbind { key, .. }) => {
                if let Some(c) = key.$opt() {
                    $visit(c)?;
                }
            }
            Filter::Logic(LogicFilter::If { cond, then, otherwise }) => {
                $visit(cond)?;
                $visit(then)?;
                if let Some(c) = otherwise.$opt() {
                    $visit(c)?;
                }
            }
            Filter::GameTree(GameTreeFilter::Path { focus, best, body, .. }) => {
                if let Some(c) = focus.$opt() {
                    $visit(c)?;
                }
                if let Some(c) = best.$opt() {
                    $visit(c)?;
                }
                $visit(body)?;
            }
            Filter::Variables(VariableFilter::While { cond, body }) => {
                if let Some(c) = cond.$opt() {
                    $visit(c)?;
                }
                $visit(body)?;
            }
            Filter::Numbers(NumberFilter::Compare { first, rest }) => {
                $visit(first)?;
                for (_, c) in rest {
                    $visit(c)?;
                }
            }
            Filter::Move(m) => {
                if let Some(c) = m.from.$opt() {
                    $visit(c)?;
                }
                if let Some(c) = m.to.$opt() {
                    $visit(c)?;
                }
                if let Some(c) = m.capture.$opt() {
                    $visit(c)?;
                }
                if let Some(c) = m.then.$opt() {
                    $visit(c)?;
                }
            }
        }
    };
}

/// Call `f` on each direct child of `filter`, in field order, stopping at the first error.
pub fn try_for_each_child<E>(filter: &Filter, mut f: impl FnMut(FilterId) -> Result<(), E>) -> Result<(), E> {
    let mut visit = |c: &FilterId| f(*c);
    each_child!(filter, visit, as_ref);
    Ok(())
}

/// Call `f` on each direct child of `filter`, in field order.
pub fn for_each_child(filter: &Filter, mut f: impl FnMut(FilterId)) {
    let _ = try_for_each_child::<std::convert::Infallible>(filter, |c| {
        f(c);
        Ok(())
    });
}

/// The direct children of a filter, in field order (empty for leaves).
pub fn children(filter: &Filter) -> Vec<FilterId> {
    let mut out = Vec::new();
    for_each_child(filter, |c| out.push(c));
    out
}

/// Does some direct child satisfy `test`?
pub fn any_child(filter: &Filter, mut test: impl FnMut(FilterId) -> bool) -> bool {
    try_for_each_child(filter, |c| if test(c) { Err(()) } else { Ok(()) }).is_err()
}

/// Replace each direct child of `filter` in place by `f(child)`, in field order; the
/// first error of `f` stops the walk (children before it are already replaced).
pub fn try_replace_children<E>(
    filter: &mut Filter,
    mut f: impl FnMut(FilterId) -> Result<FilterId, E>,
) -> Result<(), E> {
    let mut visit = |c: &mut FilterId| -> Result<(), E> {
        *c = f(*c)?;
        Ok(())
    };
    each_child!(filter, visit, as_mut);
    Ok(())
}

/// Rebuild a filter with each direct child replaced by `f(child)`, in field order.
/// Leaves come back unchanged. The first error of `f` is returned.
pub fn map_children<E>(filter: &Filter, f: impl FnMut(FilterId) -> Result<FilterId, E>) -> Result<Filter, E> {
    let mut copy = filter.clone();
    try_replace_children(&mut copy, f)?;
    Ok(copy)
}

/// The filter with every child set to one fixed id: its own fields without its
/// sub-filters (the normalizer hashes it to compare nodes independently of arena ids).
pub fn skeleton(filter: &Filter) -> Filter {
    let mut copy = filter.clone();
    let _ = try_replace_children::<std::convert::Infallible>(&mut copy, |_| Ok(FilterId(0)));
    copy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{CmpOp, MoveFilter, MoveSource, PinPart};

    fn id(n: u32) -> FilterId {
        FilterId(n)
    }

    #[test]
    fn leaves_have_no_children() {
        for leaf in [
            Filter::PositionState(PositionStateFilter::Check),
            Filter::Numbers(NumberFilter::Number(3)),
            Filter::Numbers(NumberFilter::Str("x".into())),
            Filter::PositionState(PositionStateFilter::Ply),
            Filter::Header(HeaderFilter::CurrentFen),
        ] {
            assert!(children(&leaf).is_empty(), "{leaf:?}");
            assert_eq!(map_children::<()>(&leaf, |c| Ok(c)).unwrap(), leaf);
        }
    }

    #[test]
    fn children_come_in_field_order() {
        let compare =
            Filter::Numbers(NumberFilter::Compare { first: id(1), rest: vec![(CmpOp::Lt, id(2)), (CmpOp::Le, id(3))] });
        assert_eq!(children(&compare), vec![id(1), id(2), id(3)]);
        let cond = Filter::Logic(LogicFilter::If { cond: id(4), then: id(5), otherwise: Some(id(6)) });
        assert_eq!(children(&cond), vec![id(4), id(5), id(6)]);
        let pin = Filter::Geometry(GeometryFilter::PinOf {
            from: Some(id(7)),
            through: None,
            to: Some(id(8)),
            part: PinPart::Pinners,
        });
        assert_eq!(children(&pin), vec![id(7), id(8)]);
        let looped = Filter::Variables(VariableFilter::While { cond: Some(id(9)), body: id(10) });
        assert_eq!(children(&looped), vec![id(9), id(10)]);
    }

    #[test]
    fn mapping_replaces_every_child_and_keeps_the_rest() {
        let m = MoveFilter {
            from: Some(id(1)),
            capture: Some(id(2)),
            then: Some(id(3)),
            ..MoveFilter::any(MoveSource::Next)
        };
        let mv = Filter::Move(Box::new(m.clone()));
        assert_eq!(children(&mv), vec![id(1), id(2), id(3)]);
        let shifted = map_children::<()>(&mv, |c| Ok(FilterId(c.0 + 10))).unwrap();
        let Filter::Move(out) = &shifted else { panic!("still a move") };
        assert_eq!((out.from, out.to, out.capture, out.then), (Some(id(11)), None, Some(id(12)), Some(id(13))));
        assert_eq!(out.kind, m.kind);
        // The first error stops the walk.
        let calls = std::cell::Cell::new(0);
        let err = map_children(&mv, |c| {
            calls.set(calls.get() + 1);
            if c == id(2) {
                Err("stop")
            } else {
                Ok(c)
            }
        });
        assert_eq!(err, Err("stop"));
        assert_eq!(calls.get(), 2);
    }

    #[test]
    fn any_child_stops_at_the_first_hit() {
        let and = Filter::Logic(LogicFilter::And(vec![id(1), id(2), id(3)]));
        let mut seen = Vec::new();
        assert!(any_child(&and, |c| {
            seen.push(c);
            c == id(2)
        }));
        assert_eq!(seen, vec![id(1), id(2)]);
        assert!(!any_child(&and, |c| c == id(9)));
    }

    #[test]
    fn a_skeleton_forgets_the_children_only() {
        let a = Filter::Output(OutputFilter::Sort { doc: "n".into(), min: true, quiet: false, value: id(5) });
        let b = Filter::Output(OutputFilter::Sort { doc: "n".into(), min: true, quiet: false, value: id(6) });
        let c = Filter::Output(OutputFilter::Sort { doc: "m".into(), min: true, quiet: false, value: id(5) });
        assert_eq!(skeleton(&a), skeleton(&b));
        assert_ne!(skeleton(&a), skeleton(&c));
    }
}
