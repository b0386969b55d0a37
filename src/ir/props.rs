//! Facts about IR nodes, in one place: what value a filter gives, whether its value is a
//! set of squares, whether evaluating it has effects, whether the game's tags alone decide
//! it, whether it depends on evaluation order or searches other positions, whether it
//! changes state that a loop's next round or a later game sees, and what a dictionary holds.
//!
//! Takes in: an [`Ir`] and one of its nodes (or variables). Gives out: yes/no answers and
//! [`ValueType`]s decided from the tree alone, before any game is read.
//! Must never: change the IR, look at a game, or recurse without bound (every fact that
//! looks into children has a depth limit and gives its cautious answer beyond it).
//!
//! Every variant of [`Filter`] is named in `own_facts` and in the table of kinds
//! ([`kind`]), and every [`Builtin`] in `builtin_facts` and `builtin_kind`, with no
//! catch-all, so a new variant does not compile until someone decides its facts. The
//! transform expander, the normalizer, the loop check, the evaluator and the CQL 6 type
//! check (`lang::cql6::types`, which adds the kinds of variables it has seen assigned) all
//! ask here.

use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, Keyword62Filter, LogicFilter, NumberFilter, OutputFilter,
    PositionStateFilter, SetFilter, VariableFilter,
};
mod kinds;

pub use kinds::{declared_kind, kind, value_kind, value_type, Kind, KindContext, Reading};

use super::visit::children;
use super::{ArithOp, Builtin, Filter, FilterId, Ir, ValueType, VarId, VarKind};

/// Deepest filter nesting the passes over the IR walk: the transform expander refuses a
/// query nested deeper, and the analyses of this module give their cautious answer there.
pub const MAX_DEPTH: usize = 2 * crate::NESTING_LIMIT;

/// How deep the evaluator's analyses ([`is_pure`], [`is_header_only_before_replay`],
/// [`writes_across_games`]) look into a filter; deeper, they give their cautious answer.
/// (The expander's [`MAX_DEPTH`] bounds the other facts.)
const ANALYSIS_DEPTH: usize = 200;

/// Answers to one question already found, by node. A node never changes once it is in the
/// arena, so an answer stays right while the arena grows.
#[derive(Clone, Debug, Default)]
pub struct Memo(Vec<Option<bool>>);

impl Memo {
    /// The answer found for node `id`, if any.
    fn get(&self, id: FilterId) -> Option<bool> {
        self.0.get(id.0 as usize).copied().flatten()
    }

    /// Keep the answer for node `id`.
    fn remember(&mut self, id: FilterId, answer: bool) -> bool {
        let i = id.0 as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, None);
        }
        self.0[i] = Some(answer);
        answer
    }
}

/// One node's own part of each yes/no fact, its children aside. The facts that look into
/// children hold for a filter when its own part holds and its children have the fact too
/// (or, for the facts that spread upwards, when its own part or any child has it).
#[derive(Clone, Copy)]
struct OwnFacts {
    /// Gives a set of squares whenever it matches ([`is_always_set`]).
    always_set: bool,
    /// A set operation computed straight from its parts' sets ([`is_direct_set`]).
    direct_set: bool,
    /// Its transformed copies combine by union ([`is_set_expression`]).
    set_expression: bool,
    /// Outside value mode, fails when its set is empty ([`fails_on_empty_set`]).
    fails_on_empty_set: bool,
    /// Changes nothing but its own result ([`is_pure`]).
    pure: bool,
    /// Testable on the tags before any move is replayed ([`is_header_only_before_replay`]).
    header_before_replay: bool,
    /// Reads the header only, as the normalizer counts it ([`is_header_only_when_normalizing`]).
    header_when_normalizing: bool,
    /// Writes state, or reads state a sibling may have written ([`depends_on_evaluation_order`]).
    order_sensitive: bool,
    /// Looks at other positions than the current one ([`searches_other_positions`]).
    searches: bool,
    /// Changes state the next round of a loop sees ([`changes_state_for_a_loop`]).
    changes_state: bool,
    /// The variable or dictionary it writes ([`writes_across_games`]).
    writes: Option<VarId>,
    /// Writes something a reader sees whether or not the game matches: a message on the
    /// console, a file, the end of the run ([`effects`]).
    shown_without_a_match: bool,
}

impl OwnFacts {
    /// No fact holds.
    const NONE: OwnFacts = OwnFacts {
        always_set: false,
        direct_set: false,
        set_expression: false,
        fails_on_empty_set: false,
        pure: false,
        header_before_replay: false,
        header_when_normalizing: false,
        order_sensitive: false,
        searches: false,
        changes_state: false,
        writes: None,
        shown_without_a_match: false,
    };

    /// A set filter of the board (pieces, squares, attacks, rays …): a set whenever it
    /// matches, a set expression, failing on the empty set, free of effects.
    const SET_OF_THE_BOARD: OwnFacts =
        OwnFacts { always_set: true, set_expression: true, fails_on_empty_set: true, pure: true, ..OwnFacts::NONE };

    /// A constant or an operator over values (`+`, `<`, `and`, `not` …): free of effects and
    /// header-only whenever its operands are.
    const HEADER_OPERATOR: OwnFacts =
        OwnFacts { pure: true, header_before_replay: true, header_when_normalizing: true, ..OwnFacts::NONE };

