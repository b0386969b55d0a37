//! Compile-time expansion of CQL transforms (`flip`, `shift`, `rotate90`, `flipcolor`, …).
//!
//! Takes in: an [`Ir`] whose tree (from `ir.root`) may contain [`Filter::Transform`] nodes.
//! Gives out: the same arena with every reachable transform replaced by the copies of its
//! body mapped through each board transformation of its group (an `Or`, a `Union` for a
//! set-valued body, or a `CountMatching` for `count` / ranged forms), and `ir.root`
//! pointing at the rebuilt tree. Unchanged sub-trees keep their ids, because the arena is
//! hash-consed: a copy equal to the original *is* the original (`flip {check}` adds no node).
//! Must never: evaluate anything, look at a game, panic on a strange tree (deep nesting and
//! runaway growth are refused with a diagnostic).
//!
//! # Decisions worth knowing
//! * Copies are de-duplicated: `T F` is the `Or`/`Union` of the *distinct* images, and
//!   `T count F` counts distinct images that match (`flip count check` is 1, not 8).
//! * Colour swap (`flipcolor`, `reversecolor`) swaps piece colours, `wtm`/`btm`, player and
//!   Elo colours and the decisive results, mirrors ranks (and so `up`↔`down`), and turns the
//!   numeric `sidetomove` and `colortype x` into their negations, so that
//!   `flipcolor sidetomove == white` means "either side to move". Number constants are
//!   never changed.
//! * Castling: board maps that mirror files onto files (a↔h: `flipvertical`, the 180°
//!   rotation) swap `o-o` and `o-o-o`; every other map leaves castling alone.
//! * Shifts move each named square, except that a square whose whole file is in its set
//!   does not move vertically and a square whose whole rank is in its set does not move
//!   horizontally (so `Kd1-8`, `Ka-h2` and the full board keep their shape, as the CQL
//!   documentation requires). Squares pushed off the board vanish; a copy in which a
//!   non-empty square set vanishes entirely is dropped.
//! * Directly nested transforms compose (`shift flip F` maps `F` through every shift of
//!   every flip): a copy that leaves the board is dropped on its own, so `shift flip
//!   {kg8 Qg7 Pf6}` finds the pattern shifted in every orientation, not only unshifted.
//! * `light` and `dark` swap under a map that sends light squares to dark ones
//!   (`flipcolor light ♗` is `light ♗ | dark ♝`, since the rank mirror changes colours).
//! * `rotate45` only turns directions; a body naming a particular square (a square set
//!   that is not the whole board) is an error.

use rustc_hash::FxHashMap as HashMap;

use shakmaty::{Bitboard, Color};

use crate::diag::Diagnostic;
use crate::ir::{
    Builtin, CmpOp, Directions, Filter, FilterId, GameResult, HeaderField, Ir, MoveKind, PieceMask, ShiftAxes, Span,
    TransformKind,
};

/// Deepest filter nesting the expansion walks before refusing the query.
pub const MAX_DEPTH: usize = 2 * crate::NESTING_LIMIT;

/// Largest arena (in nodes) the expansion may grow to before refusing the query.
pub const MAX_NODES: usize = 2_000_000;

/// One basic transform of the board: how it moves squares, turns directions and
/// swaps colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardMap {
    /// A symmetry of the square board (dihedral group). With centred doubled coordinates
    /// `x = 2·file − 7`, `y = 2·rank − 7` a square goes to `(a·x + b·y, c·x + d·y)`.
    Dihedral {
        /// x from x.
        a: i8,
        /// x from y.
        b: i8,
        /// y from x.
        c: i8,
        /// y from y.
        d: i8,
    },
    /// Swap the colours and mirror the ranks (rank r ↔ rank 9−r).
    ColorSwap,
    /// Turn directions counter-clockwise by this many eighths of a full turn; squares are
    /// never moved.
    Rotate45(u8),
    /// Translate squares by this many files and ranks (see the module notes for full
    /// files and ranks).
    Shift {
        /// Files to the right (negative: left).
        dx: i8,
        /// Ranks up (negative: down).
        dy: i8,
    },
    /// A legacy shift with the CQL 3 edge rule, made of unit steps (files first, then
    /// ranks): each step moves a square one square on, drops a square on the leading edge
    /// and keeps a square on the trailing edge as well as moving it.
    EdgeShift {
        /// Files to the right (negative: left).
        dx: i8,
        /// Ranks up (negative: down).
        dy: i8,
    },
}

impl BoardMap {
    /// The identity of the dihedral group.
    pub const IDENTITY: BoardMap = BoardMap::Dihedral { a: 1, b: 0, c: 0, d: 1 };
    /// Mirror about the vertical axis: a-file ↔ h-file (`flipvertical`).
    pub const MIRROR_FILES: BoardMap = BoardMap::Dihedral { a: -1, b: 0, c: 0, d: 1 };
    /// Mirror about the horizontal axis: rank 1 ↔ rank 8 (`fliphorizontal`).
    pub const MIRROR_RANKS: BoardMap = BoardMap::Dihedral { a: 1, b: 0, c: 0, d: -1 };
    /// Quarter turn counter-clockwise (g6 → c7).
    pub const ROTATE_90: BoardMap = BoardMap::Dihedral { a: 0, b: -1, c: 1, d: 0 };
    /// Half turn (g6 → b3).
    pub const ROTATE_180: BoardMap = BoardMap::Dihedral { a: -1, b: 0, c: 0, d: -1 };
    /// Three quarter turns counter-clockwise (g6 → f2).
    pub const ROTATE_270: BoardMap = BoardMap::Dihedral { a: 0, b: 1, c: -1, d: 0 };
    /// Mirror about the a1–h8 diagonal (g6 → f7).
    pub const MIRROR_DIAGONAL: BoardMap = BoardMap::Dihedral { a: 0, b: 1, c: 1, d: 0 };
    /// Mirror about the h1–a8 diagonal (g6 → c2).
    pub const MIRROR_ANTI_DIAGONAL: BoardMap = BoardMap::Dihedral { a: 0, b: -1, c: -1, d: 0 };

    /// The name CQL 6.2 gives this transform in `currenttransform` (empty for the identity):
    /// `reflect_v` (a-file ↔ h-file), `reflect_h` (rank 1 ↔ rank 8), `rotate180`,
    /// `counterclockwise90`, `clockwise90`, `reflect_a1h8`, `reflect_a8h1`, `invertcolor
    /// reflect_h` (the colour swap), `rotate45^N`, and shifts as `right^N`/`left^N` then
    /// `up^N`/`down^N`.
    pub fn name(self) -> String {
        if self.is_identity() {
            return String::new();
        }
        let steps = |dx: i8, dy: i8| {
            let mut parts = Vec::new();
            match dx {
                0 => {}
                d if d > 0 => parts.push(format!("right^{d}")),
                d => parts.push(format!("left^{}", -d)),
            }
            match dy {
                0 => {}
                d if d > 0 => parts.push(format!("up^{d}")),
                d => parts.push(format!("down^{}", -d)),
            }
            parts.join(" ")
        };
        match self {
            BoardMap::ColorSwap => "invertcolor reflect_h".to_string(),
            BoardMap::Rotate45(n) => format!("rotate45^{n}"),
            BoardMap::Shift { dx, dy } | BoardMap::EdgeShift { dx, dy } => steps(dx, dy),
            m if m == BoardMap::MIRROR_FILES => "reflect_v".to_string(),
            m if m == BoardMap::MIRROR_RANKS => "reflect_h".to_string(),
            m if m == BoardMap::ROTATE_180 => "rotate180".to_string(),
            m if m == BoardMap::ROTATE_90 => "counterclockwise90".to_string(),
            m if m == BoardMap::ROTATE_270 => "clockwise90".to_string(),
            m if m == BoardMap::MIRROR_DIAGONAL => "reflect_a1h8".to_string(),
            m if m == BoardMap::MIRROR_ANTI_DIAGONAL => "reflect_a8h1".to_string(),
            BoardMap::Dihedral { .. } => String::new(),
        }
    }

