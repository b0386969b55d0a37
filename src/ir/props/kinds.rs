//! The one table of what a filter yields: for every [`Filter`] variant, its [`Kind`] given
//! the kinds of its parts.
//!
//! Two questions read the same table. The evaluator's side ([`value_type`]: the normalizer,
//! the transform expander, `equal`, the CQL 6 parser's function arguments) wants the value
//! the evaluator gives when the filter matches. The CQL 6 type check wants the kind CQL 6.2
//! gives the text when it parses it, to refuse what CQL 6.2 refuses. The two agree on almost
//! every variant; the few rows where CQL 6.2's reading of the text differs from the value
//! cqlrs computes (a comparison, `if` without `else`, an assignment, a position relation, a
//! move with a target filter) say both answers side by side, chosen by [`Reading`].

use super::MAX_DEPTH;
use crate::ir::{
    ArithOp, Builtin, CmpOp, Filter, FilterId, HeaderField, Ir, MoveValue, PathStatus, ValueType, VarId, VarKind,
};

/// What a filter yields when it matches: [`ValueType`] with the distinctions the CQL 6 type
/// check needs besides (a filter without a value, and a kind the tree does not tell).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Only matches or not: `check`, `a and b`, `not F`, a bare move `――`.
    Logical,
    /// A set of squares: `♖`, `a-h8`, `♖→♛`, `move from`, `pin`.
    Set,
    /// A piece identity (a piece variable).
    Piece,
    /// An integer: `#♙`, `ply`, `3`.
    Number,
    /// A position of the game tree: `parent`, `find check`, `currentposition`.
    Position,
    /// Text: `"abc"`, `player white`.
    String,
    /// Not told by the tree (a variable whose kind shows only when the query runs, a
    /// dictionary entry, a constituent list of `line`): the type check accepts it
    /// everywhere.
    Unknown,
}

impl Kind {
    /// The kind in words, for diagnostics: "a set of squares", "a number" ….
    pub fn name(self) -> &'static str {
        match self {
            Kind::Logical => "a filter without a value",
            Kind::Set => "a set of squares",
            Kind::Piece => "a piece",
            Kind::Number => "a number",
            Kind::Position => "a position",
            Kind::String => "a string",
            Kind::Unknown => "a filter",
        }
    }

    /// May a filter of this kind stand where `want` is asked for (an unknown kind may
    /// stand anywhere)?
    pub fn is(self, want: Kind) -> bool {
        self == want || self == Kind::Unknown
    }

    /// Does a filter of this kind have a value (it is not [`Kind::Logical`])?
    pub fn is_valued(self) -> bool {
        self != Kind::Logical
    }

    /// The evaluator's [`ValueType`]: a filter without a value and an unknown kind are both
    /// [`ValueType::None`].
    pub fn value_type(self) -> ValueType {
        match self {
            Kind::Logical | Kind::Unknown => ValueType::None,
            Kind::Set => ValueType::Set,
            Kind::Piece => ValueType::Piece,
            Kind::Number => ValueType::Number,
            Kind::Position => ValueType::Position,
            Kind::String => ValueType::String,
        }
    }

    /// The kind of a value of type `value_type` ([`ValueType::None`]: no value).
    pub fn of_value_type(value_type: ValueType) -> Kind {
        match value_type {
            ValueType::None => Kind::Logical,
            ValueType::Set => Kind::Set,
            ValueType::Piece => Kind::Piece,
            ValueType::Number => Kind::Number,
            ValueType::Position => Kind::Position,
            ValueType::String => Kind::String,
        }
    }
}

/// Which question [`kind`] answers where CQL 6.2's reading of a text and the evaluator's
/// value differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The kind CQL 6.2 gives the text when it parses it (the CQL 6 type check): `k > 2`
    /// is a number, `k == q` and `x = 3` have no value, `p1 ≺ p2` is a position. Where the
    /// parts leave the kind open (`x + 1` with `x` unknown) it is [`Kind::Unknown`].
    Text,
    /// The value the evaluator gives when the filter matches: a comparison has the value
    /// of its first operand, an assignment the value assigned. Where the parts leave the
    /// kind open it is the likelier one (`x + 1` is a number).
    Value,
}