    /// A test of the current position (`check`, `ply`, `wtm` …): free of effects.
    const POSITION_TEST: OwnFacts = OwnFacts { pure: true, ..OwnFacts::NONE };

    /// Writes state or reads it (assignments, dictionaries, comments, regex groups …).
    const ORDER_SENSITIVE: OwnFacts = OwnFacts { order_sensitive: true, ..OwnFacts::NONE };
}

/// The own facts of one node. Every variant is listed: adding one means deciding its facts.
// long: one exhaustive match is the table of every filter's facts, read whole.
fn own_facts(filter: &Filter) -> OwnFacts {
    match filter {
        // Constants.
        Filter::True | Filter::False | Filter::Numbers(NumberFilter::Number(_) | NumberFilter::Str(_)) => {
            OwnFacts::HEADER_OPERATOR
        }

        // Square sets read from the board.
        Filter::Sets(SetFilter::Squares(_) | SetFilter::Pieces { .. })
        | Filter::Geometry(
            GeometryFilter::Direction { .. }
            | GeometryFilter::Attacks { .. }
            | GeometryFilter::AttackChain { .. }
            | GeometryFilter::PinOf { .. },
        )
        | Filter::Sets(SetFilter::PawnStructure(_)) => OwnFacts::SET_OF_THE_BOARD,
        // Set operations the evaluator computes from its parts' sets (an intersection only
        // when its parts are sets: see `is_direct_set`).
        Filter::Sets(SetFilter::Union(_) | SetFilter::Intersection(_) | SetFilter::Complement(_))
        | Filter::Geometry(GeometryFilter::Between(..) | GeometryFilter::Ray { .. }) => {
            OwnFacts { direct_set: true, ..OwnFacts::SET_OF_THE_BOARD }
        }
        Filter::Sets(SetFilter::In(..)) => OwnFacts { pure: true, header_when_normalizing: true, ..OwnFacts::NONE },
        Filter::Sets(SetFilter::Count(_)) => OwnFacts { pure: true, ..OwnFacts::NONE },

        // Numbers, strings, comparisons.
        Filter::Numbers(NumberFilter::Compare { .. } | NumberFilter::Arith(..) | NumberFilter::Neg(_)) => {
            OwnFacts::HEADER_OPERATOR
        }
        Filter::Numbers(NumberFilter::Call(builtin, _)) => builtin_facts(*builtin),
        // A match sets the groups that `\1` … read.
        Filter::Numbers(NumberFilter::RegexMatch { .. }) => {
            OwnFacts { header_before_replay: true, order_sensitive: true, changes_state: true, ..OwnFacts::NONE }
        }
        Filter::Numbers(NumberFilter::RegexGroup(_) | NumberFilter::RegexGroupStart(_)) => {
            OwnFacts { header_before_replay: true, order_sensitive: true, ..OwnFacts::NONE }
        }
        Filter::Numbers(NumberFilter::Contains { .. }) => {
            OwnFacts { header_before_replay: true, header_when_normalizing: true, ..OwnFacts::NONE }
        }
        Filter::Header(HeaderFilter::GameTextContains(_)) => OwnFacts::NONE,

        // Logic.
        Filter::Logic(LogicFilter::And(_) | LogicFilter::Or(_) | LogicFilter::Not(_) | LogicFilter::If { .. }) => {
            OwnFacts::HEADER_OPERATOR
        }
        Filter::Logic(LogicFilter::CountMatching(_)) => OwnFacts { pure: true, ..OwnFacts::NONE },

        // The current position.
        Filter::PositionState(
            PositionStateFilter::Check
            | PositionStateFilter::Mate
            | PositionStateFilter::Stalemate
            | PositionStateFilter::ToMove(_)
            | PositionStateFilter::SideToMove
            | PositionStateFilter::Initial
            | PositionStateFilter::Terminal
            | PositionStateFilter::Ply
            | PositionStateFilter::MoveNumber
            | PositionStateFilter::Mainline
            | PositionStateFilter::Variation,
        ) => OwnFacts::POSITION_TEST,
        Filter::PositionState(PositionStateFilter::VirtualMainline)
        | Filter::GameTree(GameTreeFilter::Try)
        | Filter::Header(HeaderFilter::CurrentFen) => OwnFacts::NONE,

        // Moves, comments of the game.
        Filter::Move(_) => OwnFacts::NONE,
        // Its marks are written at the end of the game, from the longest run seen.
        Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { quiet, .. }) => {
            OwnFacts { order_sensitive: !*quiet, ..OwnFacts::NONE }
        }
        Filter::Output(OutputFilter::HasComment | OutputFilter::OriginalComment) => OwnFacts::NONE,

        // The game header.
        Filter::Header(
            HeaderFilter::Field(_) | HeaderFilter::Result(_) | HeaderFilter::Year | HeaderFilter::GameNumber,
        ) => OwnFacts { header_before_replay: true, header_when_normalizing: true, ..OwnFacts::NONE },
        Filter::Keyword62(Keyword62Filter::LastGameNumber) | Filter::Header(HeaderFilter::HhdbAward { .. }) => {
            OwnFacts::NONE
        }

        // The game tree.
        // Its notes are comments, written in order.
        Filter::GameTree(GameTreeFilter::Find { quiet, .. }) => {
            OwnFacts { searches: true, order_sensitive: !*quiet, ..OwnFacts::NONE }
        }
        // Positions of the tree and their relations are read, never changed; `p:F` runs F
        // at p and writes nothing of its own.
        Filter::GameTree(
            GameTreeFilter::AtPosition { .. }
            | GameTreeFilter::Tree(_)
            | GameTreeFilter::Child(_)
            | GameTreeFilter::TreeRelation(..)
            | GameTreeFilter::Lca(..)
            | GameTreeFilter::Distance(..)
            | GameTreeFilter::Depth
            | GameTreeFilter::PositionId
            | GameTreeFilter::PositionById(_),
        ) => OwnFacts::POSITION_TEST,

        // Lines and paths (`line` marks positions, `path` keeps its state).
        Filter::GameTree(GameTreeFilter::Line { .. } | GameTreeFilter::Path { .. }) => {
            OwnFacts { order_sensitive: true, searches: true, changes_state: true, ..OwnFacts::NONE }
        }
        Filter::GameTree(GameTreeFilter::PathStatus(_)) => OwnFacts::ORDER_SENSITIVE,
        // Its marks are comments, written in order.
        Filter::GameTree(GameTreeFilter::Echo { marks, .. }) => {
            OwnFacts { searches: true, order_sensitive: *marks, ..OwnFacts::NONE }
        }
        // `pathdebug` prints a message line.
        Filter::Keyword62(Keyword62Filter::PathDebug) => {
            OwnFacts { shown_without_a_match: true, ..OwnFacts::ORDER_SENSITIVE }
        }
        Filter::GameTree(
            GameTreeFilter::SeqConcat(_) | GameTreeFilter::SeqRepeat { .. } | GameTreeFilter::SeqAlt(_),
        ) => OwnFacts::NONE,

        // Variables and dictionaries.
        Filter::Variables(VariableFilter::Var(_)) => {
            OwnFacts { pure: true, fails_on_empty_set: true, ..OwnFacts::NONE }
        }
        Filter::Variables(VariableFilter::IsBound(_)) => {
            OwnFacts { pure: true, order_sensitive: true, ..OwnFacts::NONE }
        }
        Filter::Variables(VariableFilter::Assign { var, .. } | VariableFilter::Unbind(var)) => {
            OwnFacts { changes_state: true, writes: Some(*var), ..OwnFacts::ORDER_SENSITIVE }
        }
        Filter::Variables(VariableFilter::DictSet { dict, .. } | VariableFilter::DictUnbind { dict, .. }) => {
            OwnFacts { changes_state: true, writes: Some(*dict), ..OwnFacts::ORDER_SENSITIVE }
        }
        Filter::Variables(VariableFilter::DictGet { .. } | VariableFilter::DictCount(_)) => OwnFacts::ORDER_SENSITIVE,

        // Iteration and loops (an iteration restores its own variable).
        Filter::Variables(VariableFilter::SquareIter { forall, .. } | VariableFilter::PieceIter { forall, .. }) => {
            OwnFacts { set_expression: !*forall, pure: true, searches: true, ..OwnFacts::NONE }
        }
        Filter::Variables(VariableFilter::IdentityIter { .. }) => OwnFacts { searches: true, ..OwnFacts::NONE },
        Filter::Variables(VariableFilter::While { .. }) => {
            OwnFacts { changes_state: true, ..OwnFacts::ORDER_SENSITIVE }
        }

        // Output and files.
        Filter::Output(
            OutputFilter::Comment(_)
            | OutputFilter::Sort { .. }
            | OutputFilter::SetTag(..)
            | OutputFilter::RemoveComment,
        ) => OwnFacts::ORDER_SENSITIVE,
        // A message is printed where it is evaluated, whether or not the game matches.
        Filter::Output(OutputFilter::Message { .. }) => {
            OwnFacts { shown_without_a_match: true, ..OwnFacts::ORDER_SENSITIVE }
        }
        // Writing a file and stopping the run are effects: nothing may move them before
        // or after the filters written beside them (`assert wtm` is `wtm or abort`).
        Filter::Keyword62(Keyword62Filter::WriteFile(..) | Keyword62Filter::Abort(_)) => {
            OwnFacts { shown_without_a_match: true, ..OwnFacts::ORDER_SENSITIVE }
        }
        Filter::Keyword62(Keyword62Filter::ReadFile(_)) => OwnFacts::NONE,

        // Transforms and similar positions.
        Filter::Transform { .. }
        | Filter::NoTransform(_)
        | Filter::Keyword62(
            Keyword62Filter::CurrentTransform(_) | Keyword62Filter::SimilarPosition { .. } | Keyword62Filter::Equal(..),
        ) => OwnFacts::NONE,

        // The other languages.
        Filter::Yacpdb(_) => OwnFacts { searches: true, ..OwnFacts::NONE },
        Filter::LegacyFact(fact) => OwnFacts { set_expression: fact.value_type() == ValueType::Set, ..OwnFacts::NONE },
    }
}

