//! Trajectory trees of the units and the facts read from them: walks and cycles, stars
//! and crosses, corner visits, Excelsior; and Platzwechsel, read along the lines of play.
//!
//! Takes in: a replayed game, its per-node [`Step`]s and the unit table.
//! Gives out: [`Walk`] — the atoms found and the solution-tree leaves in file order.
//! Must never: recurse on the game tree (it is walked with an explicit stack) or go
//! deeper than the length of one trajectory when rescanning walks.

use shakmaty::{Color, Position, Role, Square};

use super::atoms::{Atom, Kind, Value};
use super::{Step, Units};
use crate::pgn::{Game, PieceId};

const NONE: u32 = u32::MAX;

/// One node of a unit's trajectory tree: a square the unit arrived on in some line.
#[derive(Clone, Copy, Debug)]
struct TNode {
    unit: PieceId,
    square: Square,
    /// The unit's type after the move that arrived here (the diagram type at the root).
    role: Role,
    /// The move that arrived here captured something.
    capture: bool,
    parent: u32,
    first_child: u32,
    next_sibling: u32,
    children: u32,
    /// Moves of the unit from the diagram to here.
    depth: u32,
}

/// Result of the tree walk.
pub(crate) struct Walk {
    /// Trajectory and Platzwechsel atoms.
    pub atoms: Vec<Atom>,
    /// Leaves of the solution tree (node indices), in file order.
    pub leaves: Vec<usize>,
}

enum Visit {
    Enter(usize),
    Exit { undo_mark: usize, pushed_line: bool },
}

/// Build every unit's trajectory tree over the solution tree and read the atoms.
pub(crate) fn walk(game: &Game, steps: &[Step], units: &Units) -> Walk {
    let mut atoms = Vec::new();
    let mut leaves = Vec::new();
    let mut tnodes: Vec<TNode> = Vec::with_capacity(game.nodes.len() + 32);
    let mut front = vec![NONE; 256];
    for (id, unit) in units.iter().enumerate() {
        if let Some((_, role, sq)) = unit {
            front[id] = tnodes.len() as u32;
            tnodes.push(TNode {
                unit: id as PieceId,
                square: *sq,
                role: *role,
                capture: false,
                parent: NONE,
                first_child: NONE,
                next_sibling: NONE,
                children: 0,
                depth: 0,
            });
        }
    }
    let mut undo: Vec<(PieceId, u32)> = Vec::new();
    let mut line: Vec<usize> = Vec::new();
    let mut stack = vec![Visit::Enter(0)];
    while let Some(visit) = stack.pop() {
        match visit {
            Visit::Enter(index) => {
                let node = &game.nodes[index];
                let step = &steps[index];
                let undo_mark = undo.len();
                for &(unit, to) in step.movers() {
                    let parent = front[unit as usize];
                    if parent == NONE {
                        continue;
                    }
                    let role = node.pos.board().role_at(to).unwrap_or(tnodes[parent as usize].role);
                    let new = tnodes.len() as u32;
                    let p = &mut tnodes[parent as usize];
                    let sibling = p.first_child;
                    p.first_child = new;
                    p.children += 1;
                    let depth = p.depth + 1;
                    tnodes.push(TNode {
                        unit,
                        square: to,
                        role,
                        capture: step.victim_role.is_some() && unit == step.finalizer && step.mover_count == 1,
                        parent,
                        first_child: NONE,
                        next_sibling: sibling,
                        children: 0,
                        depth,
                    });
                    undo.push((unit, parent));
                    front[unit as usize] = new;
                }
                let pushed_line = step.mover_count > 0;
                if pushed_line {
                    platzwechsel(game, steps, &line, index, units, &mut atoms);
                    line.push(index);
                }
                stack.push(Visit::Exit { undo_mark, pushed_line });
                if node.children.is_empty() {
                    leaves.push(index);
                }
                for child in node.children.iter().rev() {
                    stack.push(Visit::Enter(child.index()));
                }
            }
            Visit::Exit { undo_mark, pushed_line } => {
                while undo.len() > undo_mark {
                    if let Some((unit, previous)) = undo.pop() {
                        front[unit as usize] = previous;
                    }
                }
                if pushed_line {
                    line.pop();
                }
            }
        }
    }
    read_trees(&tnodes, units, &mut atoms);
    Walk { atoms, leaves }
}

fn piece(units: &Units, unit: PieceId, role: Role) -> Value {
    let color = units[unit as usize].map_or(Color::White, |u| u.0);
    Value::Piece(color, role)
}

