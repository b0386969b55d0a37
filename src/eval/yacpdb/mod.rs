//! Game-level analyses of the YACPDB query language.
//!
//! Takes in: one replayed [`Game`] (its full tree of positions with piece identities).
//! Gives out: an [`Analysis`] — every counted fact ("atom") of the game, such as
//! `TraceBack(wR, 1, true)` or `Models(0, true)` — and, per query predicate, a count:
//! the sum of the matching atoms, or 0/1 for metadata predicates.
//! Must never: read query text, print, or panic on any game (empty, odd FEN, null moves).
//!
//! The definitions followed are those of `yacpdb-definitions.md`, quirks included. In short:
//! every unit (piece identity) gets a *trajectory tree* of the squares it goes to in the
//! different lines of play; walks, cycles, stars, corners and promotions are read from
//! those trees; Platzwechsel, Zilahi and model finales are read from the lines of play.

mod atoms;
mod metadata;
mod trajectory;
mod zilahi;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod test_pgn;

use std::collections::HashMap;

use shakmaty::{Board, CastlingSide, Color, Move, Position, Role, Square};

use crate::eval::finale;
use crate::ir::YacpdbPredicate;
use crate::pgn::{Game, PieceId, Played};

pub use atoms::{Atom, Domain, Kind, Pattern, Value};
pub(crate) use metadata::stip_regex;

/// Everything the YACPDB predicates need from one game, computed once.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// Counted facts. The same atom may appear several times; counts add up.
    atoms: Vec<(Atom, i64)>,
    /// The diagram: every unit with its colour, type and square.
    diagram: Vec<(Color, Role, Square)>,
}

/// What one move of the solution tree does to the units, in identity terms.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    /// Units displaced by the move: identity and arrival square (two when castling).
    pub movers: [(PieceId, Square); 2],
    /// Number of valid entries in `movers` (0 for a null move).
    pub mover_count: u8,
    /// The unit captured by this move (0 = none).
    pub victim: PieceId,
    /// Its type when captured.
    pub victim_role: Option<Role>,
    /// The unit that makes the move (the king when castling; 0 for a null move).
    pub finalizer: PieceId,
    /// Colour of the side that made the move.
    pub mover_color: Option<Color>,
}

impl Default for Step {
    fn default() -> Step {
        Step {
            movers: [(0, Square::A1); 2],
            mover_count: 0,
            victim: 0,
            victim_role: None,
            finalizer: 0,
            mover_color: None,
        }
    }
}

impl Step {
    /// The displaced units.
    pub fn movers(&self) -> &[(PieceId, Square)] {
        &self.movers[..self.mover_count as usize]
    }
    /// Did this move displace the unit?
    pub fn displaces(&self, unit: PieceId) -> bool {
        self.movers().iter().any(|&(u, _)| u == unit)
    }
}

/// Colour and diagram type of every unit, indexed by identity.
pub(crate) type Units = Vec<Option<(Color, Role, Square)>>;

/// Decompose the move into node `index` into displaced and captured units.
pub(crate) fn step_of(game: &Game, index: usize) -> Step {
    let node = &game.nodes[index];
    let Some(parent) = node.parent else { return Step::default() };
    let before = &game.nodes[parent.index()];
    let mut step = Step { mover_color: Some(before.pos.turn()), ..Step::default() };
    let Some(Played::Move(m)) = &node.played else { return step };
    let ids = &before.ids;
    match *m {
        Move::Normal { from, to, capture, .. } => {
            step.movers[0] = (ids.at(from), to);
            step.mover_count = 1;
            step.finalizer = ids.at(from);
            if capture.is_some() {
                step.victim = ids.at(to);
                step.victim_role = capture;
            }
        }
        Move::EnPassant { from, to } => {
            step.movers[0] = (ids.at(from), to);
            step.mover_count = 1;
            step.finalizer = ids.at(from);
            step.victim = ids.at(Square::from_coords(to.file(), from.rank()));
            step.victim_role = Some(Role::Pawn);
        }
        Move::Castle { king, rook } => {
            let side = if rook.file() > king.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let king_to = Square::from_coords(side.king_to_file(), king.rank());
            let rook_to = Square::from_coords(side.rook_to_file(), king.rank());
            step.movers = [(ids.at(king), king_to), (ids.at(rook), rook_to)];
            step.mover_count = 2;
            step.finalizer = ids.at(king);
        }
        Move::Put { .. } => {}
    }
    // Identities the game model does not know (0) are not units: drop them.
    let kept: Vec<(PieceId, Square)> = step.movers().iter().copied().filter(|&(u, _)| u != 0).collect();
    step.mover_count = kept.len() as u8;
    for (slot, k) in step.movers.iter_mut().zip(kept) {
        *slot = k;
    }
    step
}