/// The own facts of a call of a built-in function (`abs x`, `light`, `makesquare f r` …).
fn builtin_facts(builtin: Builtin) -> OwnFacts {
    match builtin {
        // Every built-in function computes its value from its arguments (and the position)
        // and changes nothing. Arithmetic and string functions: header-only whenever their
        // arguments are.
        Builtin::Abs
        | Builtin::Min
        | Builtin::Max
        | Builtin::Sqrt
        | Builtin::Int
        | Builtin::Lowercase
        | Builtin::Uppercase
        | Builtin::Ascii
        | Builtin::IndexOf
        | Builtin::Length
        | Builtin::Substring => {
            OwnFacts { pure: true, header_before_replay: true, header_when_normalizing: true, ..OwnFacts::NONE }
        }
        // Functions of squares and pieces (and `str`): the evaluator tests them on a
        // position, though the normalizer lets them count as header-only.
        Builtin::Str
        | Builtin::File
        | Builtin::Rank
        | Builtin::Type
        | Builtin::TypeName
        | Builtin::PieceName
        | Builtin::ColorType
        | Builtin::PieceId => OwnFacts { pure: true, header_when_normalizing: true, ..OwnFacts::NONE },
        Builtin::MakeSquare => {
            OwnFacts { pure: true, header_when_normalizing: true, fails_on_empty_set: true, ..OwnFacts::NONE }
        }
        Builtin::Light | Builtin::Dark => {
            OwnFacts { pure: true, set_expression: true, fails_on_empty_set: true, ..OwnFacts::NONE }
        }
        Builtin::Power => OwnFacts::POSITION_TEST,
    }
}

