//! The one dispatch of the interpreter: each IR variant goes to the evaluator of its
//! family (one file each beside this one, matching the sections of docs/).
//!
//! Part of the filter interpreter ([`super`]). Must never: leave a variant without its
//! evaluator (the match is exhaustive).

use super::*;

impl<'a> Ctx<'a> {
    pub(super) fn eval_inner(&mut self, f: FilterId, at: Loc, vm: bool) -> Eval {
        let filter: &'a Filter = self.ir.get(f);
        // Each family of filters is evaluated in its own file (the sections of docs/).
        match filter {
            Filter::Squares(..)
            | Filter::Pieces { .. }
            | Filter::Union(..)
            | Filter::Intersection(..)
            | Filter::Complement(..)
            | Filter::In(..)
            | Filter::Count(..)
            | Filter::PawnStructure(..) => self.eval_pieces_and_sets(filter, at),
            Filter::Direction { .. }
            | Filter::Attacks { .. }
            | Filter::AttackChain { .. }
            | Filter::Between(..)
            | Filter::Ray { .. }
            | Filter::PinOf { .. }
            | Filter::Pin { .. } => self.eval_attacks_and_geometry(f, filter, at),
            Filter::True
            | Filter::False
            | Filter::Number(..)
            | Filter::Str(..)
            | Filter::Compare { .. }
            | Filter::Arith(..)
            | Filter::Neg(..)
            | Filter::Call(..)
            | Filter::RegexMatch { .. }
            | Filter::RegexGroup(..)
            | Filter::RegexGroupStart(..)
            | Filter::Contains { .. } => self.eval_numbers(f, filter, at, vm),
            Filter::And(..) | Filter::Or(..) | Filter::Not(..) | Filter::If { .. } | Filter::CountMatching(..) => {
                self.eval_logic(filter, at, vm)
            }
            Filter::Check
            | Filter::Mate
            | Filter::Stalemate
            | Filter::ToMove(..)
            | Filter::SideToMove
            | Filter::Initial
            | Filter::Terminal
            | Filter::Ply
            | Filter::MoveNumber
            | Filter::Mainline
            | Filter::Variation
            | Filter::VirtualMainline => self.eval_position_state(filter, at),
            Filter::Header(..)
            | Filter::Result(..)
            | Filter::Year
            | Filter::GameNumber
            | Filter::GameTextContains(..)
            | Filter::HhdbAward { .. }
            | Filter::CurrentFen => self.eval_header(filter, at),
            Filter::Find { .. }
            | Filter::AtPosition { .. }
            | Filter::Tree(..)
            | Filter::Child(..)
            | Filter::TreeRelation(..)
            | Filter::Lca(..)
            | Filter::Distance(..)
            | Filter::Depth
            | Filter::PositionById(..)
            | Filter::PositionId
            | Filter::Line { .. }
            | Filter::Path { .. }
            | Filter::PathStatus(..)
            | Filter::SeqConcat(..)
            | Filter::SeqRepeat { .. }
            | Filter::SeqAlt(..)
            | Filter::Echo { .. }
            | Filter::Try
            | Filter::Yacpdb(..) => self.eval_game_tree(f, filter, at, vm),
            // A key without an entry in a dictionary of sets is the empty set where a value is
            // read (CQL 6.2, `DictionaryRetrieveNode::getSquares`); as a filter it fails.
            Filter::DictGet { dict, .. } if vm => Ok(self
                .eval_variables(filter, at)?
                .or_else(|| self.dict_holds_sets(*dict).then_some(Value::Set(Bitboard::EMPTY)))),
            Filter::Var(..)
            | Filter::Assign { .. }
            | Filter::DictGet { .. }
            | Filter::DictSet { .. }
            | Filter::DictUnbind { .. }
            | Filter::DictCount(..)
            | Filter::IsBound(..)
            | Filter::Unbind(..)
            | Filter::SquareIter { .. }
            | Filter::PieceIter { .. }
            | Filter::IdentityIter { .. }
            | Filter::While { .. } => self.eval_variables(filter, at),
            Filter::Comment(..)
            | Filter::Message { .. }
            | Filter::Sort { .. }
            | Filter::SetTag(..)
            | Filter::RemoveComment
            | Filter::HasComment
            | Filter::OriginalComment => self.eval_output(f, filter, at),
            Filter::Move(mf) => self.eval_move(mf, at),
            Filter::Transform { .. } => Err(internal("internal error: a transform reached the evaluator unexpanded")),
            Filter::LegacyFact(fact) => Ok(crate::eval::legacy_facts::eval(self, fact, at)),
            // `notransform F` is F (the transform expander left F as written).
            Filter::NoTransform(body) => self.eval(*body, at, vm),
            Filter::CurrentTransform(_)
            | Filter::SimilarPosition { .. }
            | Filter::ReadFile(_)
            | Filter::WriteFile(..)
            | Filter::Equal(..)
            | Filter::Abort(_)
            | Filter::PathDebug
            | Filter::LastGameNumber
            | Filter::ConsecutiveMovesIn { .. } => self.eval_keyword62(f, filter, at),
        }
    }
}