/// What the kind of a filter depends on besides the tree: which question is asked, kinds a
/// front-end noted for particular nodes, and the kinds of variables.
pub trait KindContext {
    /// Which question is asked.
    fn reading(&self) -> Reading;

    /// A kind noted for node `id` that overrides the table (the CQL 6 parser notes that
    /// `a and b` has no value, though it lowers it like `{a b}`).
    fn noted(&self, _id: FilterId) -> Option<Kind> {
        None
    }

    /// The kind of the value variable `var` holds.
    fn variable(&self, ir: &Ir, var: VarId) -> Kind {
        declared_kind(ir, var)
    }
}

/// The kind a variable's declaration tells: a square variable holds a set, a piece
/// variable a piece, a position variable a position; a value variable or a dictionary holds
/// what it is given ([`Kind::Unknown`]).
pub fn declared_kind(ir: &Ir, var: VarId) -> Kind {
    match ir.vars.get(var.0 as usize).map(|info| info.kind) {
        Some(VarKind::Square) => Kind::Set,
        Some(VarKind::Piece) => Kind::Piece,
        Some(VarKind::Position) => Kind::Position,
        Some(VarKind::Value | VarKind::Dictionary { .. }) | None => Kind::Unknown,
    }
}

/// The evaluator's question asked of the tree alone: no notes, variables as declared.
struct TreeAlone;

impl KindContext for TreeAlone {
    fn reading(&self) -> Reading {
        Reading::Value
    }
}

/// What kind of value a filter yields when it matches, as far as the tree alone tells
/// (a variable whose kind shows only when the query runs gives [`ValueType::None`]).
pub fn value_type(ir: &Ir, id: FilterId) -> ValueType {
    kind(ir, id, &TreeAlone).value_type()
}

/// The kind of filter `id` in `context`; a filter nested deeper than the expander's
/// [`MAX_DEPTH`] is [`Kind::Unknown`].
pub fn kind<C: KindContext + ?Sized>(ir: &Ir, id: FilterId, context: &C) -> Kind {
    kind_at(ir, id, context, 0)
}