/// Does this filter give a set of squares whenever it matches, whatever its parts are —
/// never a position, number or piece (`♖`, `a-h8`, `∪`, `attacks`, `pin` …)?
pub fn is_always_set(ir: &Ir, id: FilterId) -> bool {
    own_facts(ir.get(id)).always_set
}

/// Is this a set operation the evaluator computes straight from the set values of its
/// parts: `between`, `ray`/`xray`, union, complement, and an intersection of parts that are
/// all sets (an intersection of positions, `source & target` in `echo`, compares boards)?
pub fn is_direct_set(ir: &Ir, id: FilterId) -> bool {
    let node = ir.get(id);
    let parts_are_sets = if let Filter::Sets(SetFilter::Intersection(parts)) = node {
        parts.iter().all(|&p| is_always_set(ir, p))
    } else {
        true
    };
    own_facts(node).direct_set && parts_are_sets
}

/// Is the value of this filter, whenever it matches, a number, whatever its variables hold:
/// a number written out, a count `#S`, the ply, the move number, the side to move, a
/// position's id, a negation, `file`/`rank`/`abs` of something, arithmetic that cannot add
/// two strings (an operator other than `+`, or a part that is itself always a number), or
/// such a filter evaluated at another position (`start:rank x`)? The evaluator compares
/// such filters as numbers, and computes the arithmetic among them without building
/// values. A filter nested deeper than the analysis looks is not.
pub fn is_always_number(ir: &Ir, id: FilterId) -> bool {
    is_always_number_at(ir, id, 0)
}

fn is_always_number_at(ir: &Ir, id: FilterId, depth: usize) -> bool {
    if depth > ANALYSIS_DEPTH {
        return false;
    }
    match ir.get(id) {
        Filter::Numbers(NumberFilter::Number(_))
        | Filter::Sets(SetFilter::Count(_))
        | Filter::Numbers(NumberFilter::Neg(_))
        | Filter::PositionState(
            PositionStateFilter::Ply | PositionStateFilter::MoveNumber | PositionStateFilter::SideToMove,
        )
        | Filter::GameTree(GameTreeFilter::PositionId) => true,
        Filter::GameTree(GameTreeFilter::AtPosition { body, .. }) => is_always_number_at(ir, *body, depth + 1),
        Filter::Numbers(NumberFilter::Call(Builtin::File | Builtin::Rank | Builtin::Abs, args)) => args.len() == 1,
        Filter::Numbers(NumberFilter::Arith(op, a, b)) => {
            *op != ArithOp::Add || is_always_number_at(ir, *a, depth + 1) || is_always_number_at(ir, *b, depth + 1)
        }
        _ => false,
    }
}

/// Is this a pure set expression (pieces, squares, set algebra, attacks, directions, an
/// existential square or piece iteration, a legacy region …), whose transformed copies
/// combine by union? Anything that can fail for another reason (a comparison, a compound,
/// a condition) combines by `or` instead: `flipcolor {N == 1 …}` must match when either
/// colour's copy matches, whatever the copies' set values are. A compound of one filter is
/// that filter.
pub fn is_set_expression(ir: &Ir, id: FilterId) -> bool {
    match ir.get(id) {
        Filter::Logic(LogicFilter::And(parts)) if parts.len() == 1 => is_set_expression(ir, parts[0]),
        node => own_facts(node).set_expression,
    }
}

/// Outside value mode, does this filter fail where its set of squares is empty (a set of the
/// board, a variable, `light`, `dark`, `makesquare`)? A dictionary entry `D[k]` does not:
/// as a filter it matches when the key has an entry, even an empty set (CQL 6.2,
/// `DictionaryRetrieveNode::match_position`).
pub fn fails_on_empty_set(ir: &Ir, id: FilterId) -> bool {
    own_facts(ir.get(id)).fails_on_empty_set
}

