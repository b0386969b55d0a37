//! Zilahi: a unit that makes the final move of one line is captured in another line, and
//! such lines chain into circles.
//!
//! Takes in: a replayed game, its [`Step`]s, the unit table and the solution-tree leaves.
//! Gives out: `Zilahi(folds)` and `ZilahiPiece(type, unmoved)` atoms.
//! Must never: run unbounded — the cycle search stops after a fixed amount of work.

use std::collections::HashSet;

use shakmaty::{Color, Role};

use super::atoms::{Atom, Kind, Value};
use super::metadata::{stipulation, stipulation_play, Play};
use super::{Step, Units};
use crate::pgn::{Game, PieceId, Played};

/// Upper bound on cycle-search steps per game (far above anything a real problem needs).
const SEARCH_BUDGET: usize = 2_000_000;

/// One finishing line: who made the last move, and who was captured on the way.
struct Line {
    finalizer: PieceId,
    /// Captured units: identity, type when captured, never moved on this line.
    captured: Vec<(PieceId, Role, bool)>,
}

impl Line {
    fn capture_of(&self, unit: PieceId) -> Option<(Role, bool)> {
        self.captured.iter().find(|c| c.0 == unit).map(|c| (c.1, c.2))
    }
}

/// Find the Zilahi atoms of a game.
pub(crate) fn analyse(game: &Game, steps: &[Step], units: &Units, leaves: &[usize]) -> Vec<Atom> {
    let play = stipulation(game).map(|s| stipulation_play(&s)).unwrap_or(Play::Other);
    let completing =
        if matches!(play, Play::Self_ | Play::Reflex | Play::HelpSelf) { Color::Black } else { Color::White };
    let lines: Vec<Line> = leaves
        .iter()
        .filter(|&&leaf| {
            matches!(game.nodes[leaf].played, Some(Played::Move(_)))
                && steps[leaf].mover_color == Some(completing)
                && steps[leaf].finalizer != 0
        })
        .map(|&leaf| line_of(game, steps, leaf))
        .collect();
    let mut atoms = Vec::new();
    if lines.len() < 2 {
        return non_cyclic(&lines, &HashSet::new(), play, units, atoms);
    }
    // successors[i] = lines in which the finalizer of line i is captured.
    let successors: Vec<Vec<usize>> = lines
        .iter()
        .enumerate()
        .map(|(i, li)| (0..lines.len()).filter(|&j| j != i && lines[j].capture_of(li.finalizer).is_some()).collect())
        .collect();
    let mut in_cycle: HashSet<PieceId> = HashSet::new();
    let mut budget = SEARCH_BUDGET;
    for start in 0..lines.len() {
        let mut path = vec![start];
        extend(&lines, &successors, &mut path, &mut budget, &mut |cycle| {
            atoms.push(Atom::new(Kind::Zilahi, &[Value::Int(cycle.len() as i64)]));
            for (k, &from) in cycle.iter().enumerate() {
                let to = cycle[(k + 1) % cycle.len()];
                let unit = lines[from].finalizer;
                in_cycle.insert(unit);
                if let Some((role, unmoved)) = lines[to].capture_of(unit) {
                    atoms.push(piece_atom(units, unit, role, unmoved));
                }
            }
        });
    }
    non_cyclic(&lines, &in_cycle, play, units, atoms)
}

/// Depth-first search for cycles starting at `path[0]` whose other lines have higher
/// indices and whose finalizers are all different. The depth is bounded by the number of
/// distinct finalizers (at most the number of units).
fn extend(
    lines: &[Line],
    successors: &[Vec<usize>],
    path: &mut Vec<usize>,
    budget: &mut usize,
    found: &mut dyn FnMut(&[usize]),
) {
    let start = path[0];
    let Some(&last) = path.last() else { return };
    for &next in &successors[last] {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        if next == start {
            if path.len() >= 2 {
                found(path);
            }
            continue;
        }
        if next < start || path.iter().any(|&p| lines[p].finalizer == lines[next].finalizer) {
            continue;
        }
        path.push(next);
        extend(lines, successors, path, budget, found);
        path.pop();
    }
}

/// In helpmates (and help-selfmates), a finalizer in no cycle that is captured in another
/// finishing line still counts as one Zilahi piece.
fn non_cyclic(
    lines: &[Line],
    in_cycle: &HashSet<PieceId>,
    play: Play,
    units: &Units,
    mut atoms: Vec<Atom>,
) -> Vec<Atom> {
    if !matches!(play, Play::Help | Play::HelpSelf) {
        return atoms;
    }
    let mut done: HashSet<PieceId> = HashSet::new();
    for line in lines {
        let unit = line.finalizer;
        if in_cycle.contains(&unit) || !done.insert(unit) {
            continue;
        }
        if let Some((role, unmoved)) = lines.iter().find_map(|other| other.capture_of(unit)) {
            atoms.push(piece_atom(units, unit, role, unmoved));
        }
    }
    atoms
}

fn piece_atom(units: &Units, unit: PieceId, role: Role, unmoved: bool) -> Atom {
    let color = units[unit as usize].map_or(Color::White, |u| u.0);
    Atom::new(Kind::ZilahiPiece, &[Value::Piece(color, role), Value::Bool(unmoved)])
}

/// Collect the finalizer and the captures of the line ending at `leaf`.
fn line_of(game: &Game, steps: &[Step], leaf: usize) -> Line {
    let mut moved = [false; 256];
    let mut captured = Vec::new();
    let mut cursor = Some(leaf);
    while let Some(index) = cursor {
        let step = &steps[index];
        for &(unit, _) in step.movers() {
            moved[unit as usize] = true;
        }
        if let Some(role) = step.victim_role {
            if step.victim != 0 {
                captured.push((step.victim, role));
            }
        }
        cursor = game.nodes[index].parent.map(|p| p.index());
    }
    captured.reverse();
    Line {
        finalizer: steps[leaf].finalizer,
        captured: captured.into_iter().map(|(u, r)| (u, r, !moved[u as usize])).collect(),
    }
}