impl Analysis {
    /// Analyse one replayed game (all lines of its tree).
    pub fn of(game: &Game) -> Analysis {
        let mut analysis = Analysis::default();
        let Some(root) = game.nodes.first() else { return analysis };
        let board = root.pos.board();
        let mut units: Units = vec![None; 256];
        let (mut white, mut black) = (0i64, 0i64);
        for (sq, piece) in board.iter() {
            analysis.diagram.push((piece.color, piece.role, sq));
            if piece.color.is_white() {
                white += 1;
            } else {
                black += 1;
            }
            let id = root.ids.at(sq);
            if id != 0 {
                units[id as usize] = Some((piece.color, piece.role, sq));
            }
        }
        analysis.push(Atom::new(Kind::PCount, &[Value::Color(Color::White)]), white);
        analysis.push(Atom::new(Kind::PCount, &[Value::Color(Color::Black)]), black);
        analysis.push(Atom::new(Kind::Twins, &[]), 1);
        let phases = phases(game);
        if phases > 0 {
            analysis.push(Atom::new(Kind::Phases, &[]), phases);
        }

        let steps: Vec<Step> = (0..game.nodes.len()).map(|i| step_of(game, i)).collect();
        let walk = trajectory::walk(game, &steps, &units);
        for atom in walk.atoms {
            analysis.push(atom, 1);
        }
        for atom in zilahi::analyse(game, &steps, &units, &walk.leaves) {
            analysis.push(atom, 1);
        }
        analysis.models(game, &walk.leaves);
        analysis
    }

    fn push(&mut self, atom: Atom, count: i64) {
        self.atoms.push((atom, count));
    }

    /// One `Models(pins, ideal)` atom per distinct model final position.
    fn models(&mut self, game: &Game, leaves: &[usize]) {
        let mut seen: Vec<(&Board, Color)> = Vec::new();
        for &leaf in leaves {
            let node = &game.nodes[leaf];
            if !matches!(node.played, Some(Played::Move(_))) {
                continue;
            }
            let key = (node.pos.board(), node.pos.turn());
            if seen.contains(&key) {
                continue;
            }
            if let Some(f) = node.pos.as_chess().and_then(finale::classify) {
                if f.model {
                    seen.push(key);
                    self.push(Atom::new(Kind::Models, &[Value::Int(i64::from(f.pins)), Value::Bool(f.ideal)]), 1);
                }
            }
        }
    }

    /// The count of a query predicate in this game: the sum of the matching atoms for the
    /// analysis predicates and `PCount`, 0 or 1 for the metadata predicates. `stip` is
    /// the compiled pattern of a `Stip(pattern)` predicate ([`stip_regex`]).
    pub fn count(&self, pred: &YacpdbPredicate, stip: Option<&regex::Regex>, game: &Game) -> i64 {
        if let Some(kind) = Kind::from_name(&pred.name) {
            let domains = kind.domains();
            let mut patterns = [Pattern::Any; 3];
            for (i, domain) in domains.iter().enumerate() {
                let arg = pred.args.get(i).and_then(|a| a.as_deref());
                patterns[i] = atoms::pattern(arg, *domain);
                if patterns[i] == Pattern::Never {
                    return 0;
                }
            }
            return self
                .atoms
                .iter()
                .filter(|(atom, _)| {
                    atom.kind == kind
                        && patterns[..domains.len()].iter().zip(&atom.args).all(|(p, v)| match p {
                            Pattern::Any => true,
                            Pattern::Exact(x) => x == v,
                            Pattern::Never => false,
                        })
                })
                .map(|(_, n)| *n)
                .sum();
        }
        i64::from(metadata::holds(pred, stip, game, &self.diagram))
    }

