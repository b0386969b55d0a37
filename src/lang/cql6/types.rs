//! The CQL 6.2 type check: every filter has a kind, and every operator, argument and
//! assignment accepts only some kinds.
//!
//! Takes in: the [`Ir`] the CQL 6 parser built, plus the [`KindNotes`] it left where the IR
//! alone cannot tell what CQL 6.2 thinks a filter is (a bare `――` move is not a set of
//! squares, a filter joined with the word `and` has no value, …). Gives out: a diagnostic
//! for every text CQL 6.2 would refuse on the grounds of kinds: `move == 3`, `true != 1`,
//! `"a" >= A`, `x = ――e5`, `2 + e2――`, `k ∪ currentposition` and the like.
//! Must never: refuse what CQL 6.2 accepts. Whatever the check cannot be sure about is of
//! kind [`Kind::Unknown`], which every place accepts.
//!
//! The facts (which filter has which kind, which operator takes which kinds) follow the
//! behaviour of CQL 6.2 (build 9.493): a set filter stands for squares (`♖`, `a-h8`,
//! `X→Y`, `move to`), a numeric filter for a number (`#X`, `ply`, `find all F`), a position
//! filter for a node of the game tree (`parent`, `find F`), a string filter for text
//! (`player white`). Every other filter only matches or fails.

use std::collections::{HashMap, HashSet};

use super::lexer::{Sym, Tok, Token};
use crate::ir::*;
use crate::diag::Diagnostic;

/// What a CQL 6.2 filter yields when it matches, as far as the type check is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Only matches or not: `check`, `a and b`, `x = 3`, a bare move `――`.
    Logical,
    /// A set of squares: `♖`, `a-h8`, `♖→♛`, `move from`.
    Set,
    /// An integer: `#♙`, `ply`, `3`.
    Number,
    /// A position of the game tree: `parent`, `find check`, `currentposition`.
    Position,
    /// Text: `"abc"`, `player white`.
    String,
    /// Not known to the check (a variable of unknown type, a lowering it does not model):
    /// accepted everywhere.
    Unknown,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Logical => "a filter without a value",
            Kind::Set => "a set of squares",
            Kind::Number => "a number",
            Kind::Position => "a position",
            Kind::String => "a string",
            Kind::Unknown => "a filter",
        }
    }
    fn is(self, k: Kind) -> bool {
        self == k || self == Kind::Unknown
    }
    fn is_valued(self) -> bool {
        self != Kind::Logical
    }
}

/// Kinds the parser knows better than the IR: a node the parser made for a construct whose
/// CQL 6.2 kind differs from what its IR form suggests (a bare move `X――Y` is lowered to the
/// same move filter as `move to Y` but is no set; `a and b` is lowered like `{a b}` but has
/// no value). Hash-consing may give two constructs one node: when they disagree the node
/// becomes [`Kind::Unknown`].
#[derive(Clone, Debug, Default)]
pub struct KindNotes {
    notes: HashMap<FilterId, Kind>,
    /// Moves written with a dash or cross: (has a set tied on its left, has one on its right).
    dashes: HashMap<FilterId, (bool, bool)>,
}

impl KindNotes {
    /// Record that the node `id` is a move written with a dash or cross (`X――Y`, `×`),
    /// which can never be the left side of another dash.
    /// `left`/`right`: a set is tied to the dash on that side (`e2――`, `――e4`).
    pub fn note_dash(&mut self, id: FilterId, left: bool, right: bool) {
        self.dashes.insert(id, (left, right));
    }
    fn is_dash(&self, id: FilterId) -> bool {
        self.dashes.contains_key(&id)
    }
    /// CQL 6.2 reads the set operators next to a move differently from cqlrs: in
    /// `k ∪ e2――e4` or `e2――e4 ∩ k` the move takes all of `k ∪ e2` (`e4 ∩ k`) as its
    /// side. Such an operand is not checked: is the dash `id` in position `index` of `len`
    /// operands taken in by the operator next to it?
    fn absorbs(&self, id: FilterId, index: usize, len: usize) -> bool {
        match self.dashes.get(&id) {
            Some(&(left, right)) => (index == 0 || left) && (index + 1 == len || right),
            None => false,
        }
    }
    /// Record that the node `id` has kind `kind` in CQL 6.2.
    pub fn note(&mut self, id: FilterId, kind: Kind) {
        let e = self.notes.entry(id).or_insert(kind);
        if *e != kind {
            *e = Kind::Unknown;
        }
    }
    fn get(&self, id: FilterId) -> Option<Kind> {
        self.notes.get(&id).copied()
    }
}

/// Does the text of a `{…}` block spell a CQL 6.2 repetition `{n}`, `{n,m}`, `{n,}` or
/// `{,m}` (digits only, no spaces)? CQL 6.2 reads such a block only as the repetition of a
/// `line` constituent, never as a compound filter.
pub fn is_brace_repetition(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
        return false;
    };
    if inner.is_empty() {
        return false;
    }
    let (a, b) = match inner.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (inner, None),
    };
    let digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    digits(a) && b.map_or(!a.is_empty(), |b| digits(b) && !(a.is_empty() && b.is_empty()))
}

/// The diagnostic for a block `{…}` starting at `open` that spells a repetition (`{5}`),
/// which CQL 6.2 accepts only after a `line` constituent.
pub fn brace_repetition_at(src: &str, open: Span) -> Option<Diagnostic> {
    let rest = src.get(open.start as usize..)?;
    let end = rest.find('}')?;
    let text = &rest[..=end];
    if !is_brace_repetition(text) {
        return None;
    }
    Some(
        Diagnostic::new(
            format!("`{text}` is a repetition count, which can only follow a constituent of `line`"),
            Span::new(open.start as usize, open.start as usize + text.len()),
        )
        .with_hint("write e.g. `line --> check{2}`; for a block holding a number put spaces inside: `{ 5 }`"),
    )
}

