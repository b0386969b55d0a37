//! The one table of what a filter yields: for every [`Filter`] variant, its [`Kind`] given
//! the kinds of its parts.
//!
//! Two questions read the same table. The evaluator's side ([`value_type`]: the normalizer,
//! the transform expander, `equal`, the CQL 6 parser's function arguments) wants the value
//! the evaluator gives when the filter matches. The CQL 6 type check wants the kind CQL 6.2
//! gives the text when it parses it, to refuse what CQL 6.2 refuses. The two agree on almost
//! every variant; the few rows where CQL 6.2's reading of the text differs from the value
//! cqlrs computes (a comparison, `if` without `else`, an assignment, a position relation, a
//! move with a target filter, `sort` of a set, `echo`) say both answers side by side, chosen by
//! [`Reading`].

use super::MAX_DEPTH;
use crate::ir::{
    ArithOp, Builtin, CmpOp, Filter, FilterId, HeaderField, Ir, MoveValue, PathStatus, ValueType, VarId, VarKind,
};
use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, Keyword62Filter, LogicFilter, NumberFilter, OutputFilter,
    PositionStateFilter, SetFilter, VariableFilter,
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

/// What the evaluator gives when filter `id` matches, as far as the tree alone tells (the
/// [`Reading::Value`] of [`kind`], variables as declared): [`Kind::Logical`] means the
/// filter only matches or not.
pub fn value_kind(ir: &Ir, id: FilterId) -> Kind {
    kind(ir, id, &TreeAlone)
}

/// The kind of filter `id` in `context`; a filter nested deeper than the expander's
/// [`MAX_DEPTH`] is [`Kind::Unknown`].
pub fn kind<C: KindContext + ?Sized>(ir: &Ir, id: FilterId, context: &C) -> Kind {
    kind_nested(ir, id, context, 0)
}

