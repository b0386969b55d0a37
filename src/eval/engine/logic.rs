//! Logic: `and`, `or`, `not`, `if`, and counting how many filters match.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/numbers.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;

impl<'a> Ctx<'a> {
    /// A logical combination: `and`, `or`, `not`, `if … then … else`, the count of matching filters.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_logic(&mut self, filter: &'a LogicFilter, at: Loc, vm: bool) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            LogicFilter::And(items) => {
                let mut last = Some(Value::None);
                for (k, &i) in items.iter().enumerate() {
                    let is_last = k + 1 == items.len();
                    last = self.eval(i, at, vm && is_last)?;
                    if last.is_none() {
                        return Ok(None);
                    }
                }
                last
            }
            LogicFilter::Or(items) => {
                for &i in items {
                    if let Some(v) = self.eval(i, at, false)? {
                        return Ok(Some(v));
                    }
                }
                None
            }
            LogicFilter::Not(a) => found(!self.test(*a, at)?),
            LogicFilter::If { cond, then, otherwise } => {
                if self.test(*cond, at)? {
                    self.eval(*then, at, vm)?
                } else if let Some(o) = otherwise {
                    self.eval(*o, at, vm)?
                } else {
                    // CQL 6.2: without `else`, an `if` whose condition fails still matches
                    // (`if {⊢♟――=♗ ♙――=♗} N+=1` then `if … N+=1` for the next type).
                    Some(Value::None)
                }
            }
            LogicFilter::CountMatching(items) => {
                let mut n = 0;
                for &i in items {
                    n += self.test(i, at)? as i64;
                }
                Some(Value::Number(n))
            }
        })
    }
}
