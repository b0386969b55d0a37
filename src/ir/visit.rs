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

/// Visit every direct child of `$filter` with `$visit` (a closure taking `&FilterId` or
/// `&mut FilterId`, whichever `$filter` gives, and returning a `Result`), in field order;
/// `$opt` is `as_ref` or `as_mut` to match. Every variant is listed.
macro_rules! each_child {
    ($filter:expr, $visit:ident, $opt:ident) => {
        match $filter {
            // Leaves: no sub-filters (variables, squares, constants, whole-position tests).
            Filter::True
            | Filter::False
            | Filter::Number(_)
            | Filter::Str(_)
            | Filter::Squares(_)
            | Filter::Pieces { .. }
            | Filter::PawnStructure(_)
            | Filter::RegexGroup(_)
            | Filter::RegexGroupStart(_)
            | Filter::Check
            | Filter::Mate
            | Filter::Stalemate
            | Filter::ToMove(_)
            | Filter::SideToMove
            | Filter::Initial
            | Filter::Terminal
            | Filter::Ply
            | Filter::MoveNumber
            | Filter::Mainline
            | Filter::Variation
            | Filter::VirtualMainline
            | Filter::Try
            | Filter::HasComment
            | Filter::OriginalComment
            | Filter::Header(_)
            | Filter::Result(_)
            | Filter::Year
            | Filter::GameNumber
            | Filter::Tree(_)
            | Filter::Depth
            | Filter::PositionId
            | Filter::PathStatus(_)
            | Filter::Var(_)
            | Filter::IsBound(_)
            | Filter::Unbind(_)
            | Filter::DictCount(_)
            | Filter::RemoveComment
            | Filter::Yacpdb(_)
            | Filter::LegacyFact(_)
            | Filter::CurrentTransform(_)
            | Filter::SimilarPosition { .. }
            | Filter::Abort(_)
            | Filter::PathDebug
            | Filter::LastGameNumber
            | Filter::GameTextContains(_)
            | Filter::HhdbAward { .. }
            | Filter::CurrentFen => {}
            // Lists.
            Filter::Union(v)
            | Filter::Intersection(v)
            | Filter::Call(_, v)
            | Filter::And(v)
            | Filter::Or(v)
            | Filter::CountMatching(v)
            | Filter::SeqConcat(v)
            | Filter::SeqAlt(v)
            | Filter::Comment(v)
            | Filter::Message { args: v, .. }
            | Filter::Ray { sets: v, .. }
            | Filter::AttackChain { sets: v, .. } => {
                for c in v {
                    $visit(c)?;
                }
            }
            // One child.
            Filter::Complement(a)
            | Filter::Count(a)
            | Filter::Direction { arg: a, .. }
            | Filter::Neg(a)
            | Filter::RegexMatch { subject: a, .. }
            | Filter::Not(a)
            | Filter::Find { body: a, .. }
            | Filter::Child(a)
            | Filter::PositionById(a)
            | Filter::Line { body: a, .. }
            | Filter::SeqRepeat { body: a, .. }
            | Filter::Echo { body: a, .. }
            | Filter::Assign { value: a, .. }
            | Filter::DictGet { key: a, .. }
            | Filter::IdentityIter { body: a, .. }
            | Filter::Sort { value: a, .. }
            | Filter::Transform { body: a, .. }
            | Filter::NoTransform(a)
            | Filter::ReadFile(a) => $visit(a)?,
            // Two children.
            Filter::In(a, b)
            | Filter::Attacks { attackers: a, targets: b, .. }
            | Filter::Between(a, b)
            | Filter::Arith(_, a, b)
            | Filter::Contains { haystack: a, needle: b, .. }
            | Filter::AtPosition { at: a, body: b }
            | Filter::TreeRelation(_, a, b)
            | Filter::Lca(a, b)
            | Filter::Distance(a, b)
            | Filter::DictSet { key: a, value: b, .. }
            | Filter::SquareIter { domain: a, body: b, .. }
            | Filter::PieceIter { domain: a, body: b, .. }
            | Filter::SetTag(a, b)
            | Filter::WriteFile(a, b)
            | Filter::Equal(a, b)
            | Filter::ConsecutiveMoves { x: a, y: b, .. } => {
                $visit(a)?;
                $visit(b)?;
            }
            // Optional children.
            Filter::PinOf { from, through, to, .. } => {
                for c in [from, through, to] {
                    if let Some(c) = c.$opt() {
                        $visit(c)?;
                    }
                }
            }
            Filter::DictUnbind { key, .. } => {
                if let Some(c) = key.$opt() {
                    $visit(c)?;
                }
            }
            Filter::If { cond, then, otherwise } => {
                $visit(cond)?;
                $visit(then)?;
                if let Some(c) = otherwise.$opt() {
                    $visit(c)?;
                }
            }
            Filter::Path { focus, best, body, .. } => {
                if let Some(c) = focus.$opt() {
                    $visit(c)?;
                }
                if let Some(c) = best.$opt() {
                    $visit(c)?;
                }
                $visit(body)?;
            }
            Filter::While { cond, body } => {
                if let Some(c) = cond.$opt() {
                    $visit(c)?;
                }
                $visit(body)?;
            }
            Filter::Compare { first, rest } => {
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
        for leaf in [Filter::Check, Filter::Number(3), Filter::Str("x".into()), Filter::Ply, Filter::CurrentFen] {
            assert!(children(&leaf).is_empty(), "{leaf:?}");
            assert_eq!(map_children::<()>(&leaf, |c| Ok(c)).unwrap(), leaf);
        }
    }

    #[test]
    fn children_come_in_field_order() {
        let compare = Filter::Compare { first: id(1), rest: vec![(CmpOp::Lt, id(2)), (CmpOp::Le, id(3))] };
        assert_eq!(children(&compare), vec![id(1), id(2), id(3)]);
        let cond = Filter::If { cond: id(4), then: id(5), otherwise: Some(id(6)) };
        assert_eq!(children(&cond), vec![id(4), id(5), id(6)]);
        let pin = Filter::PinOf { from: Some(id(7)), through: None, to: Some(id(8)), part: PinPart::Pinners };
        assert_eq!(children(&pin), vec![id(7), id(8)]);
        let looped = Filter::While { cond: Some(id(9)), body: id(10) };
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
        let and = Filter::And(vec![id(1), id(2), id(3)]);
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
        let a = Filter::Sort { doc: "n".into(), min: true, quiet: false, value: id(5) };
        let b = Filter::Sort { doc: "n".into(), min: true, quiet: false, value: id(6) };
        let c = Filter::Sort { doc: "m".into(), min: true, quiet: false, value: id(5) };
        assert_eq!(skeleton(&a), skeleton(&b));
        assert_ne!(skeleton(&a), skeleton(&c));
    }
}