fn kind_at<C: KindContext + ?Sized>(ir: &Ir, id: FilterId, cx: &C, depth: usize) -> Kind {
    if depth > MAX_DEPTH {
        return Kind::Unknown;
    }
    if let Some(noted) = cx.noted(id) {
        return noted;
    }
    let text = cx.reading() == Reading::Text;
    let sub = |c: FilterId| kind_at(ir, c, cx, depth + 1);
    // Where the parts leave the kind open: unknown to the text reading, `likely` to the
    // value reading.
    let open = |likely: Kind| if text { Kind::Unknown } else { likely };
    let number_or_position = |position: bool| if position { Kind::Position } else { Kind::Number };
    match ir.get(id) {
        // Constants.
        Filter::True | Filter::False => Kind::Logical,
        Filter::Number(_) => Kind::Number,
        Filter::Str(_) => Kind::String,

        // Square sets (`x & y` of two positions is a set filter too in CQL 6.2).
        Filter::Squares(_)
        | Filter::Pieces { .. }
        | Filter::Union(_)
        | Filter::Intersection(_)
        | Filter::Complement(_)
        | Filter::Direction { .. }
        | Filter::Attacks { .. }
        | Filter::AttackChain { .. }
        | Filter::Between(..)
        | Filter::Ray { .. }
        | Filter::PinOf { .. }
        | Filter::PawnStructure(_) => Kind::Set,
        Filter::In(..) => Kind::Logical,
        Filter::Count(_) => Kind::Number,

        // Numbers, strings, comparisons.
        Filter::Compare { first, rest } => match rest.first() {
            None => sub(*first),
            // The evaluator gives the value of the first operand.
            Some(_) if !text => sub(*first),
            // CQL 6.2: `a != b` is "not `a == b`", without a value.
            Some((CmpOp::Ne, _)) => Kind::Logical,
            Some((_, second)) => {
                let (a, b) = (sub(*first), sub(*second));
                if a == Kind::Unknown || b == Kind::Unknown {
                    Kind::Unknown
                } else if a == Kind::Set && b == Kind::Set {
                    // `A == B` of two sets: no value.
                    Kind::Logical
                } else if a == Kind::Set || b == Kind::Set {
                    // A set compared with a number counts its squares.
                    Kind::Number
                } else if a == b {
                    a
                } else {
                    Kind::Logical
                }
            }
        },
        Filter::Arith(ArithOp::Add, a, b) => {
            let (a, b) = (sub(*a), sub(*b));
            // CQL 6.2 reads a `+` with a string on either side as a string; the evaluator
            // joins strings only when the left side is one (otherwise it adds numbers).
            if a == Kind::String || (text && b == Kind::String) {
                Kind::String
            } else if a == Kind::Unknown || b == Kind::Unknown {
                open(Kind::Number)
            } else {
                Kind::Number
            }
        }
        Filter::Arith(..) | Filter::Neg(_) => Kind::Number,
        Filter::Call(builtin, args) => {
            let first = || args.first().map_or(Kind::Unknown, |&a| sub(a));
            builtin_kind(*builtin, first, text)
        }
        Filter::RegexMatch { .. } | Filter::RegexGroup(_) => Kind::String,
        Filter::RegexGroupStart(_) => Kind::Number,
        Filter::Contains { .. } | Filter::GameTextContains(_) => Kind::Logical,

        // Logic. `{a b}` has the value of its last filter (`a and b`, noted by the CQL 6
        // parser, has none); an `or` has the kind its alternatives share (bare `player`:
        // the white or the black player).
        Filter::And(parts) => parts.last().map_or(Kind::Logical, |&c| sub(c)),
        Filter::Or(parts) => {
            let mut kinds = parts.iter().map(|&c| sub(c));
            match kinds.next() {
                Some(first) if kinds.all(|k| k == first) => first,
                _ => Kind::Unknown,
            }
        }
        Filter::Not(_) => Kind::Logical,
        Filter::If { then, otherwise, .. } => {
            if !text {
                // The evaluator gives the value of the branch taken.
                sub(*then)
            } else if let Some(otherwise) = otherwise {
                // CQL 6.2: a value when both branches have one of the same kind.
                let (a, b) = (sub(*then), sub(*otherwise));
                if a == Kind::Unknown || b == Kind::Unknown {
                    Kind::Unknown
                } else if a == b {
                    a
                } else {
                    Kind::Logical
                }
            } else {
                // CQL 6.2: `if C A` without `else` has no value.
                Kind::Logical
            }
        }
        Filter::CountMatching(_) => Kind::Number,

        // The current position.
        Filter::SideToMove | Filter::Ply | Filter::MoveNumber => Kind::Number,
        Filter::CurrentFen => Kind::String,
        Filter::Check
        | Filter::Mate
        | Filter::Stalemate
        | Filter::ToMove(_)
        | Filter::Initial
        | Filter::Terminal
        | Filter::Mainline
        | Filter::Variation
        | Filter::VirtualMainline
        | Filter::Try => Kind::Logical,

        // Moves, comments of the game.
        Filter::Move(m) => match m.value {
            MoveValue::Count => Kind::Number,
            MoveValue::To | MoveValue::From => Kind::Set,
            // CQL 6.2 gives the target filter's kind; the evaluator falls back on the
            // destination squares when the target filter has no value.
            MoveValue::Then if text => m.then.map_or(Kind::Unknown, sub),
            MoveValue::Then => Kind::Set,
        },
        Filter::ConsecutiveMovesIn { .. } => Kind::Number,
        Filter::OriginalComment => Kind::String,
        Filter::HasComment => Kind::Logical,

        // The game header.
        Filter::Header(HeaderField::Elo(_)) => Kind::Number,
        Filter::Header(_) => Kind::String,
        Filter::Year | Filter::GameNumber | Filter::LastGameNumber | Filter::HhdbAward { .. } => Kind::Number,
        Filter::Result(_) => Kind::Logical,

        // The game tree.
        Filter::Find { all, range, .. } => number_or_position(!*all && range.is_none()),
        Filter::AtPosition { body, .. } => sub(*body),
        Filter::Tree(_) | Filter::Child(_) | Filter::PositionById(_) | Filter::Lca(..) => Kind::Position,
        Filter::Distance(..) | Filter::Depth | Filter::PositionId => Kind::Number,
        // CQL 6.2 types `p ≺ q` as a position; the evaluator only tests the relation.
        Filter::TreeRelation(..) if text => Kind::Position,
        Filter::TreeRelation(..) => Kind::Logical,

        // Lines and paths.
        Filter::Path { params, .. } => number_or_position(params.last_position),
        Filter::Line { params, .. } => number_or_position(params.last_position),
        Filter::PathStatus(PathStatus::Start | PathStatus::LastPosition) => Kind::Position,
        Filter::PathStatus(_) => Kind::Number,
        Filter::PathDebug | Filter::Echo { .. } => Kind::Logical,
        // Constituent lists are no filters of their own.
        Filter::SeqConcat(_) | Filter::SeqRepeat { .. } | Filter::SeqAlt(_) => Kind::Unknown,

        // Variables and dictionaries. CQL 6.2: an assignment has no value; the evaluator
        // gives the value assigned (a compound update gives a number).
        Filter::Var(v) => cx.variable(ir, *v),
        Filter::Assign { .. } | Filter::DictSet { .. } if text => Kind::Logical,
        Filter::Assign { value, .. } | Filter::DictSet { value, op: None, .. } => sub(*value),
        Filter::DictSet { .. } | Filter::DictCount(_) => Kind::Number,
        Filter::DictGet { .. } => Kind::Unknown,
        Filter::DictUnbind { .. } | Filter::IsBound(_) | Filter::Unbind(_) => Kind::Logical,

        // Iteration and loops: an existential iteration gives the squares that matched.
        Filter::SquareIter { forall, .. } | Filter::PieceIter { forall, .. } => {
            if *forall {
                Kind::Logical
            } else {
                Kind::Set
            }
        }
        Filter::IdentityIter { .. } | Filter::While { .. } => Kind::Logical,

        // Output and files.
        Filter::Sort { value, .. } => sub(*value),
        Filter::ReadFile(_) => Kind::String,
        Filter::Comment(_)
        | Filter::Message { .. }
        | Filter::SetTag(..)
        | Filter::RemoveComment
        | Filter::WriteFile(..)
        | Filter::Abort(_) => Kind::Logical,

        // Transforms and similar positions.
        Filter::Transform { range, count, body, .. } => {
            if *count || range.is_some() {
                Kind::Number
            } else {
                sub(*body)
            }
        }
        Filter::NoTransform(body) => sub(*body),
        Filter::CurrentTransform(_) => Kind::String,
        Filter::SimilarPosition { game_number: true, .. } => Kind::Number,
        Filter::SimilarPosition { game_number: false, .. } | Filter::Equal(..) => Kind::Logical,

        // The other languages.
        Filter::Yacpdb(_) => Kind::Number,
        Filter::LegacyFact(fact) => Kind::of_value_type(fact.value_type()),
    }
}

