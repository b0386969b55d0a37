//! Assignments and dictionaries: a variable keeps the kind of its first assignment in
//! source order, a dictionary the kinds of its first key and first value (CQL 6.2).

use super::{Checker, Kind};
use crate::ir::*;

impl Checker<'_> {
    /// Is `dict` declared `local dictionary` (emptied for every game)?
    fn is_local_dictionary(&self, dict: VarId) -> bool {
        matches!(self.ir.vars.get(dict.0 as usize).map(|i| i.kind), Some(VarKind::Dictionary { local: true }))
    }

    /// A dictionary takes keys of one kind, the kind of its first key in source order (CQL
    /// 6.2); a filter without a value is no key, except a move (`D[×]`, which cqlrs keys by
    /// its destination squares: docs/dictionaries.md). False when the key is refused.
    pub(super) fn dict_key(&mut self, dict: VarId, key: FilterId) -> bool {
        let k = self.kind(key);
        if k == Kind::Unknown {
            return true;
        }
        let name = self.var_name(dict).to_string();
        if k == Kind::Logical && !matches!(self.ir.get(key), Filter::Move(_)) {
            self.error(
                key,
                format!("a filter without a value cannot be a key of `{name}`"),
                "a key is a string, a number, a set of squares or a position",
            );
            return false;
        }
        if k == Kind::Position && !self.is_local_dictionary(dict) {
            // CQL 6.2 (`match_dictionaryretrieveorassign`): a position stands for a place in
            // the current game only.
            self.error(
                key,
                format!("a position cannot be a key of `{name}`, which is not a local dictionary"),
                "declare it `local dictionary` to key it by positions",
            );
            return false;
        }
        match self.dict_kinds.get(&dict).and_then(|d| d.0) {
            Some(old) if old != k => {
                self.error(
                    key,
                    format!("the keys of `{name}` are {}, so this key cannot be {}", old.name(), k.name()),
                    "a dictionary keeps the kind of key it was first used with",
                );
                false
            }
            Some(_) => true,
            None => {
                self.dict_kinds.entry(dict).or_default().0 = Some(k);
                true
            }
        }
    }

    /// A dictionary holds values of one kind, the kind first stored (CQL 6.2); a dictionary
    /// kept from game to game cannot hold positions.
    pub(super) fn dict_value(&mut self, dict: VarId, value: FilterId, k: Kind) {
        if k == Kind::Unknown {
            return;
        }
        let name = self.var_name(dict).to_string();
        if k == Kind::Position && !self.is_local_dictionary(dict) {
            self.error(
                value,
                format!("`{name}` is kept from game to game, so it cannot hold a position"),
                "declare it `local dictionary` to store positions",
            );
            return;
        }
        match self.dict_kinds.get(&dict).and_then(|d| d.1) {
            Some(old) if old != k => self.error(
                value,
                format!("`{name}` holds {}, so it cannot be given {}", old.name(), k.name()),
                "a dictionary keeps the kind of value it was first given",
            ),
            Some(_) => {}
            None => self.dict_kinds.entry(dict).or_default().1 = Some(k),
        }
    }

    /// Check an assignment `var = value` (or `var op= value`): a variable keeps the kind of
    /// its first assignment, a square variable holds sets, a persistent one no position.
    pub(super) fn assign(&mut self, id: FilterId, var: VarId, op: Option<ArithOp>, value: FilterId) {
        let info = self.ir.vars.get(var.0 as usize).cloned();
        let Some(info) = info else { return };
        if info.kind == VarKind::Square {
            // A square loop's variable holds a set (CQL 6.2: "Type mismatch on assignment").
            let k = self.kind(value);
            if matches!(k, Kind::Number | Kind::String | Kind::Position | Kind::Logical) {
                let name = self.var_name(var).to_string();
                self.error(
                    value,
                    format!("`{name}` runs over squares, so it cannot be given {}", k.name()),
                    "use another variable for the value",
                );
            }
            return;
        }
        if info.kind != VarKind::Value {
            return;
        }
        let k = self.kind(value);
        let name = self.var_name(var).to_string();
        if !k.is_valued() {
            self.error(
                value,
                format!("cannot assign {} to `{name}`", k.name()),
                "a variable holds a set, a number, a string or a position",
            );
            return;
        }
        let known = self.vars.get(&var).copied();
        match op {
            None => {
                if let Some(old) = known {
                    if old != Kind::Unknown && k != Kind::Unknown && old != k {
                        self.error(
                            value,
                            format!("`{name}` holds {}, so it cannot be given {}", old.name(), k.name()),
                            "a variable keeps the kind of its first assignment; use another name",
                        );
                        return;
                    }
                }
                if info.persistent && k == Kind::Position {
                    self.error(
                        value,
                        format!("the persistent variable `{name}` cannot hold a position"),
                        "a persistent variable holds a number, a string or a set",
                    );
                    return;
                }
                if known.is_none() || known == Some(Kind::Unknown) {
                    self.vars.insert(var, k);
                }
            }
            Some(op) => {
                let known = if info.persistent && known.is_none() { Some(k) } else { known };
                let Some(old) = known else {
                    if !info.persistent {
                        self.error(
                            id,
                            format!("`{name}` has no value yet, so it cannot be updated"),
                            "give the variable a value with `=` first",
                        );
                    }
                    return;
                };
                if old == Kind::Unknown || k == Kind::Unknown {
                    return;
                }
                let ok = match op {
                    ArithOp::Add => {
                        (old == Kind::Number && k == Kind::Number) || (old == Kind::String && k == Kind::String)
                    }
                    _ => old == Kind::Number && k == Kind::Number,
                };
                if !ok {
                    self.error(
                        value,
                        format!("cannot update `{name}` ({}) with {}", old.name(), k.name()),
                        "`+=` adds numbers or appends strings; `-=`, `*=`, `/=`, `%=` take numbers",
                    );
                }
            }
        }
    }
}