/// Does evaluating this filter leave everything as it was: no variable or dictionary written
/// (an iteration restores its own variable), no output, no regex groups, no move or path
/// state, no temporary positions? Then whether it matches depends only on the position and
/// the variables, and skipping an evaluation of it (stopping an iteration at the first
/// matching square) is unobservable. Kinds not known to be pure count as impure; so does a
/// filter nested deeper than the analysis looks.
pub fn is_pure(ir: &Ir, id: FilterId, memo: &mut Memo) -> bool {
    is_pure_at(ir, id, 0, memo)
}

fn is_pure_at(ir: &Ir, id: FilterId, depth: usize, memo: &mut Memo) -> bool {
    if let Some(known) = memo.get(id) {
        return known;
    }
    if depth > ANALYSIS_DEPTH {
        return false;
    }
    let node = ir.get(id);
    let pure = own_facts(node).pure && children(node).into_iter().all(|c| is_pure_at(ir, c, depth + 1, memo));
    memo.remember(id, pure)
}

/// Can the evaluator decide this filter from the game's tags alone, before any move is
/// replayed: tag values, the result, the year, the game number, and arithmetic, string
/// functions, regular expressions and logic over them (no position, no variable, no
/// output)? A game whose tags fail such a conjunct of the query is never replayed.
///
/// Not the same question as [`is_header_only_when_normalizing`]: this one admits regular
/// expressions (the evaluator runs them on the tags) but only the built-in functions it can
/// run without a position, and no `in`.
pub fn is_header_only_before_replay(ir: &Ir, id: FilterId) -> bool {
    is_header_only_before_replay_at(ir, id, 0)
}

fn is_header_only_before_replay_at(ir: &Ir, id: FilterId, depth: usize) -> bool {
    if depth > ANALYSIS_DEPTH {
        return false;
    }
    let node = ir.get(id);
    own_facts(node).header_before_replay
        && children(node).into_iter().all(|c| is_header_only_before_replay_at(ir, c, depth + 1))
}

/// Does this filter read only the game header, never the position it is at, as the
/// normalizer counts it: such a conjunct is tested first (the cheapest) and may stand
/// beside `initial find F` when that becomes plain `F`?
///
/// Not the same question as [`is_header_only_before_replay`]: this one leaves out regular
/// expressions (a match sets groups, a state the normalizer must not move) and admits `in`
/// and every built-in function but `power`, `light` and `dark`.
pub fn is_header_only_when_normalizing(ir: &Ir, id: FilterId, memo: &mut Memo) -> bool {
    is_header_only_when_normalizing_at(ir, id, 0, memo)
}

fn is_header_only_when_normalizing_at(ir: &Ir, id: FilterId, depth: usize, memo: &mut Memo) -> bool {
    if let Some(known) = memo.get(id) {
        return known;
    }
    let node = ir.get(id);
    let header_only = own_facts(node).header_when_normalizing
        && depth <= MAX_DEPTH
        && children(node).into_iter().all(|c| is_header_only_when_normalizing_at(ir, c, depth + 1, memo));
    memo.remember(id, header_only)
}

/// Does this filter change state, or read state that a sibling may have set (assignments,
/// dictionaries, `isbound`, comments, messages, `sort`, `settag`, regex groups, the marks
/// made by `line`, `path` state, loops)? Then moving it before or after its siblings could
/// change what the query finds, and the normalizer never reorders it. A filter nested
/// deeper than the analysis looks counts as order-sensitive.
pub fn depends_on_evaluation_order(ir: &Ir, id: FilterId, memo: &mut Memo) -> bool {
    depends_on_evaluation_order_at(ir, id, 0, memo)
}

fn depends_on_evaluation_order_at(ir: &Ir, id: FilterId, depth: usize, memo: &mut Memo) -> bool {
    if let Some(known) = memo.get(id) {
        return known;
    }
    let node = ir.get(id);
    let sensitive = depth > MAX_DEPTH
        || own_facts(node).order_sensitive
        || children(node).into_iter().any(|c| depends_on_evaluation_order_at(ir, c, depth + 1, memo));
    memo.remember(id, sensitive)
}

/// Does this filter look at other positions than the one it is evaluated at (`find`,
/// `line`, `path`, `echo`, square and piece iterations, YACPDB predicates)? The normalizer
/// tests such conjuncts last, as the most expensive. A filter nested deeper than the
/// analysis looks counts as searching.
pub fn searches_other_positions(ir: &Ir, id: FilterId, memo: &mut Memo) -> bool {
    searches_other_positions_at(ir, id, 0, memo)
}

fn searches_other_positions_at(ir: &Ir, id: FilterId, depth: usize, memo: &mut Memo) -> bool {
    if let Some(known) = memo.get(id) {
        return known;
    }
    let node = ir.get(id);
    let searches = depth > MAX_DEPTH
        || own_facts(node).searches
        || children(node).into_iter().any(|c| searches_other_positions_at(ir, c, depth + 1, memo));
    memo.remember(id, searches)
}

