//! Board geometry for the evaluator: attacks, lines, rays, pins, pawn structure.
//!
//! Takes in: a shakmaty [`Board`] and square sets. Gives out: square sets.
//! Must never: look at the game tree, allocate per call, or panic on any board.

use shakmaty::{attacks, Bitboard, Board, Color, File, Piece, Rank, Role, Square};

use crate::ir::{Directions, PawnStructure, PieceMask};

/// The square one step from `sq` along `(file delta, rank delta)`, if on the board.
pub fn step(sq: Square, delta: (i8, i8)) -> Option<Square> {
    let f = sq.file().to_u32() as i32 + delta.0 as i32;
    let r = sq.rank().to_u32() as i32 + delta.1 as i32;
    if (0..8).contains(&f) && (0..8).contains(&r) {
        Some(Square::from_coords(File::new(f as u32), Rank::new(r as u32)))
    } else {
        None
    }
}

/// The deltas of the directions set in `dirs`.
pub fn deltas(dirs: Directions) -> impl Iterator<Item = (i8, i8)> {
    Directions::DELTAS.iter().enumerate().filter(move |(i, _)| dirs.0 & (1 << i) != 0).map(|(_, d)| *d)
}

/// Squares whose content `mask` accepts, among `squares`.
pub fn pieces(board: &Board, mask: PieceMask, squares: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for (color, shift) in [(Color::White, 0), (Color::Black, 6)] {
        // The six bits of this colour, one per role (see `PieceMask::piece`).
        let roles = (mask.0 >> shift) & 0x3f;
        if roles == 0x3f {
            out |= board.by_color(color);
        } else if roles != 0 {
            let mut of_roles = Bitboard::EMPTY;
            for role in Role::ALL {
                if roles & (1 << (role as u16 - 1)) != 0 {
                    of_roles |= board.by_role(role);
                }
            }
            out |= of_roles & board.by_color(color);
        }
    }
    if mask.contains_empty() {
        out |= !board.occupied();
    }
    out & squares
}

/// Squares attacked by the piece on `sq` given the board's occupancy (pawns: diagonals
/// only; own pieces count as attacked). Empty when `sq` is empty.
pub fn attacks_from(board: &Board, sq: Square) -> Bitboard {
    match board.piece_at(sq) {
        Some(piece) => attacks::attacks(sq, piece, board.occupied()),
        None => Bitboard::EMPTY,
    }
}

/// `A → B`: the squares of A whose piece attacks some square of B.
pub fn attackers(board: &Board, a: Bitboard, b: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for sq in a & board.occupied() {
        if attacks_from(board, sq).intersects(b) {
            out.add(sq);
        }
    }
    out
}

/// `B ← A`: the squares of B attacked by some piece standing on A.
pub fn attacked_by(board: &Board, a: Bitboard, b: Bitboard) -> Bitboard {
    let mut hit = Bitboard::EMPTY;
    for sq in a & board.occupied() {
        hit |= attacks_from(board, sq);
    }
    hit & b
}

/// `between(A B)`: the squares strictly between each aligned pair of a square of A and
/// a square of B.
pub fn between(a: Bitboard, b: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for x in a {
        for y in b {
            out |= attacks::between(x, y);
        }
    }
    out
}

/// Squares at distance `min..=max` from a square of `from` in the directions `dirs`,
/// ignoring pieces in the way. Distance 0 is the square itself, so a range starting at 0
/// (`up 0 7 X`) keeps the squares of `X` (a file ahead of a pawn, the pawn's square
/// included); a negative distance counts the opposite way (`up -1 X`: one square down).
pub fn direction(dirs: Directions, min: i8, max: i8, from: Bitboard) -> Bitboard {
    let (min, max) = (i16::from(min), i16::from(max));
    let mut out = if min <= 0 && 0 <= max { from } else { Bitboard::EMPTY };
    if max >= 1 {
        out |= reach(dirs, min.max(1), max, from);
    }
    if min <= -1 {
        out |= reach(dirs.reversed(), (-max).max(1), -min, from);
    }
    out
}

