//! Ranges as written after `find`, `line`, `path`, `consecutivemoves` or a direction:
//! one or two numbers, or numeric variables (CQL 6.2 `Tokens::match_range`).
//! Part of the CQL 6 parser ([`super`]).

use super::*;
use crate::ir::{NumberFilter, VariableFilter};

impl<'s> Parser<'s> {
    /// A range, if one is written here (CQL 6.2 `Tokens::match_range`): `count` (every
    /// number), or one or two ends; one end alone is both (`find 2 check`: exactly two).
    pub(super) fn range_here(&mut self) -> Option<WrittenRange> {
        if self.eat_word("count") {
            return Some(WrittenRange { low: i64::MIN, high: i64::MAX, low_var: None, high_var: None });
        }
        let low = self.range_end_here()?;
        let high = self.range_end_here().unwrap_or(low);
        let number = |end: RangeEnd, open| if let RangeEnd::Number(n) = end { n } else { open };
        let variable = |end: RangeEnd| if let RangeEnd::Variable(v) = end { Some(v) } else { None };
        Some(WrittenRange {
            low: number(low, i64::MIN),
            high: number(high, i64::MAX),
            low_var: variable(low),
            high_var: variable(high),
        })
    }

    /// `count` (a number of positions, copies or moves) compared with each end of `r`
    /// written as a numeric variable, read when the filter runs, and with each written
    /// number too when `written_too` (for a count that has no range of its own). The
    /// comparison keeps the count as its value.
    pub(super) fn compare_with_range_ends(
        &mut self,
        count: FilterId,
        r: &WrittenRange,
        written_too: bool,
        sp: Span,
    ) -> FilterId {
        let mut compared = count;
        for (var, written, op) in [(r.low_var, r.low, CmpOp::Ge), (r.high_var, r.high, CmpOp::Le)] {
            let bound = match var {
                Some(v) => self.add(Filter::Variables(VariableFilter::Var(v)), sp),
                None if written_too => self.add(Filter::Numbers(NumberFilter::Number(written)), sp),
                None => continue,
            };
            compared =
                self.add(Filter::Numbers(NumberFilter::Compare { first: compared, rest: vec![(op, bound)] }), sp);
        }
        compared
    }

    /// One end of a range, if one is written here (CQL 6.2 `match_rangeconstituent`): a
    /// number (`-` before it makes it negative) or a numeric variable, not followed by an
    /// operator (then it starts the filter: `find 2 <= x`).
    pub(super) fn range_end_here(&mut self) -> Option<RangeEnd> {
        if let (Tok::Number(n), false) = (self.peek().tok.clone(), self.operator_at(1)) {
            self.bump();
            return Some(RangeEnd::Number(n));
        }
        if let (Tok::Sym(Sym::Minus), Tok::Number(n), false) =
            (&self.peek().tok, self.peek_at(1).tok.clone(), self.operator_at(2))
        {
            self.bump();
            self.bump();
            return Some(RangeEnd::Number(-n));
        }
        let var = self.range_variable_here()?;
        self.bump();
        Some(RangeEnd::Variable(var))
    }
}