/// Does this filter itself (its children aside) change state that the next evaluation of
/// its neighbours sees: a variable or a dictionary entry, the groups of a regular-expression
/// match, a nested loop, the marks of `line`, the state of a path search? A `loop` or
/// `while` with none of these in its body and condition computes the same every time
/// round, so once started it never ends.
pub fn changes_state_for_a_loop(ir: &Ir, id: FilterId) -> bool {
    own_facts(ir.get(id)).changes_state
}

/// Is this variable kept from one game to the next: a `persistent` variable, or a
/// dictionary not declared `local`?
pub fn outlives_the_game(ir: &Ir, var: VarId) -> bool {
    ir.vars.get(var.0 as usize).is_some_and(|v| v.persistent || v.kind == VarKind::Dictionary { local: false })
}

/// Does this filter change state that later games see: assign or unbind a persistent
/// variable, or store into or unbind an entry of a dictionary that is not `local`? A game
/// skipped on its tags never runs such a filter, so header tests written after it must not
/// skip games. A filter nested deeper than the analysis looks counts as writing.
pub fn writes_across_games(ir: &Ir, id: FilterId) -> bool {
    writes_across_games_at(ir, id, 0)
}

fn writes_across_games_at(ir: &Ir, id: FilterId, depth: usize) -> bool {
    if depth > ANALYSIS_DEPTH {
        return true;
    }
    let node = ir.get(id);
    own_facts(node).writes.is_some_and(|var| outlives_the_game(ir, var))
        || children(node).into_iter().any(|c| writes_across_games_at(ir, c, depth + 1))
}

/// What evaluating a filter can leave behind, from the least visible to the most. Every
/// skip the evaluation plan makes is decided from this one classification: a filter may go
/// unevaluated only where what it would leave could not be seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effects {
    /// Nothing but its own result ([`is_pure`]).
    None,
    /// Comments at positions, which CQL 6.2 takes back when a filter around them fails
    /// (`QPos::restoreComments`): invisible when the position does not match.
    Comments,
    /// State a later position of the same game reads, or output written with the game
    /// when it matches: variables, `sort` values, `settag`, `removecomment`, path and move
    /// state. Invisible when the game does not match.
    WithinTheGame,
    /// Something seen whether or not the game matches: a `message`, a file written, the
    /// end of the run, a variable or dictionary that later games read.
    BeyondTheGame,
}

/// What evaluating this filter can leave behind (see [`Effects`]). A filter nested
/// deeper than the analysis looks counts as [`Effects::BeyondTheGame`].
pub fn effects(ir: &Ir, id: FilterId) -> Effects {
    effects_at(ir, id, 0)
}

fn effects_at(ir: &Ir, id: FilterId, depth: usize) -> Effects {
    if depth > ANALYSIS_DEPTH {
        return Effects::BeyondTheGame;
    }
    let node = ir.get(id);
    let facts = own_facts(node);
    let own = if facts.shown_without_a_match || facts.writes.is_some_and(|var| outlives_the_game(ir, var)) {
        Effects::BeyondTheGame
    } else if facts.pure {
        Effects::None
    } else if matches!(node, Filter::Output(OutputFilter::Comment(_))) {
        Effects::Comments
    } else if matches!(
        node,
        Filter::Logic(LogicFilter::And(_) | LogicFilter::Or(_) | LogicFilter::Not(_) | LogicFilter::If { .. })
    ) {
        Effects::None
    } else {
        Effects::WithinTheGame
    };
    children(node).into_iter().fold(own, |most, c| {
        if most == Effects::BeyondTheGame {
            most
        } else {
            most.max(effects_at(ir, c, depth + 1))
        }
    })
}

/// If this filter is a plain `=` assignment of a square set to a variable that is not a
/// piece variable (`v = e4――(to)`, `S = ♘`), the set filter on its right side. CQL 6.2 binds
/// such a variable even where the set filter does not match, to the empty set, so the
/// assignment itself always matches.
pub fn set_assigned_value(ir: &Ir, id: FilterId) -> Option<FilterId> {
    let Filter::Variables(VariableFilter::Assign { var, op: None, value }) = ir.get(id) else {
        return None;
    };
    let piece_var = ir.vars.get(var.0 as usize).is_some_and(|v| v.kind == VarKind::Piece);
    (!piece_var && value_type(ir, *value) == ValueType::Set).then_some(*value)
}

/// What a dictionary holds, as far as the query's text tells. A dictionary keeps the kind of
/// value it was first given; the text decides that kind when every `D[k] = v` stores a value
/// that is a set of squares by its form, or when the dictionary is only ever updated with
/// `+=`, `-=` … (numbers and strings). A value whose kind shows only when the query runs (a
/// variable, a dictionary entry …) leaves it to the entries stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DictionaryContents {
    /// Every entry is a set of squares (an empty dictionary has no entry yet).
    Sets,
    /// No entry is ever a set: nothing is stored with plain `=`.
    NoSets,
    /// The entries stored tell: the dictionary holds sets when an entry is a set.
    DecidedByEntries,
}

