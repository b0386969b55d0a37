//! Search keywords: how a position list searches the game. Its scope (`:variations`,
//! `:variationsonly`), counts (`:matchcount`, `:nomatch`, `:repetitioncount`), sequences
//! (`:sequence`, `:gappedsequence`, `:matchconsecutive`), the controlling keywords
//! (`:cut`, `:exclude`, `:skip`), and the annotation-only keywords it ignores.
//!
//! Takes in: one keyword and the cursor after it. Gives out: settings of the list, which
//! the match list turns into its `Find`, or `Line` filters over `SeqConcat`.
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use super::{err, only_top, Cursor, ListState, Lowerer, Scope};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{Filter, FilterId, FindDirection, LineParams, TreeStep};
use crate::ir::{GameTreeFilter, LogicFilter};
use crate::lang::legacy::designator::Range;
use crate::lang::legacy::syntax::Item;

impl Lowerer {
    /// `:variations`, `:variationsonly` in a position list: where the list looks. In
    /// nested lists the scope of the enclosing top-level list applies.
    pub(super) fn list_scope(
        &mut self,
        kw: &str,
        _span: Span,
        _c: &mut Cursor,
        st: &mut ListState,
        top_level: bool,
    ) -> Result<(), Diagnostic> {
        if top_level {
            st.scope = if kw == ":variations" { Scope::All } else { Scope::VariationsOnly };
        }
        Ok(())
    }

    /// `:markall`, `:noannotate`: annotation control only; ignored.
    pub(super) fn annotation_only(
        &mut self,
        _kw: &str,
        _span: Span,
        _c: &mut Cursor,
        _st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        Ok(())
    }

    /// `:matchcount r`, `:pretransformmatchcount r`: the number of positions the list
    /// (some single transform of it) matches is in r.
    pub(super) fn match_count(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        top_level: bool,
    ) -> Result<(), Diagnostic> {
        if !top_level {
            return Err(only_top(kw, span));
        }
        let (r, _) = c.range(kw)?;
        st.matchcount = Some((r, kw == ":pretransformmatchcount"));
        Ok(())
    }

    /// `:nomatch`: the list matches no position of the game.
    pub(super) fn no_match(
        &mut self,
        kw: &str,
        span: Span,
        _c: &mut Cursor,
        st: &mut ListState,
        top_level: bool,
    ) -> Result<(), Diagnostic> {
        if !top_level {
            return Err(only_top(kw, span));
        }
        st.nomatch = true;
        Ok(())
    }

    /// `:repetitioncount r`, `:pretransformrepetitioncount r`: some run of consecutive
    /// positions matched by the list (by some single transform of it) has a length in r.
    pub(super) fn repetition_count(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        top_level: bool,
    ) -> Result<(), Diagnostic> {
        if !top_level {
            return Err(only_top(kw, span));
        }
        let (r, _) = c.range(kw)?;
        st.repetition = Some((r, kw == ":pretransformrepetitioncount"));
        Ok(())
    }

    /// `:cut`, `:exclude` (a flag, or with a sub-list): once the list (sub-list) has
    /// matched, no list looks further / a game where it matches anywhere does not match.
    pub(super) fn cut_or_exclude(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        top_level: bool,
    ) -> Result<(), Diagnostic> {
        if !top_level {
            return Err(only_top(kw, span));
        }
        let sub = if matches!(c.peek(), Some(Item::List { .. })) {
            let item = c.take().ok_or_else(|| c.missing(kw, "a position list"))?;
            Some(self.nested_position_list(item)?)
        } else {
            None
        };
        if kw == ":cut" {
            st.cut = Some(sub);
        } else {
            st.exclude = Some(sub);
        }
        Ok(())
    }

    /// `:skip (L)`: positions where L holds do not count; `:skip` alone skips every position.
    pub(super) fn skip(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        if matches!(c.peek(), Some(Item::List { .. })) {
            let item = c.take().ok_or_else(|| c.missing(kw, "a position list"))?;
            let f = self.nested_position_list(item)?;
            Ok(self.add(Filter::Logic(LogicFilter::Not(f)), span))
        } else {
            Ok(self.add(Filter::False, span))
        }
    }

