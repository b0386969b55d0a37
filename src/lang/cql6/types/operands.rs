//! What each operator, keyword and built-in function of CQL 6.2 asks of the kinds of its
//! parts: `∪` takes sets, `+` numbers or strings, `:` a position on its left, `makesquare` a
//! string or two numbers, a `line` constituent no bare number ….

use super::{hint_for, pair_ok, Checker, Kind, MAX_DEPTH};
use crate::ir::*;
use crate::ir::{
    GameTreeFilter, GeometryFilter, Keyword62Filter, NumberFilter, OutputFilter, SetFilter, VariableFilter,
};

impl Checker<'_> {
    /// Check what node `id` (`filter`) asks of its parts.
    // long: a table with one short arm per kind of filter; the arms share nothing to split along
    pub(super) fn check_node(&mut self, id: FilterId, filter: &Filter) {
        match filter {
            Filter::Sets(SetFilter::Union(items)) => {
                for (n, &i) in items.iter().enumerate() {
                    if !self.notes.absorbs(i, n, items.len()) {
                        self.want(i, Kind::Set, "each side of `|` (`∪`)");
                    }
                }
            }
            Filter::Sets(SetFilter::Intersection(items)) => {
                let kinds: Vec<Kind> = items.iter().map(|&i| self.kind(i)).collect();
                let pos = kinds.contains(&Kind::Position);
                for (n, &i) in items.iter().enumerate() {
                    if self.notes.absorbs(i, n, items.len()) {
                        continue;
                    }
                    if pos {
                        self.want(i, Kind::Position, "each side of `&` (`∩`) between positions");
                    } else {
                        self.want_any(i, &[Kind::Set, Kind::Position], "each side of `&` (`∩`)");
                    }
                }
            }
            Filter::Sets(SetFilter::Complement(x)) => self.want(*x, Kind::Set, "the operand of `~`"),
            Filter::Sets(SetFilter::In(a, b)) => {
                if self.kind(*a) == Kind::String {
                    self.want(*b, Kind::String, "the right side of `in` after a string");
                } else {
                    self.want_any(*a, &[Kind::Set, Kind::String], "the left side of `in`");
                    self.want(*b, Kind::Set, "the right side of `in` after a set");
                }
            }
            Filter::Sets(SetFilter::Count(x)) => self.want_any(*x, &[Kind::Set, Kind::String], "the operand of `#`"),
            Filter::Geometry(GeometryFilter::Direction { arg, .. }) => {
                self.want(*arg, Kind::Set, "the argument of a direction")
            }
            Filter::Geometry(GeometryFilter::Attacks { attackers, targets, value_is_targets }) => {
                let (l, r) = if *value_is_targets { (*targets, *attackers) } else { (*attackers, *targets) };
                if !self.notes.absorbs(l, 0, 2) {
                    self.want(l, Kind::Set, "each side of an attack");
                }
                if !self.notes.absorbs(r, 1, 2) {
                    self.want(r, Kind::Set, "each side of an attack");
                }
            }
            Filter::Geometry(GeometryFilter::AttackChain { sets, .. }) => {
                for (n, &s) in sets.iter().enumerate() {
                    if !self.notes.absorbs(s, n, sets.len()) && !self.notes.absorbs(s, sets.len() - 1 - n, sets.len()) {
                        self.want(s, Kind::Set, "each side of an attack arrow");
                    }
                }
            }
            Filter::Geometry(GeometryFilter::Between(a, b)) => {
                self.want(*a, Kind::Set, "each argument of `between`");
                self.want(*b, Kind::Set, "each argument of `between`");
            }
            Filter::Geometry(GeometryFilter::Ray { sets, .. }) => {
                for &s in sets {
                    self.want(s, Kind::Set, "each argument of `ray`");
                }
            }
            Filter::Geometry(GeometryFilter::PinOf { from, through, to, .. }) => {
                for s in [from, through, to].into_iter().flatten() {
                    self.want(*s, Kind::Set, "each part of `pin`");
                }
            }
            Filter::Numbers(NumberFilter::Compare { first, rest }) => {
                // In a chain (`a == b == c`, CQL 6.2 `a == (b == c)`) every comparison but
                // the last has a number on its right, so a set there counts its squares.
                let mut left = *first;
                for (k, &(op, right)) in rest.iter().enumerate() {
                    let last = k + 1 == rest.len();
                    if last && rest.len() > 1 && self.kind(left) == Kind::Set && self.kind(right) == Kind::Set {
                        self.error(
                            right,
                            "CQL 6.2 reads a chain from the right: these two sets compare as sets, which leaves no number for the comparison before".to_string(),
                            "compare their sizes instead, e.g. `#♕ == #♛ == 2`, or write the comparisons apart",
                        );
                        return;
                    }
                    self.compare(left, op, right, !last);
                    left = right;
                }
            }
            // `≺ ≻ ≼ ≽` take the operands of `<`; they only mean something for positions.
            Filter::GameTree(GameTreeFilter::TreeRelation(_, a, b)) => self.compare(*a, CmpOp::Lt, *b, false),
            Filter::Numbers(NumberFilter::Arith(op, a, b)) => self.arith(*op, *a, *b),
            Filter::Numbers(NumberFilter::Neg(x)) => self.want(*x, Kind::Number, "the operand of unary `-`"),
            Filter::Numbers(NumberFilter::Call(builtin, args)) => self.call(*builtin, args),
            Filter::Numbers(NumberFilter::RegexMatch { subject, .. }) => {
                self.want(*subject, Kind::String, "the left side of `~~`")
            }
            Filter::GameTree(GameTreeFilter::AtPosition { at, .. }) => {
                self.want(*at, Kind::Position, "the left side of `:`")
            }
            Filter::GameTree(GameTreeFilter::Child(n)) => self.want(*n, Kind::Number, "the argument of `child`"),
            Filter::GameTree(GameTreeFilter::PositionById(n)) => {
                self.want(*n, Kind::Number, "the argument of `position`")
            }
            Filter::Keyword62(Keyword62Filter::ReadFile(name)) => {
                self.want(*name, Kind::String, "the file name of `readfile`")
            }
            Filter::Keyword62(Keyword62Filter::WriteFile(name, text)) => {
                self.want(*name, Kind::String, "the file name of `writefile`");
                self.want(*text, Kind::String, "the text of `writefile`");
            }
            Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { x: a, y: b, .. })
            | Filter::GameTree(GameTreeFilter::Lca(a, b) | GameTreeFilter::Distance(a, b)) => {
                self.want(*a, Kind::Position, "each argument");
                self.want(*b, Kind::Position, "each argument");
            }
            Filter::Move(m) => {
                if let Some(f) = m.from.filter(|&f| !self.in_loose_body() && self.absorbed(f, filter).is_none()) {
                    if self.notes.is_dash(f) && !self.bracketed(f) {
                        self.error(
                            f,
                            "a move cannot start from another move".into(),
                            "separate the two moves with a space, or put the first in braces",
                        );
                    }
                    self.want(f, Kind::Set, "the left side of a move `――`");
                }
                if matches!(m.source, MoveSource::Legal | MoveSource::Pseudolegal)
                    && (m.capture.is_some() || m.promote != 0 || m.then.is_some())
                {
                    self.error(
                        id,
                        "a legal or pseudolegal move takes no capture, promotion or target filter".into(),
                        "only `o-o`, `o-o-o`, `castle` or `enpassant` may follow `legal ――` in parentheses",
                    );
                }
                if let Some(t) = m.to {
                    self.want(t, Kind::Set, "the right side of a move `――`");
                }
                if let Some(c) = m.capture {
                    self.want(c, Kind::Set, "the captured square of a move");
                }
            }
            Filter::Variables(
                VariableFilter::SquareIter { domain, var, .. } | VariableFilter::PieceIter { domain, var, .. },
            ) => {
                self.want(*domain, Kind::Set, "the domain of an iteration (after `∊` / `in`)");
                let k = self.var_kind(*var);
                if k != Kind::Unknown && k != Kind::Set {
                    let name = self.var_name(*var).to_string();
                    self.error(
                        id,
                        format!("`{name}` holds {}, so it cannot run over squares", k.name()),
                        "use a new name for the square or piece variable",
                    );
                }
            }
            Filter::Output(OutputFilter::Sort { value, .. }) => {
                self.want_any(*value, &[Kind::Number, Kind::String, Kind::Set], "the value of `sort`")
            }
            Filter::Variables(VariableFilter::Assign { var, op, value }) => self.assign(id, *var, *op, *value),
            Filter::GameTree(GameTreeFilter::Line { params, body }) => {
                if params.primary && params.secondary {
                    self.error(id, "a `line` cannot be both `primary` and `secondary`".into(), "keep one of them");
                }
                self.line_constituents(*body, 0);
            }
            Filter::Output(OutputFilter::SetTag(a, b)) => {
                self.want(*a, Kind::String, "the tag name of `settag`");
                self.want(*b, Kind::String, "the value of `settag`");
            }
            Filter::Variables(VariableFilter::DictSet { dict, key, value, op }) => {
                let k = self.kind(*value);
                if !k.is_valued() {
                    self.error(
                        *value,
                        format!("cannot store {} in a dictionary", k.name()),
                        "a dictionary holds sets, numbers, strings or positions",
                    );
                    return;
                }
                if self.dict_key(*dict, *key) && op.is_none() {
                    self.dict_value(*dict, *value, k);
                }
            }
            Filter::Variables(VariableFilter::DictGet { dict, key }) => {
                self.dict_key(*dict, *key);
            }
            Filter::Variables(VariableFilter::DictUnbind { dict, key: Some(key) }) => {
                // CQL 6.2 (`match_dictionary_unbind`) wants the kind of key known from an
                // earlier entry: there is nothing to remove from a dictionary never filled.
                if self.dict_kinds.get(dict).and_then(|d| d.0).is_none() && self.kind(*key) != Kind::Unknown {
                    let name = self.var_name(*dict).to_string();
                    self.error(
                        *key,
                        format!("`unbind {name}[…]` comes before any entry of `{name}` is stored"),
                        "store an entry first (`D[k] = v`); the key must be of the same kind",
                    );
                } else {
                    self.dict_key(*dict, *key);
                }
            }
            _ => {}
        }
    }

    /// Constituents of a `line`: CQL 6.2 refuses a lone number, numeric variable or
    /// arithmetic there (most likely a repetition sign read as an operator).
    fn line_constituents(&mut self, id: FilterId, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match self.ir.get(id) {
            Filter::GameTree(GameTreeFilter::SeqConcat(items) | GameTreeFilter::SeqAlt(items)) => {
                for &i in items {
                    self.line_constituents(i, depth + 1);
                }
            }
            Filter::GameTree(GameTreeFilter::SeqRepeat { body, .. }) => self.line_constituents(*body, depth + 1),
            // `check - 3` in a constituent is `check` and then the number -3.
            Filter::Numbers(NumberFilter::Arith(ArithOp::Sub, a, _)) if !self.kind(*a).is(Kind::Number) => {}
            Filter::Numbers(NumberFilter::Arith(_, a, _)) if !self.op_ok(self.ir.get(id), self.kind(*a)) => {}
            Filter::Numbers(NumberFilter::Number(_) | NumberFilter::Arith(..)) => self.error(
                id,
                "a `line` constituent cannot be a number or arithmetic".into(),
                "a `+` or `*` meant as repetition must be followed by an arrow or a closing bracket; put a filter in braces",
            ),
            // `{v}` is a compound filter there, not the variable (`match_holderconstituent`).
            Filter::Variables(VariableFilter::Var(v)) if self.var_kind(*v) == Kind::Number && !self.braced(id) => self.error(
                id,
                "a `line` constituent cannot be a numeric variable".into(),
                "put the filter in braces, e.g. `{x > 2}`",
            ),
            _ => {}
        }
    }

    /// Is the node written inside its own braces `{…}` (the text before it ends with `{`)?
    fn braced(&self, id: FilterId) -> bool {
        let start = self.place(id).start as usize;
        self.src.get(..start).is_some_and(|b| b.trim_end().ends_with('{'))
    }

    /// Is the node written inside parentheses or braces of its own?
    fn bracketed(&self, id: FilterId) -> bool {
        let start = self.place(id).start as usize;
        self.src.get(..start).is_some_and(|b| {
            let b = b.trim_end();
            b.ends_with('{') || b.ends_with('(')
        })
    }

    /// Check one comparison of a chain; with `counts`, a set on either side is read as
    /// its number of squares (a comparison before the last one of a chain).
    fn compare(&mut self, left: FilterId, op: CmpOp, right: FilterId, counts: bool) {
        let as_count = |k: Kind| if counts && k == Kind::Set { Kind::Number } else { k };
        let (a, b) = (as_count(self.kind(left)), as_count(self.kind(right)));
        if a == Kind::Unknown || b == Kind::Unknown {
            return;
        }
        let spelled = match op {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
        };
        if !a.is_valued() {
            self.error(
                left,
                format!(
                    "the left side of `{spelled}` must be a number, a string, a set or a position, but this is {}",
                    a.name()
                ),
                "a comparison needs a value on each side, e.g. `#♙ > 3` or `player white == \"Tal\"`",
            );
            return;
        }
        if !pair_ok(op, a, b) {
            let msg = if a == Kind::Set && b == Kind::Set {
                format!("two sets can only be compared with `==` or `!=`, not `{spelled}`")
            } else {
                format!("`{spelled}` cannot compare {} with {}", a.name(), b.name())
            };
            self.error(right, msg, "compare numbers with numbers (a set counts its squares), strings with strings, positions with positions");
        }
    }

    fn arith(&mut self, op: ArithOp, a: FilterId, b: FilterId) {
        let (ka, kb) = (self.kind(a), self.kind(b));
        let spelled = match op {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Rem => "%",
        };
        if matches!(op, ArithOp::Add | ArithOp::Mul)
            && matches!(self.ir.get(a), Filter::GameTree(GameTreeFilter::Line { .. }))
            && !self.braced(a)
        {
            self.error(
                a,
                format!("a `line` cannot be the left side of `{spelled}`"),
                "CQL 6.2 takes this for a misplaced repetition sign; put the whole line in braces to compute with it",
            );
            return;
        }
        match op {
            ArithOp::Add => {
                if ka == Kind::Unknown || kb == Kind::Unknown {
                    return;
                }
                if ka != Kind::Number && ka != Kind::String {
                    self.error(
                        a,
                        format!("the left side of `+` must be a number or a string, but this is {}", ka.name()),
                        hint_for(Kind::Number),
                    );
                } else if kb != ka {
                    self.error(
                        b,
                        format!(
                            "the right side of `+` must be {} like its left side, but this is {}",
                            ka.name(),
                            kb.name()
                        ),
                        hint_for(ka),
                    );
                }
            }
            // `X -2` with X not a number reads as X followed by the number -2 in CQL 6.2.
            ArithOp::Sub => self.want(b, Kind::Number, "the right side of `-`"),
            _ => {
                self.want(a, Kind::Number, &format!("the left side of `{spelled}`"));
                self.want(b, Kind::Number, &format!("the right side of `{spelled}`"));
            }
        }
    }

    fn call(&mut self, builtin: Builtin, args: &[FilterId]) {
        let each = |c: &mut Self, k: Kind, what: &str| {
            for &a in args {
                c.want(a, k, what);
            }
        };
        match builtin {
            Builtin::Abs => each(self, Kind::Number, "the argument of `abs`"),
            Builtin::Sqrt => each(self, Kind::Number, "the argument of `sqrt`"),
            Builtin::Int => each(self, Kind::String, "the argument of `int`"),
            Builtin::Lowercase | Builtin::Uppercase => {
                each(self, Kind::String, "the argument of `lowercase`/`uppercase`")
            }
            Builtin::IndexOf => each(self, Kind::String, "each argument of `indexof`"),
            Builtin::Length => each(self, Kind::String, "the operand of `#`"),
            Builtin::File | Builtin::Rank => each(self, Kind::Set, "the argument of `file`/`rank`"),
            Builtin::Type | Builtin::TypeName | Builtin::PieceName | Builtin::ColorType | Builtin::PieceId => {
                each(self, Kind::Set, "the argument")
            }
            Builtin::Power | Builtin::Light | Builtin::Dark => each(self, Kind::Set, "the argument"),
            Builtin::Min | Builtin::Max => {
                if args.len() < 2 {
                    if let Some(&a) = args.first() {
                        self.error(a, "`min` and `max` need at least two arguments".into(), "write e.g. `max(#♙ #♟)`");
                    }
                    return;
                }
                let kinds: Vec<Kind> = args.iter().map(|&a| self.kind(a)).collect();
                let strings = kinds.contains(&Kind::String);
                for &a in args {
                    if strings {
                        self.want(a, Kind::String, "each argument of `min`/`max` among strings");
                    } else {
                        self.want(a, Kind::Number, "each argument of `min`/`max`");
                    }
                }
            }
            Builtin::MakeSquare => {
                let kinds: Vec<Kind> = args.iter().map(|&a| self.kind(a)).collect();
                let ok =
                    kinds.contains(&Kind::Unknown) || kinds == [Kind::String] || kinds == [Kind::Number, Kind::Number];
                if !ok {
                    if let Some(&a) = args.first() {
                        self.error(
                            a,
                            "`makesquare` takes a string or two numbers (file and rank)".into(),
                            "write e.g. `makesquare(5 4)` or `makesquare \"e4\"`",
                        );
                    }
                }
            }
            Builtin::Substring => {
                if let Some(&s) = args.first() {
                    self.want(s, Kind::String, "the text indexed by `[…]`");
                }
                for &a in args.iter().skip(1) {
                    self.want(a, Kind::Number, "an index inside `[…]`");
                }
            }
            _ => {}
        }
    }
}