/// What each variable holds as a dictionary ([`DictionaryContents`]), indexed by [`VarId`];
/// a variable that is not a dictionary never has entries ([`DictionaryContents::NoSets`]).
/// Every `D[k] = v` of the arena counts, reachable from the root or not.
pub fn dictionary_contents(ir: &Ir) -> Vec<DictionaryContents> {
    /// What the stores into one dictionary are.
    #[derive(Clone, Copy, Default)]
    struct Stores {
        /// Some `D[k] = v` stores a set by its form.
        sets: bool,
        /// Some `D[k] = v` stores a value of another form.
        other_values: bool,
        /// Some `D[k] += v` (or `-=` …) stores a number or a string.
        compound: bool,
    }
    let mut stores = vec![Stores::default(); ir.vars.len()];
    for i in 0..ir.len() {
        let Filter::Variables(VariableFilter::DictSet { dict, op, value, .. }) = ir.get(FilterId(i as u32)) else {
            continue;
        };
        let Some(seen) = stores.get_mut(dict.0 as usize) else {
            continue;
        };
        match op {
            Some(_) => seen.compound = true,
            None if is_always_set(ir, *value) => seen.sets = true,
            None => seen.other_values = true,
        }
    }
    stores
        .into_iter()
        .map(|seen| match seen {
            Stores { sets: false, other_values: false, .. } => DictionaryContents::NoSets,
            Stores { sets: true, other_values: false, compound: false } => DictionaryContents::Sets,
            Stores { .. } => DictionaryContents::DecidedByEntries,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CompileOptions, Query};

    /// The IR of a CQL 6 query after the library's one compile pipeline (transforms
    /// expanded, normalized).
    fn compiled(text: &str) -> Ir {
        Query::compile(text, &mut CompileOptions::default()).expect("query compiles").ir().clone()
    }

    /// The root filter of a compiled query.
    fn root_of(text: &str) -> (Ir, FilterId) {
        let ir = compiled(text);
        let root = ir.root.expect("a query has a root");
        (ir, root)
    }

    /// The first filter reachable from the root (depth first, parents before children)
    /// that `pick` accepts.
    fn first_node(ir: &Ir, pick: impl Fn(&Filter) -> bool) -> FilterId {
        let mut todo: Vec<FilterId> = ir.root.into_iter().collect();
        while let Some(id) = todo.pop() {
            if pick(ir.get(id)) {
                return id;
            }
            todo.extend(children(ir.get(id)).into_iter().rev());
        }
        panic!("no such filter in the query")
    }

    /// The one dictionary of a compiled query (the normalizer renames variables).
    fn dictionary_of(ir: &Ir) -> VarId {
        let i = ir.vars.iter().position(|v| matches!(v.kind, VarKind::Dictionary { .. })).expect("a dictionary");
        VarId(i as u32)
    }

    #[test]
    fn value_types_of_numbers_strings_sets_and_positions() {
        for (text, want) in [
            ("cql() #P == 3", ValueType::Number),
            ("cql() ply", ValueType::Number),
            ("cql() check", ValueType::None),
            ("cql() player white", ValueType::String),
            ("cql() R attacks k", ValueType::Set),
            ("cql() find check", ValueType::Position),
            // Where only matching counts, the normalizer turns `find all` into `find`.
            ("cql() Checks = find all check", ValueType::Number),
        ] {
            let (ir, root) = root_of(text);
            assert_eq!(value_type(&ir, root), want, "{text}");
        }
    }

    #[test]
    fn a_compound_has_the_value_of_its_last_filter() {
        let mut ir = Ir::new();
        let span = crate::diag::Span::default();
        let pawn = ir.add(
            Filter::Sets(SetFilter::Pieces { mask: crate::ir::PieceMask(1), squares: shakmaty::Bitboard::FULL }),
            span,
        );
        let check = ir.add(Filter::PositionState(PositionStateFilter::Check), span);
        let ends_with_the_pawn = ir.add(Filter::Logic(LogicFilter::And(vec![check, pawn])), span);
        let ends_with_check = ir.add(Filter::Logic(LogicFilter::And(vec![pawn, check])), span);
        assert_eq!(value_type(&ir, pawn), ValueType::Set);
        assert_eq!(value_type(&ir, ends_with_the_pawn), ValueType::Set);
        assert_eq!(value_type(&ir, ends_with_check), ValueType::None);
    }

    #[test]
    fn attacks_are_a_set_but_not_computed_from_parts() {
        let (ir, root) = root_of("cql() R attacks k");
        assert!(is_always_set(&ir, root));
        assert!(is_set_expression(&ir, root));
        assert!(fails_on_empty_set(&ir, root));
        assert!(!is_direct_set(&ir, root));
    }

    #[test]
    fn between_is_computed_from_its_parts() {
        let (ir, root) = root_of("cql() between(a1 h8)");
        assert!(matches!(ir.get(root), Filter::Geometry(GeometryFilter::Between(..))));
        assert!(is_direct_set(&ir, root));
    }

    #[test]
    fn an_intersection_of_positions_is_no_direct_set() {
        let mut ir = Ir::new();
        let span = crate::diag::Span::default();
        let source = ir.var("source", VarKind::Position);
        let target = ir.var("target", VarKind::Position);
        let source = ir.add(Filter::Variables(VariableFilter::Var(source)), span);
        let target = ir.add(Filter::Variables(VariableFilter::Var(target)), span);
        let same_content = ir.add(Filter::Sets(SetFilter::Intersection(vec![source, target])), span);
        assert!(is_always_set(&ir, same_content));
        assert!(!is_direct_set(&ir, same_content));
        let rooks = ir.add(
            Filter::Sets(SetFilter::Pieces { mask: crate::ir::PieceMask(1 << 3), squares: shakmaty::Bitboard::FULL }),
            span,
        );
        let rank = ir.add(Filter::Sets(SetFilter::Squares(shakmaty::Bitboard::from_rank(shakmaty::Rank::First))), span);
        let rooks_on_the_rank = ir.add(Filter::Sets(SetFilter::Intersection(vec![rooks, rank])), span);
        assert!(is_direct_set(&ir, rooks_on_the_rank));
    }

    #[test]
    fn only_an_existential_iteration_is_a_set_expression() {
        let (ir, root) = root_of("cql() square x in R check");
        assert!(is_set_expression(&ir, root));
        assert!(!is_always_set(&ir, root));
        let (ir, root) = root_of("cql() square all x in R check");
        assert!(!is_set_expression(&ir, root));
    }

    #[test]
    fn effects_order_and_searches() {
        let (ir, root) = root_of("cql() check");
        assert!(is_pure(&ir, root, &mut Memo::default()));
        assert!(!depends_on_evaluation_order(&ir, root, &mut Memo::default()));
        assert!(!searches_other_positions(&ir, root, &mut Memo::default()));

        // An iteration restores its variable: still effect-free, but it searches squares.
        let (ir, root) = root_of("cql() square x in N check");
        assert!(is_pure(&ir, root, &mut Memo::default()));
        assert!(searches_other_positions(&ir, root, &mut Memo::default()));

        let (ir, root) = root_of("cql() find check");
        assert!(!is_pure(&ir, root, &mut Memo::default()));
        assert!(searches_other_positions(&ir, root, &mut Memo::default()));

        for text in ["cql() x = 1", r#"cql() check comment("here")"#] {
            let (ir, root) = root_of(text);
            assert!(!is_pure(&ir, root, &mut Memo::default()), "{text}");
            assert!(depends_on_evaluation_order(&ir, root, &mut Memo::default()), "{text}");
        }
    }

    #[test]
    fn a_loop_ends_only_if_something_in_it_changes_state() {
        let ir = compiled("cql() x = 0 while (x < 3) x += 1");
        let update = first_node(&ir, |f| matches!(f, Filter::Variables(VariableFilter::Assign { op: Some(_), .. })));
        assert!(changes_state_for_a_loop(&ir, update));
        let condition = first_node(&ir, |f| matches!(f, Filter::Numbers(NumberFilter::Compare { .. })));
        assert!(!changes_state_for_a_loop(&ir, condition));
    }

    #[test]
    fn tag_tests_are_header_only() {
        let (ir, root) = root_of(r#"cql() player white "Kasparov" result 1-0"#);
        assert!(is_header_only_before_replay(&ir, root));
        assert!(is_header_only_when_normalizing(&ir, root, &mut Memo::default()));

        let (ir, root) = root_of("cql() check result 1-0");
        assert!(!is_header_only_before_replay(&ir, root));
        let result = first_node(&ir, |f| matches!(f, Filter::Header(HeaderFilter::Result(_))));
        assert!(is_header_only_before_replay(&ir, result));
    }

    #[test]
    fn the_two_header_only_questions_differ_on_regular_expressions() {
        // The evaluator runs a regular expression on the tags; the normalizer keeps it in
        // place, because a match sets the groups that `\1` reads.
        let (ir, root) = root_of(r#"cql() player white ~~ "Kas.*""#);
        assert!(is_header_only_before_replay(&ir, root));
        assert!(!is_header_only_when_normalizing(&ir, root, &mut Memo::default()));
        assert!(depends_on_evaluation_order(&ir, root, &mut Memo::default()));
    }

    #[test]
    fn persistent_variables_and_shared_dictionaries_write_across_games() {
        for (text, writes) in [
            ("cql() persistent Mates += 1", true),
            (r#"cql() dictionary D D["a"] = 1"#, true),
            (r#"cql() local dictionary D D["a"] = 1"#, false),
            ("cql() x = 1", false),
        ] {
            let (ir, root) = root_of(text);
            assert_eq!(writes_across_games(&ir, root), writes, "{text}");
        }
    }

    #[test]
    fn a_set_assigned_to_a_variable_is_found() {
        let (ir, root) = root_of("cql() x = R attacks k");
        let value = set_assigned_value(&ir, root).expect("a set is assigned");
        assert!(matches!(ir.get(value), Filter::Geometry(GeometryFilter::Attacks { .. })));
        let (ir, root) = root_of("cql() x = 1");
        assert_eq!(set_assigned_value(&ir, root), None);
    }

    #[test]
    fn what_a_dictionary_holds() {
        for (text, want) in [
            (r#"cql() dictionary D D["a"] = a1"#, DictionaryContents::Sets),
            (r#"cql() dictionary D D["a"] += 1"#, DictionaryContents::NoSets),
            (r#"cql() dictionary D x = a1 D["a"] = x"#, DictionaryContents::DecidedByEntries),
            (r#"cql() dictionary D D["a"] = a1 D["b"] += 1"#, DictionaryContents::DecidedByEntries),
        ] {
            let ir = compiled(text);
            assert_eq!(dictionary_contents(&ir)[dictionary_of(&ir).0 as usize], want, "{text}");
        }
    }
}
