//! Logic keywords: `:and`, `:or`, `:xor` (one implementation for both kinds of list),
//! `:not`, `:cond` and the position list's `:match`.
//!
//! Takes in: one keyword and the cursor after it; its sub-lists are `(match …)` lists in a
//! match list and `(position …)` lists in a position list. Gives out: `And`, `Or`,
//! `CountMatching` (exactly one), `Not`, `If` chains.
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use super::{err, Cursor, ListState, Lowerer};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{Filter, FilterId, FindDirection, TreeStep};
use crate::ir::{GameTreeFilter, LogicFilter};
use crate::lang::legacy::designator::Range;
use crate::lang::legacy::syntax::Item;

/// The kind of sub-list a logic keyword combines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sub {
    /// Header-only `(match …)` lists, in a match list.
    Match,
    /// `(position …)` lists, in a position list.
    Position,
}

impl Sub {
    /// The sub-lists' head word.
    fn head(self) -> &'static str {
        match self {
            Sub::Match => "match",
            Sub::Position => "position",
        }
    }
}

impl Lowerer {
    /// `:and (…)`, `:or (…)`, `:xor (…)` over `(match …)` lists.
    pub(super) fn match_combination(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        self.combination(kw, span, c, Sub::Match)
    }

    /// `:and (L…)`, `:or (L…)`, `:xor (L…)` over `(position …)` lists.
    pub(super) fn position_combination(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
    ) -> Result<FilterId, Diagnostic> {
        self.combination(kw, span, c, Sub::Position)
    }

    /// All (`:and`), some (`:or`) or exactly one (`:xor`) of the sub-lists match.
    fn combination(&mut self, kw: &str, span: Span, c: &mut Cursor, sub: Sub) -> Result<FilterId, Diagnostic> {
        let parts = self.sub_lists(kw, c, sub)?;
        Ok(match kw {
            ":and" => self.and(parts, span),
            ":xor" => self.exactly_one(parts, span),
            _ => self.add(Filter::Logic(LogicFilter::Or(parts)), span),
        })
    }

    /// The lowered sub-lists of the list after a keyword (a position list needs one).
    fn sub_lists(&mut self, kw: &str, c: &mut Cursor, sub: Sub) -> Result<Vec<FilterId>, Diagnostic> {
        let what = format!("a list of `({} …)` lists", sub.head());
        let (subs, lspan) = c.list(kw, &what)?;
        if sub == Sub::Position && subs.is_empty() {
            return Err(err(format!("`{kw}` needs at least one position list"), lspan));
        }
        let mut parts = Vec::new();
        for item in subs {
            parts.push(self.sub_list(item, sub)?);
        }
        Ok(parts)
    }

    /// One lowered sub-list.
    fn sub_list(&mut self, item: &Item, sub: Sub) -> Result<FilterId, Diagnostic> {
        match sub {
            Sub::Match => self.sub_match(item),
            Sub::Position => self.nested_position_list(item),
        }
    }

    /// Exactly one of the filters matches.
    fn exactly_one(&mut self, parts: Vec<FilterId>, span: Span) -> FilterId {
        let n = self.add(Filter::Logic(LogicFilter::CountMatching(parts)), span);
        self.compare(n, Range::Between(1, 1), span)
    }

    /// `:not` in a match list: the flag form negates the enclosing match list, the form
    /// with a `(match …)` list negates that list.
    pub(super) fn match_not(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        if !matches!(c.peek(), Some(Item::List { .. })) {
            // The flag form: the enclosing match list matches where it otherwise would not.
            self.not_flag = !self.not_flag;
            return Ok(self.add(Filter::True, span));
        }
        let sub = c.take().ok_or_else(|| c.missing(kw, "a `(match …)` list"))?;
        let f = self.sub_match(sub)?;
        Ok(self.add(Filter::Logic(LogicFilter::Not(f)), span))
    }

    /// `:not` in a position list: the flag negates the list, `:not (position …)` is a
    /// conjunct that the sub-list does not match.
    pub(super) fn position_not(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        if matches!(c.peek(), Some(Item::List { .. })) {
            let sub = c.take().ok_or_else(|| c.missing(kw, "a position list"))?;
            let f = self.nested_position_list(sub)?;
            let not = self.add(Filter::Logic(LogicFilter::Not(f)), span);
            st.conjuncts.push(Some(not));
        } else {
            st.negate = !st.negate;
        }
        Ok(())
    }

    /// `:cond C1 E1 C2 E2 … [E]` over `(match …)` lists.
    pub(super) fn match_cond(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        self.cond(kw, span, c, Sub::Match)
    }

    /// `:cond C1 E1 C2 E2 … [E]` over `(position …)` lists.
    pub(super) fn position_cond(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        self.cond(kw, span, c, Sub::Position)
    }

    /// `:cond`: the expression of the first clause that holds; an odd last item is the
    /// expression taken when no clause holds.
    fn cond(&mut self, kw: &str, span: Span, c: &mut Cursor, sub: Sub) -> Result<FilterId, Diagnostic> {
        let clauses = cond_items(kw, c, sub.head())?;
        let mut items = Vec::new();
        for item in clauses {
            items.push(self.sub_list(item, sub)?);
        }
        let mut otherwise = None;
        let mut pairs: Vec<(FilterId, FilterId)> =
            items.chunks(2).filter(|p| p.len() == 2).map(|p| (p[0], p[1])).collect();
        if items.len() % 2 == 1 {
            otherwise = items.last().copied();
        }
        let mut result = otherwise.unwrap_or_else(|| self.add(Filter::False, span));
        while let Some((c, e)) = pairs.pop() {
            result = self.add(Filter::Logic(LogicFilter::If { cond: c, then: e, otherwise: Some(result) }), span);
        }
        Ok(result)
    }

    /// `:match (L…)`: like a match list of its own, each list matches some position of
    /// the game.
    pub(super) fn position_match(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let parts = self.sub_lists(kw, c, Sub::Position)?;
        let mut finds = Vec::new();
        for p in parts {
            let initial = self.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Initial)), span);
            let find = self.add(
                Filter::GameTree(GameTreeFilter::Find {
                    direction: FindDirection::Forward,
                    all: false,
                    range: None,
                    quiet: true,
                    body: p,
                }),
                span,
            );
            finds.push(self.add(Filter::GameTree(GameTreeFilter::AtPosition { at: initial, body: find }), span));
        }
        Ok(self.and(finds, span))
    }
}

/// The clause items of `:cond`: either one list holding them, or the `(head …)` lists that
/// follow the keyword.
fn cond_items<'a>(kw: &str, c: &mut Cursor<'a>, head: &str) -> Result<Vec<&'a Item>, Diagnostic> {
    let mut out = Vec::new();
    if let Some(Item::List { items, .. }) = c.peek() {
        if c.peek().and_then(Item::head) != Some(head) {
            c.take();
            out.extend(items.iter());
            return Ok(out);
        }
    }
    while let Some(item) = c.peek() {
        if item.head() != Some(head) {
            break;
        }
        out.push(item);
        c.take();
    }
    if out.is_empty() {
        return Err(c.missing(kw, &format!("`({head} …)` clauses")));
    }
    Ok(out)
}
