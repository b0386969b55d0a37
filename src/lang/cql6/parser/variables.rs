//! Assignments: `x = …`, `x += …`, piece variables `◭T = …`, and which variables hold
//! numbers (so that they can end a range).
//! Part of the CQL 6 parser ([`super`]).

use super::*;
use crate::ir::VariableFilter;

impl<'s> Parser<'s> {
    pub(super) fn parse_assign(&mut self, name: String, sp: Span, persistent: bool) -> PResult<FilterId> {
        if self.ir.find_var(&name).is_some_and(|v| self.ir.vars[v.0 as usize].kind == VarKind::Piece) {
            // CQL 6.2: a piece variable is given its piece only where it is declared
            // (`◭T = S`, `piece T = S`).
            let at = self.span_here();
            self.error_hint(
                format!("cannot assign to the piece variable `{name}`"),
                Self::join(sp, at),
                Some(format!("a piece variable follows its piece; write `piece {name} = S` to give it another")),
            );
            return Err(());
        }
        self.parse_assign_to(name, sp, persistent)
    }

    /// `◭T = S` / `piece T = S`: declare the piece variable T (a name not yet used for
    /// another kind of variable, as CQL 6.2 demands) and give it the piece on S.
    pub(super) fn parse_piece_assign(&mut self, name: String, sp: Span) -> PResult<FilterId> {
        if let Some(v) = self.ir.find_var(&name) {
            if self.ir.vars[v.0 as usize].kind != VarKind::Piece {
                self.error_hint(
                    format!("`{name}` is already a variable of another kind, so it cannot be a piece variable"),
                    sp,
                    Some("use a new name for the piece variable".into()),
                );
                return Err(());
            }
        }
        self.ir.var(&name, VarKind::Piece);
        self.parse_assign_to(name, sp, false)
    }

    pub(super) fn parse_assign_to(&mut self, name: String, sp: Span, persistent: bool) -> PResult<FilterId> {
        let op_tok = self.bump();
        let op = assign_op(&op_tok.tok);
        let declared_before =
            self.ir.find_var(&name).and_then(|v| self.ir.vars.get(v.0 as usize)).map(|v| v.persistent);
        if persistent && declared_before == Some(false) {
            // CQL 6.2: "Assignment specifies persistent variable but variable is already
            // declared not persistent".
            self.error_hint(
                format!("`{name}` was first assigned without `persistent`"),
                sp,
                Some(format!("write `persistent` at the first assignment of `{name}`")),
            );
            return Err(());
        }
        let var = self.ir.var(&name, VarKind::Value);
        if persistent {
            if let Some(v) = self.ir.vars.get_mut(var.0 as usize) {
                v.persistent = true;
            }
        }
        // `x =? S` (CQL 6.2 conditional assignment, sets only): binds x to S and matches
        // when S is not empty; otherwise fails.
        let conditional = op.is_none() && self.at_sym(Sym::Question) && !self.peek().space_before;
        if conditional {
            let q = self.bump();
            if self.ir.vars.get(var.0 as usize).is_some_and(|v| v.kind == VarKind::Piece) {
                self.error_hint(
                    "`=?` cannot assign a piece variable",
                    Self::join(op_tok.span, q.span),
                    Some("`=?` takes a set of squares: write `x =? S`".to_string()),
                );
                return Err(());
            }
        }
        let value = self.parse_expr(BP_LOOSE)?;
        let s = Self::join(sp, self.ir.span(value));
        if conditional {
            return Ok(self.conditional_assign(var, value, s));
        }
        let assign = self.add(Filter::Variables(VariableFilter::Assign { var, op, value }), s);
        self.note_if_numeric(var, op.is_none().then_some(value));
        Ok(assign)
    }

    /// Remember `var` as numeric when it is given `value` (`None`: an arithmetic update such
    /// as `+=`, always a number).
    pub(super) fn note_if_numeric(&mut self, var: crate::ir::VarId, value: Option<FilterId>) {
        let numeric = match value {
            None => true,
            Some(v) => match self.ir.get(v) {
                Filter::Variables(VariableFilter::Var(w)) => self.numeric_vars.contains(w),
                _ => crate::ir::props::value_type(&self.ir, v) == ValueType::Number,
            },
        };
        if numeric {
            self.numeric_vars.insert(var);
        }
    }
}
