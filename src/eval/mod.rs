//! Evaluation of a compiled query over games.
//!
//! Takes in: an [`Ir`] (transforms already expanded) and [`Game`]s.
//! Gives out: for each game a [`GameMatch`] — whether it matched, at which positions,
//! the comments and sort values to write.
//! Must never: read source text, print, or keep state between games except
//! `persistent` variables in its [`Scratch`].

use crate::ir::Ir;
use crate::pgn::{Game, NodeId};

/// The error of the eval layer: a query the evaluator cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A compiled query: immutable, shared by all worker threads.
#[derive(Debug)]
pub struct Query {
    ir: Ir,
}

/// Per-worker mutable state: variable slots, caches, persistent sums.
#[derive(Debug, Default)]
pub struct Scratch {}

/// What a query found in one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameMatch {
    /// Did the game match (matchcount satisfied)?
    pub matched: bool,
    /// The matching positions, in game-tree order.
    pub positions: Vec<NodeId>,
    /// Comments to write after the move into a position (`comment`, `///`).
    pub comments: Vec<(NodeId, String)>,
    /// Sort keys (`sort`): documentation and value, outermost first.
    pub sort: Vec<(String, i64)>,
    /// Tags to set in the output (`settag`).
    pub set_tags: Vec<(String, String)>,
    /// Lines for the console (`message`).
    pub messages: Vec<String>,
    /// YACPDB predicate instances found, with their counts (for `--json`).
    pub predicates: Vec<(String, i64)>,
}

impl Query {
    /// Compile an IR (transforms expanded) into a query.
    pub fn new(ir: Ir) -> Result<Query, Error> {
        Ok(Query { ir })
    }

    /// The IR this query runs.
    pub fn ir(&self) -> &Ir {
        &self.ir
    }

    /// Does the query need positions (move replay)? `false` for header-only queries.
    pub fn needs_positions(&self) -> bool {
        true
    }

    /// Can a game with these tags (no moves read yet) still match? Header filters
    /// are checked here, before replay.
    pub fn may_match_tags(&self, _game: &Game) -> bool {
        true
    }

    /// Evaluate the query on a replayed game.
    pub fn eval_game(&self, _scratch: &mut Scratch, _game: &Game) -> GameMatch {
        GameMatch::default()
    }

    /// Persistent variables accumulated in the given scratches, merged: name and
    /// printed value, in declaration order.
    pub fn persistent_totals(&self, _scratches: &[Scratch]) -> Vec<(String, String)> {
        Vec::new()
    }
}
