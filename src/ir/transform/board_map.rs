//! The basic transforms of the board (mirrors, rotations, shifts, the colour swap) and the
//! groups of them each CQL transform stands for: how each moves squares, turns directions
//! and swaps colours.

use shakmaty::{Bitboard, Color};

use crate::ir::{Directions, PieceMask, ShiftAxes, TransformKind};

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
/// For the shifts this lists every offset; [`expand`](super::expand) drops those that push a named square
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