/// Read walks, patterns, corners and promotions from the finished trajectory trees.
fn read_trees(tnodes: &[TNode], units: &Units, atoms: &mut Vec<Atom>) {
    let mut corners = vec![0u8; 256];
    let mut seq: Vec<u32> = Vec::new();
    for (index, t) in tnodes.iter().enumerate() {
        if let Some(bit) = corner_bit(t.square) {
            corners[t.unit as usize] |= bit;
        }
        if t.children > 3 {
            patterns(tnodes, t, units, atoms);
        }
        if t.parent != NONE {
            if corner_bit(t.square).is_some() {
                let mut back = t.parent;
                while back != NONE {
                    let b = &tnodes[back as usize];
                    if corner_bit(b.square).is_some() && b.square != t.square {
                        atoms.push(Atom::new(Kind::CornerToCorner, &[piece(units, t.unit, b.role)]));
                        break;
                    }
                    back = b.parent;
                }
            }
            let parent = &tnodes[t.parent as usize];
            let was_pawn_in_diagram = units[t.unit as usize].is_some_and(|u| u.1 == Role::Pawn);
            if was_pawn_in_diagram && parent.role == Role::Pawn && t.role != Role::Pawn {
                atoms.push(Atom::new(Kind::Excelsior, &[piece(units, t.unit, t.role), Value::Int(i64::from(t.depth))]));
            }
            if t.children == 0 {
                seq.clear();
                let mut cur = index as u32;
                while cur != NONE {
                    seq.push(cur);
                    cur = tnodes[cur as usize].parent;
                }
                seq.reverse();
                scan_walks(tnodes, &seq, units, atoms);
            }
        }
    }
    for (unit, &bits) in corners.iter().enumerate() {
        if bits == 0b1111 {
            if let Some((color, role, _)) = units[unit] {
                atoms.push(Atom::new(Kind::FourCorners, &[Value::Piece(color, role)]));
            }
        }
    }
}

fn corner_bit(sq: Square) -> Option<u8> {
    match sq {
        Square::A1 => Some(1),
        Square::A8 => Some(2),
        Square::H1 => Some(4),
        Square::H8 => Some(8),
        _ => None,
    }
}

const PATTERNS: [(Kind, &[(i32, i32)]); 7] = [
    (Kind::Star, &[(1, 1), (1, -1), (-1, 1), (-1, -1)]),
    (Kind::BigStar, &[(2, 2), (2, -2), (-2, 2), (-2, -2)]),
    (Kind::Cross, &[(0, 1), (0, -1), (1, 0), (-1, 0)]),
    (Kind::BigCross, &[(0, 2), (0, -2), (2, 0), (-2, 0)]),
    (Kind::Wheel, &[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]),
    (Kind::Albino, &[(-1, 1), (1, 1), (0, 1), (0, 2)]),
    (Kind::Pickaninny, &[(-1, -1), (1, -1), (0, -1), (0, -2)]),
];

/// Star, Cross, Wheel, … at a trajectory node with more than three continuations.
fn patterns(tnodes: &[TNode], t: &TNode, units: &Units, atoms: &mut Vec<Atom>) {
    let mut next = 0u64;
    let mut child = t.first_child;
    while child != NONE {
        let c = &tnodes[child as usize];
        next |= 1 << (c.square as u32);
        child = c.next_sibling;
    }
    let (file, rank) = (t.square.file() as i32, t.square.rank() as i32);
    for (kind, offsets) in PATTERNS {
        let all = offsets.iter().all(|&(df, dr)| {
            let (f, r) = (file + df, rank + dr);
            (0..8).contains(&f) && (0..8).contains(&r) && next & (1 << (r * 8 + f)) != 0
        });
        if all {
            atoms.push(Atom::new(kind, &[piece(units, t.unit, t.role)]));
        }
    }
}

/// Scan one root-to-leaf trajectory for walks (greedy farthest return, YACPDB style).
fn scan_walks(tnodes: &[TNode], seq: &[u32], units: &Units, atoms: &mut Vec<Atom>) {
    let squares: Vec<Square> = seq.iter().map(|&i| tnodes[i as usize].square).collect();
    // captures_before[k] = number of capturing nodes among seq[..k].
    let mut captures_before = Vec::with_capacity(seq.len() + 1);
    captures_before.push(0u32);
    for &i in seq {
        let last = *captures_before.last().unwrap_or(&0);
        captures_before.push(last + u32::from(tnodes[i as usize].capture));
    }
    let ctx = ScanContext { tnodes, seq, squares: &squares, captures_before: &captures_before, units };
    scan_range(&ctx, 0, seq.len(), true, atoms);
}

struct ScanContext<'a> {
    tnodes: &'a [TNode],
    seq: &'a [u32],
    squares: &'a [Square],
    captures_before: &'a [u32],
    units: &'a Units,
}

