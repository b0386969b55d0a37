use super::*;
use crate::ir::{Directions, LineChoice, MoveFilter, MoveSource, MoveValue, PieceMask, ValueType};
use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter,
};
use proptest::prelude::*;
use shakmaty::{Color, Role, Square};

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
    ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(color, role), squares: on }), Span::new(0, 3))
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
        Filter::Logic(LogicFilter::Or(v))
        | Filter::Sets(SetFilter::Union(v))
        | Filter::Logic(LogicFilter::CountMatching(v)) => v.clone(),
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
    let check = ir.add(Filter::PositionState(PositionStateFilter::Check), Span::new(5, 10));
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
    assert!(matches!(ir.get(root), Filter::Sets(SetFilter::Union(_))), "a set body gives a union");
    assert_eq!(copies.len(), 8);
    assert_eq!(copies[0], p, "the identity copy is the original node");
    let mut covered = Bitboard::EMPTY;
    for c in copies {
        match ir.get(c) {
            Filter::Sets(SetFilter::Pieces { mask, squares }) => {
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
    let designator = ir.add(Filter::Sets(SetFilter::Pieces { mask, squares: sq("a3") }), Span::new(0, 8));
    let wtm = ir.add(Filter::PositionState(PositionStateFilter::ToMove(Color::White)), Span::default());
    let stalemate = ir.add(Filter::PositionState(PositionStateFilter::Stalemate), Span::default());
    let result = ir.add(Filter::Header(HeaderFilter::Result(GameResult::WhiteWins)), Span::default());
    let player = ir.add(Filter::Header(HeaderFilter::Field(HeaderField::Player(Color::White))), Span::default());
    let body =
        ir.add(Filter::Logic(LogicFilter::And(vec![designator, wtm, stalemate, result, player])), Span::default());
    let t = transform(&mut ir, TransformKind::FlipColor, body);
    let root = expanded(&mut ir, t);
    assert!(matches!(ir.get(root), Filter::Logic(LogicFilter::Or(_))), "a non-set body gives an or");
    let copies = list_of(&ir, root);
    assert_eq!(copies, vec![body, copies[1]]);
    let Filter::Logic(LogicFilter::And(parts)) = ir.get(copies[1]).clone() else { panic!("copy is an and") };
    let expected_mask = PieceMask::piece(Color::Black, Role::Rook)
        .with(PieceMask::piece(Color::White, Role::Knight))
        .with(PieceMask::piece(Color::White, Role::Queen));
    assert_eq!(ir.get(parts[0]), &Filter::Sets(SetFilter::Pieces { mask: expected_mask, squares: sq("a6") }));
    assert_eq!(ir.get(parts[1]), &Filter::PositionState(PositionStateFilter::ToMove(Color::Black)));
    assert_eq!(parts[2], stalemate, "unchanged leaves keep their id");
    assert_eq!(ir.get(parts[3]), &Filter::Header(HeaderFilter::Result(GameResult::BlackWins)));
    assert_eq!(ir.get(parts[4]), &Filter::Header(HeaderFilter::Field(HeaderField::Player(Color::Black))));
}

#[test]
fn reversecolor_has_no_identity_copy() {
    let mut ir = Ir::new();
    let p = pieces(&mut ir, Color::White, Role::Pawn, Bitboard::from_rank(shakmaty::Rank::Seventh));
    let t = transform(&mut ir, TransformKind::ReverseColor, p);
    let root = expanded(&mut ir, t);
    assert_eq!(
        ir.get(root),
        &Filter::Sets(SetFilter::Pieces {
            mask: PieceMask::piece(Color::Black, Role::Pawn),
            squares: Bitboard::from_rank(shakmaty::Rank::Second)
        })
    );
}

#[test]
fn flipcolor_negates_side_to_move_and_double_swap_cancels() {
    let mut ir = Ir::new();
    let stm = ir.add(Filter::PositionState(PositionStateFilter::SideToMove), Span::default());
    let one = ir.add(Filter::Numbers(NumberFilter::Number(1)), Span::default());
    let cmp =
        ir.add(Filter::Numbers(NumberFilter::Compare { first: stm, rest: vec![(CmpOp::Eq, one)] }), Span::default());
    let rev = transform(&mut ir, TransformKind::ReverseColor, cmp);
    let rev2 = transform(&mut ir, TransformKind::ReverseColor, rev);
    let root = expanded(&mut ir, rev2);
    assert_eq!(root, cmp, "reversecolor twice is the identity");
    let mut ir2 = Ir::new();
    let stm = ir2.add(Filter::PositionState(PositionStateFilter::SideToMove), Span::default());
    let rev = transform(&mut ir2, TransformKind::ReverseColor, stm);
    let root = expanded(&mut ir2, rev);
    assert_eq!(ir2.get(root), &Filter::Numbers(NumberFilter::Neg(stm)));
}

#[test]
fn shiftvertical_leaves_full_files_whole() {
    let mut ir = Ir::new();
    let file_d = Bitboard::from_file(shakmaty::File::D);
    let king = pieces(&mut ir, Color::White, Role::King, file_d);
    let bishop = pieces(&mut ir, Color::White, Role::Bishop, sq("a2"));
    let body = ir.add(Filter::Logic(LogicFilter::And(vec![king, bishop])), Span::default());
    let t = transform(&mut ir, TransformKind::ShiftVertical, body);
    let root = expanded(&mut ir, t);
    let copies = list_of(&ir, root);
    assert_eq!(copies.len(), 8);
    let mut bishops = Bitboard::EMPTY;
    for c in copies {
        let Filter::Logic(LogicFilter::And(parts)) = ir.get(c) else { panic!("and expected") };
        assert_eq!(parts[0], king, "Kd1-8 is never moved");
        if let Filter::Sets(SetFilter::Pieces { squares, .. }) = ir.get(parts[1]) {
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
    let body = ir.add(Filter::Logic(LogicFilter::And(vec![king, bishop])), Span::default());
    let t = transform(&mut ir, TransformKind::ShiftVertical, body);
    let root = expanded(&mut ir, t);
    let copies = list_of(&ir, root);
    assert_eq!(copies.len(), 8, "a2 can go to a1..a8");
    let down_one: Vec<_> = copies
        .iter()
        .filter_map(|&c| match ir.get(c) {
            Filter::Logic(LogicFilter::And(p))
                if ir.get(p[1])
                    == &Filter::Sets(SetFilter::Pieces {
                        mask: PieceMask::piece(Color::White, Role::Bishop),
                        squares: sq("a1"),
                    }) =>
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
        &Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(Color::White, Role::King), squares: expected })
    );
}

#[test]
fn shift_drops_copies_that_push_a_piece_off_the_board() {
    let mut ir = Ir::new();
    let white_king = pieces(&mut ir, Color::White, Role::King, sq("b1"));
    let black_king = pieces(&mut ir, Color::Black, Role::King, sq("g6"));
    let body = ir.add(Filter::Logic(LogicFilter::And(vec![white_king, black_king])), Span::default());
    let h = transform(&mut ir, TransformKind::ShiftHorizontal, body);
    let v = transform(&mut ir, TransformKind::ShiftVertical, body);
    let s = transform(&mut ir, TransformKind::Shift, body);
    let all = ir.add(Filter::Logic(LogicFilter::And(vec![h, v, s])), Span::default());
    let root = expanded(&mut ir, all);
    let Filter::Logic(LogicFilter::And(parts)) = ir.get(root).clone() else { panic!("and expected") };
    assert_eq!(list_of(&ir, parts[0]).len(), 3, "b→a,b,c");
    assert_eq!(list_of(&ir, parts[1]).len(), 3, "1→1,2,3");
    assert_eq!(list_of(&ir, parts[2]).len(), 9);
}

#[test]
fn shift_of_a_single_square_covers_the_board_and_counts_with_a_range() {
    let mut ir = Ir::new();
    let mask = PieceMask::piece(Color::White, Role::Pawn).with(PieceMask::piece(Color::Black, Role::Pawn));
    let pawns = ir.add(Filter::Sets(SetFilter::Pieces { mask, squares: sq("a4") }), Span::default());
    let t = ir.add(
        Filter::Transform { kind: TransformKind::Shift, range: Some((10, 20)), count: false, body: pawns },
        Span::default(),
    );
    let root = expanded(&mut ir, t);
    let Filter::Logic(LogicFilter::And(bounds)) = ir.get(root).clone() else {
        panic!("ranged form is an and of bounds")
    };
    let Filter::Numbers(NumberFilter::Compare { first, rest }) = ir.get(bounds[0]).clone() else { panic!("compare") };
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].0, CmpOp::Ge);
    assert_eq!(ir.get(rest[0].1), &Filter::Numbers(NumberFilter::Number(10)));
    let copies = list_of(&ir, first);
    assert_eq!(copies.len(), 64);
    let covered = copies.iter().fold(Bitboard::EMPTY, |acc, &c| match ir.get(c) {
        Filter::Sets(SetFilter::Pieces { squares, .. }) => acc.with(*squares),
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
        Filter::GameTree(GameTreeFilter::Find {
            direction: crate::ir::FindDirection::Forward,
            all: false,
            range: None,
            quiet: true,
            body: rook,
        }),
        Span::default(),
    );
    let t = ir.add(
        Filter::Transform { kind: TransformKind::Rotate90, range: Some((4, 4)), count: false, body: find },
        Span::default(),
    );
    let root = expanded(&mut ir, t);
    let Filter::Numbers(NumberFilter::Compare { first, rest }) = ir.get(root).clone() else { panic!("compare") };
    assert_eq!(rest[0].0, CmpOp::Eq);
    let corners = list_of(&ir, first).iter().fold(Bitboard::EMPTY, |acc, &c| match ir.get(c) {
        Filter::GameTree(GameTreeFilter::Find { body, .. }) => match ir.get(*body) {
            Filter::Sets(SetFilter::Pieces { squares, .. }) => acc.with(*squares),
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
    let ray = ir.add(
        Filter::Geometry(GeometryFilter::Ray { dirs: Directions::UP, sets: vec![rooks, king], xray: false }),
        Span::default(),
    );
    let t = transform(&mut ir, TransformKind::Rotate90, ray);
    let root = expanded(&mut ir, t);
    let copies = list_of(&ir, root);
    assert_eq!(copies.len(), 4);
    let Filter::Geometry(GeometryFilter::Ray { dirs, sets, .. }) = ir.get(copies[1]).clone() else { panic!("ray") };
    assert_eq!(dirs, Directions::LEFT);
    assert_eq!(sets[1], king, "the unnamed-square king is shared");
    assert_eq!(
        ir.get(sets[0]),
        &Filter::Sets(SetFilter::Pieces {
            mask: PieceMask::piece(Color::White, Role::Rook),
            squares: squares(&["c7", "h1"])
        })
    );
}

#[test]
fn rotate45_turns_directions_and_refuses_named_squares() {
    let mut ir = Ir::new();
    let king = pieces(&mut ir, Color::White, Role::King, Bitboard::FULL);
    let up = ir.add(
        Filter::Geometry(GeometryFilter::Direction {
            dirs: Directions::UP,
            min: 1,
            max: 1,
            range_variables: (None, None),
            arg: king,
        }),
        Span::default(),
    );
    let t = transform(&mut ir, TransformKind::Rotate45, up);
    let root = expanded(&mut ir, t);
    let all = list_of(&ir, root).iter().fold(0u8, |acc, &c| match ir.get(c) {
        Filter::Geometry(GeometryFilter::Direction { dirs, .. }) => acc | dirs.0,
        _ => acc,
    });
    assert_eq!(all, Directions::ANY.0, "the king's field");

    let mut ir = Ir::new();
    let kd3 = ir.add(
        Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(Color::White, Role::King), squares: sq("d3") }),
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
    let body = ir.add(Filter::Logic(LogicFilter::And(vec![pawn, black])), Span::default());
    let shift = transform(&mut ir, TransformKind::Shift, body);
    let flip = transform(&mut ir, TransformKind::Flip, shift);
    let not = ir.add(Filter::Logic(LogicFilter::Not(flip)), Span::default());
    let root = expanded(&mut ir, not);
    for id in reachable(&ir, root) {
        assert!(!matches!(ir.get(id), Filter::Transform { .. }), "no transform survives");
    }
    let Filter::Logic(LogicFilter::Not(inner)) = ir.get(root) else { panic!("not kept") };
    // The transforms compose into one flat list of single positions of the pair.
    let copies = list_of(&ir, *inner);
    assert!(copies.iter().all(|&c| matches!(ir.get(c), Filter::Logic(LogicFilter::And(parts)) if parts.len() == 2)));
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
    let light = ir.add(Filter::Numbers(NumberFilter::Call(Builtin::Light, vec![b])), Span::default());
    let t = transform(&mut ir, TransformKind::FlipColor, light);
    let root = expanded(&mut ir, t);
    let black = pieces(&mut ir, Color::Black, Role::Bishop, Bitboard::FULL);
    let dark_black = ir.add(Filter::Numbers(NumberFilter::Call(Builtin::Dark, vec![black])), Span::default());
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
    let body = ir.add(Filter::Logic(LogicFilter::And(vec![k, q, p])), Span::default());
    let flip = transform(&mut ir, TransformKind::Flip, body);
    let shift = transform(&mut ir, TransformKind::Shift, flip);
    let root = expanded(&mut ir, shift);
    let copies = list_of(&ir, root);
    // A 2x3 (or 3x2) pattern fits 7*6 = 42 ways; 8 orientations.
    assert_eq!(copies.len(), 8 * 42);
    let k_a3 = pieces(&mut ir, Color::Black, Role::King, sq("a3"));
    let q_b3 = pieces(&mut ir, Color::White, Role::Queen, sq("b3"));
    let p_c4 = pieces(&mut ir, Color::White, Role::Pawn, sq("c4"));
    let wanted = ir.add(Filter::Logic(LogicFilter::And(vec![k_a3, q_b3, p_c4])), Span::default());
    let has = |want: &[FilterId], c: FilterId| match ir.get(c) {
        Filter::Logic(LogicFilter::And(parts)) => want.iter().all(|w| parts.contains(w)),
        _ => false,
    };
    let Filter::Logic(LogicFilter::And(want)) = ir.get(wanted).clone() else { panic!("and built") };
    assert!(copies.iter().any(|&c| has(&want, c)), "a rotated and shifted copy is there");
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let handle = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let mut ir = Ir::new();
            let mut id = ir.add(Filter::PositionState(PositionStateFilter::Check), Span::default());
            for _ in 0..5000 {
                id = ir.add(Filter::Logic(LogicFilter::Not(id)), Span::default());
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
            prop::sample::select(vec!["K", "Q", "R", "B", "N", "P", "k", "q", "r", "n", "p", "A", "a", "_", "[Qq]"]),
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