/// The diagnostic for an operator right after the piece of a promotion `――=♕`. CQL 6.2
/// reads everything after `=` up to `or` as the promoted piece, so `――=q or 2` or
/// `――=q == 2` promote to something that is not a piece; a move is never a number, so
/// arithmetic on it fails too.
pub fn after_promotion(next: &Tok, next_span: Span, piece: Span) -> Option<Diagnostic> {
    let op = match next {
        Tok::Word(w) if matches!(w.as_str(), "or" | "and" | "in" | "attacks" | "attackedby") => true,
        Tok::Sym(s) => matches!(
            s,
            Sym::Lt
                | Sym::Le
                | Sym::EqEq
                | Sym::Ne
                | Sym::Ge
                | Sym::Gt
                | Sym::Plus
                | Sym::Star
                | Sym::Slash
                | Sym::Percent
                | Sym::Union
                | Sym::Inter
                | Sym::AttackLeft
                | Sym::AttackRight
                | Sym::Colon
                | Sym::RegexOp
                | Sym::Prec
                | Sym::Succ
                | Sym::PrecEq
                | Sym::SuccEq
        ),
        _ => false,
    };
    if !op {
        return None;
    }
    Some(
        Diagnostic::new("the promoted piece is followed by an operator", Span { start: piece.start, end: next_span.end })
            .with_hint("CQL 6.2 reads all of it as the promoted piece, which must be a piece letter or a string; a move has no value to compute with: put it in braces, e.g. `{――=♕} or check`"),
    )
}

/// The diagnostic for the keywords of one `move` filter that CQL 6.2 refuses together:
/// `count` without `legal`/`pseudolegal`, `primary` with `secondary`, `legal` with
/// `previous`, `legal` with `promote`/`null`/`primary`/`secondary`/`capture`.
pub fn move_keywords(words: &[String], at: Span) -> Option<Diagnostic> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let legal = has("legal") || has("pseudolegal");
    let msg = if has("count") && !legal {
        "`move count` needs `legal` or `pseudolegal`"
    } else if has("primary") && has("secondary") {
        "a `move` cannot be both `primary` and `secondary`"
    } else if legal && has("previous") {
        "a `move` cannot be both `legal` and `previous`"
    } else if legal && ["promote", "null", "primary", "secondary", "capture"].iter().any(|w| has(w)) {
        "`move legal` and `move pseudolegal` take no `promote`, `null`, `primary`, `secondary` or `capture`"
    } else {
        return None;
    };
    Some(Diagnostic::new(msg, at).with_hint("CQL 6.2 refuses this combination of `move` keywords"))
}

/// The kind of a `move` filter from its keywords: a set (of the squares named by its first
/// keyword) when that is `from`, `to` or `capture`; a number with `count`; otherwise it
/// only matches.
pub fn move_keyword_kind(words: &[String]) -> Kind {
    if words.iter().any(|w| w == "count") {
        return Kind::Number;
    }
    match words.first().map(String::as_str) {
        Some("from" | "to" | "capture") => Kind::Set,
        _ => Kind::Logical,
    }
}

/// After a `line` constituent with a `+` or `*` (the token `last`), CQL 6.2 reads the sign
/// as a repetition only when an arrow, a closing bracket, the end of the text or another
/// repetition follows; otherwise it is an arithmetic operator on a constituent that is no
/// number, and the text is refused.
pub fn line_wildcard_end(last: &Token, next: &Token, src: &str) -> Option<Diagnostic> {
    if !matches!(last.tok, Tok::Sym(Sym::Plus | Sym::Star)) {
        return None;
    }
    let ends = match &next.tok {
        Tok::Eof
        | Tok::Sym(
            Sym::RBrace | Sym::RParen | Sym::LineForward | Sym::LineBackward | Sym::Question | Sym::Plus | Sym::Star,
        ) => true,
        Tok::Sym(Sym::LBrace) => {
            let rest = src.get(next.span.start as usize..).unwrap_or("");
            let text = rest.find('}').map_or("", |e| &rest[..=e]);
            is_brace_repetition(text) || matches!(text, "{+}" | "{*}" | "{?}")
        }
        _ => false,
    };
    if ends {
        return None;
    }
    Some(
        Diagnostic::new("this `+`/`*` is neither a repetition nor arithmetic", last.span)
            .with_hint("a repetition sign must be followed by `-->`, `<--`, `)` or `}`; put the constituent in braces to compute with it"),
    )
}

/// The token right after a dash, with no space between: CQL 6.2 reads it as the start of
/// the destination set, so a number or a minus sign there (`×-2`, `――3`) is refused.
pub fn dash_right_tie(next: &Token) -> Option<Diagnostic> {
    if next.space_before || !matches!(next.tok, Tok::Number(_) | Tok::Str(_) | Tok::Sym(Sym::Minus)) {
        return None;
    }
    Some(
        Diagnostic::new("the text right after a move must be the set of its destination squares", next.span)
            .with_hint("put a space after the move"),
    )
}

/// `―― (…)`: a move followed by whitespace and then `(`. CQL 6.2 refuses it (a target in
/// parentheses must touch the move) except at the top level of a path (`inside`).
pub fn dash_spaced_paren(next: &Token, inside: bool) -> Option<Diagnostic> {
    if inside || !next.space_before || next.tok != Tok::Sym(Sym::LParen) {
        return None;
    }
    Some(
        Diagnostic::new("whitespace between a move and the `(` after it", next.span)
            .with_hint("write the target right after the move, e.g. `――(check)`, or put the move in braces"),
    )
}