/// Scan `squares[lo..hi]`. The recursion depth is bounded by the range length, which
/// shrinks by at least one at each level.
fn scan_range(ctx: &ScanContext<'_>, lo: usize, hi: usize, top: bool, atoms: &mut Vec<Atom>) {
    let mut last = [usize::MAX; 64];
    for k in lo..hi {
        last[ctx.squares[k] as usize] = k;
    }
    let mut i = lo;
    while i < hi {
        let j = last[ctx.squares[i] as usize];
        if j != usize::MAX && j > i {
            let walk = &ctx.squares[i..=j];
            let start = &ctx.tnodes[ctx.seq[i] as usize];
            let with_captures = ctx.captures_before[j + 1] - ctx.captures_before[i] > 0;
            let visitor = piece(ctx.units, start.unit, start.role);
            let length = (j - i) as i64;
            let args = |n: i64| [visitor, Value::Int(n), Value::Bool(with_captures)];
            if is_palindrome(walk) {
                atoms.push(Atom::new(Kind::TraceBack, &args(length / 2)));
            } else if all_distinct(&walk[..walk.len() - 1]) {
                let kind = if collinear(&walk[..walk.len() - 1]) { Kind::LinearCycle } else { Kind::ArealCycle };
                atoms.push(Atom::new(kind, &args(length)));
            } else {
                if top {
                    atoms.push(Atom::new(Kind::ClosedWalk, &args(length)));
                }
                scan_range(ctx, i, j, false, atoms);
            }
            i = j;
        }
        i += 1;
    }
}

fn is_palindrome(squares: &[Square]) -> bool {
    squares.iter().eq(squares.iter().rev())
}

fn all_distinct(squares: &[Square]) -> bool {
    let mut seen = 0u64;
    for sq in squares {
        let bit = 1u64 << (*sq as u32);
        if seen & bit != 0 {
            return false;
        }
        seen |= bit;
    }
    true
}

/// Do all squares lie on one straight geometric line (file/rank coordinates)?
fn collinear(squares: &[Square]) -> bool {
    let Some(&a) = squares.first() else { return true };
    let Some(&b) = squares.iter().find(|&&s| s != a) else { return true };
    let (ax, ay) = (a.file() as i32, a.rank() as i32);
    let (dx, dy) = (b.file() as i32 - ax, b.rank() as i32 - ay);
    squares.iter().all(|s| {
        let (x, y) = (s.file() as i32 - ax, s.rank() as i32 - ay);
        dx * y - dy * x == 0
    })
}

/// Platzwechsel: compare the move into `current` with every earlier displacing move of
/// the line; record each exchange cycle of two or more units closed by this move.
fn platzwechsel(game: &Game, steps: &[Step], line: &[usize], current: usize, units: &Units, atoms: &mut Vec<Atom>) {
    let now = &game.nodes[current];
    // Square of each unit now (64 = captured / unknown).
    let mut square_now = [64u8; 256];
    for (sq, &id) in now.ids.0.iter().enumerate() {
        if id != 0 {
            square_now[id as usize] = sq as u8;
        }
    }
    let mut members: Vec<PieceId> = Vec::with_capacity(8);
    for &earlier in line {
        let Some(before) = game.nodes[earlier].parent else { continue };
        let before_ids = &game.nodes[before.index()].ids;
        for &(unit, _) in steps[current].movers() {
            members.clear();
            members.push(unit);
            let mut cursor = square_now[unit as usize];
            let mut closed = false;
            while cursor < 64 && members.len() <= 64 {
                let there = before_ids.0[cursor as usize];
                if there == 0 {
                    break;
                }
                if there == unit {
                    closed = true;
                    break;
                }
                let next = square_now[there as usize];
                if next >= 64 || members.contains(&there) {
                    break;
                }
                members.push(there);
                cursor = next;
            }
            if closed && members.len() >= 2 && members.iter().any(|&m| steps[earlier].displaces(m)) {
                atoms.push(Atom::new(Kind::PW, &[Value::Int(members.len() as i64)]));
                for &m in &members {
                    let sq = Square::new(u32::from(square_now[m as usize]));
                    let role = now.pos.board().role_at(sq).unwrap_or(Role::Pawn);
                    atoms.push(Atom::new(Kind::PWPiece, &[piece(units, m, role)]));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collinearity_is_geometric() {
        assert!(collinear(&[Square::A1, Square::B3, Square::C5]));
        assert!(!collinear(&[Square::A1, Square::B3, Square::C4]));
        assert!(collinear(&[Square::A1, Square::H8]));
    }

    #[test]
    fn palindromes_and_distinct() {
        assert!(is_palindrome(&[Square::A1, Square::A4, Square::A1]));
        assert!(!is_palindrome(&[Square::A1, Square::A4, Square::B4, Square::A1]));
        assert!(all_distinct(&[Square::A1, Square::A4, Square::B4]));
        assert!(!all_distinct(&[Square::A1, Square::A4, Square::A1]));
    }
}