    /// The names of an inner transform (see [`BoardMap::name`]) with this one put in front:
    /// the outermost transform is named first.
    pub fn prefix_name(self, inner: &str) -> String {
        let own = self.name();
        match (own.is_empty(), inner.is_empty()) {
            (true, _) => inner.to_string(),
            (false, true) => own,
            (false, false) => format!("{own} {inner}"),
        }
    }

    /// Does this map leave every filter unchanged?
    pub fn is_identity(self) -> bool {
        matches!(self, BoardMap::Rotate45(0) | BoardMap::Shift { dx: 0, dy: 0 } | BoardMap::EdgeShift { dx: 0, dy: 0 })
            || self == BoardMap::IDENTITY
    }

    /// Does this map swap white and black?
    pub fn swaps_colors(self) -> bool {
        self == BoardMap::ColorSwap
    }

    /// Does this map send light squares to dark ones (and dark to light)? True of the rank
    /// mirror inside a colour swap, of the file and rank mirrors, of the quarter turns, and
    /// of a shift by an odd number of steps in all; false of the half turn and the
    /// diagonal mirrors.
    pub fn swaps_square_colours(self) -> bool {
        match self {
            BoardMap::Dihedral { .. } => {
                // a1 is dark: look at the colour of its image.
                let (f, r) = self.map_coords(0, 0);
                (f + r) % 2 != 0
            }
            BoardMap::ColorSwap => true,
            BoardMap::Rotate45(_) => false,
            BoardMap::Shift { dx, dy } | BoardMap::EdgeShift { dx, dy } => (dx + dy) % 2 != 0,
        }
    }

    /// Does this map send files to files with a↔h mirrored (so king-side castling
    /// becomes queen-side castling)?
    pub fn mirrors_files(self) -> bool {
        matches!(self, BoardMap::Dihedral { a: -1, b: 0, .. })
    }

    /// Where a square (file, rank: 0..8) goes under a rigid map, if it stays on the board.
    /// Shifts are handled by [`BoardMap::map_squares`] because they depend on the whole set.
    fn map_coords(self, file: i8, rank: i8) -> (i8, i8) {
        match self {
            BoardMap::Dihedral { a, b, c, d } => {
                let (x, y) = (2 * file - 7, 2 * rank - 7);
                let (nx, ny) = (a * x + b * y, c * x + d * y);
                ((nx + 7) / 2, (ny + 7) / 2)
            }
            BoardMap::ColorSwap => (file, 7 - rank),
            BoardMap::Rotate45(_) => (file, rank),
            BoardMap::Shift { dx, dy } | BoardMap::EdgeShift { dx, dy } => (file + dx, rank + dy),
        }
    }

    /// The image of a set of squares. Squares pushed off the board by a shift vanish;
    /// under a shift, a square whose whole file (rank) is in the set does not move
    /// vertically (horizontally).
    pub fn map_squares(self, squares: Bitboard) -> Bitboard {
        if self.is_identity() || matches!(self, BoardMap::Rotate45(_)) {
            return squares;
        }
        if let BoardMap::EdgeShift { dx, dy } = self {
            return edge_shift(squares, dx, dy);
        }
        let bits = squares.0;
        let mut out = 0u64;
        for index in 0..64u32 {
            if bits & (1u64 << index) == 0 {
                continue;
            }
            let (file, rank) = ((index % 8) as i8, (index / 8) as i8);
            let (nf, nr) = match self {
                BoardMap::Shift { dx, dy } => {
                    let file_mask = 0x0101_0101_0101_0101u64 << file;
                    let rank_mask = 0xffu64 << (8 * rank);
                    let whole_file = bits & file_mask == file_mask;
                    let whole_rank = bits & rank_mask == rank_mask;
                    (file + if whole_rank { 0 } else { dx }, rank + if whole_file { 0 } else { dy })
                }
                _ => self.map_coords(file, rank),
            };
            if (0..8).contains(&nf) && (0..8).contains(&nr) {
                out |= 1u64 << (nr as u32 * 8 + nf as u32);
            }
        }
        Bitboard(out)
    }

    /// The image of a set of board directions (bits as in [`Directions`]).
    pub fn map_directions(self, dirs: Directions) -> Directions {
        let mut out = 0u8;
        for (bit, &(df, dr)) in Directions::DELTAS.iter().enumerate() {
            if dirs.0 & (1 << bit) == 0 {
                continue;
            }
            let (nf, nr) = match self {
                BoardMap::Dihedral { a, b, c, d } => (a * df + b * dr, c * df + d * dr),
                BoardMap::ColorSwap => (df, -dr),
                BoardMap::Rotate45(steps) => rotate_delta_45(df, dr, steps),
                BoardMap::Shift { .. } | BoardMap::EdgeShift { .. } => (df, dr),
            };
            if let Some(target) = Directions::DELTAS.iter().position(|&d| d == (nf, nr)) {
                out |= 1 << target;
            }
        }
        Directions(out)
    }

    /// The image of a set of piece kinds (colours swapped by the colour transform only).
    pub fn map_mask(self, mask: PieceMask) -> PieceMask {
        if self.swaps_colors() {
            mask.swap_colors()
        } else {
            mask
        }
    }

    /// The image of a colour.
    pub fn map_color(self, color: Color) -> Color {
        if self.swaps_colors() {
            color.other()
        } else {
            color
        }
    }
}

/// The compass directions in counter-clockwise order, starting at `up`.
const COMPASS_CCW: [(i8, i8); 8] = [(0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0), (1, 1)];

/// Turn a unit step counter-clockwise by `steps` eighths of a turn.
fn rotate_delta_45(df: i8, dr: i8, steps: u8) -> (i8, i8) {
    match COMPASS_CCW.iter().position(|&d| d == (df, dr)) {
        Some(i) => COMPASS_CCW[(i + steps as usize) % 8],
        None => (df, dr),
    }
}

/// The basic transforms of a transform filter, identity first (none for `reversecolor`).
/// For the shifts this lists every offset; [`expand`] drops those that push a named square
/// set off the board.
pub fn group(kind: TransformKind) -> Vec<BoardMap> {
    match kind {
        TransformKind::Flip => vec![
            BoardMap::IDENTITY,
            BoardMap::MIRROR_FILES,
            BoardMap::MIRROR_RANKS,
            BoardMap::ROTATE_90,
            BoardMap::ROTATE_180,
            BoardMap::ROTATE_270,
            BoardMap::MIRROR_DIAGONAL,
            BoardMap::MIRROR_ANTI_DIAGONAL,
        ],
        TransformKind::FlipVertical => vec![BoardMap::IDENTITY, BoardMap::MIRROR_FILES],
        TransformKind::FlipHorizontal => vec![BoardMap::IDENTITY, BoardMap::MIRROR_RANKS],
        TransformKind::FlipColor => vec![BoardMap::IDENTITY, BoardMap::ColorSwap],
        TransformKind::ReverseColor => vec![BoardMap::ColorSwap],
        TransformKind::Rotate90 => {
            vec![BoardMap::IDENTITY, BoardMap::ROTATE_90, BoardMap::ROTATE_180, BoardMap::ROTATE_270]
        }
        TransformKind::Rotate45 => (0..8).map(BoardMap::Rotate45).collect(),
        TransformKind::Shift => shifts(-7..=7, -7..=7),
        TransformKind::ShiftHorizontal => shifts(-7..=7, 0..=0),
        TransformKind::ShiftVertical => shifts(0..=0, -7..=7),
        TransformKind::FlipDiagonal => vec![BoardMap::IDENTITY, BoardMap::MIRROR_DIAGONAL],
        TransformKind::FlipOffDiagonal => vec![BoardMap::IDENTITY, BoardMap::MIRROR_ANTI_DIAGONAL],
        TransformKind::LegacyShift(axes) => {
            let offsets: Vec<(i8, i8)> = match axes {
                ShiftAxes::Both => (-7..=7).flat_map(|dy| (-7..=7).map(move |dx| (dx, dy))).collect(),
                ShiftAxes::Horizontal => (-7..=7).map(|dx| (dx, 0)).collect(),
                ShiftAxes::Vertical => (-7..=7).map(|dy| (0, dy)).collect(),
                ShiftAxes::MainDiagonal => (-7..=7).map(|k| (k, k)).collect(),
                ShiftAxes::OffDiagonal => (-7..=7).map(|k| (k, -k)).collect(),
                ShiftAxes::Diagonals => (-7..=7).flat_map(|k| [(k, k), (k, -k)]).collect(),
            };
            let mut out = vec![BoardMap::EdgeShift { dx: 0, dy: 0 }];
            for (dx, dy) in offsets {
                let map = BoardMap::EdgeShift { dx, dy };
                if (dx, dy) != (0, 0) && !out.contains(&map) {
                    out.push(map);
                }
            }
            out
        }
    }
}