/// Squares `min..=max` steps (both at least 1) from a square of `from` in the directions `dirs`.
fn reach(dirs: Directions, min: i16, max: i16, from: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for sq in from {
        for d in deltas(dirs) {
            let mut cur = sq;
            let mut dist = 0i16;
            while let Some(next) = step(cur, d) {
                dist += 1;
                if dist > max {
                    break;
                }
                if dist >= min {
                    out.add(next);
                }
                cur = next;
            }
        }
    }
    out
}

/// The line directions along which a piece of this role attacks (sliders only).
pub fn slider_dirs(role: Role) -> Directions {
    match role {
        Role::Rook => Directions::ORTHOGONAL,
        Role::Bishop => Directions::DIAGONAL,
        Role::Queen => Directions::ANY,
        _ => Directions(0),
    }
}

/// `ray dirs (S0 S1 … Sk)` and `xray`: squares of Sk reached by a straight line in one of
/// `dirs` visiting a square of each set in order, with only empty squares between two
/// consecutive links. For `xray` the line must also be one along which the piece on the
/// first link attacks.
pub fn ray(board: &Board, dirs: Directions, sets: &[Bitboard], xray: bool) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    if sets.len() < 2 {
        return out;
    }
    let occupied = board.occupied();
    for start in sets[0] {
        let mut allowed = dirs;
        if xray {
            let role = match board.role_at(start) {
                Some(r) => r,
                None => continue,
            };
            allowed = Directions(allowed.0 & slider_dirs(role).0);
        }
        for dir in 0..Directions::DELTAS.len() {
            // A direction whose line from `start` holds no square of the next link is no ray.
            if allowed.0 & (1 << dir) != 0 && (Bitboard(RAYS[dir][start as usize]) & sets[1]).any() {
                ray_walk(start, dir, &sets[1..], occupied, &mut out);
            }
        }
    }
    out
}

/// `RAYS[d][s]`: the squares met walking from square `s` in direction `Directions::DELTAS[d]`
/// to the edge of the board (`s` itself not included).
static RAYS: [[u64; 64]; 8] = ray_table();

const fn ray_table() -> [[u64; 64]; 8] {
    let mut table = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = Directions::DELTAS[d];
        let mut s = 0;
        while s < 64 {
            let (mut f, mut r) = ((s % 8) as i32, (s / 8) as i32);
            let mut bits = 0u64;
            loop {
                f += df as i32;
                r += dr as i32;
                if f < 0 || f >= 8 || r < 0 || r >= 8 {
                    break;
                }
                bits |= 1u64 << (r * 8 + f);
            }
            table[d][s] = bits;
            s += 1;
        }
        d += 1;
    }
    table
}

/// The squares met walking from `from` in direction `Directions::DELTAS[dir]` up to and
/// including the first occupied one (to the edge when there is none).
fn ray_reach(from: Square, dir: usize, occupied: Bitboard) -> Bitboard {
    let line = Bitboard(RAYS[dir][from as usize]);
    let (df, dr) = Directions::DELTAS[dir];
    // Walking towards higher square numbers, the first square met is the lowest one.
    let ascending = dr > 0 || (dr == 0 && df > 0);
    let first_blocker = if ascending { (line & occupied).first() } else { (line & occupied).last() };
    match first_blocker {
        Some(b) => line & !Bitboard(RAYS[dir][b as usize]),
        None => line,
    }
}

