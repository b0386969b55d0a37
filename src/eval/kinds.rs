//! The kinds of values the interpreter asks about while it runs, computed once per query
//! ([`Kinds::new`] in [`super::Query::new`]) so that evaluation reads a table instead of
//! walking the IR.
//!
//! Takes in: the query's IR. Gives out: per filter, whether an empty set makes it fail
//! ([`props::fails_on_empty_set`]), and the kind of value of the filters whose kind the
//! evaluator asks for (the body of an `echo`, the operands of a comparison, the arguments
//! of `equal`; [`props::value_kind`]). Must never: give another answer than the IR's
//! properties give.

use crate::ir::props::{self, Kind};
use crate::ir::{Filter, FilterId, GameTreeFilter, Ir, Keyword62Filter, NumberFilter};

/// The table of kinds of one query (see the module's documentation).
#[derive(Debug, Default)]
pub(crate) struct Kinds {
    /// Per filter: an empty set value makes it fail outside value mode.
    fails_on_empty_set: Vec<bool>,
    /// Per filter: its value kind, for the filters whose kind the evaluator asks for.
    value_kinds: Vec<Option<Kind>>,
}

impl Kinds {
    /// The table of `ir`.
    pub(crate) fn new(ir: &Ir) -> Kinds {
        let mut value_kinds = vec![None; ir.len()];
        let mut note = |f: FilterId| {
            if let Some(slot) = value_kinds.get_mut(f.0 as usize) {
                if slot.is_none() {
                    *slot = Some(props::value_kind(ir, f));
                }
            }
        };
        for i in 0..ir.len() {
            match ir.get(FilterId(i as u32)) {
                Filter::GameTree(GameTreeFilter::Echo { body, .. }) => note(*body),
                Filter::Numbers(NumberFilter::Compare { first, rest }) => {
                    note(*first);
                    rest.iter().for_each(|&(_, operand)| note(operand));
                }
                Filter::Keyword62(Keyword62Filter::Equal(a, b)) => {
                    note(*a);
                    note(*b);
                }
                _ => {}
            }
        }
        let fails_on_empty_set = (0..ir.len()).map(|i| props::fails_on_empty_set(ir, FilterId(i as u32))).collect();
        Kinds { fails_on_empty_set, value_kinds }
    }

    /// Does an empty set value make filter `f` fail outside value mode?
    #[inline]
    pub(crate) fn fails_on_empty_set(&self, ir: &Ir, f: FilterId) -> bool {
        match self.fails_on_empty_set.get(f.0 as usize) {
            Some(&fails) => fails,
            None => props::fails_on_empty_set(ir, f),
        }
    }

    /// What filter `f` gives when it matches ([`props::value_kind`]): read from the table
    /// for the filters noted in it, computed for any other.
    #[inline]
    pub(crate) fn value_kind(&self, ir: &Ir, f: FilterId) -> Kind {
        match self.value_kinds.get(f.0 as usize) {
            Some(&Some(kind)) => kind,
            _ => props::value_kind(ir, f),
        }
    }
}