    /// `:sequence (L0 L1 …)`: L0 here, L1 at the next position, and so on;
    /// `:gappedsequence`: in this order, with anything between.
    pub(super) fn sequence(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (subs, lspan) = c.list(kw, "a list of `(position …)` lists")?;
        if subs.is_empty() {
            return Err(err(format!("`{kw}` needs at least one position list"), lspan));
        }
        let gap = if kw == ":gappedsequence" {
            let t = self.add(Filter::True, span);
            Some(self.add(Filter::GameTree(GameTreeFilter::SeqRepeat { body: t, min: 0, max: u32::MAX }), span))
        } else {
            None
        };
        let mut parts = Vec::new();
        for sub in subs {
            if let Some(g) = gap {
                parts.push(g);
            }
            parts.push(self.nested_position_list(sub)?);
        }
        let body = self.add(Filter::GameTree(GameTreeFilter::SeqConcat(parts)), lspan);
        Ok(self.add(Filter::GameTree(GameTreeFilter::Line { params: LineParams::default(), body }), span))
    }

    /// `:matchconsecutive (L…)`: the lists match consecutive positions in some order.
    pub(super) fn match_consecutive(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (subs, lspan) = c.list(kw, "a list of `(position …)` lists")?;
        if subs.is_empty() || subs.len() > 6 {
            return Err(err(format!("`{kw}` needs one to six position lists"), lspan));
        }
        let mut parts = Vec::new();
        for sub in subs {
            parts.push(self.nested_position_list(sub)?);
        }
        let mut orders = Vec::new();
        permutations(&parts, &mut Vec::new(), &mut vec![false; parts.len()], &mut orders);
        let mut alternatives = Vec::new();
        for order in orders {
            let body = self.add(Filter::GameTree(GameTreeFilter::SeqConcat(order)), lspan);
            alternatives
                .push(self.add(Filter::GameTree(GameTreeFilter::Line { params: LineParams::default(), body }), span));
        }
        Ok(self.any_of(alternatives, span))
    }

    /// `:repetitioncount r`: some run of consecutive positions matched by `body` has a
    /// length in r (counted from the run's first position); 0 stands for "no run at all".
    pub(super) fn repetition_find(&mut self, body: FilterId, r: Range, span: Span) -> FilterId {
        let (lo, hi) = r.interval();
        let run_at_least = |me: &mut Lowerer, n: i64| {
            let min = u32::try_from(n.max(1)).unwrap_or(u32::MAX);
            let rep = me.add(Filter::GameTree(GameTreeFilter::SeqRepeat { body, min, max: u32::MAX }), span);
            let seq = me.add(Filter::GameTree(GameTreeFilter::SeqConcat(vec![rep])), span);
            me.add(Filter::GameTree(GameTreeFilter::Line { params: LineParams::default(), body: seq }), span)
        };
        let parent = self.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Parent)), span);
        let before = self.add(Filter::GameTree(GameTreeFilter::AtPosition { at: parent, body }), span);
        let fresh = self.add(Filter::Logic(LogicFilter::Not(before)), span);
        let mut parts = vec![body, fresh];
        if lo > 1 {
            parts.push(run_at_least(self, lo));
        }
        if hi < i64::MAX {
            let longer = run_at_least(self, hi.saturating_add(1));
            parts.push(self.add(Filter::Logic(LogicFilter::Not(longer)), span));
        }
        let start = self.add(Filter::Logic(LogicFilter::And(parts)), span);
        let some_run = self.add(
            Filter::GameTree(GameTreeFilter::Find {
                direction: FindDirection::Forward,
                all: false,
                range: None,
                quiet: true,
                body: start,
            }),
            span,
        );
        if lo > 0 {
            return some_run;
        }
        let any = self.add(
            Filter::GameTree(GameTreeFilter::Find {
                direction: FindDirection::Forward,
                all: false,
                range: None,
                quiet: true,
                body,
            }),
            span,
        );
        let none = self.add(Filter::Logic(LogicFilter::Not(any)), span);
        if hi <= 0 {
            none
        } else {
            self.add(Filter::Logic(LogicFilter::Or(vec![none, some_run])), span)
        }
    }
}

/// Every ordering of `items`.
fn permutations(items: &[FilterId], current: &mut Vec<FilterId>, used: &mut Vec<bool>, out: &mut Vec<Vec<FilterId>>) {
    if current.len() == items.len() {
        out.push(current.clone());
        return;
    }
    for i in 0..items.len() {
        if !used[i] {
            used[i] = true;
            current.push(items[i]);
            permutations(items, current, used, out);
            current.pop();
            used[i] = false;
        }
    }
}
