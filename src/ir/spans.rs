//! Where a node is written. Equal filters written in several places are one node of the
//! hash-consed arena; the arena records the further places a node is added with, so that a
//! diagnostic about one written filter points at that filter and not at an equal one
//! written elsewhere.

use rustc_hash::FxHashMap as HashMap;

use super::{FilterId, Ir, Span};

/// How many places beyond the first are recorded for one node (for diagnostics only).
const MAX_OCCURRENCES: usize = 64;

/// The further distinct places nodes were added with, in the order they came (at most
/// [`MAX_OCCURRENCES`] per node).
#[derive(Clone, Debug, Default)]
pub(super) struct Occurrences(HashMap<FilterId, Vec<Span>>);

impl Occurrences {
    /// Record that node `id` is also written at `span` (a place not its first).
    pub(super) fn record(&mut self, id: FilterId, span: Span) {
        let more = self.0.entry(id).or_default();
        if more.len() < MAX_OCCURRENCES && !more.contains(&span) {
            more.push(span);
        }
    }

    /// The further places recorded for node `id`, in the order they came.
    pub(super) fn of(&self, id: FilterId) -> &[Span] {
        self.0.get(&id).map_or(&[][..], |v| v.as_slice())
    }
}

impl Ir {
    /// Every place node `id` is written (as far as recorded), first one first.
    pub fn spans_of(&self, id: FilterId) -> impl Iterator<Item = Span> + '_ {
        std::iter::once(self.first_span(id)).chain(self.occurrences.of(id).iter().copied())
    }

    /// The place node `id` is written inside `outer` (the text of an enclosing filter):
    /// its earliest such span, or its first span if none lies inside.
    pub fn span_within(&self, id: FilterId, outer: Span) -> Span {
        self.spans_of(id)
            .filter(|s| outer.start <= s.start && s.end <= outer.end)
            .min_by_key(|s| (s.start, std::cmp::Reverse(s.end)))
            .unwrap_or_else(|| self.first_span(id))
    }

    /// The place of the last node of `path` (a chain of nodes from an ancestor down to
    /// it, each the child of the one before): each node is placed inside the place of its
    /// parent, the first at its first span.
    pub fn span_along(&self, path: &[FilterId]) -> Span {
        let mut place: Option<Span> = None;
        for &id in path {
            place = Some(match place {
                None => self.first_span(id),
                Some(outer) => self.span_within(id, outer),
            });
        }
        place.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Filter;
    use crate::ir::{LogicFilter, PositionStateFilter, SetFilter};
    use shakmaty::Bitboard;

    #[test]
    fn equal_filters_written_twice_keep_both_places() {
        let mut ir = Ir::new();
        let first = ir.add(Filter::PositionState(PositionStateFilter::Check), Span::new(6, 11));
        let again = ir.add(Filter::PositionState(PositionStateFilter::Check), Span::new(20, 25));
        assert_eq!(first, again);
        assert_eq!(ir.first_span(first), Span::new(6, 11));
        // The place last added: what a parent built right now is made of.
        assert_eq!(ir.span(first), Span::new(20, 25));
        assert_eq!(ir.spans_of(first).collect::<Vec<_>>(), vec![Span::new(6, 11), Span::new(20, 25)]);
        assert_eq!(ir.span_within(first, Span::new(15, 30)), Span::new(20, 25));
        assert_eq!(ir.span_within(first, Span::new(0, 30)), Span::new(6, 11));
        // Nowhere inside: the first place.
        assert_eq!(ir.span_within(first, Span::new(40, 50)), Span::new(6, 11));
        // A made-up node (no text) is not a place.
        ir.add(Filter::PositionState(PositionStateFilter::Check), Span::default());
        assert_eq!(ir.spans_of(first).count(), 2);
    }

    #[test]
    fn a_path_places_each_node_inside_its_parent() {
        let mut ir = Ir::new();
        let check_alone = ir.add(Filter::PositionState(PositionStateFilter::Check), Span::new(6, 11));
        let check = ir.add(Filter::PositionState(PositionStateFilter::Check), Span::new(20, 25));
        let not = ir.add(Filter::Logic(LogicFilter::Not(check)), Span::new(16, 25));
        let root = ir.add(Filter::Logic(LogicFilter::And(vec![check_alone, not])), Span::new(0, 26));
        assert_eq!(ir.span_along(&[root, not, check]), Span::new(20, 25));
        assert_eq!(ir.span_along(&[root, check_alone]), Span::new(6, 11));
        assert_eq!(ir.span_along(&[]), Span::default());
    }

    #[test]
    fn a_copy_is_written_wherever_its_original_is() {
        let mut ir = Ir::new();
        let a1 = ir.add(Filter::Sets(SetFilter::Squares(Bitboard::from_square(shakmaty::Square::A1))), Span::new(2, 4));
        ir.add(Filter::Sets(SetFilter::Squares(Bitboard::from_square(shakmaty::Square::A1))), Span::new(10, 12));
        let h1 = ir.add_copy(Filter::Sets(SetFilter::Squares(Bitboard::from_square(shakmaty::Square::H1))), a1);
        assert_ne!(h1, a1);
        assert_eq!(ir.spans_of(h1).collect::<Vec<_>>(), vec![Span::new(2, 4), Span::new(10, 12)]);
        assert_eq!(ir.span(h1), Span::new(10, 12));
        // Copying a node onto itself changes nothing.
        assert_eq!(ir.add_copy(ir.get(a1).clone(), a1), a1);
        assert_eq!(ir.spans_of(a1).count(), 2);
    }

    #[test]
    fn places_per_node_are_bounded() {
        let mut ir = Ir::new();
        let id = ir.add(Filter::PositionState(PositionStateFilter::Mate), Span::new(0, 1));
        for i in 1..1000 {
            ir.add(Filter::PositionState(PositionStateFilter::Mate), Span::new(i * 2, i * 2 + 1));
        }
        assert_eq!(ir.spans_of(id).count(), MAX_OCCURRENCES + 1);
        // The latest place is still known exactly.
        assert_eq!(ir.span(id), Span::new(1998, 1999));
    }
}