/// An attack chain `S0 → S1 → … → Sk` (k ≥ 2): a line piece on S0 whose line in one of
/// its attack directions meets a piece of S1 first, then (through it) a piece of S2, and so
/// on, with only empty squares between links; the last link may be any square of Sk on the
/// line up to the next piece. Value: the squares of S0 that start such a line, or of Sk that
/// end one when `value_is_last`.
pub fn attack_chain(board: &Board, sets: &[Bitboard], value_is_last: bool) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    let Some((last, links)) = sets.split_last() else { return out };
    if links.len() < 2 {
        return out;
    }
    let occupied = board.occupied();
    for start in links[0] & occupied {
        let Some(role) = board.role_at(start) else { continue };
        'direction: for d in deltas(slider_dirs(role)) {
            // Each intermediate link is the next piece along the line, or an empty square of
            // the link before it (`to→pathstart:V→from`: the square a moved piece left).
            let mut cur = start;
            for link in &links[1..] {
                let mut next = step(cur, d);
                while let Some(sq) = next {
                    if occupied.contains(sq) || link.contains(sq) {
                        break;
                    }
                    next = step(sq, d);
                }
                match next {
                    Some(sq) if link.contains(sq) => cur = sq,
                    _ => continue 'direction,
                }
            }
            // The last link: any square of the last set up to the next piece.
            let mut reached = Bitboard::EMPTY;
            let mut next = step(cur, d);
            while let Some(sq) = next {
                if last.contains(sq) {
                    reached.add(sq);
                }
                if occupied.contains(sq) {
                    break;
                }
                next = step(sq, d);
            }
            if reached.any() {
                if value_is_last {
                    out |= reached;
                } else {
                    out.add(start);
                }
            }
        }
    }
    out
}

/// Follow direction `Directions::DELTAS[dir]` from `from`, trying every square of `rest[0]`
/// reachable with only empty squares before it, then continuing with the rest of the chain.
fn ray_walk(from: Square, dir: usize, rest: &[Bitboard], occupied: Bitboard, out: &mut Bitboard) {
    let Some((first, more)) = rest.split_first() else { return };
    let hits = ray_reach(from, dir, occupied) & *first;
    if more.is_empty() {
        *out |= hits;
    } else {
        for sq in hits {
            ray_walk(sq, dir, more, occupied, out);
        }
    }
}

/// CQL 6.2's `pin from A through B to C` (its `PinNode`), as `(pinners, pinned, targets)`: a
/// line piece of A, looking along one of its lines, sees a square of C that is empty or holds
/// a piece of the other colour, and exactly one piece stands between them — a piece of B of
/// the other colour (the pinned piece). The target square need not be the first occupied one
/// beyond the pinned piece, only the squares between must hold nothing else.
pub fn pins_cql62(board: &Board, from: Bitboard, through: Bitboard, to: Bitboard) -> (Bitboard, Bitboard, Bitboard) {
    let (mut pinners, mut pinned, mut targets) = (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
    let occupied = board.occupied();
    for pinner in from & board.sliders() {
        let Some(piece) = board.piece_at(pinner) else { continue };
        let other = board.by_color(!piece.color);
        for d in deltas(slider_dirs(piece.role)) {
            let mut cur = pinner;
            let mut between: Option<Square> = None;
            while let Some(next) = step(cur, d) {
                cur = next;
                if let Some(middle) = between {
                    if to.contains(next) && (other.contains(next) || !occupied.contains(next)) {
                        pinners.add(pinner);
                        pinned.add(middle);
                        targets.add(next);
                    }
                    if occupied.contains(next) {
                        break;
                    }
                } else if occupied.contains(next) {
                    if !(other & through).contains(next) {
                        break;
                    }
                    between = Some(next);
                }
            }
        }
    }
    (pinners, pinned, targets)
}

/// Files adjacent to a file, as a square set.
fn adjacent_files(file: File) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    if let Some(f) = file.offset(-1) {
        out |= Bitboard::from_file(f);
    }
    if let Some(f) = file.offset(1) {
        out |= Bitboard::from_file(f);
    }
    out
}

/// Squares strictly in front of `sq` from `color`'s point of view, on its own file and
/// the adjacent ones.
fn front_span(sq: Square, color: Color) -> Bitboard {
    let files = Bitboard::from_file(sq.file()) | adjacent_files(sq.file());
    let mut ranks = Bitboard::EMPTY;
    for r in 0..8u32 {
        let ahead = if color.is_white() { r > sq.rank().to_u32() } else { r < sq.rank().to_u32() };
        if ahead {
            ranks |= Bitboard::from_rank(Rank::new(r));
        }
    }
    files & ranks
}

