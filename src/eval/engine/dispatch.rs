//! The one dispatch of the interpreter: each IR variant goes to the evaluator of its
//! family (one file each beside this one, matching the sections of docs/).
//!
//! Part of the filter interpreter ([`super`]). Must never: leave a variant without its
//! evaluator (the match is exhaustive).

use super::attacks_and_geometry::GeometryFilter;
use super::game_tree::GameTreeFilter;
use super::header::HeaderFilter;
use super::keywords62::Keyword62Filter;
use super::logic::LogicFilter;
use super::numbers::NumberFilter;
use super::output::OutputFilter;
use super::pieces_and_sets::SetFilter;
use super::position_state::PositionStateFilter;
use super::variables::VariableFilter;
use super::*;

/// A filter seen as one of the families of the interpreter, with the fields of its variant:
/// the shape the IR would have with one sub-enum per family. [`Family::of`] is the one
/// match over the IR's variants; each family's evaluator then matches its own sub-enum,
/// which has every variant of the family and no other.
pub(super) enum Family<'a> {
    /// docs/pieces-and-sets.md, src/eval/engine/pieces_and_sets.rs.
    Sets(SetFilter<'a>),
    /// docs/attacks-and-geometry.md, src/eval/engine/attacks_and_geometry.rs.
    Geometry(GeometryFilter<'a>),
    /// docs/numbers.md, src/eval/engine/numbers.rs.
    Numbers(NumberFilter<'a>),
    /// docs/numbers.md, src/eval/engine/logic.rs.
    Logic(LogicFilter<'a>),
    /// docs/position-state.md, src/eval/engine/position_state.rs.
    PositionState(PositionStateFilter),
    /// docs/header.md, src/eval/engine/header.rs.
    Header(HeaderFilter<'a>),
    /// docs/game-tree.md, src/eval/engine/game_tree.rs.
    GameTree(GameTreeFilter<'a>),
    /// docs/iteration.md, src/eval/engine/variables.rs.
    Variables(VariableFilter<'a>),
    /// docs/output.md, src/eval/engine/output.rs.
    Output(OutputFilter<'a>),
    /// docs/transforms.md, src/eval/engine/keywords62.rs.
    Keyword62(Keyword62Filter<'a>),
    /// `move` (docs/moves.md, src/eval/engine/move_filter.rs).
    Move(&'a MoveFilter),
    /// A fact of the legacy language (src/eval/legacy_facts.rs).
    LegacyFact(&'a crate::ir::LegacyFact),
    /// `notransform F`: F as written.
    NoTransform(FilterId),
    /// A transform the expander did not expand: an error.
    Transform,
}

impl<'a> Family<'a> {
    /// The family of `filter`, with the fields of its variant.
    #[inline]
    pub(super) fn of(filter: &'a Filter) -> Family<'a> {
        match filter {
            Filter::Squares(x) => Family::Sets(SetFilter::Squares(x)),
            Filter::Pieces { mask, squares } => Family::Sets(SetFilter::Pieces { mask, squares }),
            Filter::Union(x) => Family::Sets(SetFilter::Union(x)),
            Filter::Intersection(x) => Family::Sets(SetFilter::Intersection(x)),
            Filter::Complement(x) => Family::Sets(SetFilter::Complement(x)),
            Filter::In(x0, x1) => Family::Sets(SetFilter::In(x0, x1)),
            Filter::Count(x) => Family::Sets(SetFilter::Count(x)),
            Filter::PawnStructure(x) => Family::Sets(SetFilter::PawnStructure(x)),
            Filter::Direction { dirs, min, max, range_variables, arg } => {
                Family::Geometry(GeometryFilter::Direction { dirs, min, max, range_variables, arg })
            }
            Filter::Attacks { attackers, targets, value_is_targets } => {
                Family::Geometry(GeometryFilter::Attacks { attackers, targets, value_is_targets })
            }
            Filter::AttackChain { sets, value_is_last } => {
                Family::Geometry(GeometryFilter::AttackChain { sets, value_is_last })
            }
            Filter::Between(..) => Family::Geometry(GeometryFilter::Between),
            Filter::Ray { .. } => Family::Geometry(GeometryFilter::Ray),
            Filter::PinOf { from, through, to, part } => {
                Family::Geometry(GeometryFilter::PinOf { from, through, to, part })
            }
            Filter::True => Family::Numbers(NumberFilter::True),
            Filter::False => Family::Numbers(NumberFilter::False),
            Filter::Number(x) => Family::Numbers(NumberFilter::Number(x)),
            Filter::Str(x) => Family::Numbers(NumberFilter::Str(x)),
            Filter::Compare { first, rest } => Family::Numbers(NumberFilter::Compare { first, rest }),
            Filter::Arith(x0, x1, x2) => Family::Numbers(NumberFilter::Arith(x0, x1, x2)),
            Filter::Neg(x) => Family::Numbers(NumberFilter::Neg(x)),
            Filter::Call(x0, x1) => Family::Numbers(NumberFilter::Call(x0, x1)),
            Filter::RegexMatch { subject, .. } => Family::Numbers(NumberFilter::RegexMatch { subject }),
            Filter::RegexGroup(x) => Family::Numbers(NumberFilter::RegexGroup(x)),
            Filter::RegexGroupStart(x) => Family::Numbers(NumberFilter::RegexGroupStart(x)),
            Filter::Contains { haystack, needle, ignore_case } => {
                Family::Numbers(NumberFilter::Contains { haystack, needle, ignore_case })
            }
            Filter::And(x) => Family::Logic(LogicFilter::And(x)),
            Filter::Or(x) => Family::Logic(LogicFilter::Or(x)),
            Filter::Not(x) => Family::Logic(LogicFilter::Not(x)),
            Filter::If { cond, then, otherwise } => Family::Logic(LogicFilter::If { cond, then, otherwise }),
            Filter::CountMatching(x) => Family::Logic(LogicFilter::CountMatching(x)),
            Filter::Check => Family::PositionState(PositionStateFilter::Check),
            Filter::Mate => Family::PositionState(PositionStateFilter::Mate),
            Filter::Stalemate => Family::PositionState(PositionStateFilter::Stalemate),
            Filter::ToMove(_) => Family::PositionState(PositionStateFilter::ToMove),
            Filter::SideToMove => Family::PositionState(PositionStateFilter::SideToMove),
            Filter::Initial => Family::PositionState(PositionStateFilter::Initial),
            Filter::Terminal => Family::PositionState(PositionStateFilter::Terminal),
            Filter::Ply => Family::PositionState(PositionStateFilter::Ply),
            Filter::MoveNumber => Family::PositionState(PositionStateFilter::MoveNumber),
            Filter::Mainline => Family::PositionState(PositionStateFilter::Mainline),
            Filter::Variation => Family::PositionState(PositionStateFilter::Variation),
            Filter::VirtualMainline => Family::PositionState(PositionStateFilter::VirtualMainline),
            Filter::Header(x) => Family::Header(HeaderFilter::Header(x)),
            Filter::Result(x) => Family::Header(HeaderFilter::Result(x)),
            Filter::Year => Family::Header(HeaderFilter::Year),
            Filter::GameNumber => Family::Header(HeaderFilter::GameNumber),
            Filter::GameTextContains(x) => Family::Header(HeaderFilter::GameTextContains(x)),
            Filter::HhdbAward { kind, special, max } => Family::Header(HeaderFilter::HhdbAward { kind, special, max }),
            Filter::CurrentFen => Family::Header(HeaderFilter::CurrentFen),
            Filter::Find { direction, all, range, quiet, body } => {
                Family::GameTree(GameTreeFilter::Find { direction, all, range, quiet, body })
            }
            Filter::AtPosition { at: position, body } => {
                Family::GameTree(GameTreeFilter::AtPosition { at: position, body })
            }
            Filter::Tree(x) => Family::GameTree(GameTreeFilter::Tree(x)),
            Filter::Child(x) => Family::GameTree(GameTreeFilter::Child(x)),
            Filter::TreeRelation(x0, x1, x2) => Family::GameTree(GameTreeFilter::TreeRelation(x0, x1, x2)),
            Filter::Lca(x0, x1) => Family::GameTree(GameTreeFilter::Lca(x0, x1)),
            Filter::Distance(x0, x1) => Family::GameTree(GameTreeFilter::Distance(x0, x1)),
            Filter::Depth => Family::GameTree(GameTreeFilter::Depth),
            Filter::PositionById(x) => Family::GameTree(GameTreeFilter::PositionById(x)),
            Filter::PositionId => Family::GameTree(GameTreeFilter::PositionId),
            Filter::Line { params, body } => Family::GameTree(GameTreeFilter::Line { params, body }),
            Filter::Path { params, focus, best, title, body } => {
                Family::GameTree(GameTreeFilter::Path { params, focus, best, title, body })
            }
            Filter::PathStatus(x) => Family::GameTree(GameTreeFilter::PathStatus(x)),
            Filter::SeqConcat(_) => Family::GameTree(GameTreeFilter::SeqConcat),
            Filter::SeqRepeat { .. } => Family::GameTree(GameTreeFilter::SeqRepeat),
            Filter::SeqAlt(_) => Family::GameTree(GameTreeFilter::SeqAlt),
            Filter::Echo { source, target, in_all, variations, marks, body } => {
                Family::GameTree(GameTreeFilter::Echo { source, target, in_all, variations, marks, body })
            }
            Filter::Try => Family::GameTree(GameTreeFilter::Try),
            Filter::Yacpdb(x) => Family::GameTree(GameTreeFilter::Yacpdb(x)),
            Filter::Var(x) => Family::Variables(VariableFilter::Var(x)),
            Filter::Assign { var, op, value } => Family::Variables(VariableFilter::Assign { var, op, value }),
            Filter::DictGet { dict, key } => Family::Variables(VariableFilter::DictGet { dict, key }),
            Filter::DictSet { dict, key, op, value } => {
                Family::Variables(VariableFilter::DictSet { dict, key, op, value })
            }
            Filter::DictUnbind { dict, key } => Family::Variables(VariableFilter::DictUnbind { dict, key }),
            Filter::DictCount(x) => Family::Variables(VariableFilter::DictCount(x)),
            Filter::IsBound(x) => Family::Variables(VariableFilter::IsBound(x)),
            Filter::Unbind(x) => Family::Variables(VariableFilter::Unbind(x)),
            Filter::SquareIter { var, domain, body, forall } => {
                Family::Variables(VariableFilter::SquareIter { var, domain, body, forall })
            }
            Filter::PieceIter { var, domain, body, forall } => {
                Family::Variables(VariableFilter::PieceIter { var, domain, body, forall })
            }
            Filter::IdentityIter { var, mask, body } => {
                Family::Variables(VariableFilter::IdentityIter { var, mask, body })
            }
            Filter::While { cond, body } => Family::Variables(VariableFilter::While { cond, body }),
            Filter::Comment(x) => Family::Output(OutputFilter::Comment(x)),
            Filter::Message { args, quiet } => Family::Output(OutputFilter::Message { args, quiet }),
            Filter::Sort { doc, min, quiet, value } => Family::Output(OutputFilter::Sort { doc, min, quiet, value }),
            Filter::SetTag(x0, x1) => Family::Output(OutputFilter::SetTag(x0, x1)),
            Filter::RemoveComment => Family::Output(OutputFilter::RemoveComment),
            Filter::HasComment => Family::Output(OutputFilter::HasComment),
            Filter::OriginalComment => Family::Output(OutputFilter::OriginalComment),
            Filter::CurrentTransform(x) => Family::Keyword62(Keyword62Filter::CurrentTransform(x)),
            Filter::SimilarPosition { file, game_number, .. } => {
                Family::Keyword62(Keyword62Filter::SimilarPosition { file, game_number })
            }
            Filter::ReadFile(x) => Family::Keyword62(Keyword62Filter::ReadFile(x)),
            Filter::WriteFile(x0, x1) => Family::Keyword62(Keyword62Filter::WriteFile(x0, x1)),
            Filter::Equal(x0, x1) => Family::Keyword62(Keyword62Filter::Equal(x0, x1)),
            Filter::Abort(x) => Family::Keyword62(Keyword62Filter::Abort(x)),
            Filter::PathDebug => Family::Keyword62(Keyword62Filter::PathDebug),
            Filter::LastGameNumber => Family::Keyword62(Keyword62Filter::LastGameNumber),
            Filter::ConsecutiveMoves { x, y, min, max, quiet } => {
                Family::Keyword62(Keyword62Filter::ConsecutiveMoves { x, y, min, max, quiet })
            }
            Filter::Move(mf) => Family::Move(mf),
            Filter::LegacyFact(fact) => Family::LegacyFact(fact),
            Filter::NoTransform(body) => Family::NoTransform(*body),
            Filter::Transform { .. } => Family::Transform,
        }
    }
}

impl<'a> Ctx<'a> {
    /// Evaluate filter `f` at `at` (in value mode when `vm`) by the evaluator of its family,
    /// which receives the fields of its variant.
    pub(super) fn eval_inner(&mut self, f: FilterId, at: Loc, vm: bool) -> Eval {
        let filter: &'a Filter = self.ir.get(f);
        // Each family of filters is evaluated in its own file (the sections of docs/). The
        // match over the IR's variants is kept out of this function, which every nested
        // filter passes through: its stack frame stays small.
        match &Family::of(filter) {
            // A key without an entry in a dictionary of sets is the empty set where a value is
            // read (CQL 6.2, `DictionaryRetrieveNode::getSquares`); as a filter it fails.
            Family::Variables(v @ VariableFilter::DictGet { dict, .. }) if vm => Ok(self
                .eval_variables(f, v, at)?
                .or_else(|| self.dict_holds_sets(**dict).then_some(Value::Set(Bitboard::EMPTY)))),
            Family::Sets(v) => self.eval_pieces_and_sets(v, at),
            Family::Geometry(v) => self.eval_attacks_and_geometry(f, v, at),
            Family::Numbers(v) => self.eval_numbers(f, v, at, vm),
            Family::Logic(v) => self.eval_logic(v, at, vm),
            Family::PositionState(v) => self.eval_position_state(f, v, at),
            Family::Header(v) => self.eval_header(v, at),
            Family::GameTree(v) => self.eval_game_tree(f, v, at, vm),
            Family::Variables(v) => self.eval_variables(f, v, at),
            Family::Output(v) => self.eval_output(f, v, at),
            Family::Keyword62(v) => self.eval_keyword62(f, v, at),
            Family::Move(mf) => self.eval_move(mf, at),
            Family::LegacyFact(fact) => Ok(crate::eval::legacy_facts::eval(self, fact, at)),
            // `notransform F` is F (the transform expander left F as written).
            Family::NoTransform(body) => self.eval(*body, at, vm),
            Family::Transform => Err(internal("internal error: a transform reached the evaluator unexpanded")),
        }
    }
}