/// A dash or cross (`this`) written right after a word, number or string (`prev`) with no
/// space: CQL 6.2 ties it to that text as the set the move starts from, and refuses it
/// when the text is no set (`and――`, `not――`). Not checked inside `line`/`path`
/// constituents (`inside`).
pub fn dash_left_tie(prev: Option<&Token>, this: &Token, src: &str, inside: bool) -> Option<Diagnostic> {
    let prev = prev?;
    if inside || this.space_before {
        return None;
    }
    let tied = match &prev.tok {
        Tok::Word(w) => !matches!(w.as_str(), "currentposition" | "flip" | "flipcolor" | "focus" | "path"),
        Tok::Str(_) | Tok::Number(_) => true,
        _ => false,
    };
    if !tied {
        return None;
    }
    let text = src.get(prev.span.start as usize..prev.span.end as usize).unwrap_or("");
    Some(
        Diagnostic::new(format!("the move is tied to `{text}` on its left, which is not a set of squares"), this.span)
            .with_hint("put a space before the move"),
    )
}

/// Check the kinds of a parsed CQL 6 query; one diagnostic per offending place (at most
/// `limit`).
pub fn check(ir: &Ir, notes: &KindNotes, src: &str, limit: usize) -> Vec<Diagnostic> {
    let mut c = Checker {
        ir,
        notes,
        src,
        vars: HashMap::new(),
        dict_kinds: HashMap::new(),
        seen: HashSet::new(),
        stack: Vec::new(),
        diags: Vec::new(),
        limit,
    };
    if let Some(root) = ir.root {
        c.walk(root, 0);
    }
    c.diags
}

/// Deepest nesting the check follows; the parser refuses deeper queries anyway.
const MAX_DEPTH: usize = 400;

struct Checker<'a> {
    ir: &'a Ir,
    notes: &'a KindNotes,
    src: &'a str,

    /// Kinds of value variables, from their first assignment in source order.
    vars: HashMap<VarId, Kind>,
    /// Kinds of the keys and of the values of dictionaries, from their first use.
    dict_kinds: HashMap<VarId, (Option<Kind>, Option<Kind>)>,
    seen: HashSet<FilterId>,
    /// The node being checked and its ancestors, root first.
    stack: Vec<FilterId>,
    diags: Vec<Diagnostic>,
    limit: usize,
}