/// The CQL 3 edge rule for one shift: `dx` unit steps along ranks, then `dy` along files.
/// A step drops the squares on the leading edge, moves the others one square, and keeps
/// the squares on the trailing edge where they were as well (so three steps right of a4
/// is a4–d4, and one step right of a2, c2, h2 is a2, b2, d2).
fn edge_shift(squares: Bitboard, dx: i8, dy: i8) -> Bitboard {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    const FILE_H: u64 = FILE_A << 7;
    const RANK_1: u64 = 0xff;
    const RANK_8: u64 = RANK_1 << 56;
    let mut s = squares.0;
    for _ in 0..dx.unsigned_abs() {
        s = if dx > 0 { ((s & !FILE_H) << 1) | (s & FILE_A) } else { ((s & !FILE_A) >> 1) | (s & FILE_H) };
    }
    for _ in 0..dy.unsigned_abs() {
        s = if dy > 0 { ((s & !RANK_8) << 8) | (s & RANK_1) } else { ((s & !RANK_1) >> 8) | (s & RANK_8) };
    }
    Bitboard(s)
}

/// Every translation of the given ranges, the identity first, then by rank then file offset.
fn shifts(dxs: std::ops::RangeInclusive<i8>, dys: std::ops::RangeInclusive<i8>) -> Vec<BoardMap> {
    let mut out = vec![BoardMap::Shift { dx: 0, dy: 0 }];
    for dy in dys {
        for dx in dxs.clone() {
            if (dx, dy) != (0, 0) {
                out.push(BoardMap::Shift { dx, dy });
            }
        }
    }
    out
}

use super::visit::{children, map_children};

/// Why mapping a body through one basic transform stopped.
enum Stop {
    /// A named square set left the board: this copy does not exist.
    Dropped,
    /// The query cannot be expanded.
    Refused(Vec<Diagnostic>),
}

/// Replace every [`Filter::Transform`] reachable from `ir.root` by the copies of its body
/// (directly nested transforms composed, other inner ones first), and point `ir.root` at the rebuilt tree.
///
/// Errors: `rotate45` over a body that names a particular square, nesting deeper than
/// [`MAX_DEPTH`], or an expansion larger than [`MAX_NODES`]; each diagnostic carries the
/// span of the offending node.
pub fn expand(ir: &mut Ir) -> Result<(), Vec<Diagnostic>> {
    // The walk recurses once per nesting level; run it on a thread whose stack holds
    // [`MAX_DEPTH`] levels even in a debug build, whatever stack the caller has.
    let outcome = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("cqlrs-transform".into())
            .stack_size(EXPAND_STACK_BYTES)
            .spawn_scoped(scope, || expand_in_place(ir));
        worker.ok().map(|handle| handle.join())
    });
    match outcome {
        Some(Ok(result)) => result,
        Some(Err(_)) => Err(vec![Diagnostic::new(
            "internal error while expanding transforms",
            ir.root.map_or(Span::default(), |r| ir.first_span(r)),
        )]),
        // No thread could be started: expand on the caller's stack.
        None => expand_in_place(ir),
    }
}

/// Stack given to the expansion thread.
const EXPAND_STACK_BYTES: usize = 64 << 20;

/// [`expand`] on the current thread's stack.
fn expand_in_place(ir: &mut Ir) -> Result<(), Vec<Diagnostic>> {
    let Some(root) = ir.root else {
        return Ok(());
    };
    let mut memo = HashMap::default();
    let new_root = expand_node(ir, root, 0, &mut memo)?;
    ir.root = Some(new_root);
    Ok(())
}

fn too_deep(span: Span) -> Vec<Diagnostic> {
    vec![Diagnostic::new("query nested too deeply to expand its transforms", span)
        .with_hint("split the query into smaller filters")]
}

fn too_large(span: Span) -> Vec<Diagnostic> {
    vec![Diagnostic::new("transforms expand this query beyond the size limit", span)
        .with_hint("nest fewer transforms, or name fewer squares inside `shift`")]
}

fn expand_node(
    ir: &mut Ir,
    id: FilterId,
    depth: usize,
    memo: &mut HashMap<FilterId, FilterId>,
) -> Result<FilterId, Vec<Diagnostic>> {
    if let Some(&done) = memo.get(&id) {
        return Ok(done);
    }
    if depth > MAX_DEPTH {
        return Err(too_deep(ir.first_span(id)));
    }
    let node = ir.get(id).clone();
    let result = if let Filter::Transform { kind, range, count, body } = node {
        let span = ir.first_span(id);
        let bodies = inner_copies(ir, body, depth + 1, memo)?;
        let expanded = apply_transform(ir, kind, range, count, &bodies, span, depth)?;
        if ir.len() > MAX_NODES {
            return Err(too_large(span));
        }
        expanded
    } else {
        let rebuilt = map_children(&node, |c| expand_node(ir, c, depth + 1, memo))?;
        if rebuilt == node {
            id
        } else {
            ir.add_copy(rebuilt, id)
        }
    };
    memo.insert(id, result);
    Ok(result)
}

/// The bodies an outer transform maps, already expanded.
///
/// A body that is itself a plain transform (no `count`, no range) gives its distinct
/// copies one by one, so that nested transforms compose: `shift flip F` is the set of
/// images of `F` under every shift of every flip, and a shift that pushes one flipped copy
/// off the board drops only that copy, not every copy at once. Any other body is expanded
/// as a whole and mapped as one.
fn inner_copies(
    ir: &mut Ir,
    body: FilterId,
    depth: usize,
    memo: &mut HashMap<FilterId, FilterId>,
) -> Result<Vec<FilterId>, Vec<Diagnostic>> {
    if depth > MAX_DEPTH {
        return Err(too_deep(ir.first_span(body)));
    }
    match ir.get(body).clone() {
        Filter::Transform { kind, range: None, count: false, body: inner } => {
            let bodies = inner_copies(ir, inner, depth + 1, memo)?;
            transform_copies(ir, kind, &bodies, ir.first_span(body), depth)
        }
        _ => Ok(vec![expand_node(ir, body, depth, memo)?]),
    }
}

