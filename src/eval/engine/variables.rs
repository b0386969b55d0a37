//! Variables, dictionaries, square and piece iteration and loops.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/iteration.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;
use crate::ir::NumberFilter;

impl<'a> Ctx<'a> {
    /// A filter on variables: reading and assigning them, dictionaries, `isbound`/`unbind`, square and piece iteration, `while`/`loop`.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_variables(&mut self, f: FilterId, filter: &'a VariableFilter, at: Loc) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            VariableFilter::Var(v) => self.get_var(*v).cloned(),
            VariableFilter::Assign { var, op, value } => return self.assign(var, op, value, at),
            VariableFilter::DictGet { dict, key } => {
                let Some(k) = self.dict_key(*key, at)? else { return Ok(None) };
                let found = self.dicts.get(dict.0 as usize).and_then(|d| d.get(&k)).cloned();
                if let Some(Value::Str(t)) = &found {
                    self.charge(t.len())?;
                }
                found
            }
            VariableFilter::DictSet { dict, key, op, value } => return self.dict_set(dict, key, op, value, at),
            VariableFilter::DictUnbind { dict, key } => {
                let kept = self.dict_is_kept(*dict);
                let removed: i64 = match key {
                    None => {
                        let gone = if kept {
                            self.dict_mut(*dict).iter().map(|(k, v)| kept_entry_bytes(k, v)).sum()
                        } else {
                            0
                        };
                        self.dict_mut(*dict).clear();
                        gone
                    }
                    Some(key) => match self.dict_key(*key, at)? {
                        Some(k) => self.dict_mut(*dict).remove(&k).map_or(0, |v| kept_entry_bytes(&k, &v)),
                        None => 0,
                    },
                };
                if kept {
                    self.out.kept_bytes -= removed;
                }
                Some(Value::None)
            }
            VariableFilter::DictCount(dict) => {
                Some(Value::Number(self.dicts.get(dict.0 as usize).map_or(0, |d| d.len()) as i64))
            }
            VariableFilter::IsBound(v) => found(self.get_var(*v).is_some()),
            VariableFilter::Unbind(v) => {
                self.set_var(*v, None);
                Some(Value::None)
            }
            VariableFilter::SquareIter { var, domain, body, forall } => {
                return self.square_or_piece_iter(f, (*var, *domain, *body), *forall, false, at)
            }
            VariableFilter::PieceIter { var, domain, body, forall } => {
                return self.square_or_piece_iter(f, (*var, *domain, *body), *forall, true, at)
            }
            VariableFilter::IdentityIter { var, mask, body } => return self.identity_iter(*var, *mask, *body, at),
            VariableFilter::While { cond: Some(c), body }
                if matches!(self.ir.get(*c), Filter::Numbers(NumberFilter::RegexMatch { .. })) =>
            {
                // `while (S ~~ R)` runs the body once per successive match of R in S.
                let Filter::Numbers(NumberFilter::RegexMatch { subject, .. }) = self.ir.get(*c) else {
                    return Ok(None);
                };
                let Some(text) = self.string_value(*subject, at)? else { return Ok(Some(Value::None)) };
                let Some(Some(re)) = self.q.regexes.get(c.0 as usize) else {
                    return Err(internal("regular expression not compiled"));
                };
                for (n, caps) in re.captures_iter(&text).enumerate() {
                    if n as u64 >= WHILE_LIMIT {
                        return Err(Error::abandoned("a while loop ran more than 1000000 times"));
                    }
                    self.groups = caps.iter().map(|m| m.map(|m| (m.start(), m.as_str().to_string()))).collect();
                    self.test(*body, at)?;
                }
                Some(Value::None)
            }
            VariableFilter::While { cond, body } => {
                let mut n: u64 = 0;
                loop {
                    n += 1;
                    if n > WHILE_LIMIT {
                        return Err(Error::abandoned("a while loop ran more than 1000000 times"));
                    }
                    if let Some(c) = cond {
                        if !self.test(*c, at)? {
                            break;
                        }
                        self.test(*body, at)?;
                    } else if !self.test(*body, at)? {
                        break;
                    }
                }
                Some(Value::None)
            }
        })
    }
}

