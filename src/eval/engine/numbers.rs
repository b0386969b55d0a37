//! Numbers and strings: constants, comparisons, arithmetic, built-in functions, regular expressions.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/numbers.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;
use crate::ir::{GameTreeFilter, HeaderFilter, NumberFilter, PositionStateFilter, SetFilter};

impl<'a> Ctx<'a> {
    /// [`Self::test`] of a comparison (kept out of line so that `test` stays small).
    #[inline(never)]
    pub(super) fn test_comparison(
        &mut self,
        f: FilterId,
        first: FilterId,
        rest: &[(CmpOp, FilterId)],
        at: Loc,
    ) -> Result<bool, Error> {
        match *rest {
            [link] if self.is_set_comparison(f, first, link, at) => self.test_set_comparison(f, first, link, at),
            [link] if self.is_number_comparison(f, first, link) => self.test_number_comparison(first, link, at),
            [link] if self.is_name_comparison(f, first, link) => self.test_name_comparison(first, link, at),
            _ => Ok(self.eval(f, at, false)?.is_some()),
        }
    }

    /// Is `first op second` (filter `f`, effect-free) a comparison of two names that
    /// [`Self::test_name_comparison`] answers: each a string written out, `piecename x` or
    /// `typename x`, or one of those two at another position (`s:piecename x`)?
    #[inline]
    fn is_name_comparison(&self, f: FilterId, first: FilterId, (_, second): (CmpOp, FilterId)) -> bool {
        let ir: &'a Ir = self.ir;
        let name_call = |g: FilterId| matches!(ir.get(g), Filter::Numbers(NumberFilter::Call(Builtin::PieceName | Builtin::TypeName, args)) if args.len() == 1);
        let name = |g: FilterId| match ir.get(g) {
            Filter::Numbers(NumberFilter::Str(_)) => true,
            Filter::GameTree(GameTreeFilter::AtPosition { body, .. }) => name_call(*body),
            _ => name_call(g),
        };
        self.q.shape(f) == Shape::Pure && name(first) && name(second)
    }

    /// [`Self::test`] of a comparison that [`Self::is_name_comparison`] accepts: the same
    /// answer and the same steps as evaluating it, comparing the names where they are
    /// (a piece's name is a constant) instead of making strings.
    fn test_name_comparison(
        &mut self,
        first: FilterId,
        (op, second): (CmpOp, FilterId),
        at: Loc,
    ) -> Result<bool, Error> {
        self.count_step()?;
        self.depth += 1;
        let result = self.compare_names(first, op, second, at);
        self.depth -= 1;
        Ok(result?.is_some())
    }