/// The kind of a call of a built-in function; `first_argument` gives the kind of its first
/// argument ([`Kind::Unknown`] when there is none), asked only by `ascii` (which turns a
/// string into a number and a number into a string) and `min`/`max` (which CQL 6.2 also
/// takes over strings, though the evaluator compares numbers only).
fn builtin_kind(builtin: Builtin, first_argument: impl FnOnce() -> Kind, text: bool) -> Kind {
    let open = |likely: Kind| if text { Kind::Unknown } else { likely };
    match builtin {
        Builtin::Str
        | Builtin::Lowercase
        | Builtin::Uppercase
        | Builtin::TypeName
        | Builtin::PieceName
        | Builtin::Substring => Kind::String,
        Builtin::MakeSquare | Builtin::Light | Builtin::Dark => Kind::Set,
        Builtin::Ascii => match first_argument() {
            Kind::String => Kind::Number,
            Kind::Number => Kind::String,
            _ => open(Kind::String),
        },
        Builtin::Min | Builtin::Max => match first_argument() {
            Kind::String if text => Kind::String,
            Kind::Number | Kind::Set => Kind::Number,
            _ => open(Kind::Number),
        },
        Builtin::Abs
        | Builtin::Sqrt
        | Builtin::Int
        | Builtin::IndexOf
        | Builtin::File
        | Builtin::Rank
        | Builtin::Type
        | Builtin::ColorType
        | Builtin::Power
        | Builtin::Length
        | Builtin::PieceId => Kind::Number,
    }
}