/// What one dictionary entry is counted as in the state kept from game to game: 64 bytes,
/// and the bytes of a string key and of a string value.
fn kept_entry_bytes(key: &crate::eval::dict::DictKey, value: &Value) -> i64 {
    let key_bytes = if let crate::eval::dict::DictKey::Str(t) = key { t.len() } else { 0 };
    let value_bytes = if let Value::Str(t) = value { t.len() } else { 0 };
    (64 + key_bytes + value_bytes) as i64
}

impl Ctx<'_> {
    /// Is dictionary `dict` kept from game to game (not `local`)?
    fn dict_is_kept(&self, dict: VarId) -> bool {
        self.ir.vars.get(dict.0 as usize).is_some_and(|v| v.kind == (VarKind::Dictionary { local: false }))
    }
}

/// The larger filters of the family, each in a function of its own.
impl<'a> Ctx<'a> {
    /// `x = v`, `x += v` …: assign the value to the variable; the new value, or `Ok(None)` when
    /// the value does not match (a set filter that does not match assigns the empty set).
    fn assign(&mut self, var: &VarId, op: &Option<ArithOp>, value: &FilterId, at: Loc) -> Eval {
        Ok({
            let new = match self.value(*value, at)? {
                Some(v) => v,
                // A set filter that does not match still has a value: the empty set.
                None if self.q.is_set_assigned(*value) => Value::Set(Bitboard::EMPTY),
                None => return Ok(None),
            };
            let result = match op {
                // `$A = $p` into a non-piece variable keeps the piece's square now.
                None if matches!(new, Value::Piece(_))
                    && self.ir.vars.get(var.0 as usize).is_some_and(|i| i.kind != VarKind::Piece) =>
                {
                    match self.as_set(&new, at) {
                        Some(b) => Value::Set(b),
                        None => return Ok(None),
                    }
                }
                // `piece T = S` (`◭T=S`): the piece standing on the one square of S, followed
                // from then on by its identity.
                None if matches!(new, Value::Set(_))
                    && self.ir.vars.get(var.0 as usize).is_some_and(|i| i.kind == VarKind::Piece) =>
                {
                    let Value::Set(b) = new else { return Ok(None) };
                    let Some(sq) = b.single_square() else { return Ok(None) };
                    let id = self.ids(at).at(sq);
                    if id == 0 {
                        return Ok(None);
                    }
                    Value::Piece(id)
                }
                None => new,
                // A number updated by a number (`N += 1`, the common case in loops): no copy
                // of the old value.
                Some(op) if matches!((self.get_var(*var), &new), (Some(Value::Number(_)), Value::Number(_))) => {
                    let (Some(Value::Number(a)), Value::Number(b)) = (self.get_var(*var), &new) else {
                        return Ok(None);
                    };
                    match arith(*op, *a, *b) {
                        Some(n) => Value::Number(n),
                        None => return Ok(None),
                    }
                }
                Some(op) => {
                    let old = self.get_var(*var).cloned();
                    match (old, &new, op) {
                        (Some(Value::Str(s)), Value::Str(t), ArithOp::Add) => {
                            self.charge(s.len() + t.len())?;
                            Value::Str(format!("{s}{t}"))
                        }
                        // A string variable not yet given a value reads as the empty string
                        // (CQL 6.2 starts a `persistent` string at "").
                        (None, Value::Str(t), ArithOp::Add) => Value::Str(t.clone()),
                        (old, _, _) => {
                            let a = match old {
                                Some(v) => self.as_number(&v, at),
                                None => Some(0),
                            };
                            let (Some(a), Some(b)) = (a, self.as_number(&new, at)) else {
                                return Ok(None);
                            };
                            match arith(*op, a, b) {
                                Some(n) => Value::Number(n),
                                None => return Ok(None),
                            }
                        }
                    }
                }
            };
            self.set_var(*var, Some(result.clone()));
            Some(result)
        })
    }