/// The distinct images of `bodies` under every basic transform of `kind`'s group; an image
/// in which a named square set left the board is left out.
fn transform_copies(
    ir: &mut Ir,
    kind: TransformKind,
    bodies: &[FilterId],
    span: Span,
    depth: usize,
) -> Result<Vec<FilterId>, Vec<Diagnostic>> {
    if kind == TransformKind::Rotate45 {
        let named: Vec<FilterId> = bodies.iter().flat_map(|&b| squares_named(ir, b)).collect();
        if !named.is_empty() {
            return Err(named
                .into_iter()
                .map(|sq| {
                    Diagnostic::new("`rotate45` cannot be applied to a particular square", ir.span_within(sq, span))
                        .with_hint("`rotate45` only turns directions; use `flip` or `rotate90` for squares")
                })
                .collect());
        }
    }
    let mut copies: Vec<FilterId> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    // Copies that differ only in the names `currenttransform` gives are one copy, as in
    // CQL 6.2 (`CurrentTransformNode::transformmemberless` orders all such nodes alike).
    let mut names_memo = bodies.iter().any(|&b| names_transform(ir, b)).then(HashMap::default);
    for map in group(kind) {
        let mut memo = HashMap::default();
        for &body in bodies {
            match map_node(ir, map, body, depth, &mut memo) {
                Ok(copy) => {
                    let key = match names_memo.as_mut() {
                        Some(m) => without_transform_names(ir, copy, m),
                        None => copy,
                    };
                    if seen.insert(key) {
                        copies.push(copy);
                    }
                }
                Err(Stop::Dropped) => {}
                Err(Stop::Refused(d)) => return Err(d),
            }
            if ir.len() > MAX_NODES {
                return Err(too_large(span));
            }
        }
    }
    Ok(copies)
}

/// Build the replacement of one transform from the (expanded) bodies it maps.
fn apply_transform(
    ir: &mut Ir,
    kind: TransformKind,
    range: Option<(i64, i64)>,
    count: bool,
    bodies: &[FilterId],
    span: Span,
    depth: usize,
) -> Result<FilterId, Vec<Diagnostic>> {
    let copies = transform_copies(ir, kind, bodies, span, depth)?;
    let is_set = bodies.first().is_some_and(|&b| super::props::is_set_expression(ir, b));
    let result = if let Some((low, high)) = range {
        let counted = ir.add(Filter::CountMatching(copies), span);
        let low_id = ir.add(Filter::Number(low), span);
        if low == high {
            ir.add(Filter::Compare { first: counted, rest: vec![(CmpOp::Eq, low_id)] }, span)
        } else {
            let at_least = ir.add(Filter::Compare { first: counted, rest: vec![(CmpOp::Ge, low_id)] }, span);
            if high == i64::MAX {
                at_least
            } else {
                let high_id = ir.add(Filter::Number(high), span);
                let at_most = ir.add(Filter::Compare { first: counted, rest: vec![(CmpOp::Le, high_id)] }, span);
                ir.add(Filter::And(vec![at_least, at_most]), span)
            }
        }
    } else if count {
        ir.add(Filter::CountMatching(copies), span)
    } else if copies.len() == 1 {
        copies[0]
    } else if copies.is_empty() {
        ir.add(Filter::False, span)
    } else if is_set {
        ir.add(Filter::Union(copies), span)
    } else {
        ir.add(Filter::Or(copies), span)
    };
    Ok(result)
}

/// The square-set nodes under `root` that name particular squares (not the whole board,
/// not empty), in tree order, each once.
fn squares_named(ir: &Ir, root: FilterId) -> Vec<FilterId> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![root];
    let mut found = Vec::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = ir.get(id);
        let squares = match node {
            Filter::Squares(bb) => Some(*bb),
            Filter::Pieces { squares, .. } => Some(*squares),
            _ => None,
        };
        if let Some(bb) = squares {
            if bb != Bitboard::FULL && bb != Bitboard::EMPTY {
                found.push(id);
            }
        }
        let mut kids = children(node);
        kids.reverse();
        stack.extend(kids);
    }
    found
}

/// Does any node under `root` name the current transform (`currenttransform`)?
fn names_transform(ir: &Ir, root: FilterId) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = ir.get(id);
        if matches!(node, Filter::CurrentTransform(_)) {
            return true;
        }
        stack.extend(children(node));
    }
    false
}

/// `root` with every `currenttransform` name blanked: the identity of a copy for telling
/// copies apart.
fn without_transform_names(ir: &mut Ir, root: FilterId, memo: &mut HashMap<FilterId, FilterId>) -> FilterId {
    if let Some(&done) = memo.get(&root) {
        return done;
    }
    let node = ir.get(root).clone();
    let result = match &node {
        Filter::CurrentTransform(names) if names.is_empty() => root,
        Filter::CurrentTransform(_) => {
            let span = ir.first_span(root);
            ir.add(Filter::CurrentTransform(String::new()), span)
        }
        other => {
            let rebuilt = map_children::<()>(other, |c| Ok(without_transform_names(ir, c, memo)))
                .unwrap_or_else(|_| other.clone());
            if rebuilt == node {
                root
            } else {
                let span = ir.first_span(root);
                ir.add(rebuilt, span)
            }
        }
    };
    memo.insert(root, result);
    result
}