    /// The first name of a comparison of names when the comparison holds.
    fn compare_names(
        &mut self,
        first: FilterId,
        op: CmpOp,
        second: FilterId,
        at: Loc,
    ) -> Result<Option<&'a str>, Error> {
        // A `!=` with a side that does not match holds, with no name of its own.
        let failed = |ctx: &Self| ctx.failed_operand(op, first, second).map(|_| "");
        let Some(a) = self.name_value(first, at)? else { return Ok(failed(self)) };
        let Some(b) = self.name_value(second, at)? else { return Ok(failed(self)) };
        Ok(op.holds(a, b).then_some(a))
    }

    /// The value of a one-link comparison one of whose sides does not match: CQL 6.2 reads
    /// `a != b` of numbers, strings or sets as `not a == b` (node-parse.cpp), which holds
    /// then, without a value; every other comparison, and `!=` of positions, fails. A side
    /// whose kind the tree does not tell keeps the comparison failing.
    pub(super) fn failed_operand(&self, op: CmpOp, first: FilterId, second: FilterId) -> Option<Value> {
        use crate::ir::props::Kind;
        let not_a_position = |g: FilterId| {
            matches!(self.q.kinds().value_kind(self.ir, g), Kind::Number | Kind::String | Kind::Set | Kind::Piece)
        };
        (op == CmpOp::Ne && not_a_position(first) && not_a_position(second)).then_some(Value::None)
    }

    /// The text of a name as [`Self::is_name_comparison`] accepts it, counting the steps of
    /// evaluating it; `None` where it does not match (no single square, no position).
    fn name_value(&mut self, g: FilterId, at: Loc) -> Result<Option<&'a str>, Error> {
        let ir: &'a Ir = self.ir;
        self.count_step()?;
        self.depth += 1;
        let result = match ir.get(g) {
            Filter::Numbers(NumberFilter::Str(text)) => Ok(Some(text.as_str())),
            Filter::GameTree(GameTreeFilter::AtPosition { at: position, body }) => {
                match self.position_value(*position, at) {
                    Ok(Some(n)) => self.name_value(*body, Loc::Node(n)),
                    other => other.map(|_| None),
                }
            }
            Filter::Numbers(NumberFilter::Call(builtin, args)) => self.set_value(args[0], at).map(|set| {
                let square = set?.single_square()?;
                let piece = self.pos(at)?.board().piece_at(square);
                Some(match piece {
                    None => builtins::EMPTY_SQUARE,
                    Some(p) if *builtin == Builtin::TypeName => builtins::type_letter(p.role),
                    Some(p) => builtins::piece_letter(p),
                })
            }),
            _ => Err(internal("not a name")),
        };
        self.depth -= 1;
        result
    }

    /// Is `first op second` (filter `f`, effect-free) a comparison of numbers that
    /// [`Self::test_number_comparison`] answers? It is when one operand is a number for
    /// sure: always a number ([`Query::is_always_number`]), or a variable holding a number
    /// or a position now. Then the comparison compares numbers whatever the other operand
    /// is (a set by its count, a piece by being on the board, a string not at all): only
    /// two sets or pieces compare as sets, and two strings as strings.
    #[inline]
    fn is_number_comparison(&self, f: FilterId, first: FilterId, (_, second): (CmpOp, FilterId)) -> bool {
        self.q.shape(f) == Shape::Pure && (self.is_surely_number(first) || self.is_surely_number(second))
    }

    /// Is filter `g`'s value a number whenever it matches, or is `g` a variable holding a
    /// number or a position (compared by its id) now?
    #[inline]
    fn is_surely_number(&self, g: FilterId) -> bool {
        match self.q.shape(g) {
            Shape::Var(v) => matches!(self.get_var(v), Some(Value::Number(_) | Value::Position(_))),
            _ => self.q.is_always_number(g),
        }
    }

    /// [`Self::test`] of a comparison that [`Self::is_number_comparison`] accepts: the same
    /// answer and the same steps as evaluating it (the comparison, then each operand one
    /// level deeper; the second not at all when the first fails), without making values
    /// where the operands are numbers. A first operand that is a piece no longer on the
    /// board fails the comparison, as it fails any filter.
    fn test_number_comparison(
        &mut self,
        first: FilterId,
        (op, second): (CmpOp, FilterId),
        at: Loc,
    ) -> Result<bool, Error> {
        self.count_step()?;
        self.depth += 1;
        let result = self.compare_numbers(first, op, second, at);
        self.depth -= 1;
        Ok(result?.is_some())
    }

    /// The value of a comparison of numbers ([`Self::is_number_comparison`]): its first
    /// operand's value when it holds (a variable's as it is: a position stays a position).
    fn compare_numbers(&mut self, first: FilterId, op: CmpOp, second: FilterId, at: Loc) -> Eval {
        let (a, value) = if self.is_surely_number(first) {
            let held = match self.q.shape(first) {
                Shape::Var(v) => self.get_var(v).cloned(),
                _ => None,
            };
            let Some(a) = self.number_value(first, at)? else { return Ok(self.failed_operand(op, first, second)) };
            (Some(a), held.unwrap_or(Value::Number(a)))
        } else {
            let Some(v) = self.value(first, at)? else { return Ok(self.failed_operand(op, first, second)) };
            let a = self.as_number(&v, at);
            // A set or piece compared with a number is its count (CQL 6.2
            // `CountSquaresNode`): a piece no longer on the board counts 0.
            (a, if v.is_set_like() { a.map_or(v, Value::Number) } else { v })
        };
        let Some(b) = self.number_value(second, at)? else { return Ok(self.failed_operand(op, first, second)) };
        Ok(match a {
            Some(a) if op.holds(a, b) => Some(value),
            _ => None,
        })
    }

    /// The value of a filter of shape [`Shape::DirectNumber`], computed from the numbers
    /// and sets of its parts exactly as [`Self::eval_inner`] computes it (the caller counts
    /// the step and the nesting).
    pub(super) fn direct_number(&mut self, f: FilterId, at: Loc) -> Result<Option<i64>, Error> {
        let ir: &'a Ir = self.ir;
        Ok(match ir.get(f) {
            // Both parts are evaluated before either is looked at, as in the general case.
            Filter::Numbers(NumberFilter::Arith(op, a, b)) => {
                let x = self.number_value(*a, at)?;
                let y = self.number_value(*b, at)?;
                match (x, y) {
                    (Some(m), Some(n)) => arith(*op, m, n),
                    _ => None,
                }
            }
            Filter::Numbers(NumberFilter::Neg(a)) => self.number_value(*a, at)?.and_then(i64::checked_neg),
            // The count of a set (only sets come here: a string counts its characters).
            Filter::Sets(SetFilter::Count(set)) => Some(self.set_value(*set, at)?.map_or(0, |b| b.count() as i64)),
            Filter::Numbers(NumberFilter::Call(builtin @ (Builtin::File | Builtin::Rank), args)) => {
                let square = self.set_value(args[0], at)?.and_then(|b| b.single_square());
                square.map(|sq| {
                    let n = if *builtin == Builtin::File { sq.file().to_u32() } else { sq.rank().to_u32() };
                    n as i64 + 1
                })
            }
            Filter::Numbers(NumberFilter::Call(Builtin::Abs, args)) => {
                self.number_value(args[0], at)?.and_then(i64::checked_abs)
            }
            Filter::PositionState(PositionStateFilter::Ply) => self.ply(at).map(i64::from),
            Filter::PositionState(PositionStateFilter::SideToMove) => {
                self.pos(at).map(|p| if p.turn().is_white() { 1 } else { -1 })
            }
            Filter::GameTree(GameTreeFilter::PositionId) => match at {
                Loc::Node(n) => Some(self.position_id(n)),
                _ => None,
            },
            _ => return Err(internal("not a direct number")),
        })
    }

    /// Is `first op second` (filter `f`) an `==` or `!=` between two squares-or-piece
    /// leaves that [`Self::test_set_comparison`] answers: each a square set, a piece
    /// designator or a variable now holding a set or a piece (not both pieces, which
    /// compare by identity), in a position?
    #[inline]
    fn is_set_comparison(&self, f: FilterId, first: FilterId, (op, second): (CmpOp, FilterId), at: Loc) -> bool {
        matches!(op, CmpOp::Eq | CmpOp::Ne)
            && at != Loc::Header
            && self.q.shape(f) == Shape::Pure
            && match self.set_leaf(first) {
                Some(piece) => matches!(self.set_leaf(second), Some(other) if !(piece && other)),
                None => false,
            }
    }

    /// How an operand of [`Self::is_set_comparison`] compares: `Some(true)` for a variable
    /// holding a piece, `Some(false)` for a set of squares (a square set, a piece
    /// designator, a variable holding a set, or one of those at another position, where a
    /// piece is the square it stands on), `None` for anything else.
    #[inline(always)]
    fn set_leaf(&self, g: FilterId) -> Option<bool> {
        match self.q.shape(g) {
            Shape::Squares(_) | Shape::Pieces(..) => Some(false),
            Shape::Var(v) => match self.get_var(v) {
                Some(Value::Set(_)) => Some(false),
                Some(Value::Piece(_)) => Some(true),
                _ => None,
            },
            // `p:$x` is the square the piece stands on there, a set.
            Shape::Pure => match self.elsewhere_leaf(g).map(|(_, body)| self.q.shape(body)) {
                Some(Shape::Squares(_) | Shape::Pieces(..)) => Some(false),
                Some(Shape::Var(v)) => {
                    matches!(self.get_var(v), Some(Value::Set(_) | Value::Piece(_))).then_some(false)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// [`Self::test`] of a comparison that [`Self::is_set_comparison`] accepts: the same
    /// answer and the same steps counted as evaluating it (the comparison, then each
    /// operand one level deeper), without making values. It matches when the sets compare
    /// as asked and the first operand itself matches: a piece that is on the board, or a
    /// set that is not empty unless the comparison matches on an empty set.
    fn test_set_comparison(
        &mut self,
        f: FilterId,
        first: FilterId,
        (op, second): (CmpOp, FilterId),
        at: Loc,
    ) -> Result<bool, Error> {
        self.count_step()?;
        self.depth += 1;
        let sets = self.set_value(first, at).and_then(|a| Ok((a, self.set_value(second, at)?)));
        self.depth -= 1;
        let (Some(a), Some(b)) = sets? else { return Ok(false) };
        if (a == b) != (op == CmpOp::Eq) {
            return Ok(false);
        }
        let first_is_piece =
            matches!(self.q.shape(first), Shape::Var(v) if matches!(self.get_var(v), Some(Value::Piece(_))));
        Ok(!a.is_empty() || !first_is_piece && !self.q.kinds().fails_on_empty_set(self.ir, f))
    }

    /// A number or string: a constant, a comparison chain, arithmetic, a built-in function, a regular expression.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_numbers(&mut self, f: FilterId, filter: &'a NumberFilter, at: Loc, vm: bool) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            NumberFilter::Number(n) => Some(Value::Number(*n)),
            NumberFilter::Str(s) => Some(Value::Str(s.clone())),
            NumberFilter::Compare { first, rest }
                if rest.len() == 1 && self.is_number_comparison(f, *first, rest[0]) =>
            {
                return self.compare_numbers(*first, rest[0].0, rest[0].1, at);
            }
            NumberFilter::Compare { first, rest } if rest.len() == 1 && self.is_name_comparison(f, *first, rest[0]) => {
                self.compare_names(*first, rest[0].0, rest[0].1, at)?.map(|name| Value::Str(name.to_string()))
            }
            NumberFilter::Compare { first, rest } if rest.len() == 1 => {
                let (op, second) = rest[0];
                let Some(first_value) = self.value(*first, at)? else {
                    return Ok(self.failed_operand(op, *first, second));
                };
                let Some(right) = self.value(second, at)? else { return Ok(self.failed_operand(op, *first, second)) };
                if self.compare(&first_value, op, &right, at) != Some(true) {
                    return Ok(None);
                }
                // A set or piece compared with a number is its count (CQL 6.2
                // `CountSquaresNode`): a piece no longer on the board counts 0.
                match (first_value.is_set_like(), right.is_set_like()) {
                    (true, false) => self.as_number(&first_value, at).map(Value::Number),
                    _ => Some(first_value),
                }
            }
            NumberFilter::Compare { first, rest } => {
                let Some(first_value) = self.value(*first, at)? else { return Ok(None) };
                // The left side of each comparison is the operand before it.
                // Every comparison but the last of a chain has a number on its right (CQL
                // 6.2 reads `a == b == c` as `a == (b == c)`, valued b): there a set
                // counts its squares.
                let mut previous: Option<Value> = None;
                for (k, (op, operand)) in rest.iter().enumerate() {
                    let Some(right) = self.value(*operand, at)? else { return Ok(None) };
                    let left = previous.as_ref().unwrap_or(&first_value);
                    let holds = if k + 1 < rest.len() && (left.is_set_like() || right.is_set_like()) {
                        match (self.as_number(left, at), self.as_number(&right, at)) {
                            (Some(a), Some(b)) => Some(op.holds(a, b)),
                            _ => None,
                        }
                    } else {
                        self.compare(left, *op, &right, at)
                    };
                    if holds != Some(true) {
                        return Ok(None);
                    }
                    previous = Some(right);
                }
                Some(first_value)
            }
            NumberFilter::Arith(op, a, b) => {
                let (Some(x), Some(y)) = (self.value(*a, at)?, self.value(*b, at)?) else {
                    return Ok(None);
                };
                match (&x, &y, op) {
                    (Value::Str(s), Value::Str(t), ArithOp::Add) => {
                        self.charge(s.len() + t.len())?;
                        Some(Value::Str(format!("{s}{t}")))
                    }
                    _ => {
                        let (Some(m), Some(n)) = (self.as_number(&x, at), self.as_number(&y, at)) else {
                            return Ok(None);
                        };
                        arith(*op, m, n).map(Value::Number)
                    }
                }
            }
            NumberFilter::Neg(a) => self.number_value(*a, at)?.and_then(|n| n.checked_neg()).map(Value::Number),
            // CQL 6.2 (`CaseConvertNode::match_position`): `lowercase X` / `uppercase X`
            // used as a filter, not for its string, never matches.
            NumberFilter::Call(Builtin::Lowercase | Builtin::Uppercase, _) if !vm => None,
            NumberFilter::Call(builtin, args) => return self.call(*builtin, args, at),
            NumberFilter::RegexMatch { subject, .. } => {
                let Some(text) = self.string_value(*subject, at)? else { return Ok(None) };
                let Some(Some(re)) = self.q.regexes.get(f.0 as usize) else {
                    return Err(internal("regular expression not compiled"));
                };
                match re.captures(&text) {
                    Some(caps) => {
                        self.groups = caps.iter().map(|m| m.map(|m| (m.start(), m.as_str().to_string()))).collect();
                        caps.get(0).map(|m| Value::Str(m.as_str().to_string()))
                    }
                    // A failed search leaves no groups (CQL 6.2 `clearRegexHistory`).
                    None => {
                        self.groups.clear();
                        None
                    }
                }
            }
            NumberFilter::RegexGroup(n) => {
                self.groups.get(*n as usize).cloned().flatten().map(|(_, text)| Value::Str(text))
            }
            NumberFilter::RegexGroupStart(n) => {
                self.groups.get(*n as usize).cloned().flatten().map(|(start, _)| Value::Number(start as i64))
            }
            NumberFilter::Contains { haystack, needle, ignore_case } => {
                // A tag searched for a fixed text (`player white "Kasparov"`): read in place,
                // counting the steps of evaluating both operands.
                if let (false, Filter::Header(HeaderFilter::Field(field)), Filter::Numbers(NumberFilter::Str(n))) =
                    (*ignore_case, self.ir.get(*haystack), self.ir.get(*needle))
                {
                    if !matches!(field, HeaderField::Elo(_)) {
                        self.count_step()?;
                        self.count_step()?;
                        return Ok(found(self.header_text(field).is_some_and(|h| h.contains(n.as_str()))));
                    }
                }
                let (Some(h), Some(n)) = (self.string_value(*haystack, at)?, self.string_value(*needle, at)?) else {
                    return Ok(None);
                };
                let ok = if *ignore_case { h.to_lowercase().contains(&n.to_lowercase()) } else { h.contains(&n) };
                found(ok)
            }
        })
    }
}