impl Checker<'_> {
    fn kind(&self, id: FilterId) -> Kind {
        self.kind_at(id, 0)
    }

    fn kind_at(&self, id: FilterId, depth: usize) -> Kind {
        if depth > MAX_DEPTH {
            return Kind::Unknown;
        }
        if let Some(k) = self.notes.get(id) {
            return k;
        }
        let sub = |c: FilterId| self.kind_at(c, depth + 1);
        match self.ir.get(id) {
            Filter::True | Filter::False => Kind::Logical,
            Filter::Number(_) => Kind::Number,
            Filter::Str(_) => Kind::String,
            Filter::Squares(_)
            | Filter::Pieces { .. }
            | Filter::Union(_)
            | Filter::Complement(_)
            | Filter::Direction { .. }
            | Filter::Attacks { .. }
            | Filter::AttackChain { .. }
            | Filter::Between(..)
            | Filter::Ray { .. }
            | Filter::Pin { .. }
            | Filter::PawnStructure(_) => Kind::Set,
            // `x & y` of two positions is a set filter too in CQL 6.2.
            Filter::Intersection(_) => Kind::Set,
            Filter::In(..) | Filter::Contains { .. } => Kind::Logical,
            Filter::Count(_) | Filter::DictCount(_) | Filter::CountMatching(_) => Kind::Number,
            Filter::Compare { first, rest } => match rest.first() {
                // `a != b` is "not `a == b`": no value.
                Some((CmpOp::Ne, _)) => Kind::Logical,
                Some((op, second)) => {
                    let (a, b) = (sub(*first), sub(*second));
                    if a == Kind::Unknown || b == Kind::Unknown {
                        Kind::Unknown
                    } else if a == Kind::Set && b == Kind::Set {
                        // `A == B` of two sets: no value.
                        let _ = op;
                        Kind::Logical
                    } else if a == Kind::Set || b == Kind::Set {
                        Kind::Number
                    } else if a == b {
                        a
                    } else {
                        Kind::Logical
                    }
                }
                None => sub(*first),
            },
            Filter::Arith(ArithOp::Add, a, b) => {
                let (a, b) = (sub(*a), sub(*b));
                if a == Kind::String || b == Kind::String {
                    Kind::String
                } else if a == Kind::Unknown || b == Kind::Unknown {
                    Kind::Unknown
                } else {
                    Kind::Number
                }
            }
            Filter::Arith(..) | Filter::Neg(_) => Kind::Number,
            Filter::Call(builtin, args) => match builtin {
                Builtin::Str
                | Builtin::Lowercase
                | Builtin::Uppercase
                | Builtin::TypeName
                | Builtin::PieceName
                | Builtin::Substring => Kind::String,
                Builtin::MakeSquare | Builtin::Light | Builtin::Dark => Kind::Set,
                Builtin::Ascii => match args.first().map(|&a| sub(a)) {
                    Some(Kind::String) => Kind::Number,
                    Some(Kind::Number) => Kind::String,
                    _ => Kind::Unknown,
                },
                Builtin::Min | Builtin::Max => match args.first().map(|&a| sub(a)) {
                    Some(Kind::String) => Kind::String,
                    Some(Kind::Number | Kind::Set) => Kind::Number,
                    _ => Kind::Unknown,
                },
                _ => Kind::Number,
            },
            Filter::RegexMatch { .. } | Filter::RegexGroup(_) => Kind::String,
            Filter::RegexGroupStart(_) => Kind::Number,
            // `{a b}` has the value of its last filter (`a and b`, noted by the parser, has none).
            Filter::And(v) => v.last().map_or(Kind::Logical, |&c| sub(c)),
            // The word `or` is noted by the parser (no value); an `Or` the parser made for
            // something else (bare `player`: the white or the black player) has the kind its
            // alternatives share.
            Filter::Or(v) => {
                let mut kinds = v.iter().map(|&c| sub(c));
                match kinds.next() {
                    Some(first) if kinds.all(|k| k == first) => first,
                    _ => Kind::Unknown,
                }
            }
            Filter::Not(_) => Kind::Logical,
            Filter::If { then, otherwise, .. } => match otherwise {
                Some(o) => {
                    let (a, b) = (sub(*then), sub(*o));
                    if a == Kind::Unknown || b == Kind::Unknown {
                        Kind::Unknown
                    } else if a == b {
                        a
                    } else {
                        Kind::Logical
                    }
                }
                None => Kind::Logical,
            },
            Filter::SideToMove | Filter::Ply | Filter::MoveNumber => Kind::Number,
            Filter::Check
            | Filter::Mate
            | Filter::Stalemate
            | Filter::ToMove(_)
            | Filter::Initial
            | Filter::Terminal
            | Filter::Mainline
            | Filter::Variation
            | Filter::VirtualMainline
            | Filter::Try
            | Filter::Result(_)
            | Filter::RemoveComment => Kind::Logical,
            Filter::Move(m) => match m.value {
                MoveValue::Count => Kind::Number,
                MoveValue::Then => m.then.map_or(Kind::Unknown, sub),
                MoveValue::To | MoveValue::From => Kind::Set,
            },
            Filter::OriginalComment => Kind::String,
            Filter::Header(HeaderField::Elo(_)) => Kind::Number,
            Filter::Header(_) => Kind::String,
            Filter::Year | Filter::GameNumber => Kind::Number,
            Filter::HhdbAward { .. } => Kind::Number,
            Filter::CurrentFen => Kind::String,
            Filter::GameTextContains(_) => Kind::Logical,
            Filter::Find { all, range, .. } => {
                if *all || range.is_some() {
                    Kind::Number
                } else {
                    Kind::Position
                }
            }
            Filter::AtPosition { body, .. } => sub(*body),
            Filter::Tree(_) | Filter::Child(_) | Filter::PositionById(_) | Filter::Lca(..) => Kind::Position,
            Filter::TreeRelation(..) => Kind::Position,
            Filter::Distance(..) | Filter::Depth | Filter::PositionId => Kind::Number,
            Filter::Path { params, .. } => {
                if params.last_position {
                    Kind::Position
                } else {
                    Kind::Number
                }
            }
            Filter::Line { params, .. } => {
                if params.last_position {
                    Kind::Position
                } else {
                    Kind::Number
                }
            }
            Filter::PathStatus(PathStatus::Start | PathStatus::LastPosition) => Kind::Position,
            Filter::PathStatus(_) => Kind::Number,
            Filter::Var(v) => self.var_kind(*v),
            Filter::Assign { .. }
            | Filter::IsBound(_)
            | Filter::Unbind(_)
            | Filter::DictSet { .. }
            | Filter::DictUnbind { .. }
            | Filter::While { .. }
            | Filter::Comment(_)
            | Filter::Message { .. }
            | Filter::SetTag(..) => Kind::Logical,
            Filter::SquareIter { forall, .. } | Filter::PieceIter { forall, .. } => {
                if *forall {
                    Kind::Logical
                } else {
                    Kind::Set
                }
            }
            Filter::Sort { value, .. } => sub(*value),
            Filter::Yacpdb(_) => Kind::Number,
            Filter::Transform { range, count, body, .. } => {
                if *count || range.is_some() {
                    Kind::Number
                } else {
                    sub(*body)
                }
            }
            Filter::NoTransform(body) => sub(*body),
            Filter::CurrentTransform(_) | Filter::ReadFile(_) => Kind::String,
            Filter::LastGameNumber | Filter::ConsecutiveMoves { .. } => Kind::Number,
            Filter::SimilarPosition { game_number, .. } => {
                if *game_number {
                    Kind::Number
                } else {
                    Kind::Logical
                }
            }
            Filter::WriteFile(..) | Filter::Equal(..) | Filter::Abort(_) | Filter::PathDebug => Kind::Logical,
            _ => Kind::Unknown,
        }
    }

    fn var_kind(&self, v: VarId) -> Kind {
        match self.ir.vars.get(v.0 as usize).map(|i| i.kind) {
            Some(VarKind::Square | VarKind::Piece) => Kind::Set,
            Some(VarKind::Position) => Kind::Position,
            Some(VarKind::Value) => self.vars.get(&v).copied().unwrap_or(Kind::Unknown),
            _ => Kind::Unknown,
        }
    }

    fn var_name(&self, v: VarId) -> &str {
        self.ir.vars.get(v.0 as usize).map_or("?", |i| i.name.as_str())
    }

    /// Where node `id` is written in the filter being checked: equal filters written in
    /// several places are one node, so the place is found inside the node's ancestors.
    fn place(&self, id: FilterId) -> Span {
        let outer = self.ir.span_along(&self.stack);
        if self.stack.last() == Some(&id) {
            outer
        } else {
            self.ir.span_within(id, outer)
        }
    }

    fn error(&mut self, id: FilterId, message: String, hint: &str) {
        if self.diags.len() < self.limit {
            let span = self.place(id);
            if self.diags.iter().any(|d| d.span == span) {
                return;
            }
            self.diags.push(Diagnostic::new(message, span).with_hint(hint));
        }
    }

    /// `id` must have kind `want` (or an unknown kind).
    fn want(&mut self, id: FilterId, want: Kind, place: &str) {
        let k = self.kind(id);
        if !k.is(want) {
            let text = format!("{place} must be {}, but this is {}", want.name(), k.name());
            self.error(id, text, hint_for(want));
        }
    }

    /// `id` must have one of the kinds `want`.
    fn want_any(&mut self, id: FilterId, want: &[Kind], place: &str) {
        let k = self.kind(id);
        if k != Kind::Unknown && !want.contains(&k) {
            let names: Vec<&str> = want.iter().map(|w| w.name()).collect();
            let text = format!("{place} must be {}, but this is {}", names.join(" or "), k.name());
            self.error(id, text, hint_for(want[0]));
        }
    }

    fn walk(&mut self, id: FilterId, depth: usize) {
        if depth > MAX_DEPTH || self.diags.len() >= self.limit || !self.seen.insert(id) {
            return;
        }
        let filter = self.ir.get(id).clone();
        self.stack.push(id);
        // Children first, in source order, so that variables get their kinds from the
        // assignments that come before their uses.
        if let Filter::Assign { value, .. } = &filter {
            self.walk(*value, depth + 1);
        } else {
            for c in crate::ir::visit::children(&filter) {
                self.walk(c, depth + 1);
            }
        }
        self.check_node_escaping(id, &filter);
        self.stack.pop();
    }

    /// Check one node, unless its left operand is of a kind the operator refuses and CQL 6.2
    /// would parse the text differently: it ends the enclosing prefix filter (`find`, `not`,
    /// a transform …) at the left operand and applies the operator to that filter
    /// (`find all check + 3` is `{find all check} + 3`, `find check & parent` compares two
    /// positions).
    fn check_node_escaping(&mut self, id: FilterId, filter: &Filter) {
        if let Some(l) = self.left_operand(filter) {
            let lk = self.kind(l);
            if !self.op_ok(filter, lk) && self.escapes(filter, lk) {
                return;
            }
            // A prefix filter on the left takes the operator into its argument in CQL 6.2:
            // `#k | q` is `#(k | q)`, `find all k in k` is `find all (k in k)`.
            if !self.op_ok(filter, lk) {
                if let Some(inner) = self.absorbed(l, filter) {
                    // The operator applies to `inner`; its other operands are still checked
                    // (`piecename d4 & piecename d5` is `piecename (d4 & piecename d5)`, whose
                    // right side is a string).
                    if let Some(regrouped) = with_left_operand(filter, inner) {
                        self.check_node(id, &regrouped);
                    }
                    return;
                }
            }
        }
        self.check_node(id, filter);
    }

    /// The operand written on the left of a binary operator node.
    fn left_operand(&self, filter: &Filter) -> Option<FilterId> {
        Some(match filter {
            Filter::Arith(_, a, _) | Filter::TreeRelation(_, a, _) | Filter::In(a, _) => *a,
            Filter::Compare { first, .. } => *first,
            Filter::Union(v) | Filter::Intersection(v) => *v.first()?,
            Filter::Attacks { attackers, targets, value_is_targets } => {
                if *value_is_targets {
                    *targets
                } else {
                    *attackers
                }
            }
            Filter::AttackChain { sets, value_is_last } => {
                if *value_is_last {
                    *sets.last()?
                } else {
                    *sets.first()?
                }
            }
            Filter::AtPosition { at, .. } => *at,
            Filter::RegexMatch { subject, .. } => *subject,
            _ => return None,
        })
    }

    /// Is `l` (the left operand of the operator node `filter`) a prefix filter whose last
    /// argument, or the last argument of that, would accept the operator?
    fn absorbed(&self, l: FilterId, filter: &Filter) -> Option<FilterId> {
        let mut cur = l;
        for _ in 0..4 {
            let prefix = matches!(
                self.ir.get(cur),
                Filter::Count(_)
                    | Filter::Find { .. }
                    | Filter::Sort { .. }
                    | Filter::Not(_)
                    | Filter::Transform { .. }
                    | Filter::SquareIter { .. }
                    | Filter::PieceIter { .. }
                    | Filter::Call(..)
                    | Filter::AtPosition { .. }
                    | Filter::Assign { .. }
                    | Filter::If { .. }
            );
            if !prefix {
                return None;
            }
            let last = crate::ir::visit::children(self.ir.get(cur)).last().copied()?;
            if self.op_ok(filter, self.kind(last)) {
                return Some(last);
            }
            cur = last;
        }
        None
    }

    /// Is there a transform or an iteration around the node being checked? CQL 6.2 parses
    /// their bodies with rules of their own; moves tied to other filters there are not
    /// checked.
    fn in_loose_body(&self) -> bool {
        self.stack.iter().any(|&a| {
            matches!(self.ir.get(a), Filter::Transform { .. } | Filter::SquareIter { .. } | Filter::PieceIter { .. })
        })
    }

    /// Would the operator node accept a left operand of kind `lk`?
    fn op_ok(&self, filter: &Filter, lk: Kind) -> bool {
        if lk == Kind::Unknown {
            return true;
        }
        match filter {
            Filter::Arith(ArithOp::Add, _, r) => {
                let rk = self.kind(*r);
                matches!(lk, Kind::Number | Kind::String) && (rk == lk || rk == Kind::Unknown)
            }
            Filter::Arith(ArithOp::Sub, ..) => true,
            Filter::Arith(_, _, r) => lk == Kind::Number && self.kind(*r).is(Kind::Number),
            Filter::Compare { rest, .. } => rest.first().map_or(true, |&(op, r)| pair_ok(op, lk, self.kind(r))),
            Filter::TreeRelation(_, _, r) => pair_ok(CmpOp::Lt, lk, self.kind(*r)),
            Filter::Union(_) | Filter::Attacks { .. } | Filter::AttackChain { .. } => lk == Kind::Set,
            Filter::Intersection(_) => matches!(lk, Kind::Set | Kind::Position),
            Filter::In(_, r) => {
                let rk = self.kind(*r);
                matches!(lk, Kind::Set | Kind::String) && (rk == lk || rk == Kind::Unknown)
            }
            Filter::AtPosition { .. } => lk == Kind::Position,
            Filter::RegexMatch { .. } => lk == Kind::String,
            _ => true,
        }
    }

    /// Is there an enclosing prefix filter, ending where the operator node ends, that CQL 6.2
    /// would close before the operator so that the operator accepts it as its left side?
    fn escapes(&self, filter: &Filter, lk: Kind) -> bool {
        let mut lk = lk;
        for &a in self.stack.iter().rev().skip(1).take(6) {
            lk = match self.ir.get(a) {
                // Constituent lists and a move's tied side do not change what the
                // operator would see.
                Filter::SeqConcat(_) | Filter::SeqRepeat { .. } | Filter::SeqAlt(_) | Filter::Move(_) => continue,
                Filter::Line { params, .. } => {
                    if params.last_position {
                        Kind::Position
                    } else {
                        Kind::Number
                    }
                }
                Filter::Find { all, range, .. } => {
                    if *all || range.is_some() {
                        Kind::Number
                    } else {
                        Kind::Position
                    }
                }
                Filter::Not(_) | Filter::Assign { .. } => Kind::Logical,
                Filter::Transform { count, range, .. } => {
                    if *count || range.is_some() {
                        Kind::Number
                    } else {
                        lk
                    }
                }
                Filter::Sort { .. } if lk == Kind::Set => Kind::Number,
                Filter::Sort { .. } | Filter::AtPosition { .. } => lk,
                Filter::SquareIter { forall, .. } | Filter::PieceIter { forall, .. } => {
                    if *forall {
                        Kind::Logical
                    } else {
                        Kind::Set
                    }
                }
                _ => return false,
            };
            if self.op_ok(filter, lk) {
                return true;
            }
        }
        false
    }

    fn check_node(&mut self, id: FilterId, filter: &Filter) {
        match filter {
            Filter::Union(items) => {
                for (n, &i) in items.iter().enumerate() {
                    if !self.notes.absorbs(i, n, items.len()) {
                        self.want(i, Kind::Set, "each side of `|` (`∪`)");
                    }
                }
            }
            Filter::Intersection(items) => {
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
            Filter::Complement(x) => self.want(*x, Kind::Set, "the operand of `~`"),
            Filter::In(a, b) => {
                if self.kind(*a) == Kind::String {
                    self.want(*b, Kind::String, "the right side of `in` after a string");
                } else {
                    self.want_any(*a, &[Kind::Set, Kind::String], "the left side of `in`");
                    self.want(*b, Kind::Set, "the right side of `in` after a set");
                }
            }
            Filter::Count(x) => self.want_any(*x, &[Kind::Set, Kind::String], "the operand of `#`"),
            Filter::Direction { arg, .. } => self.want(*arg, Kind::Set, "the argument of a direction"),
            Filter::Attacks { attackers, targets, value_is_targets } => {
                let (l, r) = if *value_is_targets { (*targets, *attackers) } else { (*attackers, *targets) };
                if !self.notes.absorbs(l, 0, 2) {
                    self.want(l, Kind::Set, "each side of an attack");
                }
                if !self.notes.absorbs(r, 1, 2) {
                    self.want(r, Kind::Set, "each side of an attack");
                }
            }
            Filter::AttackChain { sets, .. } => {
                for (n, &s) in sets.iter().enumerate() {
                    if !self.notes.absorbs(s, n, sets.len()) && !self.notes.absorbs(s, sets.len() - 1 - n, sets.len()) {
                        self.want(s, Kind::Set, "each side of an attack arrow");
                    }
                }
            }
            Filter::Between(a, b) => {
                self.want(*a, Kind::Set, "each argument of `between`");
                self.want(*b, Kind::Set, "each argument of `between`");
            }
            Filter::Ray { sets, .. } => {
                for &s in sets {
                    self.want(s, Kind::Set, "each argument of `ray`");
                }
            }
            Filter::Pin { from, through, to } | Filter::PinOf { from, through, to, .. } => {
                for s in [from, through, to].into_iter().flatten() {
                    self.want(*s, Kind::Set, "each part of `pin`");
                }
            }
            Filter::Compare { first, rest } => {
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
            Filter::TreeRelation(_, a, b) => self.compare(*a, CmpOp::Lt, *b, false),
            Filter::Arith(op, a, b) => self.arith(*op, *a, *b),
            Filter::Neg(x) => self.want(*x, Kind::Number, "the operand of unary `-`"),
            Filter::Call(builtin, args) => self.call(*builtin, args),
            Filter::RegexMatch { subject, .. } => self.want(*subject, Kind::String, "the left side of `~~`"),
            Filter::AtPosition { at, .. } => self.want(*at, Kind::Position, "the left side of `:`"),
            Filter::Child(n) => self.want(*n, Kind::Number, "the argument of `child`"),
            Filter::PositionById(n) => self.want(*n, Kind::Number, "the argument of `position`"),
            Filter::ReadFile(name) => self.want(*name, Kind::String, "the file name of `readfile`"),
            Filter::WriteFile(name, text) => {
                self.want(*name, Kind::String, "the file name of `writefile`");
                self.want(*text, Kind::String, "the text of `writefile`");
            }
            Filter::ConsecutiveMoves { x: a, y: b, .. } | Filter::Lca(a, b) | Filter::Distance(a, b) => {
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
            Filter::SquareIter { domain, var, .. } | Filter::PieceIter { domain, var, .. } => {
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
            Filter::Sort { value, .. } => {
                self.want_any(*value, &[Kind::Number, Kind::String, Kind::Set], "the value of `sort`")
            }
            Filter::Assign { var, op, value } => self.assign(id, *var, *op, *value),
            Filter::Line { params, body } => {
                if params.primary && params.secondary {
                    self.error(id, "a `line` cannot be both `primary` and `secondary`".into(), "keep one of them");
                }
                self.line_constituents(*body, 0);
            }
            Filter::SetTag(a, b) => {
                self.want(*a, Kind::String, "the tag name of `settag`");
                self.want(*b, Kind::String, "the value of `settag`");
            }
            Filter::DictSet { dict, key, value, op } => {
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
            Filter::DictGet { dict, key } => {
                self.dict_key(*dict, *key);
            }
            Filter::DictUnbind { dict, key: Some(key) } => {
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
            Filter::SeqConcat(items) | Filter::SeqAlt(items) => {
                for &i in items {
                    self.line_constituents(i, depth + 1);
                }
            }
            Filter::SeqRepeat { body, .. } => self.line_constituents(*body, depth + 1),
            // `check - 3` in a constituent is `check` and then the number -3.
            Filter::Arith(ArithOp::Sub, a, _) if !self.kind(*a).is(Kind::Number) => {}
            Filter::Arith(_, a, _) if !self.op_ok(self.ir.get(id), self.kind(*a)) => {}
            Filter::Number(_) | Filter::Arith(..) => self.error(
                id,
                "a `line` constituent cannot be a number or arithmetic".into(),
                "a `+` or `*` meant as repetition must be followed by an arrow or a closing bracket; put a filter in braces",
            ),
            // `{v}` is a compound filter there, not the variable (`match_holderconstituent`).
            Filter::Var(v) if self.var_kind(*v) == Kind::Number && !self.braced(id) => self.error(
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
        if matches!(op, ArithOp::Add | ArithOp::Mul) && matches!(self.ir.get(a), Filter::Line { .. }) && !self.braced(a)
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

    /// A dictionary takes keys of one kind, the kind of its first key in source order (CQL
    /// 6.2); a filter without a value is no key, except a move (`D[×]`, which cqlrs keys by
    /// its destination squares: docs/dictionaries.md). False when the key is refused.
    /// Is `dict` declared `local dictionary` (emptied for every game)?
    fn is_local_dictionary(&self, dict: VarId) -> bool {
        matches!(self.ir.vars.get(dict.0 as usize).map(|i| i.kind), Some(VarKind::Dictionary { local: true }))
    }

    fn dict_key(&mut self, dict: VarId, key: FilterId) -> bool {
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
    fn dict_value(&mut self, dict: VarId, value: FilterId, k: Kind) {
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

    fn assign(&mut self, id: FilterId, var: VarId, op: Option<ArithOp>, value: FilterId) {
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

/// May a comparison `op` have a left side of kind `a` and a right side of kind `b`? Two
/// sets only with `==`/`!=`, a set with a number (the set counts its squares), positions with
/// positions (not `!=`), numbers with numbers, strings with strings.
fn pair_ok(op: CmpOp, a: Kind, b: Kind) -> bool {
    match (a, b) {
        (Kind::Unknown, _) | (_, Kind::Unknown) => true,
        (Kind::Set, Kind::Set) => matches!(op, CmpOp::Eq | CmpOp::Ne),
        (Kind::Position, Kind::Position) => op != CmpOp::Ne,
        (Kind::Set, Kind::Number) | (Kind::Number, Kind::Set) => true,
        (x, y) => x == y && x != Kind::Logical,
    }
}

fn hint_for(k: Kind) -> &'static str {
    match k {
        Kind::Set => {
            "a set of squares is e.g. `♖`, `a-h8`, `♖→♛` or `move to`; a bare move `――` or a comparison is not one"
        }
        Kind::Number => "a number is e.g. `3`, `#♙`, `ply` or `find all F`",
        Kind::Position => "a position is e.g. `parent`, `currentposition`, `find check` or a position variable",
        Kind::String => "a string is e.g. `\"abc\"`, `player white` or `str(x)`",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte offset and message of the first diagnostic for `text`, or `None` when the
    /// CQL 6 front-end accepts it.
    fn refusal(text: &str) -> Option<(usize, String)> {
        match crate::lang::cql6::parse(text) {
            Ok(_) => None,
            Err(e) => e.diagnostics.first().map(|d| (d.span.start as usize, d.message.clone())),
        }
    }

    fn accepted(texts: &[&str]) {
        for t in texts {
            assert_eq!(refusal(t), None, "CQL 6.2 accepts {t:?}");
        }
    }

    /// `text` is refused with the first diagnostic at the first occurrence of `at`.
    fn refused_at(text: &str, at: &str) {
        let want = text.find(at).expect("marker in text");
        let got = refusal(text);
        assert!(got.is_some(), "CQL 6.2 refuses {text:?}");
        assert_eq!(got.map(|g| g.0), Some(want), "position of the error in {text:?}");
    }

    #[test]
    fn comparisons_need_values_of_one_kind() {
        accepted(&["#♙ > 3", "\"a\" < \"b\"", "parent < currentposition", "k == q", "k > 2", "3 < k", "ply ≺ 3"]);
        refused_at("true != 1", "true");
        refused_at("a >= \"t\"", "\"t\"");
        refused_at("initialposition > 1", "1");
        refused_at("k < q", "q");
        refused_at("initialposition != currentposition", "currentposition");
        refused_at("move == 3", "move");
    }

    #[test]
    fn arithmetic_needs_numbers_or_strings() {
        // (`k -2` is `k` and the number -2: accepted, and an error when run.)
        accepted(&["ply + 3", "\"a\" + \"b\"", "#k * 2", "{line --> check} * 2", "find all check + 3", "k -2"]);
        refused_at("K % 3", "K");
        refused_at("\"v\" / 3", "\"v\"");
        refused_at("2 + \"a\"", "\"a\"");
        refused_at("(line --> check) * 2", "line");
        refused_at("2 - e2--e4", "e2");
    }

    #[test]
    fn set_operators_need_sets() {
        accepted(&["k | q", "k & a-h8", "parent & currentposition", "k | e2--e4", "e2--e4 & k", "#k | q"]);
        refused_at("k ∪ currentposition", "currentposition");
        refused_at("comment(\"q\") | 2", "comment");
        refused_at("~3", "3");
        refused_at("e2-- | k", "e2");
    }

    #[test]
    fn bare_moves_are_no_sets() {
        accepted(&["--", "v = --(to)", "e2--e4(check)", "move to e4 | k", "(--Qa4=q) and 2", "--Qa4=q -2"]);
        refused_at("v = e4--e5", "e4");
        refused_at("--=q or 2", "q");
        refused_at("--(k)--", "--(k)");
        refused_at("-- and――", "――");
        refused_at("-- (k)", "(");
        refused_at("--{2 4}", "{");
        refused_at("countmoves ×-2", "-");
        refused_at("legal [x]", "legal");
    }

    #[test]
    fn assignments_keep_their_kind() {
        accepted(&["v = 3 v = 4", "v = \"a\" v += \"b\"", "v = k v = q", "persistent v += 3"]);
        refused_at("y = 7 y = k", "k");
        refused_at("y = currentposition y = \"a\"", "\"a\"");
        refused_at("v = check", "check");
        refused_at("y += k", "y");
        refused_at("persistent x = currentposition", "currentposition");
        refused_at("y = \"3\" y *= \"4\"", "\"4\"");
    }

    #[test]
    fn line_constituents_and_repetitions() {
        accepted(&["line --> check+ --> mate", "line --> check{2,3} --> mate", "line --> move from k *"]);
        refused_at("line --> 3", "3");
        refused_at("line --> N + 2", "N");
        refused_at("{5}", "{5}");
        refused_at("line primary secondary --> check", "line");
    }

    #[test]
    fn keyword_arguments() {
        accepted(&["max(3 4)", "makesquare(5 4)", "makesquare \"e4\"", "sort \"d\" #k", "settag(\"a\" \"b\")"]);
        refused_at("max(2)", "2");
        refused_at("makesquare(6 \"a\")", "6");
        refused_at("settag(\"MyTag\" 1)", "1");
        refused_at("move count", "move");
        refused_at("x = 1 square x in R btm", "square");
        // CQL 6.2 wants a filter after `{` ("syntax error following a '{'").
        refused_at("flipcolor {}", "{");
    }

    #[test]
    fn brace_repetitions() {
        for t in ["{5}", "{2,}", "{,3}", "{2,4}", "{0}"] {
            assert!(is_brace_repetition(t), "{t}");
        }
        for t in ["{}", "{,}", "{2 4}", "{ 5}", "{e2 2}", "{a}"] {
            assert!(!is_brace_repetition(t), "{t}");
        }
    }
}

/// `filter` with the operand written on its left replaced by `left`, for the operators whose
/// other operands the type check looks at again after a regrouping (sets, comparisons,
/// arithmetic); `None` for any other node.
fn with_left_operand(filter: &Filter, left: FilterId) -> Option<Filter> {
    Some(match filter {
        Filter::Union(v) | Filter::Intersection(v) if !v.is_empty() => {
            let mut v = v.clone();
            v[0] = left;
            if matches!(filter, Filter::Union(_)) {
                Filter::Union(v)
            } else {
                Filter::Intersection(v)
            }
        }
        Filter::Compare { rest, .. } => Filter::Compare { first: left, rest: rest.clone() },
        Filter::Arith(op, _, b) => Filter::Arith(*op, left, *b),
        _ => return None,
    })
}

/// `lastgamenumber` where only whether it matches counts: standing alone in the body, in
/// braces, after `not`, as a part of `and`/`or`, or as the condition or a branch of
/// `if`. CQL 6.2 stops there (`LastGameNumberNode::match_position`: "Do not ignore its
/// numeric value"); cqlrs refuses the text before reading any game. In a comparison, an
/// assignment, `sort` or `comment` its value is used and it is accepted.
pub fn ignored_values(ir: &Ir) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let mut todo: Vec<FilterId> = ir.root.into_iter().collect();
    let mut steps = 0usize;
    while let Some(id) = todo.pop() {
        steps += 1;
        if steps > 1_000_000 {
            break;
        }
        match ir.get(id) {
            Filter::LastGameNumber => diags.push(
                Diagnostic::new("`lastgamenumber` always matches: its numeric value must not be ignored", ir.span(id))
                    .with_hint("compare it or use it as a value, e.g. `gamenumber == lastgamenumber`"),
            ),
            Filter::And(items) | Filter::Or(items) => todo.extend(items.iter().copied()),
            Filter::Not(a) => todo.push(*a),
            Filter::If { cond, then, otherwise } => {
                todo.push(*cond);
                todo.push(*then);
                todo.extend(otherwise.iter().copied());
            }
            _ => {}
        }
    }
    diags
}