    /// Every stored atom in YACPDB spelling with its total count, sorted by spelling.
    pub fn instances(&self) -> Vec<(String, i64)> {
        let mut totals: HashMap<Atom, i64> = HashMap::new();
        for (atom, n) in &self.atoms {
            *totals.entry(*atom).or_insert(0) += n;
        }
        let mut out: Vec<(String, i64)> =
            totals.into_iter().filter(|&(_, n)| n != 0).map(|(a, n)| (a.to_string(), n)).collect();
        out.sort();
        out
    }
}

/// Number of phases: children of the root; a lone null first move counts its own children.
fn phases(game: &Game) -> i64 {
    let root = &game.nodes[0];
    let n = root.children.len() as i64;
    if n == 1 {
        let only = &game.nodes[root.children[0].index()];
        if matches!(only.played, Some(Played::Null)) {
            return n + only.children.len() as i64 - 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse(pgn: &str) -> (Analysis, Game) {
        let game = test_pgn::read_games(pgn).into_iter().next().expect("one game");
        (Analysis::of(&game), game)
    }

    fn count(a: &(Analysis, Game), name: &str, args: &[Option<&str>]) -> i64 {
        let pred = YacpdbPredicate { name: name.into(), args: args.iter().map(|a| a.map(String::from)).collect() };
        a.0.count(&pred, stip_regex(&pred).as_ref(), &a.1)
    }

    #[test]
    fn switchback_with_capture_flag_from_arrival() {
        // extra game 10: 1.Rxa5 2.Ra7 3.Ra5 — the arrival on a5 captured, so the flag is true.
        let a = analyse("[FEN \"k7/8/7K/p7/8/8/8/R7 w - - 0 1\"]\n1. Rxa5 Kb8 2. Ra7 Kc8 3. Ra5 *");
        assert_eq!(count(&a, "TraceBack", &[Some("wR"), Some("1"), Some("true")]), 1);
        assert_eq!(count(&a, "TraceBack", &[Some("wR"), Some("1"), Some("false")]), 0);
        assert_eq!(count(&a, "ClosedWalk", &[None, None, None]), 0);
    }

    #[test]
    fn phases_count_root_children_and_set_play() {
        let a = analyse("[FEN \"k7/8/1K6/8/8/8/8/7R w - - 0 1\"]\n1. Rh8# (1. Rh7 Kb8) *");
        assert_eq!(count(&a, "Phases", &[]), 2);
        assert_eq!(count(&a, "Twins", &[]), 1);
        assert_eq!(count(&a, "PCount", &[Some("w")]), 2);
        assert_eq!(count(&a, "PCount", &[None]), 3);
        assert_eq!(count(&a, "Models", &[None, Some("true")]), 1);
        assert_eq!(count(&a, "Models", &[Some("0"), None]), 1);
        let empty = analyse("[Event \"x\"]\n*");
        assert_eq!(count(&empty, "Phases", &[]), 0);
    }

    #[test]
    fn star_of_a_bishop() {
        let a =
            analyse("[FEN \"k6K/8/8/8/3B4/8/8/8 w - - 0 1\"]\n1. Bc3 ( 1. Bc5 ) ( 1. Be3 ) ( 1. Be5 ) ( 1. Bb2 ) *");
        assert_eq!(count(&a, "Star", &[Some("wB")]), 1);
        assert_eq!(count(&a, "BigStar", &[Some("wB")]), 0);
        assert!(a.0.instances().contains(&("Star(wB)".to_string(), 1)));
    }
}