// long: one exhaustive match is the table of every filter's kind, read whole beside docs/,
// and a new filter does not compile until its kind is decided here.
fn kind_nested<C: KindContext + ?Sized>(ir: &Ir, id: FilterId, cx: &C, depth: usize) -> Kind {
    if depth > MAX_DEPTH {
        return Kind::Unknown;
    }
    if let Some(noted) = cx.noted(id) {
        return noted;
    }
    let text = cx.reading() == Reading::Text;
    let sub = |c: FilterId| kind_nested(ir, c, cx, depth + 1);
    // Where the parts leave the kind open: unknown to the text reading, `likely` to the
    // value reading.
    let open = |likely: Kind| if text { Kind::Unknown } else { likely };
    let number_or_position = |position: bool| if position { Kind::Position } else { Kind::Number };
    match ir.get(id) {
        // Constants.
        Filter::True | Filter::False => Kind::Logical,
        Filter::Numbers(NumberFilter::Number(_)) => Kind::Number,
        Filter::Numbers(NumberFilter::Str(_)) => Kind::String,

        // Square sets (`x & y` of two positions is a set filter too in CQL 6.2).
        Filter::Sets(
            SetFilter::Squares(_)
            | SetFilter::Pieces { .. }
            | SetFilter::Union(_)
            | SetFilter::Intersection(_)
            | SetFilter::Complement(_),
        )
        | Filter::Geometry(
            GeometryFilter::Direction { .. }
            | GeometryFilter::Attacks { .. }
            | GeometryFilter::AttackChain { .. }
            | GeometryFilter::Between(..)
            | GeometryFilter::Ray { .. }
            | GeometryFilter::PinOf { .. },
        )
        | Filter::Sets(SetFilter::PawnStructure(_)) => Kind::Set,
        Filter::Sets(SetFilter::In(..)) => Kind::Logical,
        Filter::Sets(SetFilter::Count(_)) => Kind::Number,

        // Numbers, strings, comparisons.
        Filter::Numbers(NumberFilter::Compare { first, rest }) => match rest.first() {
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
        Filter::Numbers(NumberFilter::Arith(ArithOp::Add, a, b)) => {
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
        Filter::Numbers(NumberFilter::Arith(..) | NumberFilter::Neg(_)) => Kind::Number,
        Filter::Numbers(NumberFilter::Call(builtin, args)) => {
            let first = || args.first().map_or(Kind::Unknown, |&a| sub(a));
            builtin_kind(*builtin, first, text)
        }
        Filter::Numbers(NumberFilter::RegexMatch { .. } | NumberFilter::RegexGroup(_)) => Kind::String,
        Filter::Numbers(NumberFilter::RegexGroupStart(_)) => Kind::Number,
        Filter::Numbers(NumberFilter::Contains { .. }) | Filter::Header(HeaderFilter::GameTextContains(_)) => {
            Kind::Logical
        }

        // Logic. `{a b}` has the value of its last filter (`a and b`, noted by the CQL 6
        // parser, has none); an `or` has the kind its alternatives share (bare `player`:
        // the white or the black player).
        Filter::Logic(LogicFilter::And(parts)) => parts.last().map_or(Kind::Logical, |&c| sub(c)),
        Filter::Logic(LogicFilter::Or(parts)) => {
            let mut kinds = parts.iter().map(|&c| sub(c));
            match kinds.next() {
                Some(first) if kinds.all(|k| k == first) => first,
                _ => Kind::Unknown,
            }
        }
        Filter::Logic(LogicFilter::Not(_)) => Kind::Logical,
        Filter::Logic(LogicFilter::If { then, otherwise, .. }) => {
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
        Filter::Logic(LogicFilter::CountMatching(_)) => Kind::Number,

        // The current position.
        Filter::PositionState(
            PositionStateFilter::SideToMove | PositionStateFilter::Ply | PositionStateFilter::MoveNumber,
        ) => Kind::Number,
        Filter::Header(HeaderFilter::CurrentFen) => Kind::String,
        Filter::PositionState(
            PositionStateFilter::Check
            | PositionStateFilter::Mate
            | PositionStateFilter::Stalemate
            | PositionStateFilter::ToMove(_)
            | PositionStateFilter::Initial
            | PositionStateFilter::Terminal
            | PositionStateFilter::Mainline
            | PositionStateFilter::Variation
            | PositionStateFilter::VirtualMainline,
        )
        | Filter::GameTree(GameTreeFilter::Try) => Kind::Logical,

        // Moves, comments of the game.
        Filter::Move(m) => match m.value {
            MoveValue::Count => Kind::Number,
            MoveValue::To | MoveValue::From => Kind::Set,
            // CQL 6.2 gives the target filter's kind; the evaluator falls back on the
            // destination squares when the target filter has no value.
            MoveValue::Then if text => m.then.map_or(Kind::Unknown, sub),
            MoveValue::Then => Kind::Set,
        },
        Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { .. }) => Kind::Number,
        Filter::Output(OutputFilter::OriginalComment) => Kind::String,
        Filter::Output(OutputFilter::HasComment) => Kind::Logical,

        // The game header.
        Filter::Header(HeaderFilter::Field(HeaderField::Elo(_))) => Kind::Number,
        Filter::Header(HeaderFilter::Field(_)) => Kind::String,
        Filter::Header(HeaderFilter::Year | HeaderFilter::GameNumber)
        | Filter::Keyword62(Keyword62Filter::LastGameNumber)
        | Filter::Header(HeaderFilter::HhdbAward { .. }) => Kind::Number,
        Filter::Header(HeaderFilter::Result(_)) => Kind::Logical,

        // The game tree.
        Filter::GameTree(GameTreeFilter::Find { all, range, .. }) => number_or_position(!*all && range.is_none()),
        Filter::GameTree(GameTreeFilter::AtPosition { body, .. }) => sub(*body),
        Filter::GameTree(
            GameTreeFilter::Tree(_)
            | GameTreeFilter::Child(_)
            | GameTreeFilter::PositionById(_)
            | GameTreeFilter::Lca(..),
        ) => Kind::Position,
        Filter::GameTree(GameTreeFilter::Distance(..) | GameTreeFilter::Depth | GameTreeFilter::PositionId) => {
            Kind::Number
        }
        // CQL 6.2 types `p ≺ q` as a position; the evaluator only tests the relation.
        Filter::GameTree(GameTreeFilter::TreeRelation(..)) if text => Kind::Position,
        Filter::GameTree(GameTreeFilter::TreeRelation(..)) => Kind::Logical,

        // Lines and paths.
        Filter::GameTree(GameTreeFilter::Path { params, .. }) => number_or_position(params.last_position),
        Filter::GameTree(GameTreeFilter::Line { params, .. }) => number_or_position(params.last_position),
        Filter::GameTree(GameTreeFilter::PathStatus(PathStatus::Start | PathStatus::LastPosition)) => Kind::Position,
        Filter::GameTree(GameTreeFilter::PathStatus(_)) => Kind::Number,
        Filter::Keyword62(Keyword62Filter::PathDebug) => Kind::Logical,
        // CQL 6.2: `echo` is a number when its body is one (the largest over the targets),
        // otherwise it has no value; the evaluator only tests it.
        Filter::GameTree(GameTreeFilter::Echo { body, .. }) if text => match sub(*body) {
            Kind::Number => Kind::Number,
            Kind::Unknown => Kind::Unknown,
            _ => Kind::Logical,
        },
        Filter::GameTree(GameTreeFilter::Echo { .. }) => Kind::Logical,
        // Constituent lists are no filters of their own.
        Filter::GameTree(
            GameTreeFilter::SeqConcat(_) | GameTreeFilter::SeqRepeat { .. } | GameTreeFilter::SeqAlt(_),
        ) => Kind::Unknown,

        // Variables and dictionaries. CQL 6.2: an assignment has no value; the evaluator
        // gives the value assigned (a compound update gives a number).
        Filter::Variables(VariableFilter::Var(v)) => cx.variable(ir, *v),
        Filter::Variables(VariableFilter::Assign { .. } | VariableFilter::DictSet { .. }) if text => Kind::Logical,
        Filter::Variables(VariableFilter::Assign { value, .. } | VariableFilter::DictSet { value, op: None, .. }) => {
            sub(*value)
        }
        Filter::Variables(VariableFilter::DictSet { .. } | VariableFilter::DictCount(_)) => Kind::Number,
        Filter::Variables(VariableFilter::DictGet { .. }) => Kind::Unknown,
        Filter::Variables(
            VariableFilter::DictUnbind { .. } | VariableFilter::IsBound(_) | VariableFilter::Unbind(_),
        ) => Kind::Logical,

        // Iteration and loops: an existential iteration gives the squares that matched.
        Filter::Variables(VariableFilter::SquareIter { forall, .. } | VariableFilter::PieceIter { forall, .. }) => {
            if *forall {
                Kind::Logical
            } else {
                Kind::Set
            }
        }
        Filter::Variables(VariableFilter::IdentityIter { .. } | VariableFilter::While { .. }) => Kind::Logical,

        // Output and files. CQL 6.2 types `sort` of a set as a number (it sorts by the
        // count); the evaluator keeps the set's kind, so that `y = sort "a" q` matches where
        // there is no queen, as it does in CQL 6.2.
        Filter::Output(OutputFilter::Sort { value, .. }) => match sub(*value) {
            Kind::Set if text => Kind::Number,
            k => k,
        },
        Filter::Keyword62(Keyword62Filter::ReadFile(_)) => Kind::String,
        Filter::Output(
            OutputFilter::Comment(_)
            | OutputFilter::Message { .. }
            | OutputFilter::SetTag(..)
            | OutputFilter::RemoveComment,
        )
        | Filter::Keyword62(Keyword62Filter::WriteFile(..) | Keyword62Filter::Abort(_)) => Kind::Logical,

        // Transforms and similar positions.
        Filter::Transform { range, count, body, .. } => {
            if *count || range.is_some() {
                Kind::Number
            } else {
                sub(*body)
            }
        }
        Filter::NoTransform(body) => sub(*body),
        Filter::Keyword62(Keyword62Filter::CurrentTransform(_)) => Kind::String,
        Filter::Keyword62(Keyword62Filter::SimilarPosition { game_number: true, .. }) => Kind::Number,
        Filter::Keyword62(Keyword62Filter::SimilarPosition { game_number: false, .. } | Keyword62Filter::Equal(..)) => {
            Kind::Logical
        }

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::*;
    use shakmaty::{Bitboard, Color, Square};

    /// The type check's question, asked of the tree alone.
    struct TextAlone;

    impl KindContext for TextAlone {
        fn reading(&self) -> Reading {
            Reading::Text
        }
    }

    /// A distinct number for every variant, with no catch-all: a new variant does not
    /// compile until it is numbered here, and then `every_variant_has_a_kind` fails until
    /// an example of it is added.
    fn variant_number(filter: &Filter) -> usize {
        match filter {
            Filter::True => 0,
            Filter::False => 1,
            Filter::Numbers(NumberFilter::Number(_)) => 2,
            Filter::Numbers(NumberFilter::Str(_)) => 3,
            Filter::Sets(SetFilter::Squares(_)) => 4,
            Filter::Sets(SetFilter::Pieces { .. }) => 5,
            Filter::Sets(SetFilter::Union(_)) => 6,
            Filter::Sets(SetFilter::Intersection(_)) => 7,
            Filter::Sets(SetFilter::Complement(_)) => 8,
            Filter::Sets(SetFilter::In(..)) => 9,
            Filter::Sets(SetFilter::Count(_)) => 10,
            Filter::Geometry(GeometryFilter::Direction { .. }) => 11,
            Filter::Geometry(GeometryFilter::Attacks { .. }) => 12,
            Filter::Geometry(GeometryFilter::AttackChain { .. }) => 13,
            Filter::Geometry(GeometryFilter::Between(..)) => 14,
            Filter::Geometry(GeometryFilter::Ray { .. }) => 15,
            Filter::Sets(SetFilter::PawnStructure(_)) => 16,
            Filter::Numbers(NumberFilter::Compare { .. }) => 17,
            Filter::Numbers(NumberFilter::Arith(..)) => 18,
            Filter::Numbers(NumberFilter::Neg(_)) => 19,
            Filter::Numbers(NumberFilter::Call(..)) => 20,
            Filter::Numbers(NumberFilter::RegexMatch { .. }) => 21,
            Filter::Numbers(NumberFilter::RegexGroup(_)) => 22,
            Filter::Numbers(NumberFilter::RegexGroupStart(_)) => 23,
            Filter::Numbers(NumberFilter::Contains { .. }) => 24,
            Filter::Logic(LogicFilter::And(_)) => 25,
            Filter::Logic(LogicFilter::Or(_)) => 26,
            Filter::Logic(LogicFilter::Not(_)) => 27,
            Filter::Logic(LogicFilter::If { .. }) => 28,
            Filter::Logic(LogicFilter::CountMatching(_)) => 29,
            Filter::PositionState(PositionStateFilter::Check) => 30,
            Filter::PositionState(PositionStateFilter::Mate) => 31,
            Filter::PositionState(PositionStateFilter::Stalemate) => 32,
            Filter::PositionState(PositionStateFilter::ToMove(_)) => 33,
            Filter::PositionState(PositionStateFilter::SideToMove) => 34,
            Filter::PositionState(PositionStateFilter::Initial) => 35,
            Filter::PositionState(PositionStateFilter::Terminal) => 36,
            Filter::PositionState(PositionStateFilter::Ply) => 37,
            Filter::PositionState(PositionStateFilter::MoveNumber) => 38,
            Filter::PositionState(PositionStateFilter::Mainline) => 39,
            Filter::PositionState(PositionStateFilter::Variation) => 40,
            Filter::PositionState(PositionStateFilter::VirtualMainline) => 41,
            Filter::GameTree(GameTreeFilter::Try) => 42,
            Filter::Move(_) => 43,
            Filter::Output(OutputFilter::HasComment) => 44,
            Filter::Output(OutputFilter::OriginalComment) => 45,
            Filter::Header(HeaderFilter::Field(_)) => 46,
            Filter::Header(HeaderFilter::Result(_)) => 47,
            Filter::Header(HeaderFilter::Year) => 48,
            Filter::Header(HeaderFilter::GameNumber) => 49,
            Filter::GameTree(GameTreeFilter::Find { .. }) => 50,
            Filter::GameTree(GameTreeFilter::AtPosition { .. }) => 51,
            Filter::GameTree(GameTreeFilter::Tree(_)) => 52,
            Filter::GameTree(GameTreeFilter::Child(_)) => 53,
            Filter::GameTree(GameTreeFilter::TreeRelation(..)) => 54,
            Filter::GameTree(GameTreeFilter::Lca(..)) => 55,
            Filter::GameTree(GameTreeFilter::Distance(..)) => 56,
            Filter::GameTree(GameTreeFilter::Depth) => 57,
            Filter::GameTree(GameTreeFilter::PositionId) => 58,
            Filter::GameTree(GameTreeFilter::PositionById(_)) => 59,
            Filter::GameTree(GameTreeFilter::Line { .. }) => 60,
            Filter::GameTree(GameTreeFilter::Path { .. }) => 61,
            Filter::GameTree(GameTreeFilter::PathStatus(_)) => 62,
            Filter::GameTree(GameTreeFilter::SeqConcat(_)) => 63,
            Filter::GameTree(GameTreeFilter::SeqRepeat { .. }) => 64,
            Filter::GameTree(GameTreeFilter::SeqAlt(_)) => 65,
            Filter::GameTree(GameTreeFilter::Echo { .. }) => 66,
            Filter::Variables(VariableFilter::Var(_)) => 67,
            Filter::Variables(VariableFilter::Assign { .. }) => 68,
            Filter::Variables(VariableFilter::IsBound(_)) => 69,
            Filter::Variables(VariableFilter::Unbind(_)) => 70,
            Filter::Variables(VariableFilter::DictGet { .. }) => 71,
            Filter::Variables(VariableFilter::DictSet { .. }) => 72,
            Filter::Variables(VariableFilter::DictUnbind { .. }) => 73,
            Filter::Variables(VariableFilter::DictCount(_)) => 74,
            Filter::Variables(VariableFilter::SquareIter { .. }) => 75,
            Filter::Variables(VariableFilter::PieceIter { .. }) => 76,
            Filter::Variables(VariableFilter::IdentityIter { .. }) => 77,
            Filter::Variables(VariableFilter::While { .. }) => 78,
            Filter::Output(OutputFilter::Comment(_)) => 79,
            Filter::Output(OutputFilter::Message { .. }) => 80,
            Filter::Output(OutputFilter::Sort { .. }) => 81,
            Filter::Output(OutputFilter::SetTag(..)) => 82,
            Filter::Output(OutputFilter::RemoveComment) => 83,
            Filter::Yacpdb(_) => 84,
            Filter::Transform { .. } => 85,
            Filter::LegacyFact(_) => 86,
            Filter::Geometry(GeometryFilter::PinOf { .. }) => 87,
            Filter::NoTransform(_) => 88,
            Filter::Keyword62(Keyword62Filter::CurrentTransform(_)) => 89,
            Filter::Keyword62(Keyword62Filter::SimilarPosition { .. }) => 90,
            Filter::Keyword62(Keyword62Filter::ReadFile(_)) => 91,
            Filter::Keyword62(Keyword62Filter::WriteFile(..)) => 92,
            Filter::Keyword62(Keyword62Filter::Equal(..)) => 93,
            Filter::Keyword62(Keyword62Filter::Abort(_)) => 94,
            Filter::Keyword62(Keyword62Filter::PathDebug) => 95,
            Filter::Keyword62(Keyword62Filter::LastGameNumber) => 96,
            Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { .. }) => 97,
            Filter::Header(HeaderFilter::GameTextContains(_)) => 98,
            Filter::Header(HeaderFilter::HhdbAward { .. }) => 99,
            Filter::Header(HeaderFilter::CurrentFen) => 100,
        }
    }

    /// How many variants `variant_number` numbers.
    const VARIANTS: usize = 101;

    /// One example of every variant, with the kind CQL 6.2 gives its text and the type of
    /// the value the evaluator gives, as the CQL 6.2 manual and the IR's documentation of
    /// the variant say (`ply` is a number, `find F` a position, `x = 3` has no value in
    /// CQL 6.2 while the evaluator yields the 3 assigned …).
    // long: a table with one example per filter variant; the rows share nothing to split along
    fn examples(ir: &mut Ir) -> Vec<(Filter, Kind, ValueType)> {
        use Kind as K;
        use ValueType as V;
        let span = Span::default();
        let n = ir.add(Filter::Numbers(NumberFilter::Number(3)), span);
        let s = ir.add(Filter::Numbers(NumberFilter::Str("a".into())), span);
        let sq = ir.add(Filter::Sets(SetFilter::Squares(Bitboard::from(Square::E4))), span);
        let pos = ir.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Current)), span);
        let check = ir.add(Filter::PositionState(PositionStateFilter::Check), span);
        let square = ir.var("square", VarKind::Square);
        let piece = ir.var("piece", VarKind::Piece);
        let value = ir.var("value", VarKind::Value);
        let dict = ir.var("dict", VarKind::Dictionary { local: false });
        let source = ir.var("source", VarKind::Position);
        let target = ir.var("target", VarKind::Position);
        vec![
            (Filter::True, K::Logical, V::None),
            (Filter::False, K::Logical, V::None),
            (Filter::Numbers(NumberFilter::Number(3)), K::Number, V::Number),
            (Filter::Numbers(NumberFilter::Str("a".into())), K::String, V::String),
            (Filter::Sets(SetFilter::Squares(Bitboard::from(Square::E4))), K::Set, V::Set),
            (Filter::Sets(SetFilter::Pieces { mask: PieceMask::WHITE, squares: Bitboard::FULL }), K::Set, V::Set),
            (Filter::Sets(SetFilter::Union(vec![sq, sq])), K::Set, V::Set),
            (Filter::Sets(SetFilter::Intersection(vec![sq, sq])), K::Set, V::Set),
            (Filter::Sets(SetFilter::Complement(sq)), K::Set, V::Set),
            (Filter::Sets(SetFilter::In(sq, sq)), K::Logical, V::None),
            (Filter::Sets(SetFilter::Count(sq)), K::Number, V::Number),
            (
                Filter::Geometry(GeometryFilter::Direction {
                    dirs: Directions::UP,
                    min: 1,
                    max: 7,
                    range_variables: (None, None),
                    arg: sq,
                }),
                K::Set,
                V::Set,
            ),
            (
                Filter::Geometry(GeometryFilter::Attacks { attackers: sq, targets: sq, value_is_targets: false }),
                K::Set,
                V::Set,
            ),
            (
                Filter::Geometry(GeometryFilter::AttackChain { sets: vec![sq, sq], value_is_last: false }),
                K::Set,
                V::Set,
            ),
            (Filter::Geometry(GeometryFilter::Between(sq, sq)), K::Set, V::Set),
            (
                Filter::Geometry(GeometryFilter::Ray { dirs: Directions::UP, sets: vec![sq, sq], xray: false }),
                K::Set,
                V::Set,
            ),
            (Filter::Sets(SetFilter::PawnStructure(PawnStructure::Passed)), K::Set, V::Set),
            (Filter::Numbers(NumberFilter::Compare { first: n, rest: vec![(CmpOp::Lt, n)] }), K::Number, V::Number),
            (Filter::Numbers(NumberFilter::Arith(ArithOp::Add, s, s)), K::String, V::String),
            (Filter::Numbers(NumberFilter::Neg(n)), K::Number, V::Number),
            (Filter::Numbers(NumberFilter::Call(Builtin::Abs, vec![n])), K::Number, V::Number),
            (Filter::Numbers(NumberFilter::RegexMatch { subject: s, pattern: "a".into() }), K::String, V::String),
            (Filter::Numbers(NumberFilter::RegexGroup(1)), K::String, V::String),
            (Filter::Numbers(NumberFilter::RegexGroupStart(1)), K::Number, V::Number),
            (
                Filter::Numbers(NumberFilter::Contains { haystack: s, needle: s, ignore_case: false }),
                K::Logical,
                V::None,
            ),
            (Filter::Logic(LogicFilter::And(vec![check, n])), K::Number, V::Number),
            (Filter::Logic(LogicFilter::Or(vec![n, s])), K::Unknown, V::None),
            (Filter::Logic(LogicFilter::Not(check)), K::Logical, V::None),
            (Filter::Logic(LogicFilter::If { cond: check, then: n, otherwise: Some(n) }), K::Number, V::Number),
            (Filter::Logic(LogicFilter::CountMatching(vec![check])), K::Number, V::Number),
            (Filter::PositionState(PositionStateFilter::Check), K::Logical, V::None),
            (Filter::PositionState(PositionStateFilter::Mate), K::Logical, V::None),
            (Filter::PositionState(PositionStateFilter::Stalemate), K::Logical, V::None),
            (Filter::PositionState(PositionStateFilter::ToMove(Color::White)), K::Logical, V::None),
            (Filter::PositionState(PositionStateFilter::SideToMove), K::Number, V::Number),
            (Filter::PositionState(PositionStateFilter::Initial), K::Logical, V::None),
            (Filter::PositionState(PositionStateFilter::Terminal), K::Logical, V::None),
            (Filter::PositionState(PositionStateFilter::Ply), K::Number, V::Number),
            (Filter::PositionState(PositionStateFilter::MoveNumber), K::Number, V::Number),
            (Filter::PositionState(PositionStateFilter::Mainline), K::Logical, V::None),
            (Filter::PositionState(PositionStateFilter::Variation), K::Logical, V::None),
            (Filter::PositionState(PositionStateFilter::VirtualMainline), K::Logical, V::None),
            (Filter::GameTree(GameTreeFilter::Try), K::Logical, V::None),
            (Filter::Move(Box::new(MoveFilter::any(MoveSource::Next))), K::Set, V::Set),
            (Filter::Output(OutputFilter::HasComment), K::Logical, V::None),
            (Filter::Output(OutputFilter::OriginalComment), K::String, V::String),
            (Filter::Header(HeaderFilter::Field(HeaderField::Event)), K::String, V::String),
            (Filter::Header(HeaderFilter::Field(HeaderField::Elo(Color::Black))), K::Number, V::Number),
            (Filter::Header(HeaderFilter::Result(GameResult::WhiteWins)), K::Logical, V::None),
            (Filter::Header(HeaderFilter::Year), K::Number, V::Number),
            (Filter::Header(HeaderFilter::GameNumber), K::Number, V::Number),
            (
                Filter::GameTree(GameTreeFilter::Find {
                    direction: FindDirection::Forward,
                    all: false,
                    range: None,
                    quiet: false,
                    body: check,
                }),
                K::Position,
                V::Position,
            ),
            (
                Filter::GameTree(GameTreeFilter::Find {
                    direction: FindDirection::Forward,
                    all: true,
                    range: None,
                    quiet: false,
                    body: check,
                }),
                K::Number,
                V::Number,
            ),
            (Filter::GameTree(GameTreeFilter::AtPosition { at: pos, body: n }), K::Number, V::Number),
            (Filter::GameTree(GameTreeFilter::Tree(TreeStep::Parent)), K::Position, V::Position),
            (Filter::GameTree(GameTreeFilter::Child(n)), K::Position, V::Position),
            (Filter::GameTree(GameTreeFilter::TreeRelation(TreeRelation::Ancestor, pos, pos)), K::Position, V::None),
            (Filter::GameTree(GameTreeFilter::Lca(pos, pos)), K::Position, V::Position),
            (Filter::GameTree(GameTreeFilter::Distance(pos, pos)), K::Number, V::Number),
            (Filter::GameTree(GameTreeFilter::Depth), K::Number, V::Number),
            (Filter::GameTree(GameTreeFilter::PositionId), K::Number, V::Number),
            (Filter::GameTree(GameTreeFilter::PositionById(n)), K::Position, V::Position),
            (
                Filter::GameTree(GameTreeFilter::Line { params: LineParams::default(), body: check }),
                K::Number,
                V::Number,
            ),
            (
                Filter::GameTree(GameTreeFilter::Path {
                    params: PathParams::default(),
                    focus: None,
                    best: None,
                    title: None,
                    body: check,
                }),
                K::Number,
                V::Number,
            ),
            (Filter::GameTree(GameTreeFilter::PathStatus(PathStatus::Count)), K::Number, V::Number),
            (Filter::GameTree(GameTreeFilter::PathStatus(PathStatus::Start)), K::Position, V::Position),
            (Filter::GameTree(GameTreeFilter::SeqConcat(vec![check])), K::Unknown, V::None),
            (Filter::GameTree(GameTreeFilter::SeqRepeat { body: check, min: 1, max: 2 }), K::Unknown, V::None),
            (Filter::GameTree(GameTreeFilter::SeqAlt(vec![check])), K::Unknown, V::None),
            (
                Filter::GameTree(GameTreeFilter::Echo {
                    source,
                    target,
                    in_all: false,
                    variations: false,
                    marks: false,
                    body: check,
                }),
                K::Logical,
                V::None,
            ),
            (
                Filter::GameTree(GameTreeFilter::Echo {
                    source,
                    target,
                    in_all: false,
                    variations: false,
                    marks: false,
                    body: n,
                }),
                K::Number,
                V::None,
            ),
            (Filter::Variables(VariableFilter::Var(square)), K::Set, V::Set),
            (Filter::Variables(VariableFilter::Var(piece)), K::Piece, V::Piece),
            (Filter::Variables(VariableFilter::Var(value)), K::Unknown, V::None),
            (Filter::Variables(VariableFilter::Assign { var: value, op: None, value: n }), K::Logical, V::Number),
            (Filter::Variables(VariableFilter::IsBound(value)), K::Logical, V::None),
            (Filter::Variables(VariableFilter::Unbind(value)), K::Logical, V::None),
            (Filter::Variables(VariableFilter::DictGet { dict, key: s }), K::Unknown, V::None),
            (Filter::Variables(VariableFilter::DictSet { dict, key: s, op: None, value: n }), K::Logical, V::Number),
            (Filter::Variables(VariableFilter::DictUnbind { dict, key: Some(s) }), K::Logical, V::None),
            (Filter::Variables(VariableFilter::DictCount(dict)), K::Number, V::Number),
            (
                Filter::Variables(VariableFilter::SquareIter { var: square, domain: sq, body: check, forall: false }),
                K::Set,
                V::Set,
            ),
            (
                Filter::Variables(VariableFilter::PieceIter { var: piece, domain: sq, body: check, forall: true }),
                K::Logical,
                V::None,
            ),
            (
                Filter::Variables(VariableFilter::IdentityIter { var: piece, mask: PieceMask::WHITE, body: check }),
                K::Logical,
                V::None,
            ),
            (Filter::Variables(VariableFilter::While { cond: Some(check), body: check }), K::Logical, V::None),
            (Filter::Output(OutputFilter::Comment(vec![s])), K::Logical, V::None),
            (Filter::Output(OutputFilter::Message { args: vec![s], quiet: false }), K::Logical, V::None),
            (
                Filter::Output(OutputFilter::Sort { doc: String::new(), min: false, quiet: false, value: n }),
                K::Number,
                V::Number,
            ),
            (
                Filter::Output(OutputFilter::Sort { doc: String::new(), min: false, quiet: false, value: sq }),
                K::Number,
                V::Set,
            ),
            (Filter::Output(OutputFilter::SetTag(s, s)), K::Logical, V::None),
            (Filter::Output(OutputFilter::RemoveComment), K::Logical, V::None),
            (Filter::Yacpdb(YacpdbPredicate { name: "PW".into(), args: Vec::new() }), K::Number, V::Number),
            (Filter::Transform { kind: TransformKind::Flip, range: None, count: false, body: sq }, K::Set, V::Set),
            (Filter::Transform { kind: TransformKind::Flip, range: None, count: true, body: sq }, K::Number, V::Number),
            (Filter::LegacyFact(LegacyFact::HalfmoveClock), K::Number, V::Number),
            (Filter::LegacyFact(LegacyFact::Nag(1)), K::Logical, V::None),
            (
                Filter::Geometry(GeometryFilter::PinOf { from: None, through: None, to: None, part: PinPart::Pinned }),
                K::Set,
                V::Set,
            ),
            (Filter::NoTransform(sq), K::Set, V::Set),
            (Filter::Keyword62(Keyword62Filter::CurrentTransform("flip".into())), K::String, V::String),
            (
                Filter::Keyword62(Keyword62Filter::SimilarPosition {
                    file: "a.pgn".into(),
                    transform: false,
                    game_number: false,
                }),
                K::Logical,
                V::None,
            ),
            (
                Filter::Keyword62(Keyword62Filter::SimilarPosition {
                    file: "a.pgn".into(),
                    transform: false,
                    game_number: true,
                }),
                K::Number,
                V::Number,
            ),
            (Filter::Keyword62(Keyword62Filter::ReadFile(s)), K::String, V::String),
            (Filter::Keyword62(Keyword62Filter::WriteFile(s, s)), K::Logical, V::None),
            (Filter::Keyword62(Keyword62Filter::Equal(n, n)), K::Logical, V::None),
            (Filter::Keyword62(Keyword62Filter::Abort("stop".into())), K::Logical, V::None),
            (Filter::Keyword62(Keyword62Filter::PathDebug), K::Logical, V::None),
            (Filter::Keyword62(Keyword62Filter::LastGameNumber), K::Number, V::Number),
            (
                Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { x: pos, y: pos, min: 1, max: 9, quiet: true }),
                K::Number,
                V::Number,
            ),
            (Filter::Header(HeaderFilter::GameTextContains("x".into())), K::Logical, V::None),
            (
                Filter::Header(HeaderFilter::HhdbAward { kind: HhdbAwardKind::Any, special: false, max: false }),
                K::Number,
                V::Number,
            ),
            (Filter::Header(HeaderFilter::CurrentFen), K::String, V::String),
        ]
    }

    #[test]
    fn every_variant_has_a_kind() {
        let mut ir = Ir::new();
        let mut seen = [false; VARIANTS];
        for (filter, text, value) in examples(&mut ir) {
            seen[variant_number(&filter)] = true;
            let id = ir.add(filter.clone(), Span::default());
            assert_eq!(kind(&ir, id, &TextAlone), text, "CQL 6.2's kind of {filter:?}");
            assert_eq!(value_type(&ir, id), value, "the evaluator's value of {filter:?}");
        }
        let missing: Vec<usize> = (0..VARIANTS).filter(|&i| !seen[i]).collect();
        assert!(missing.is_empty(), "variants without an example: {missing:?}");
    }

    #[test]
    fn the_two_readings_differ_only_where_cql_and_the_evaluator_do() {
        let mut ir = Ir::new();
        let span = Span::default();
        let rooks = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask(1 << 3), squares: Bitboard::FULL }), span);
        let two = ir.add(Filter::Numbers(NumberFilter::Number(2)), span);
        let check = ir.add(Filter::PositionState(PositionStateFilter::Check), span);
        let x = ir.var("x", VarKind::Value);
        let x = ir.add(Filter::Variables(VariableFilter::Var(x)), span);
        // `R > 2`: CQL 6.2 counts the rooks; the evaluator's value is the rooks.
        let more_rooks =
            ir.add(Filter::Numbers(NumberFilter::Compare { first: rooks, rest: vec![(CmpOp::Gt, two)] }), span);
        assert_eq!(kind(&ir, more_rooks, &TextAlone), Kind::Number);
        assert_eq!(value_type(&ir, more_rooks), ValueType::Set);
        // `R == R`: no value in CQL 6.2.
        let same =
            ir.add(Filter::Numbers(NumberFilter::Compare { first: rooks, rest: vec![(CmpOp::Eq, rooks)] }), span);
        assert_eq!(kind(&ir, same, &TextAlone), Kind::Logical);
        // `if check 2`: no value in CQL 6.2; the evaluator gives 2 when the branch is taken.
        let when = ir.add(Filter::Logic(LogicFilter::If { cond: check, then: two, otherwise: None }), span);
        assert_eq!(kind(&ir, when, &TextAlone), Kind::Logical);
        assert_eq!(value_type(&ir, when), ValueType::Number);
        // `x + 2` with `x` of unknown kind: may be a string to CQL 6.2, likely a number.
        let sum = ir.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Add, x, two)), span);
        assert_eq!(kind(&ir, sum, &TextAlone), Kind::Unknown);
        assert_eq!(value_type(&ir, sum), ValueType::Number);
    }

    #[test]
    fn a_noted_kind_and_a_known_variable_override_the_table() {
        struct Noting(FilterId, VarId);
        impl KindContext for Noting {
            fn reading(&self) -> Reading {
                Reading::Text
            }
            fn noted(&self, id: FilterId) -> Option<Kind> {
                (id == self.0).then_some(Kind::Logical)
            }
            fn variable(&self, ir: &Ir, var: VarId) -> Kind {
                if var == self.1 {
                    Kind::String
                } else {
                    declared_kind(ir, var)
                }
            }
        }
        let mut ir = Ir::new();
        let span = Span::default();
        let check = ir.add(Filter::PositionState(PositionStateFilter::Check), span);
        let two = ir.add(Filter::Numbers(NumberFilter::Number(2)), span);
        let both = ir.add(Filter::Logic(LogicFilter::And(vec![check, two])), span);
        let name = ir.var("name", VarKind::Value);
        let name_filter = ir.add(Filter::Variables(VariableFilter::Var(name)), span);
        let cx = Noting(both, name);
        assert_eq!(kind(&ir, both, &cx), Kind::Logical);
        assert_eq!(kind(&ir, name_filter, &cx), Kind::String);
        let joined = ir.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Add, name_filter, name_filter)), span);
        assert_eq!(kind(&ir, joined, &cx), Kind::String);
    }
}
