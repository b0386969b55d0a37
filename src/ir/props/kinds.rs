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
        Filter::ConsecutiveMoves { .. } => Kind::Number,
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
        Filter::PathDebug => Kind::Logical,
        // CQL 6.2: `echo` is a number when its body is one (the largest over the targets),
        // otherwise it has no value; the evaluator only tests it.
        Filter::Echo { body, .. } if text => match sub(*body) {
            Kind::Number => Kind::Number,
            Kind::Unknown => Kind::Unknown,
            _ => Kind::Logical,
        },
        Filter::Echo { .. } => Kind::Logical,
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

        // Output and files. CQL 6.2 types `sort` of a set as a number (it sorts by the
        // count); the evaluator keeps the set's kind, so that `y = sort "a" q` matches where
        // there is no queen, as it does in CQL 6.2.
        Filter::Sort { value, .. } => match sub(*value) {
            Kind::Set if text => Kind::Number,
            k => k,
        },
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
            Filter::Number(_) => 2,
            Filter::Str(_) => 3,
            Filter::Squares(_) => 4,
            Filter::Pieces { .. } => 5,
            Filter::Union(_) => 6,
            Filter::Intersection(_) => 7,
            Filter::Complement(_) => 8,
            Filter::In(..) => 9,
            Filter::Count(_) => 10,
            Filter::Direction { .. } => 11,
            Filter::Attacks { .. } => 12,
            Filter::AttackChain { .. } => 13,
            Filter::Between(..) => 14,
            Filter::Ray { .. } => 15,
            Filter::PawnStructure(_) => 16,
            Filter::Compare { .. } => 17,
            Filter::Arith(..) => 18,
            Filter::Neg(_) => 19,
            Filter::Call(..) => 20,
            Filter::RegexMatch { .. } => 21,
            Filter::RegexGroup(_) => 22,
            Filter::RegexGroupStart(_) => 23,
            Filter::Contains { .. } => 24,
            Filter::And(_) => 25,
            Filter::Or(_) => 26,
            Filter::Not(_) => 27,
            Filter::If { .. } => 28,
            Filter::CountMatching(_) => 29,
            Filter::Check => 30,
            Filter::Mate => 31,
            Filter::Stalemate => 32,
            Filter::ToMove(_) => 33,
            Filter::SideToMove => 34,
            Filter::Initial => 35,
            Filter::Terminal => 36,
            Filter::Ply => 37,
            Filter::MoveNumber => 38,
            Filter::Mainline => 39,
            Filter::Variation => 40,
            Filter::VirtualMainline => 41,
            Filter::Try => 42,
            Filter::Move(_) => 43,
            Filter::HasComment => 44,
            Filter::OriginalComment => 45,
            Filter::Header(_) => 46,
            Filter::Result(_) => 47,
            Filter::Year => 48,
            Filter::GameNumber => 49,
            Filter::Find { .. } => 50,
            Filter::AtPosition { .. } => 51,
            Filter::Tree(_) => 52,
            Filter::Child(_) => 53,
            Filter::TreeRelation(..) => 54,
            Filter::Lca(..) => 55,
            Filter::Distance(..) => 56,
            Filter::Depth => 57,
            Filter::PositionId => 58,
            Filter::PositionById(_) => 59,
            Filter::Line { .. } => 60,
            Filter::Path { .. } => 61,
            Filter::PathStatus(_) => 62,
            Filter::SeqConcat(_) => 63,
            Filter::SeqRepeat { .. } => 64,
            Filter::SeqAlt(_) => 65,
            Filter::Echo { .. } => 66,
            Filter::Var(_) => 67,
            Filter::Assign { .. } => 68,
            Filter::IsBound(_) => 69,
            Filter::Unbind(_) => 70,
            Filter::DictGet { .. } => 71,
            Filter::DictSet { .. } => 72,
            Filter::DictUnbind { .. } => 73,
            Filter::DictCount(_) => 74,
            Filter::SquareIter { .. } => 75,
            Filter::PieceIter { .. } => 76,
            Filter::IdentityIter { .. } => 77,
            Filter::While { .. } => 78,
            Filter::Comment(_) => 79,
            Filter::Message { .. } => 80,
            Filter::Sort { .. } => 81,
            Filter::SetTag(..) => 82,
            Filter::RemoveComment => 83,
            Filter::Yacpdb(_) => 84,
            Filter::Transform { .. } => 85,
            Filter::LegacyFact(_) => 86,
            Filter::PinOf { .. } => 87,
            Filter::NoTransform(_) => 88,
            Filter::CurrentTransform(_) => 89,
            Filter::SimilarPosition { .. } => 90,
            Filter::ReadFile(_) => 91,
            Filter::WriteFile(..) => 92,
            Filter::Equal(..) => 93,
            Filter::Abort(_) => 94,
            Filter::PathDebug => 95,
            Filter::LastGameNumber => 96,
            Filter::ConsecutiveMoves { .. } => 97,
            Filter::GameTextContains(_) => 98,
            Filter::HhdbAward { .. } => 99,
            Filter::CurrentFen => 100,
        }
    }

    /// How many variants `variant_number` numbers.
    const VARIANTS: usize = 101;

    /// One example of every variant, with the kind CQL 6.2 gives its text and the type of
    /// the value the evaluator gives, as the CQL 6.2 manual and the IR's documentation of
    /// the variant say (`ply` is a number, `find F` a position, `x = 3` has no value in
    /// CQL 6.2 while the evaluator yields the 3 assigned …).
    fn examples(ir: &mut Ir) -> Vec<(Filter, Kind, ValueType)> {
        use Kind as K;
        use ValueType as V;
        let span = Span::default();
        let n = ir.add(Filter::Number(3), span);
        let s = ir.add(Filter::Str("a".into()), span);
        let sq = ir.add(Filter::Squares(Bitboard::from(Square::E4)), span);
        let pos = ir.add(Filter::Tree(TreeStep::Current), span);
        let check = ir.add(Filter::Check, span);
        let square = ir.var("square", VarKind::Square);
        let piece = ir.var("piece", VarKind::Piece);
        let value = ir.var("value", VarKind::Value);
        let dict = ir.var("dict", VarKind::Dictionary { local: false });
        let source = ir.var("source", VarKind::Position);
        let target = ir.var("target", VarKind::Position);
        vec![
            (Filter::True, K::Logical, V::None),
            (Filter::False, K::Logical, V::None),
            (Filter::Number(3), K::Number, V::Number),
            (Filter::Str("a".into()), K::String, V::String),
            (Filter::Squares(Bitboard::from(Square::E4)), K::Set, V::Set),
            (Filter::Pieces { mask: PieceMask::WHITE, squares: Bitboard::FULL }, K::Set, V::Set),
            (Filter::Union(vec![sq, sq]), K::Set, V::Set),
            (Filter::Intersection(vec![sq, sq]), K::Set, V::Set),
            (Filter::Complement(sq), K::Set, V::Set),
            (Filter::In(sq, sq), K::Logical, V::None),
            (Filter::Count(sq), K::Number, V::Number),
            (
                Filter::Direction { dirs: Directions::UP, min: 1, max: 7, range_variables: (None, None), arg: sq },
                K::Set,
                V::Set,
            ),
            (Filter::Attacks { attackers: sq, targets: sq, value_is_targets: false }, K::Set, V::Set),
            (Filter::AttackChain { sets: vec![sq, sq], value_is_last: false }, K::Set, V::Set),
            (Filter::Between(sq, sq), K::Set, V::Set),
            (Filter::Ray { dirs: Directions::UP, sets: vec![sq, sq], xray: false }, K::Set, V::Set),
            (Filter::PawnStructure(PawnStructure::Passed), K::Set, V::Set),
            (Filter::Compare { first: n, rest: vec![(CmpOp::Lt, n)] }, K::Number, V::Number),
            (Filter::Arith(ArithOp::Add, s, s), K::String, V::String),
            (Filter::Neg(n), K::Number, V::Number),
            (Filter::Call(Builtin::Abs, vec![n]), K::Number, V::Number),
            (Filter::RegexMatch { subject: s, pattern: "a".into() }, K::String, V::String),
            (Filter::RegexGroup(1), K::String, V::String),
            (Filter::RegexGroupStart(1), K::Number, V::Number),
            (Filter::Contains { haystack: s, needle: s, ignore_case: false }, K::Logical, V::None),
            (Filter::And(vec![check, n]), K::Number, V::Number),
            (Filter::Or(vec![n, s]), K::Unknown, V::None),
            (Filter::Not(check), K::Logical, V::None),
            (Filter::If { cond: check, then: n, otherwise: Some(n) }, K::Number, V::Number),
            (Filter::CountMatching(vec![check]), K::Number, V::Number),
            (Filter::Check, K::Logical, V::None),
            (Filter::Mate, K::Logical, V::None),
            (Filter::Stalemate, K::Logical, V::None),
            (Filter::ToMove(Color::White), K::Logical, V::None),
            (Filter::SideToMove, K::Number, V::Number),
            (Filter::Initial, K::Logical, V::None),
            (Filter::Terminal, K::Logical, V::None),
            (Filter::Ply, K::Number, V::Number),
            (Filter::MoveNumber, K::Number, V::Number),
            (Filter::Mainline, K::Logical, V::None),
            (Filter::Variation, K::Logical, V::None),
            (Filter::VirtualMainline, K::Logical, V::None),
            (Filter::Try, K::Logical, V::None),
            (Filter::Move(Box::new(MoveFilter::any(MoveSource::Next))), K::Set, V::Set),
            (Filter::HasComment, K::Logical, V::None),
            (Filter::OriginalComment, K::String, V::String),
            (Filter::Header(HeaderField::Event), K::String, V::String),
            (Filter::Header(HeaderField::Elo(Color::Black)), K::Number, V::Number),
            (Filter::Result(GameResult::WhiteWins), K::Logical, V::None),
            (Filter::Year, K::Number, V::Number),
            (Filter::GameNumber, K::Number, V::Number),
            (
                Filter::Find { direction: FindDirection::Forward, all: false, range: None, quiet: false, body: check },
                K::Position,
                V::Position,
            ),
            (
                Filter::Find { direction: FindDirection::Forward, all: true, range: None, quiet: false, body: check },
                K::Number,
                V::Number,
            ),
            (Filter::AtPosition { at: pos, body: n }, K::Number, V::Number),
            (Filter::Tree(TreeStep::Parent), K::Position, V::Position),
            (Filter::Child(n), K::Position, V::Position),
            (Filter::TreeRelation(TreeRelation::Ancestor, pos, pos), K::Position, V::None),
            (Filter::Lca(pos, pos), K::Position, V::Position),
            (Filter::Distance(pos, pos), K::Number, V::Number),
            (Filter::Depth, K::Number, V::Number),
            (Filter::PositionId, K::Number, V::Number),
            (Filter::PositionById(n), K::Position, V::Position),
            (Filter::Line { params: LineParams::default(), body: check }, K::Number, V::Number),
            (
                Filter::Path { params: PathParams::default(), focus: None, best: None, title: None, body: check },
                K::Number,
                V::Number,
            ),
            (Filter::PathStatus(PathStatus::Count), K::Number, V::Number),
            (Filter::PathStatus(PathStatus::Start), K::Position, V::Position),
            (Filter::SeqConcat(vec![check]), K::Unknown, V::None),
            (Filter::SeqRepeat { body: check, min: 1, max: 2 }, K::Unknown, V::None),
            (Filter::SeqAlt(vec![check]), K::Unknown, V::None),
            (
                Filter::Echo { source, target, in_all: false, variations: false, marks: false, body: check },
                K::Logical,
                V::None,
            ),
            (
                Filter::Echo { source, target, in_all: false, variations: false, marks: false, body: n },
                K::Number,
                V::None,
            ),
            (Filter::Var(square), K::Set, V::Set),
            (Filter::Var(piece), K::Piece, V::Piece),
            (Filter::Var(value), K::Unknown, V::None),
            (Filter::Assign { var: value, op: None, value: n }, K::Logical, V::Number),
            (Filter::IsBound(value), K::Logical, V::None),
            (Filter::Unbind(value), K::Logical, V::None),
            (Filter::DictGet { dict, key: s }, K::Unknown, V::None),
            (Filter::DictSet { dict, key: s, op: None, value: n }, K::Logical, V::Number),
            (Filter::DictUnbind { dict, key: Some(s) }, K::Logical, V::None),
            (Filter::DictCount(dict), K::Number, V::Number),
            (Filter::SquareIter { var: square, domain: sq, body: check, forall: false }, K::Set, V::Set),
            (Filter::PieceIter { var: piece, domain: sq, body: check, forall: true }, K::Logical, V::None),
            (Filter::IdentityIter { var: piece, mask: PieceMask::WHITE, body: check }, K::Logical, V::None),
            (Filter::While { cond: Some(check), body: check }, K::Logical, V::None),
            (Filter::Comment(vec![s]), K::Logical, V::None),
            (Filter::Message { args: vec![s], quiet: false }, K::Logical, V::None),
            (Filter::Sort { doc: String::new(), min: false, quiet: false, value: n }, K::Number, V::Number),
            (Filter::Sort { doc: String::new(), min: false, quiet: false, value: sq }, K::Number, V::Set),
            (Filter::SetTag(s, s), K::Logical, V::None),
            (Filter::RemoveComment, K::Logical, V::None),
            (Filter::Yacpdb(YacpdbPredicate { name: "PW".into(), args: Vec::new() }), K::Number, V::Number),
            (Filter::Transform { kind: TransformKind::Flip, range: None, count: false, body: sq }, K::Set, V::Set),
            (Filter::Transform { kind: TransformKind::Flip, range: None, count: true, body: sq }, K::Number, V::Number),
            (Filter::LegacyFact(LegacyFact::HalfmoveClock), K::Number, V::Number),
            (Filter::LegacyFact(LegacyFact::Nag(1)), K::Logical, V::None),
            (Filter::PinOf { from: None, through: None, to: None, part: PinPart::Pinned }, K::Set, V::Set),
            (Filter::NoTransform(sq), K::Set, V::Set),
            (Filter::CurrentTransform("flip".into()), K::String, V::String),
            (
                Filter::SimilarPosition { file: "a.pgn".into(), transform: false, game_number: false },
                K::Logical,
                V::None,
            ),
            (
                Filter::SimilarPosition { file: "a.pgn".into(), transform: false, game_number: true },
                K::Number,
                V::Number,
            ),
            (Filter::ReadFile(s), K::String, V::String),
            (Filter::WriteFile(s, s), K::Logical, V::None),
            (Filter::Equal(n, n), K::Logical, V::None),
            (Filter::Abort("stop".into()), K::Logical, V::None),
            (Filter::PathDebug, K::Logical, V::None),
            (Filter::LastGameNumber, K::Number, V::Number),
            (Filter::ConsecutiveMoves { x: pos, y: pos, min: 1, max: 9, quiet: true }, K::Number, V::Number),
            (Filter::GameTextContains("x".into()), K::Logical, V::None),
            (Filter::HhdbAward { kind: HhdbAwardKind::Any, special: false, max: false }, K::Number, V::Number),
            (Filter::CurrentFen, K::String, V::String),
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
        let rooks = ir.add(Filter::Pieces { mask: PieceMask(1 << 3), squares: Bitboard::FULL }, span);
        let two = ir.add(Filter::Number(2), span);
        let check = ir.add(Filter::Check, span);
        let x = ir.var("x", VarKind::Value);
        let x = ir.add(Filter::Var(x), span);
        // `R > 2`: CQL 6.2 counts the rooks; the evaluator's value is the rooks.
        let more_rooks = ir.add(Filter::Compare { first: rooks, rest: vec![(CmpOp::Gt, two)] }, span);
        assert_eq!(kind(&ir, more_rooks, &TextAlone), Kind::Number);
        assert_eq!(value_type(&ir, more_rooks), ValueType::Set);
        // `R == R`: no value in CQL 6.2.
        let same = ir.add(Filter::Compare { first: rooks, rest: vec![(CmpOp::Eq, rooks)] }, span);
        assert_eq!(kind(&ir, same, &TextAlone), Kind::Logical);
        // `if check 2`: no value in CQL 6.2; the evaluator gives 2 when the branch is taken.
        let when = ir.add(Filter::If { cond: check, then: two, otherwise: None }, span);
        assert_eq!(kind(&ir, when, &TextAlone), Kind::Logical);
        assert_eq!(value_type(&ir, when), ValueType::Number);
        // `x + 2` with `x` of unknown kind: may be a string to CQL 6.2, likely a number.
        let sum = ir.add(Filter::Arith(ArithOp::Add, x, two), span);
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
        let check = ir.add(Filter::Check, span);
        let two = ir.add(Filter::Number(2), span);
        let both = ir.add(Filter::And(vec![check, two]), span);
        let name = ir.var("name", VarKind::Value);
        let name_filter = ir.add(Filter::Var(name), span);
        let cx = Noting(both, name);
        assert_eq!(kind(&ir, both, &cx), Kind::Logical);
        assert_eq!(kind(&ir, name_filter, &cx), Kind::String);
        let joined = ir.add(Filter::Arith(ArithOp::Add, name_filter, name_filter), span);
        assert_eq!(kind(&ir, joined, &cx), Kind::String);
    }
}