/// The pawns of both colours with the given structural property.
pub fn pawn_structure(board: &Board, kind: PawnStructure) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for color in [Color::White, Color::Black] {
        let own = board.by_piece(Piece { color, role: Role::Pawn });
        let enemy = board.by_piece(Piece { color: !color, role: Role::Pawn });
        for sq in own {
            let file = Bitboard::from_file(sq.file());
            let side = adjacent_files(sq.file());
            let holds = match kind {
                PawnStructure::Passed => !front_span(sq, color).intersects(enemy),
                PawnStructure::Doubled => (own & file).more_than_one(),
                PawnStructure::Isolated => !own.intersects(side),
                PawnStructure::Connected => own.intersects(side),
            };
            if holds {
                out.add(sq);
            }
        }
    }
    out
}

/// Sum of piece values (`power`) of the pieces on `squares`.
pub fn power(board: &Board, squares: Bitboard) -> i64 {
    (squares & board.occupied()).into_iter().filter_map(|sq| board.role_at(sq)).map(crate::pgn::role_power).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    fn board(fen: &str) -> Board {
        let pos: Chess = Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap();
        pos.board().clone()
    }

    #[test]
    fn a_negative_direction_distance_counts_the_other_way() {
        let sq = Bitboard::from;
        let e4 = sq(Square::E4);
        // Every range from -7 to 7 is the union of its single distances, and distance -n
        // in `dirs` is distance n in the reversed directions.
        for dirs in [Directions::UP, Directions::NORTHEAST, Directions::DIAGONAL, Directions::ANY] {
            for a in -7i8..=7 {
                let single = direction(dirs, a, a, e4);
                let mirrored = if a < 0 { direction(dirs.reversed(), -a, -a, e4) } else { single };
                assert_eq!(single, mirrored, "{dirs:?} {a}");
                for b in a..=7 {
                    let union = (a..=b).fold(Bitboard::EMPTY, |acc, d| acc | direction(dirs, d, d, e4));
                    assert_eq!(direction(dirs, a, b, e4), union, "{dirs:?} {a}..{b}");
                }
            }
        }
        assert_eq!(direction(Directions::UP, -1, -1, e4), sq(Square::E3));
        assert_eq!(direction(Directions::UP, 0, 0, e4), e4);
        // Beyond the board: nothing.
        assert_eq!(direction(Directions::UP, 5, 7, e4), Bitboard::EMPTY);
        assert_eq!(direction(Directions::UP, i8::MAX, i8::MAX, e4), Bitboard::EMPTY);
    }

    #[test]
    fn reversed_directions_are_the_opposite_steps() {
        for bits in 0..=255u8 {
            let dirs = Directions(bits);
            assert_eq!(dirs.reversed().reversed(), dirs);
            let mut forward: Vec<(i8, i8)> = deltas(dirs).map(|(f, r)| (-f, -r)).collect();
            let mut back: Vec<(i8, i8)> = deltas(dirs.reversed()).collect();
            forward.sort_unstable();
            back.sort_unstable();
            assert_eq!(forward, back, "{bits:#010b}");
        }
    }

    #[test]
    fn cql62_pins_reach_empty_and_enemy_squares_beyond_the_pinned_piece() {
        // Ra1, black knight a3, black king a6: a4 and a5 empty.
        let b = board("8/8/k7/8/8/n7/8/R3K3 w - - 0 1");
        let all = Bitboard::FULL;
        let sq = Bitboard::from;
        // Default target (kings): pinned to the king on a6.
        assert_eq!(pins_cql62(&b, all, all, b.kings()), (sq(Square::A1), sq(Square::A3), sq(Square::A6)));
        // Empty squares beyond the knight count as targets too, the king's own square as well.
        let (_, pinned, targets) = pins_cql62(&b, all, all, all);
        assert_eq!(pinned, sq(Square::A3));
        assert_eq!(targets, sq(Square::A4) | sq(Square::A5) | sq(Square::A6));
        // Not the squares up to the pinned piece, nor beyond the king.
        assert!(!targets.contains(Square::A2) && !targets.contains(Square::A7));
        // A white piece between is not pinned by a white rook.
        let b2 = board("8/8/k7/8/8/N7/8/R3K3 w - - 0 1");
        assert_eq!(pins_cql62(&b2, all, all, all), (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY));
    }

    #[test]
    fn pawn_attacks_diagonally_and_own_pieces_count() {
        let b = board("4k3/8/8/8/8/8/4P3/R3K3 w - - 0 1");
        // e2 pawn attacks d3/f3, not e3.
        assert!(attacked_by(&b, Bitboard::from(Square::E2), Bitboard::from(Square::E3)).is_empty());
        assert!(attacked_by(&b, Bitboard::from(Square::E2), Bitboard::from(Square::D3)).any());
        // the rook on a1 attacks its own king on e1
        assert_eq!(attackers(&b, Bitboard::from(Square::A1), Bitboard::from(Square::E1)), Bitboard::from(Square::A1));
    }

    #[test]
    fn between_and_direction() {
        let bt = between(Bitboard::from(Square::A1), Bitboard::from(Square::D4));
        assert_eq!(bt, Bitboard::from(Square::B2) | Bitboard::from(Square::C3));
        assert!(between(Bitboard::from(Square::A1), Bitboard::from(Square::B3)).is_empty());
        let up = direction(Directions::UP, 1, 2, Bitboard::from(Square::E4));
        assert_eq!(up, Bitboard::from(Square::E5) | Bitboard::from(Square::E6));
    }

    #[test]
    fn a_direction_range_from_zero_keeps_the_start_square() {
        let e7 = Bitboard::from(Square::E7);
        assert_eq!(direction(Directions::UP, 0, 7, e7), e7 | Bitboard::from(Square::E8));
        // Even at the edge, where no step up exists, distance 0 is the square itself.
        let e8 = Bitboard::from(Square::E8);
        assert_eq!(direction(Directions::UP, 0, 7, e8), e8);
        assert_eq!(direction(Directions::UP, 0, 0, e7), e7);
    }

    #[test]
    fn pin_of_knight_to_king() {
        let b = board("4k3/4n3/8/8/8/8/8/4RK2 w - - 0 1");
        let all = Bitboard::FULL;
        // Re1 pins the knight e7 to the king e8.
        let e = |s: Square| Bitboard::from(s);
        assert_eq!(pins_cql62(&b, all, all, b.kings()), (e(Square::E1), e(Square::E7), e(Square::E8)));
        // a second piece in between breaks the pin
        let b2 = board("4k3/4n3/4p3/8/8/8/8/4RK2 w - - 0 1");
        assert_eq!(pins_cql62(&b2, all, all, b2.kings()), (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY));
    }

    #[test]
    fn pinned_piece_can_pin_in_turn() {
        // Ra1 pins the black rook d1 to its king h1; that rook pins Bd3 to the white king d6.
        let b = board("8/8/3K4/8/8/3B4/8/R2r3k w - - 0 1");
        let all = Bitboard::FULL;
        let (pinners, pinned, _) = pins_cql62(&b, all, all, b.kings());
        assert_eq!(pinners, Bitboard::from(Square::A1) | Bitboard::from(Square::D1));
        assert_eq!(pinned, Bitboard::from(Square::D1) | Bitboard::from(Square::D3));
        // restricted to pinners on a1: only the d1 rook is pinned
        assert_eq!(pins_cql62(&b, Bitboard::from(Square::A1), all, b.kings()).1, Bitboard::from(Square::D1));
    }

    #[test]
    fn ray_needs_empty_squares_between_links() {
        let b = board("4k3/8/4n3/8/8/8/8/4RK2 w - - 0 1");
        let r = Bitboard::from(Square::E1);
        let n = Bitboard::from(Square::E6);
        let k = Bitboard::from(Square::E8);
        assert_eq!(ray(&b, Directions::ANY, &[r, n, k], false), k);
        assert_eq!(ray(&b, Directions::ANY, &[r, k], false), Bitboard::EMPTY);
        assert_eq!(ray(&b, Directions::ANY, &[r, n, k], true), k);
        assert!(ray(&b, Directions::DIAGONAL, &[r, n, k], false).is_empty());
    }

    /// The square-by-square walk the ray table replaces: every square of `rest[0]` met before
    /// (and including) the first occupied square, then the rest of the chain from there.
    fn walk_by_steps(from: Square, d: (i8, i8), rest: &[Bitboard], occupied: Bitboard, out: &mut Bitboard) {
        let mut cur = from;
        while let Some(next) = step(cur, d) {
            if rest[0].contains(next) {
                if rest.len() == 1 {
                    out.add(next);
                } else {
                    walk_by_steps(next, d, &rest[1..], occupied, out);
                }
            }
            if occupied.contains(next) {
                break;
            }
            cur = next;
        }
    }

    #[test]
    fn piece_masks_select_exactly_their_pieces() {
        let boards = [
            board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            board("4k3/p7/2n5/8/3Q4/8/PP5P/R3K2B w - - 0 1"),
        ];
        for b in &boards {
            for bits in 0..(1u16 << 13) {
                let mask = PieceMask(bits);
                let mut expected = Bitboard::EMPTY;
                for color in [Color::White, Color::Black] {
                    for role in Role::ALL {
                        if mask.contains_piece(color, role) {
                            expected |= b.by_piece(Piece { color, role });
                        }
                    }
                }
                if mask.contains_empty() {
                    expected |= !b.occupied();
                }
                assert_eq!(pieces(b, mask, Bitboard::FULL), expected, "mask {bits:#x}");
                assert_eq!(pieces(b, mask, Bitboard::CORNERS), expected & Bitboard::CORNERS, "mask {bits:#x}");
            }
        }
    }

    #[test]
    fn ray_table_agrees_with_walking_square_by_square() {
        // Pseudo-random occupancies and link sets (a fixed xorshift sequence).
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
            let occupied = Bitboard(next() & next());
            let links = [Bitboard(next()), Bitboard(next() & next()), Bitboard(next())];
            for from in Square::ALL {
                for (dir, &d) in Directions::DELTAS.iter().enumerate() {
                    for len in 1..=links.len() {
                        let (mut expected, mut got) = (Bitboard::EMPTY, Bitboard::EMPTY);
                        walk_by_steps(from, d, &links[..len], occupied, &mut expected);
                        ray_walk(from, dir, &links[..len], occupied, &mut got);
                        assert_eq!(got, expected, "from {from:?} towards {d:?} over {len} links");
                    }
                }
            }
        }
    }

    #[test]
    fn ray_reach_stops_at_the_first_piece_both_ways() {
        let occupied = Bitboard::from(Square::E6) | Bitboard::from(Square::B4);
        // Up the e-file from e1: e2..e6, the rook's view ends on the knight.
        let up = ray_reach(Square::E1, 0, occupied);
        assert_eq!(up, Bitboard::from_iter([Square::E2, Square::E3, Square::E4, Square::E5, Square::E6]));
        // West along the 4th rank from h4: g4..b4.
        let west = ray_reach(Square::H4, 3, occupied);
        assert_eq!(west, Bitboard::from_iter([Square::G4, Square::F4, Square::E4, Square::D4, Square::C4, Square::B4]));
        // South-west from a1 leaves the board at once.
        assert!(ray_reach(Square::A1, 7, occupied).is_empty());
    }

    #[test]
    fn pawn_structures_for_both_colours() {
        let b = board("4k3/p7/8/8/8/8/PP5P/4K3 w - - 0 1");
        let passed = pawn_structure(&b, PawnStructure::Passed);
        assert!(passed.contains(Square::H2));
        assert!(!passed.contains(Square::B2));
        assert!(!passed.contains(Square::A7)); // a2/b2 ahead of it from black's side
        let isolated = pawn_structure(&b, PawnStructure::Isolated);
        assert!(isolated.contains(Square::H2) && isolated.contains(Square::A7));
        assert!(pawn_structure(&b, PawnStructure::Connected).contains(Square::A2));
    }
}
