//! Game-level YACPDB analyses (walks, echoes, twins …) of a problem's solution tree.
//!
//! TEMPORARY STUB written by the evaluator engineer so the evaluator compiles; the real
//! module is written by another engineer and replaces this file at merge.
//! Takes in: a replayed game. Gives out: counts of predicates.
//! Must never: print (the stub panics: it is not implemented here).

use crate::ir::YacpdbPredicate;
use crate::pgn::Game;

/// Everything YACPDB predicates need to know about one game, computed once.
#[derive(Debug)]
pub struct Analysis {}

impl Analysis {
    /// Analyse a game's solution tree.
    pub fn of(game: &Game) -> Analysis {
        let _ = game;
        unimplemented!("yacpdb::Analysis is provided by the yacpdb module at merge")
    }
    /// The number of instances of a predicate in the game.
    pub fn count(&self, pred: &YacpdbPredicate, game: &Game) -> i64 {
        let _ = (pred, game);
        unimplemented!("yacpdb::Analysis is provided by the yacpdb module at merge")
    }
    /// Every predicate instance found, with its count (for `--json`).
    pub fn instances(&self) -> Vec<(String, i64)> {
        unimplemented!("yacpdb::Analysis is provided by the yacpdb module at merge")
    }
}