/// The image of one node under one basic transform (memoised per transform).
fn map_node(
    ir: &mut Ir,
    map: BoardMap,
    id: FilterId,
    depth: usize,
    memo: &mut HashMap<FilterId, Result<FilterId, ()>>,
) -> Result<FilterId, Stop> {
    if map.is_identity() {
        return Ok(id);
    }
    if let Some(done) = memo.get(&id) {
        return (*done).map_err(|_| Stop::Dropped);
    }
    if depth > MAX_DEPTH {
        return Err(Stop::Refused(too_deep(ir.first_span(id))));
    }
    let node = ir.get(id).clone();
    let span = ir.first_span(id);
    let shifting = matches!(map, BoardMap::Shift { .. } | BoardMap::EdgeShift { .. });
    let vanished = |before: Bitboard, after: Bitboard| shifting && before.any() && after.is_empty();
    let mut recurse = |ir: &mut Ir, c: FilterId| map_node(ir, map, c, depth + 1, memo);
    let mapped: Result<Filter, Stop> = match &node {
        // `notransform F`: F stays as written in every copy.
        Filter::NoTransform(_) => Ok(node.clone()),
        Filter::CurrentTransform(names) => Ok(Filter::CurrentTransform(map.prefix_name(names))),
        Filter::Squares(bb) => {
            let image = map.map_squares(*bb);
            if vanished(*bb, image) {
                Err(Stop::Dropped)
            } else {
                Ok(Filter::Squares(image))
            }
        }
        Filter::Pieces { mask, squares } => {
            let image = map.map_squares(*squares);
            if vanished(*squares, image) {
                Err(Stop::Dropped)
            } else {
                Ok(Filter::Pieces { mask: map.map_mask(*mask), squares: image })
            }
        }
        Filter::ToMove(c) => Ok(Filter::ToMove(map.map_color(*c))),
        Filter::Header(HeaderField::Player(c)) => Ok(Filter::Header(HeaderField::Player(map.map_color(*c)))),
        Filter::Header(HeaderField::Elo(c)) => Ok(Filter::Header(HeaderField::Elo(map.map_color(*c)))),
        Filter::Result(r) if map.swaps_colors() => Ok(Filter::Result(match r {
            GameResult::WhiteWins => GameResult::BlackWins,
            GameResult::BlackWins => GameResult::WhiteWins,
            GameResult::Draw => GameResult::Draw,
        })),
        Filter::SideToMove if map.swaps_colors() => {
            let plain = ir.add(Filter::SideToMove, span);
            Ok(Filter::Neg(plain))
        }
        Filter::Call(Builtin::ColorType, args) if map.swaps_colors() => {
            let mut mapped_args = Vec::with_capacity(args.len());
            let mut failure = None;
            for &a in args {
                match recurse(ir, a) {
                    Ok(x) => mapped_args.push(x),
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
            match failure {
                Some(e) => Err(e),
                None => {
                    let call = ir.add(Filter::Call(Builtin::ColorType, mapped_args), span);
                    Ok(Filter::Neg(call))
                }
            }
        }
        Filter::IdentityIter { var, mask, body } => {
            recurse(ir, *body).map(|body| Filter::IdentityIter { var: *var, mask: map.map_mask(*mask), body })
        }
        other => {
            let rebuilt = map_children(other, |c| recurse(ir, c));
            rebuilt.map(|f| match f {
                Filter::Direction { dirs, min, max, range_variables, arg } => {
                    Filter::Direction { dirs: map.map_directions(dirs), min, max, range_variables, arg }
                }
                Filter::Ray { dirs, sets, xray } => Filter::Ray { dirs: map.map_directions(dirs), sets, xray },
                // A map that sends light squares to dark ones turns `light` into `dark`.
                Filter::Call(Builtin::Light, args) if map.swaps_square_colours() => Filter::Call(Builtin::Dark, args),
                Filter::Call(Builtin::Dark, args) if map.swaps_square_colours() => Filter::Call(Builtin::Light, args),
                Filter::Move(mut m) if map.mirrors_files() => {
                    m.kind = match m.kind {
                        MoveKind::CastleKingside => MoveKind::CastleQueenside,
                        MoveKind::CastleQueenside => MoveKind::CastleKingside,
                        k => k,
                    };
                    Filter::Move(m)
                }
                // --x is x: keep colour swaps of negated numbers from piling up.
                Filter::Neg(inner) if map.swaps_colors() && inner != neg_child(&node) => match ir.get(inner) {
                    Filter::Neg(x) => ir.get(*x).clone(),
                    _ => Filter::Neg(inner),
                },
                f => f,
            })
        }
    };
    let result = match mapped {
        Ok(filter) if filter == node => Ok(id),
        Ok(filter) => Ok(ir.add_copy(filter, id)),
        Err(Stop::Dropped) => Err(Stop::Dropped),
        Err(Stop::Refused(d)) => return Err(Stop::Refused(d)),
    };
    memo.insert(id, result.as_ref().map(|&x| x).map_err(|_| ()));
    result
}

/// The argument of a `Neg` node (or an impossible id for any other node).
fn neg_child(filter: &Filter) -> FilterId {
    match filter {
        Filter::Neg(x) => *x,
        _ => FilterId(u32::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{LineChoice, MoveFilter, MoveSource, MoveValue, ValueType};
    use proptest::prelude::*;
    use shakmaty::{Role, Square};

    const INVOLUTIONS: [BoardMap; 6] = [
        BoardMap::MIRROR_FILES,
        BoardMap::MIRROR_RANKS,
        BoardMap::ROTATE_180,
        BoardMap::MIRROR_DIAGONAL,
        BoardMap::MIRROR_ANTI_DIAGONAL,
        BoardMap::ColorSwap,
    ];

    fn sq(name: &str) -> Bitboard {
        let s: Square = name.parse().expect("test square");
        Bitboard::from_square(s)
    }

    fn squares(names: &[&str]) -> Bitboard {
        names.iter().fold(Bitboard::EMPTY, |acc, n| acc.with(sq(n)))
    }

    fn pieces(ir: &mut Ir, color: Color, role: Role, on: Bitboard) -> FilterId {
        ir.add(Filter::Pieces { mask: PieceMask::piece(color, role), squares: on }, Span::new(0, 3))
    }

    fn transform(ir: &mut Ir, kind: TransformKind, body: FilterId) -> FilterId {
        ir.add(Filter::Transform { kind, range: None, count: false, body }, Span::new(0, 10))
    }

    /// Expand a query whose root is `root` and return the new root.
    fn expanded(ir: &mut Ir, root: FilterId) -> FilterId {
        ir.root = Some(root);
        expand(ir).expect("expansion succeeds");
        ir.root.expect("root kept")
    }

    /// Every node reachable from `root`.
    fn reachable(ir: &Ir, root: FilterId) -> Vec<FilterId> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![root];
        let mut out = Vec::new();
        while let Some(id) = stack.pop() {
            if seen.insert(id) {
                out.push(id);
                stack.extend(children(ir.get(id)));
            }
        }
        out
    }

    fn list_of(ir: &Ir, id: FilterId) -> Vec<FilterId> {
        match ir.get(id) {
            Filter::Or(v) | Filter::Union(v) | Filter::CountMatching(v) => v.clone(),
            other => panic!("expected a list of copies, got {other:?}"),
        }
    }

    #[test]
    fn dihedral_images_of_g6_follow_the_seed() {
        let g6 = sq("g6");
        assert_eq!(BoardMap::MIRROR_RANKS.map_squares(g6), sq("g3"));
        assert_eq!(BoardMap::MIRROR_FILES.map_squares(g6), sq("b6"));
        assert_eq!(BoardMap::ROTATE_90.map_squares(g6), sq("c7"));
        assert_eq!(BoardMap::ROTATE_180.map_squares(g6), sq("b3"));
        assert_eq!(BoardMap::ROTATE_270.map_squares(g6), sq("f2"));
        assert_eq!(BoardMap::MIRROR_DIAGONAL.map_squares(g6), sq("f7"));
        assert_eq!(BoardMap::MIRROR_ANTI_DIAGONAL.map_squares(g6), sq("c2"));
        assert_eq!(BoardMap::ColorSwap.map_squares(sq("a2")), sq("a7"));
    }

    #[test]
    fn rigid_maps_agree_with_shakmaty() {
        let samples = [0x0000_0000_0000_00ffu64, 0x8040_2010_0804_0201, 0x1234_5678_9abc_def0, 1 << 22];
        for bits in samples {
            let bb = Bitboard(bits);
            assert_eq!(BoardMap::MIRROR_RANKS.map_squares(bb), bb.flip_vertical());
            assert_eq!(BoardMap::MIRROR_FILES.map_squares(bb), bb.flip_horizontal());
            assert_eq!(BoardMap::MIRROR_DIAGONAL.map_squares(bb), bb.flip_diagonal());
            assert_eq!(BoardMap::MIRROR_ANTI_DIAGONAL.map_squares(bb), bb.flip_anti_diagonal());
            assert_eq!(BoardMap::ROTATE_180.map_squares(bb), bb.rotate_180());
        }
    }

    #[test]
    fn directions_turn_with_the_board() {
        assert_eq!(BoardMap::ROTATE_90.map_directions(Directions::UP), Directions::LEFT);
        assert_eq!(BoardMap::ROTATE_90.map_directions(Directions::RIGHT), Directions::UP);
        assert_eq!(BoardMap::ColorSwap.map_directions(Directions::UP), Directions::DOWN);
        assert_eq!(BoardMap::ColorSwap.map_directions(Directions::NORTHEAST), Directions::SOUTHEAST);
        assert_eq!(BoardMap::MIRROR_FILES.map_directions(Directions::NORTHEAST), Directions::NORTHWEST);
        assert_eq!(BoardMap::Rotate45(1).map_directions(Directions::UP), Directions::NORTHWEST);
        assert_eq!(BoardMap::Rotate45(2).map_directions(Directions::UP), Directions::LEFT);
        assert_eq!(BoardMap::Rotate45(7).map_directions(Directions::UP), Directions::NORTHEAST);
        assert_eq!(BoardMap::Rotate45(1).map_directions(Directions::ORTHOGONAL), Directions::DIAGONAL);
        for map in group(TransformKind::Flip) {
            for named in [Directions::ANY, Directions::ORTHOGONAL, Directions::DIAGONAL] {
                assert_eq!(map.map_directions(named), named, "{map:?} keeps {named:?}");
            }
        }
    }

    #[test]
    fn every_involution_is_its_own_inverse_on_directions_and_masks() {
        for map in INVOLUTIONS {
            for bits in 0..=255u8 {
                let d = Directions(bits);
                assert_eq!(map.map_directions(map.map_directions(d)), d, "{map:?} on {bits:#x}");
            }
            for bits in 0..0x2000u16 {
                let m = PieceMask(bits);
                assert_eq!(map.map_mask(map.map_mask(m)), m);
            }
        }
        // rotations compose back to the identity after a full turn
        let mut d = Directions(0b1010_0101);
        for _ in 0..4 {
            d = BoardMap::ROTATE_90.map_directions(d);
        }
        assert_eq!(d, Directions(0b1010_0101));
    }

    proptest! {
        #[test]
        fn involutions_twice_are_identity_on_squares(bits in any::<u64>()) {
            let bb = Bitboard(bits);
            for map in INVOLUTIONS {
                prop_assert_eq!(map.map_squares(map.map_squares(bb)), bb);
            }
            let mut turned = bb;
            for _ in 0..4 {
                turned = BoardMap::ROTATE_90.map_squares(turned);
            }
            prop_assert_eq!(turned, bb);
            prop_assert_eq!(BoardMap::ROTATE_270.map_squares(BoardMap::ROTATE_90.map_squares(bb)), bb);
        }

        #[test]
        fn colour_swap_exchanges_white_and_black_bits(bits in 0u16..0x2000) {
            let m = PieceMask(bits);
            let swapped = BoardMap::ColorSwap.map_mask(m);
            for role in Role::ALL {
                prop_assert_eq!(m.contains_piece(Color::White, role), swapped.contains_piece(Color::Black, role));
                prop_assert_eq!(m.contains_piece(Color::Black, role), swapped.contains_piece(Color::White, role));
            }
            prop_assert_eq!(m.contains_empty(), swapped.contains_empty());
        }
    }

    #[test]
    fn flip_check_adds_no_node() {
        let mut ir = Ir::new();
        let check = ir.add(Filter::Check, Span::new(5, 10));
        let flip = transform(&mut ir, TransformKind::Flip, check);
        let before = ir.len();
        let root = expanded(&mut ir, flip);
        assert_eq!(root, check);
        assert_eq!(ir.len(), before);
    }

    #[test]
    fn flip_of_a_square_gives_the_eight_images() {
        let mut ir = Ir::new();
        let p = pieces(&mut ir, Color::White, Role::Pawn, sq("g6"));
        let flip = transform(&mut ir, TransformKind::Flip, p);
        let root = expanded(&mut ir, flip);
        let copies = list_of(&ir, root);
        assert!(matches!(ir.get(root), Filter::Union(_)), "a set body gives a union");
        assert_eq!(copies.len(), 8);
        assert_eq!(copies[0], p, "the identity copy is the original node");
        let mut covered = Bitboard::EMPTY;
        for c in copies {
            match ir.get(c) {
                Filter::Pieces { mask, squares } => {
                    assert_eq!(*mask, PieceMask::piece(Color::White, Role::Pawn));
                    covered = covered.with(*squares);
                }
                other => panic!("unexpected copy {other:?}"),
            }
        }
        assert_eq!(covered, squares(&["g6", "g3", "b6", "c7", "b3", "f2", "f7", "c2"]));
    }

    #[test]
    fn flip_produces_at_most_eight_distinct_copies_and_collapses_symmetric_ones() {
        let mut ir = Ir::new();
        let p = pieces(&mut ir, Color::White, Role::King, sq("a1").with(sq("h8")));
        let flip = transform(&mut ir, TransformKind::Flip, p);
        let root = expanded(&mut ir, flip);
        // {a1,h8} is fixed by the half turn and both diagonal mirrors: only 2 distinct images.
        assert_eq!(list_of(&ir, root).len(), 2);
        let mut ir = Ir::new();
        let k = pieces(&mut ir, Color::White, Role::King, Bitboard::FULL);
        let flip = transform(&mut ir, TransformKind::Flip, k);
        assert_eq!(expanded(&mut ir, flip), k, "flip K is K");
    }

    #[test]
    fn flipcolor_swaps_colours_and_mirrors_ranks() {
        let mut ir = Ir::new();
        let mask = PieceMask::piece(Color::White, Role::Rook)
            .with(PieceMask::piece(Color::Black, Role::Knight))
            .with(PieceMask::piece(Color::Black, Role::Queen));
        let designator = ir.add(Filter::Pieces { mask, squares: sq("a3") }, Span::new(0, 8));
        let wtm = ir.add(Filter::ToMove(Color::White), Span::default());
        let stalemate = ir.add(Filter::Stalemate, Span::default());
        let result = ir.add(Filter::Result(GameResult::WhiteWins), Span::default());
        let player = ir.add(Filter::Header(HeaderField::Player(Color::White)), Span::default());
        let body = ir.add(Filter::And(vec![designator, wtm, stalemate, result, player]), Span::default());
        let t = transform(&mut ir, TransformKind::FlipColor, body);
        let root = expanded(&mut ir, t);
        assert!(matches!(ir.get(root), Filter::Or(_)), "a non-set body gives an or");
        let copies = list_of(&ir, root);
        assert_eq!(copies, vec![body, copies[1]]);
        let Filter::And(parts) = ir.get(copies[1]).clone() else { panic!("copy is an and") };
        let expected_mask = PieceMask::piece(Color::Black, Role::Rook)
            .with(PieceMask::piece(Color::White, Role::Knight))
            .with(PieceMask::piece(Color::White, Role::Queen));
        assert_eq!(ir.get(parts[0]), &Filter::Pieces { mask: expected_mask, squares: sq("a6") });
        assert_eq!(ir.get(parts[1]), &Filter::ToMove(Color::Black));
        assert_eq!(parts[2], stalemate, "unchanged leaves keep their id");
        assert_eq!(ir.get(parts[3]), &Filter::Result(GameResult::BlackWins));
        assert_eq!(ir.get(parts[4]), &Filter::Header(HeaderField::Player(Color::Black)));
    }

    #[test]
    fn reversecolor_has_no_identity_copy() {
        let mut ir = Ir::new();
        let p = pieces(&mut ir, Color::White, Role::Pawn, Bitboard::from_rank(shakmaty::Rank::Seventh));
        let t = transform(&mut ir, TransformKind::ReverseColor, p);
        let root = expanded(&mut ir, t);
        assert_eq!(
            ir.get(root),
            &Filter::Pieces {
                mask: PieceMask::piece(Color::Black, Role::Pawn),
                squares: Bitboard::from_rank(shakmaty::Rank::Second)
            }
        );
    }

    #[test]
    fn flipcolor_negates_side_to_move_and_double_swap_cancels() {
        let mut ir = Ir::new();
        let stm = ir.add(Filter::SideToMove, Span::default());
        let one = ir.add(Filter::Number(1), Span::default());
        let cmp = ir.add(Filter::Compare { first: stm, rest: vec![(CmpOp::Eq, one)] }, Span::default());
        let rev = transform(&mut ir, TransformKind::ReverseColor, cmp);
        let rev2 = transform(&mut ir, TransformKind::ReverseColor, rev);
        let root = expanded(&mut ir, rev2);
        assert_eq!(root, cmp, "reversecolor twice is the identity");
        let mut ir2 = Ir::new();
        let stm = ir2.add(Filter::SideToMove, Span::default());
        let rev = transform(&mut ir2, TransformKind::ReverseColor, stm);
        let root = expanded(&mut ir2, rev);
        assert_eq!(ir2.get(root), &Filter::Neg(stm));
    }

    #[test]
    fn shiftvertical_leaves_full_files_whole() {
        let mut ir = Ir::new();
        let file_d = Bitboard::from_file(shakmaty::File::D);
        let king = pieces(&mut ir, Color::White, Role::King, file_d);
        let bishop = pieces(&mut ir, Color::White, Role::Bishop, sq("a2"));
        let body = ir.add(Filter::And(vec![king, bishop]), Span::default());
        let t = transform(&mut ir, TransformKind::ShiftVertical, body);
        let root = expanded(&mut ir, t);
        let copies = list_of(&ir, root);
        assert_eq!(copies.len(), 8);
        let mut bishops = Bitboard::EMPTY;
        for c in copies {
            let Filter::And(parts) = ir.get(c) else { panic!("and expected") };
            assert_eq!(parts[0], king, "Kd1-8 is never moved");
            if let Filter::Pieces { squares, .. } = ir.get(parts[1]) {
                bishops = bishops.with(*squares);
            }
        }
        assert_eq!(bishops, Bitboard::from_file(shakmaty::File::A));
    }

    #[test]
    fn shiftvertical_of_a_partial_file_loses_squares_off_the_board() {
        let mut ir = Ir::new();
        let d2_8 = Bitboard::from_file(shakmaty::File::D).without(sq("d1"));
        let king = pieces(&mut ir, Color::White, Role::King, d2_8);
        let bishop = pieces(&mut ir, Color::White, Role::Bishop, sq("a2"));
        let body = ir.add(Filter::And(vec![king, bishop]), Span::default());
        let t = transform(&mut ir, TransformKind::ShiftVertical, body);
        let root = expanded(&mut ir, t);
        let copies = list_of(&ir, root);
        assert_eq!(copies.len(), 8, "a2 can go to a1..a8");
        let down_one: Vec<_> = copies
            .iter()
            .filter_map(|&c| match ir.get(c) {
                Filter::And(p)
                    if ir.get(p[1])
                        == &Filter::Pieces {
                            mask: PieceMask::piece(Color::White, Role::Bishop),
                            squares: sq("a1"),
                        } =>
                {
                    Some(p[0])
                }
                _ => None,
            })
            .collect();
        assert_eq!(down_one.len(), 1);
        let expected = Bitboard::from_file(shakmaty::File::D).without(sq("d8"));
        assert_eq!(
            ir.get(down_one[0]),
            &Filter::Pieces { mask: PieceMask::piece(Color::White, Role::King), squares: expected }
        );
    }

    #[test]
    fn shift_drops_copies_that_push_a_piece_off_the_board() {
        let mut ir = Ir::new();
        let white_king = pieces(&mut ir, Color::White, Role::King, sq("b1"));
        let black_king = pieces(&mut ir, Color::Black, Role::King, sq("g6"));
        let body = ir.add(Filter::And(vec![white_king, black_king]), Span::default());
        let h = transform(&mut ir, TransformKind::ShiftHorizontal, body);
        let v = transform(&mut ir, TransformKind::ShiftVertical, body);
        let s = transform(&mut ir, TransformKind::Shift, body);
        let all = ir.add(Filter::And(vec![h, v, s]), Span::default());
        let root = expanded(&mut ir, all);
        let Filter::And(parts) = ir.get(root).clone() else { panic!("and expected") };
        assert_eq!(list_of(&ir, parts[0]).len(), 3, "b→a,b,c");
        assert_eq!(list_of(&ir, parts[1]).len(), 3, "1→1,2,3");
        assert_eq!(list_of(&ir, parts[2]).len(), 9);
    }

    #[test]
    fn shift_of_a_single_square_covers_the_board_and_counts_with_a_range() {
        let mut ir = Ir::new();
        let mask = PieceMask::piece(Color::White, Role::Pawn).with(PieceMask::piece(Color::Black, Role::Pawn));
        let pawns = ir.add(Filter::Pieces { mask, squares: sq("a4") }, Span::default());
        let t = ir.add(
            Filter::Transform { kind: TransformKind::Shift, range: Some((10, 20)), count: false, body: pawns },
            Span::default(),
        );
        let root = expanded(&mut ir, t);
        let Filter::And(bounds) = ir.get(root).clone() else { panic!("ranged form is an and of bounds") };
        let Filter::Compare { first, rest } = ir.get(bounds[0]).clone() else { panic!("compare") };
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].0, CmpOp::Ge);
        assert_eq!(ir.get(rest[0].1), &Filter::Number(10));
        let copies = list_of(&ir, first);
        assert_eq!(copies.len(), 64);
        let covered = copies.iter().fold(Bitboard::EMPTY, |acc, &c| match ir.get(c) {
            Filter::Pieces { squares, .. } => acc.with(*squares),
            _ => acc,
        });
        assert_eq!(covered, Bitboard::FULL);
        assert_eq!(crate::ir::props::value_type(&ir, root), ValueType::Number);
    }

    #[test]
    fn rotate90_with_exact_count_compares_for_equality() {
        let mut ir = Ir::new();
        let rook = pieces(&mut ir, Color::White, Role::Rook, sq("a1"));
        let find = ir.add(
            Filter::Find {
                direction: crate::ir::FindDirection::Forward,
                all: false,
                range: None,
                quiet: true,
                body: rook,
            },
            Span::default(),
        );
        let t = ir.add(
            Filter::Transform { kind: TransformKind::Rotate90, range: Some((4, 4)), count: false, body: find },
            Span::default(),
        );
        let root = expanded(&mut ir, t);
        let Filter::Compare { first, rest } = ir.get(root).clone() else { panic!("compare") };
        assert_eq!(rest[0].0, CmpOp::Eq);
        let corners = list_of(&ir, first).iter().fold(Bitboard::EMPTY, |acc, &c| match ir.get(c) {
            Filter::Find { body, .. } => match ir.get(*body) {
                Filter::Pieces { squares, .. } => acc.with(*squares),
                _ => acc,
            },
            _ => acc,
        });
        assert_eq!(corners, squares(&["a1", "h1", "h8", "a8"]));
    }

    #[test]
    fn rotate90_turns_ray_directions_and_squares() {
        let mut ir = Ir::new();
        let rooks = pieces(&mut ir, Color::White, Role::Rook, squares(&["g6", "a1"]));
        let king = pieces(&mut ir, Color::Black, Role::King, Bitboard::FULL);
        let ray = ir.add(Filter::Ray { dirs: Directions::UP, sets: vec![rooks, king], xray: false }, Span::default());
        let t = transform(&mut ir, TransformKind::Rotate90, ray);
        let root = expanded(&mut ir, t);
        let copies = list_of(&ir, root);
        assert_eq!(copies.len(), 4);
        let Filter::Ray { dirs, sets, .. } = ir.get(copies[1]).clone() else { panic!("ray") };
        assert_eq!(dirs, Directions::LEFT);
        assert_eq!(sets[1], king, "the unnamed-square king is shared");
        assert_eq!(
            ir.get(sets[0]),
            &Filter::Pieces { mask: PieceMask::piece(Color::White, Role::Rook), squares: squares(&["c7", "h1"]) }
        );
    }

    #[test]
    fn rotate45_turns_directions_and_refuses_named_squares() {
        let mut ir = Ir::new();
        let king = pieces(&mut ir, Color::White, Role::King, Bitboard::FULL);
        let up = ir.add(
            Filter::Direction { dirs: Directions::UP, min: 1, max: 1, range_variables: (None, None), arg: king },
            Span::default(),
        );
        let t = transform(&mut ir, TransformKind::Rotate45, up);
        let root = expanded(&mut ir, t);
        let all = list_of(&ir, root).iter().fold(0u8, |acc, &c| match ir.get(c) {
            Filter::Direction { dirs, .. } => acc | dirs.0,
            _ => acc,
        });
        assert_eq!(all, Directions::ANY.0, "the king's field");

        let mut ir = Ir::new();
        let kd3 = ir.add(
            Filter::Pieces { mask: PieceMask::piece(Color::White, Role::King), squares: sq("d3") },
            Span::new(9, 12),
        );
        let t = transform(&mut ir, TransformKind::Rotate45, kd3);
        ir.root = Some(t);
        let errors = expand(&mut ir).expect_err("rotate45 of a square must fail");
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].span, Span::new(9, 12));
        assert!(errors[0].message.contains("particular square"));
    }

    #[test]
    fn flipvertical_swaps_castling_sides() {
        let mut ir = Ir::new();
        let castle = ir.add(
            Filter::Move(Box::new(MoveFilter {
                source: MoveSource::Next,
                from: None,
                to: None,
                capture: None,
                promote: 0,
                kind: MoveKind::CastleKingside,
                then: None,
                line: LineChoice::Any,
                value: MoveValue::To,
                rook_of_castling: true,
            })),
            Span::default(),
        );
        let t = transform(&mut ir, TransformKind::FlipVertical, castle);
        let root = expanded(&mut ir, t);
        let copies = list_of(&ir, root);
        let Filter::Move(m) = ir.get(copies[1]) else { panic!("move") };
        assert_eq!(m.kind, MoveKind::CastleQueenside);
    }

    #[test]
    fn nested_transforms_expand_completely() {
        let mut ir = Ir::new();
        let pawn = pieces(&mut ir, Color::White, Role::Pawn, sq("d5"));
        let black = pieces(&mut ir, Color::Black, Role::Pawn, sq("d6"));
        let body = ir.add(Filter::And(vec![pawn, black]), Span::default());
        let shift = transform(&mut ir, TransformKind::Shift, body);
        let flip = transform(&mut ir, TransformKind::Flip, shift);
        let not = ir.add(Filter::Not(flip), Span::default());
        let root = expanded(&mut ir, not);
        for id in reachable(&ir, root) {
            assert!(!matches!(ir.get(id), Filter::Transform { .. }), "no transform survives");
        }
        let Filter::Not(inner) = ir.get(root) else { panic!("not kept") };
        // The transforms compose into one flat list of single positions of the pair.
        let copies = list_of(&ir, *inner);
        assert!(copies.iter().all(|&c| matches!(ir.get(c), Filter::And(parts) if parts.len() == 2)));
        // The pair (white pawn, black pawn next to it) has 4 orientations (up, down, left,
        // right); each fits the board in 8 * 7 = 56 places: 224 distinct copies.
        assert_eq!(copies.len(), 224);
    }

    #[test]
    fn light_and_dark_swap_under_maps_that_change_square_colours() {
        assert!(BoardMap::ColorSwap.swaps_square_colours());
        assert!(BoardMap::MIRROR_FILES.swaps_square_colours());
        assert!(BoardMap::MIRROR_RANKS.swaps_square_colours());
        assert!(BoardMap::ROTATE_90.swaps_square_colours());
        assert!(!BoardMap::ROTATE_180.swaps_square_colours());
        assert!(!BoardMap::MIRROR_DIAGONAL.swaps_square_colours());
        assert!(!BoardMap::MIRROR_ANTI_DIAGONAL.swaps_square_colours());
        assert!(BoardMap::Shift { dx: 1, dy: 0 }.swaps_square_colours());
        assert!(!BoardMap::Shift { dx: 1, dy: -1 }.swaps_square_colours());
        // flipcolor light B: light white bishops, or dark black bishops.
        let mut ir = Ir::new();
        let b = pieces(&mut ir, Color::White, Role::Bishop, Bitboard::FULL);
        let light = ir.add(Filter::Call(Builtin::Light, vec![b]), Span::default());
        let t = transform(&mut ir, TransformKind::FlipColor, light);
        let root = expanded(&mut ir, t);
        let black = pieces(&mut ir, Color::Black, Role::Bishop, Bitboard::FULL);
        let dark_black = ir.add(Filter::Call(Builtin::Dark, vec![black]), Span::default());
        assert!(list_of(&ir, root).contains(&dark_black));
        assert!(list_of(&ir, root).contains(&light));
    }

    #[test]
    fn a_shift_of_a_flip_drops_only_the_copies_that_leave_the_board() {
        // kg8 Qg7 Pf6 sits in a corner: every shift pushes some flipped copy off the
        // board, yet each flipped copy still slides wherever it fits.
        let mut ir = Ir::new();
        let k = pieces(&mut ir, Color::Black, Role::King, sq("g8"));
        let q = pieces(&mut ir, Color::White, Role::Queen, sq("g7"));
        let p = pieces(&mut ir, Color::White, Role::Pawn, sq("f6"));
        let body = ir.add(Filter::And(vec![k, q, p]), Span::default());
        let flip = transform(&mut ir, TransformKind::Flip, body);
        let shift = transform(&mut ir, TransformKind::Shift, flip);
        let root = expanded(&mut ir, shift);
        let copies = list_of(&ir, root);
        // A 2x3 (or 3x2) pattern fits 7*6 = 42 ways; 8 orientations.
        assert_eq!(copies.len(), 8 * 42);
        let k_a3 = pieces(&mut ir, Color::Black, Role::King, sq("a3"));
        let q_b3 = pieces(&mut ir, Color::White, Role::Queen, sq("b3"));
        let p_c4 = pieces(&mut ir, Color::White, Role::Pawn, sq("c4"));
        let wanted = ir.add(Filter::And(vec![k_a3, q_b3, p_c4]), Span::default());
        let has = |want: &[FilterId], c: FilterId| match ir.get(c) {
            Filter::And(parts) => want.iter().all(|w| parts.contains(w)),
            _ => false,
        };
        let Filter::And(want) = ir.get(wanted).clone() else { panic!("and built") };
        assert!(copies.iter().any(|&c| has(&want, c)), "a rotated and shifted copy is there");
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let handle = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let mut ir = Ir::new();
                let mut id = ir.add(Filter::Check, Span::default());
                for _ in 0..5000 {
                    id = ir.add(Filter::Not(id), Span::default());
                }
                id = transform(&mut ir, TransformKind::Flip, id);
                ir.root = Some(id);
                expand(&mut ir).is_err()
            })
            .expect("thread starts");
        assert!(handle.join().expect("no panic"));
    }

    /// Simple CQL 6 filters: piece designators on squares, attacks, counts, moves,
    /// side to move, nested with `not`, `{…}` and `or`.
    fn simple_cql6_filter() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            (
                prop::sample::select(vec![
                    "K", "Q", "R", "B", "N", "P", "k", "q", "r", "n", "p", "A", "a", "_", "[Qq]"
                ]),
                prop::sample::select(vec!["", "e4", "a-d1", "a-h7", "[c3,f3]", "d1-8", "g6"]),
            )
                .prop_map(|(p, s)| format!("{p}{s}")),
            prop::sample::select(vec![
                "check",
                "mate",
                "stalemate",
                "wtm",
                "btm",
                "A attacks k",
                "a attacks a-h2",
                "#P > 3",
                "#p >= #P",
                "power A > power a",
                "move from K",
                "move to a-h4",
                "move capture Q",
                "move legal from N",
                "ray orthogonal (R k)",
                "pin",
                "xray (R r K)",
                "o-o",
                "up 1 Pd4",
                "sidetomove == white",
                "flip Pg6",
                "flipcolor Ra1",
            ])
            .prop_map(str::to_string),
        ];
        atom.prop_recursive(2, 8, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(|f| format!("not {f}")),
                (inner.clone(), inner.clone()).prop_map(|(f, g)| format!("{{{f} {g}}}")),
                (inner.clone(), inner).prop_map(|(f, g)| format!("{f} or {g}")),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every involution of the board, applied twice to a whole parsed query, gives
        /// back the very same (hash-consed) node.
        #[test]
        fn involutions_twice_are_identity_on_queries(text in simple_cql6_filter()) {
            let mut ir = crate::lang::cql6::parse(&format!("cql()\n{text}\n")).expect("generated filters parse");
            expand(&mut ir).expect("generated filters expand");
            let root = ir.root.expect("a query has a root");
            for map in INVOLUTIONS {
                let once = map_node(&mut ir, map, root, 0, &mut HashMap::default()).ok().expect("maps");
                let twice = map_node(&mut ir, map, once, 0, &mut HashMap::default()).ok().expect("maps back");
                prop_assert_eq!(twice, root, "{:?} on `{}`", map, text);
            }
        }
    }
}