    /// `D[k] = v` (or `+=` …): store the value under the key; the stored value, or `Ok(None)`
    /// when the key or the value does not match.
    fn dict_set(&mut self, dict: &VarId, key: &FilterId, op: &Option<ArithOp>, value: &FilterId, at: Loc) -> Eval {
        Ok({
            let Some(k) = self.dict_key(*key, at)? else { return Ok(None) };
            let Some(new) = self.value(*value, at)? else { return Ok(None) };
            let new = match (new, op) {
                // A piece is stored as the square it stands on now.
                (v @ Value::Piece(_), None) => match self.as_set(&v, at) {
                    Some(b) => Value::Set(b),
                    None => return Ok(None),
                },
                (Value::None, None) => return Ok(None),
                (v, None) => v,
                (v, Some(op)) => {
                    let old = self.dicts.get(dict.0 as usize).and_then(|d| d.get(&k)).cloned();
                    match (old, v) {
                        (Some(Value::Str(s)), Value::Str(t)) if *op == ArithOp::Add => Value::Str(s + &t),
                        (old, v) => {
                            let a = match old {
                                Some(o) => self.as_number(&o, at),
                                None => Some(0),
                            };
                            let (Some(a), Some(b)) = (a, self.as_number(&v, at)) else {
                                return Ok(None);
                            };
                            match arith(*op, a, b) {
                                Some(n) => Value::Number(n),
                                None => return Ok(None),
                            }
                        }
                    }
                }
            };
            // An entry costs its key and its value (a string's bytes), whether new or replaced.
            let text = |v: &Value| if let Value::Str(t) = v { t.len() } else { 0 };
            let key_bytes = match &k {
                crate::eval::dict::DictKey::Str(t) => t.len(),
                _ => 0,
            };
            self.charge(64 + key_bytes + 2 * text(&new))?;
            let kept = self.dict_is_kept(*dict);
            let added = (64 + key_bytes + text(&new)) as i64;
            let old = self.dict_mut(*dict).insert(k, new.clone());
            if kept {
                // The state kept for the next games grows by the entry (less the one
                // it replaced).
                self.out.kept_bytes += added - old.map_or(0, |o| (64 + key_bytes + text(&o)) as i64);
            }
            Some(new)
        })
    }

    /// `square [all] x in Z F` (`pieces` false: `var` is bound to each square of the domain)
    /// or `piece [all] y in Z F` (`pieces` true: bound to the piece on each occupied square),
    /// the iteration `f`. Existential: the squares for which the body matched; universal:
    /// whether it matched at each.
    fn square_or_piece_iter(
        &mut self,
        f: FilterId,
        (var, domain, body): (VarId, FilterId, FilterId),
        forall: bool,
        pieces: bool,
        at: Loc,
    ) -> Eval {
        // A domain filter that does not match (`move to …` with no such move) is the empty
        // set: `square all` over it holds vacuously, as in CQL 6.2.
        let dom = match self.set_value(domain, at)? {
            Some(dom) => dom,
            None if forall => Bitboard::EMPTY,
            None => return Ok(None),
        };
        // Squares where the body fails at once are not tried (`plan::Plan::Iteration`).
        let dom = if forall { dom } else { self.squares_to_try(f, dom, at) };
        // The piece identities, read once (only a piece iteration needs them).
        let ids = pieces.then(|| self.ids(at));
        let saved = self.set_var(var, None);
        let mut hits = Bitboard::EMPTY;
        let mut all = true;
        for sq in dom {
            let value = match &ids {
                Some(ids) => match ids.at(sq) {
                    0 => continue,
                    id => Value::Piece(id),
                },
                None => Value::square(sq),
            };
            self.set_var(var, Some(value));
            if self.test(body, at)? {
                hits.add(sq);
            } else if forall {
                all = false;
                break;
            }
        }
        self.set_var(var, saved);
        Ok(if forall {
            all.then_some(Value::None)
        } else if hits.is_empty() {
            None
        } else {
            Some(Value::Set(hits))
        })
    }
}
