//! Evaluator tests over hand-built games and hand-built IR, one family at a time.

use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, Keyword62Filter, LogicFilter, NumberFilter, OutputFilter,
    PositionStateFilter, SetFilter, VariableFilter,
};
use shakmaty::{Bitboard, Color, Role, Square};

use super::{GameMatch, Query, Scratch, SortValue, Value};
use crate::diag::Span;
use crate::ir::*;
use crate::pgn::GameBuilder;
use crate::pgn::{Game, NodeId};

fn sp() -> Span {
    Span::default()
}

fn run(ir: Ir, game: &Game) -> GameMatch {
    let q = Query::new(ir).unwrap();
    q.eval_game(&mut Scratch::default(), game)
}

fn sq(s: Square) -> Bitboard {
    Bitboard::from(s)
}

fn pieces(ir: &mut Ir, color: Color, role: Role, squares: Bitboard) -> FilterId {
    ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(color, role), squares }), sp())
}

fn mv(source: MoveSource) -> MoveFilter {
    MoveFilter::any(source)
}

/// 1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6 4.Qxf7#
fn scholars_mate() -> (Game, Vec<NodeId>) {
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]).unwrap();
    (b.finish(None), line)
}

#[test]
fn count_and_empty_set_in_value_mode() {
    let (game, line) = scholars_mate();
    let mut ir = Ir::new();
    // #♙a-h7 == 0: white pawns on the 7th rank: none, a valid 0.
    let p7 = pieces(&mut ir, Color::White, Role::Pawn, Bitboard::from_rank(shakmaty::Rank::Seventh));
    let count = ir.add(Filter::Sets(SetFilter::Count(p7)), sp());
    let zero = ir.add(Filter::Numbers(NumberFilter::Number(0)), sp());
    ir.root =
        Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: count, rest: vec![(CmpOp::Eq, zero)] }), sp()));
    let m = run(ir, &game);
    assert_eq!(m.positions.len(), line.len() + 1);

    // ♟ < 8 (set compared with number is counted): true only after Qxf7 took a pawn.
    let mut ir = Ir::new();
    let bp = pieces(&mut ir, Color::Black, Role::Pawn, Bitboard::FULL);
    let eight = ir.add(Filter::Numbers(NumberFilter::Number(8)), sp());
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: bp, rest: vec![(CmpOp::Lt, eight)] }), sp()));
    let m = run(ir, &game);
    assert_eq!(m.positions, vec![line[6]]);

    // A bare empty set does not match.
    let mut ir = Ir::new();
    ir.root = Some(pieces(&mut ir, Color::White, Role::Pawn, Bitboard::from_rank(shakmaty::Rank::Seventh)));
    assert!(!run(ir, &game).matched);
}

#[test]
fn complement_of_a_move_that_did_not_happen_is_the_whole_board() {
    let (game, _line) = scholars_mate();
    // ♙e2 & ~(move to . previous): the pawn on e2 when it did not just arrive there. At the
    // initial position there is no previous move: the complement is the whole board, and
    // the pawn (which leaves e2 on the first move) is found there only.
    let mut ir = Ir::new();
    let all = ir.add(Filter::Sets(SetFilter::Squares(Bitboard::FULL)), sp());
    let arrived = ir.add(Filter::Move(Box::new(MoveFilter { to: Some(all), ..mv(MoveSource::Previous) })), sp());
    let not_arrived = ir.add(Filter::Sets(SetFilter::Complement(arrived)), sp());
    let pawn = pieces(&mut ir, Color::White, Role::Pawn, sq(Square::E2));
    ir.root = Some(ir.add(Filter::Sets(SetFilter::Intersection(vec![pawn, not_arrived])), sp()));
    let m = run(ir, &game);
    assert_eq!(m.positions, vec![NodeId::ROOT]);
}

#[test]
fn attacks_check_mate_and_attack_values() {
    let (game, line) = scholars_mate();
    let mut ir = Ir::new();
    let q = pieces(&mut ir, Color::White, Role::Queen, Bitboard::FULL);
    let k = pieces(&mut ir, Color::Black, Role::King, Bitboard::FULL);
    let att =
        ir.add(Filter::Geometry(GeometryFilter::Attacks { attackers: q, targets: k, value_is_targets: false }), sp());
    let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![mate, att])), sp()));
    let m = run(ir, &game);
    assert!(m.matched);
    assert_eq!(m.positions, vec![line[6]]);

    // ← value is the attacked squares: the black king's square e8.
    let mut ir = Ir::new();
    let q = pieces(&mut ir, Color::White, Role::Queen, Bitboard::FULL);
    let k = pieces(&mut ir, Color::Black, Role::King, Bitboard::FULL);
    let att =
        ir.add(Filter::Geometry(GeometryFilter::Attacks { attackers: q, targets: k, value_is_targets: true }), sp());
    let e8 = ir.add(Filter::Sets(SetFilter::Squares(sq(Square::E8))), sp());
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: att, rest: vec![(CmpOp::Eq, e8)] }), sp()));
    assert_eq!(run(ir, &game).positions, vec![line[6]]);
}

#[test]
fn directions_and_pins() {
    let mut b = GameBuilder::from_fen(1, "4k3/4n3/8/8/8/8/8/4RK2 w - - 0 1").unwrap();
    b.line(NodeId::ROOT, &["Kg2"]).unwrap();
    let game = b.finish(None);
    let mut ir = Ir::new();
    let pin = ir.add(
        Filter::Geometry(GeometryFilter::PinOf { from: None, through: None, to: None, part: PinPart::Pinned }),
        sp(),
    );
    let n = pieces(&mut ir, Color::Black, Role::Knight, Bitboard::FULL);
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: pin, rest: vec![(CmpOp::Eq, n)] }), sp()));
    assert_eq!(run(ir, &game).positions.len(), 2);

    // up 1 2 from the rook: e2, e3
    let mut ir = Ir::new();
    let r = pieces(&mut ir, Color::White, Role::Rook, Bitboard::FULL);
    let up = ir.add(
        Filter::Geometry(GeometryFilter::Direction {
            dirs: Directions::UP,
            min: 1,
            max: 2,
            range_variables: (None, None),
            arg: r,
        }),
        sp(),
    );
    let c = ir.add(Filter::Sets(SetFilter::Count(up)), sp());
    let two = ir.add(Filter::Numbers(NumberFilter::Number(2)), sp());
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: c, rest: vec![(CmpOp::Eq, two)] }), sp()));
    assert!(run(ir, &game).matched);
}

#[test]
fn pin_gives_the_part_asked_for() {
    // Re1 pins the knight e7 to the black king e8.
    let b = GameBuilder::from_fen(1, "4k3/4n3/8/8/8/8/8/4RK2 w - - 0 1").unwrap();
    let game = b.finish(None);
    let rook = Bitboard::from(Square::E1);
    let knight = Bitboard::from(Square::E7);
    let king = Bitboard::from(Square::E8);
    // does `pin from ◭ through ◭` giving `part` equal the pieces on `expected`?
    let value_is = |part: PinPart, expected: Bitboard| {
        let mut ir = Ir::new();
        let any = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::ANY_PIECE, squares: Bitboard::FULL }), sp());
        let pin = ir
            .add(Filter::Geometry(GeometryFilter::PinOf { from: Some(any), through: Some(any), to: None, part }), sp());
        let want = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::ANY_PIECE, squares: expected }), sp());
        ir.root =
            Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: pin, rest: vec![(CmpOp::Eq, want)] }), sp()));
        run(ir, &game).matched
    };
    assert!(value_is(PinPart::Pinners, rook));
    assert!(!value_is(PinPart::Pinners, knight));
    assert!(value_is(PinPart::Pinned, knight));
    assert!(value_is(PinPart::Targets, king));
    assert!(!value_is(PinPart::Targets, knight));
}

#[test]
fn piece_assignment_needs_exactly_one_piece() {
    let b = GameBuilder::from_fen(1, "4k3/4n3/8/8/8/8/8/4RK2 w - - 0 1").unwrap();
    let game = b.finish(None);
    let assign = |squares: Bitboard| {
        let mut ir = Ir::new();
        let x = ir.var("x", VarKind::Piece);
        let set = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::ANY_PIECE, squares }), sp());
        let a = ir.add(Filter::Variables(VariableFilter::Assign { var: x, op: None, value: set }), sp());
        let xv = ir.add(Filter::Variables(VariableFilter::Var(x)), sp());
        ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![a, xv])), sp()));
        run(ir, &game).matched
    };
    assert!(assign(Bitboard::from(Square::E1)));
    assert!(!assign(Bitboard::EMPTY));
    assert!(!assign(Bitboard::from(Square::E1) | Bitboard::from(Square::E7)));
}

#[test]
fn if_without_else_matches_when_the_condition_fails() {
    let (game, _) = scholars_mate();
    // if mate then false: true everywhere but at the final mate
    let mut ir = Ir::new();
    let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), sp());
    let no = ir.add(Filter::False, sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::If { cond: mate, then: no, otherwise: None }), sp()));
    let m = run(ir, &game);
    assert_eq!(m.positions.len(), 7);
    // with an else branch that fails, only the mate position's `then` counts
    let mut ir = Ir::new();
    let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), sp());
    let yes = ir.add(Filter::True, sp());
    let no = ir.add(Filter::False, sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::If { cond: mate, then: yes, otherwise: Some(no) }), sp()));
    assert_eq!(run(ir, &game).positions.len(), 1);
}

#[test]
fn position_by_id_finds_the_numbered_position() {
    let (game, line) = scholars_mate();
    // position (positionid + 2) : ply == ply + 2 holds wherever that position exists
    let mut ir = Ir::new();
    let id = ir.add(Filter::GameTree(GameTreeFilter::PositionId), sp());
    let two = ir.add(Filter::Numbers(NumberFilter::Number(2)), sp());
    let sum = ir.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Add, id, two)), sp());
    let there = ir.add(Filter::GameTree(GameTreeFilter::PositionById(sum)), sp());
    let ply = ir.add(Filter::PositionState(PositionStateFilter::Ply), sp());
    let ply_there = ir.add(Filter::GameTree(GameTreeFilter::AtPosition { at: there, body: ply }), sp());
    let ply_plus = ir.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Add, ply, two)), sp());
    ir.root = Some(
        ir.add(Filter::Numbers(NumberFilter::Compare { first: ply_there, rest: vec![(CmpOp::Eq, ply_plus)] }), sp()),
    );
    let m = run(ir, &game);
    // 8 positions; the last two have no position two plies on
    assert_eq!(m.positions.len(), 6);
    assert_eq!(m.positions.last(), Some(&line[4]));
    // no position has a negative id or one past the end
    for n in [-1, 8] {
        let mut ir = Ir::new();
        let k = ir.add(Filter::Numbers(NumberFilter::Number(n)), sp());
        ir.root = Some(ir.add(Filter::GameTree(GameTreeFilter::PositionById(k)), sp()));
        assert!(!run(ir, &game).matched);
    }
}

#[test]
fn en_passant_and_capture_shapes() {
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["e4", "a6", "e5", "d5", "exd6"]).unwrap();
    let game = b.finish(None);
    // enpassant: matches at the position before exd6
    let mut ir = Ir::new();
    let mut f = mv(MoveSource::Next);
    f.kind = MoveKind::EnPassant;
    ir.root = Some(ir.add(Filter::Move(Box::new(f)), sp()));
    assert_eq!(run(ir, &game).positions, vec![line[3]]);
    // × with no sets matches the e.p. capture; the capture square is d5
    let mut ir = Ir::new();
    let d5 = ir.add(Filter::Sets(SetFilter::Squares(sq(Square::D5))), sp());
    let mut f = mv(MoveSource::Next);
    f.capture = Some(d5);
    ir.root = Some(ir.add(Filter::Move(Box::new(f)), sp()));
    assert_eq!(run(ir, &game).positions, vec![line[3]]);
    // ――◭ (to-square occupied) does not match e.p.
    let mut ir = Ir::new();
    let occupied =
        ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::ANY_PIECE, squares: Bitboard::FULL }), sp());
    let mut f = mv(MoveSource::Next);
    f.to = Some(occupied);
    ir.root = Some(ir.add(Filter::Move(Box::new(f)), sp()));
    assert!(!run(ir, &game).matched);
    // pseudo-legal e.p. exists too, and previous move into the final position is e.p.
    let mut ir = Ir::new();
    let mut f = mv(MoveSource::Previous);
    f.kind = MoveKind::EnPassant;
    ir.root = Some(ir.add(Filter::Move(Box::new(f)), sp()));
    assert_eq!(run(ir, &game).positions, vec![line[4]]);
}

#[test]
fn promotion_ignores_colour_and_identity_follows_the_piece() {
    let mut b = GameBuilder::from_fen(1, "8/P6k/8/8/8/8/p6K/8 w - - 0 1").unwrap();
    let line = b.line(NodeId::ROOT, &["a8=R", "a1=R"]).unwrap();
    let game = b.finish(None);
    let mut ir = Ir::new();
    let mut f = mv(MoveSource::Next);
    f.promote = 1 << (Role::Rook as u8);
    ir.root = Some(ir.add(Filter::Move(Box::new(f)), sp()));
    assert_eq!(run(ir, &game).positions, vec![NodeId::ROOT, line[0]]);

    // ◭y∊♙a7 find (y & ♖): the pawn's identity is a rook later.
    let mut ir = Ir::new();
    let y = ir.var("y", VarKind::Piece);
    let dom = pieces(&mut ir, Color::White, Role::Pawn, sq(Square::A7));
    let yv = ir.add(Filter::Variables(VariableFilter::Var(y)), sp());
    let rook = pieces(&mut ir, Color::White, Role::Rook, Bitboard::FULL);
    let both = ir.add(Filter::Sets(SetFilter::Intersection(vec![yv, rook])), sp());
    let find = ir.add(
        Filter::GameTree(GameTreeFilter::Find {
            direction: FindDirection::Forward,
            all: false,
            range: None,
            quiet: true,
            body: both,
        }),
        sp(),
    );
    ir.root = Some(
        ir.add(Filter::Variables(VariableFilter::PieceIter { var: y, domain: dom, body: find, forall: false }), sp()),
    );
    assert_eq!(run(ir, &game).positions, vec![NodeId::ROOT]);
}

#[test]
fn castling_kinds_and_legal_moves() {
    let mut b = GameBuilder::from_fen(1, "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1").unwrap();
    let line = b.line(NodeId::ROOT, &["O-O", "O-O-O"]).unwrap();
    let game = b.finish(None);
    let mut ir = Ir::new();
    let mut f = mv(MoveSource::Next);
    f.kind = MoveKind::CastleKingside;
    ir.root = Some(ir.add(Filter::Move(Box::new(f)), sp()));
    assert_eq!(run(ir, &game).positions, vec![NodeId::ROOT]);
    let mut ir = Ir::new();
    let c1 = ir.add(Filter::Sets(SetFilter::Squares(sq(Square::C8))), sp());
    let mut f = mv(MoveSource::Next);
    f.kind = MoveKind::Castle;
    f.to = Some(c1);
    ir.root = Some(ir.add(Filter::Move(Box::new(f)), sp()));
    assert_eq!(run(ir, &game).positions, vec![line[0]]);

    // countmoves legal at the start of a normal game is 20; legal moves giving check
    let start = GameBuilder::new(1).finish(None);
    let mut ir = Ir::new();
    let mut f = mv(MoveSource::Legal);
    f.value = MoveValue::Count;
    let count = ir.add(Filter::Move(Box::new(f)), sp());
    let twenty = ir.add(Filter::Numbers(NumberFilter::Number(20)), sp());
    ir.root =
        Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: count, rest: vec![(CmpOp::Eq, twenty)] }), sp()));
    assert!(run(ir, &start).matched);
    let (game, line) = scholars_mate();
    let mut ir = Ir::new();
    let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), sp());
    let mut f = mv(MoveSource::Legal);
    f.then = Some(mate);
    ir.root = Some(ir.add(Filter::Move(Box::new(f)), sp()));
    // only after 3...Nf6 does White have a mating move (Qxf7#)
    assert_eq!(run(ir, &game).positions, vec![line[5]]);
}

#[test]
fn find_forward_backward_and_counting() {
    let (game, line) = scholars_mate();
    let mut ir = Ir::new();
    let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), sp());
    let find = ir.add(
        Filter::GameTree(GameTreeFilter::Find {
            direction: FindDirection::Forward,
            all: false,
            range: None,
            quiet: true,
            body: mate,
        }),
        sp(),
    );
    let initial = ir.add(Filter::PositionState(PositionStateFilter::Initial), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![initial, find])), sp()));
    assert_eq!(run(ir, &game).positions, vec![NodeId::ROOT]);

    let mut ir = Ir::new();
    let wtm = ir.add(Filter::PositionState(PositionStateFilter::ToMove(Color::White)), sp());
    let find = ir.add(
        Filter::GameTree(GameTreeFilter::Find {
            direction: FindDirection::Backward,
            all: true,
            range: Some((4, 4)),
            quiet: true,
            body: wtm,
        }),
        sp(),
    );
    ir.root = Some(find);
    // positions with exactly 4 white-to-move positions at or before them: plies 6 and 7
    assert_eq!(run(ir, &game).positions, vec![line[5], line[6]]);
}

#[test]
fn line_sequences() {
    let (game, line) = scholars_mate();
    // line --> wtm --> btm{2,} --> mate : wtm/btm alternate, so btm{2,} cannot match
    let mut ir = Ir::new();
    let wtm = ir.add(Filter::PositionState(PositionStateFilter::ToMove(Color::White)), sp());
    let tr = ir.add(Filter::True, sp());
    let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), sp());
    let any = ir.add(Filter::GameTree(GameTreeFilter::SeqRepeat { body: tr, min: 0, max: u32::MAX }), sp());
    let seq = ir.add(Filter::GameTree(GameTreeFilter::SeqConcat(vec![wtm, any, mate])), sp());
    let lf = ir.add(Filter::GameTree(GameTreeFilter::Line { params: LineParams::default(), body: seq }), sp());
    let five = ir.add(Filter::Numbers(NumberFilter::Number(5)), sp());
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: lf, rest: vec![(CmpOp::Eq, five)] }), sp()));
    // from ply 2 (wtm) to ply 7 (mate) is 6 positions; from ply 3? btm. ply 2: 6, ply 4: 4
    let m = run(ir, &game);
    assert!(!m.matched, "{:?}", m.positions);
    let mut ir = Ir::new();
    let wtm = ir.add(Filter::PositionState(PositionStateFilter::ToMove(Color::White)), sp());
    let tr = ir.add(Filter::True, sp());
    let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), sp());
    let any = ir.add(Filter::GameTree(GameTreeFilter::SeqRepeat { body: tr, min: 0, max: u32::MAX }), sp());
    let seq = ir.add(Filter::GameTree(GameTreeFilter::SeqConcat(vec![wtm, any, mate])), sp());
    let lf = ir.add(Filter::GameTree(GameTreeFilter::Line { params: LineParams::default(), body: seq }), sp());
    let four = ir.add(Filter::Numbers(NumberFilter::Number(4)), sp());
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: lf, rest: vec![(CmpOp::Eq, four)] }), sp()));
    assert_eq!(run(ir, &game).positions, vec![line[3]]);
}

#[test]
fn universal_iteration_is_vacuously_true_and_existential_has_a_value() {
    let (game, _) = scholars_mate();
    let mut ir = Ir::new();
    let x = ir.var("x", VarKind::Square);
    let none = pieces(&mut ir, Color::White, Role::Pawn, Bitboard::from_rank(shakmaty::Rank::Eighth));
    let f = ir.add(Filter::False, sp());
    ir.root = Some(
        ir.add(Filter::Variables(VariableFilter::SquareIter { var: x, domain: none, body: f, forall: true }), sp()),
    );
    assert!(run(ir, &game).matched);

    // 2 == x∊♘ (x & b1-g1): two white knights on the first rank at the start only
    let mut ir = Ir::new();
    let x = ir.var("x", VarKind::Square);
    let n = pieces(&mut ir, Color::White, Role::Knight, Bitboard::FULL);
    let xv = ir.add(Filter::Variables(VariableFilter::Var(x)), sp());
    let rank1 = ir.add(Filter::Sets(SetFilter::Squares(Bitboard::from_rank(shakmaty::Rank::First))), sp());
    let body = ir.add(Filter::Sets(SetFilter::Intersection(vec![xv, rank1])), sp());
    let it = ir.add(Filter::Variables(VariableFilter::SquareIter { var: x, domain: n, body, forall: false }), sp());
    let two = ir.add(Filter::Numbers(NumberFilter::Number(2)), sp());
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: two, rest: vec![(CmpOp::Eq, it)] }), sp()));
    assert_eq!(run(ir, &game).positions.len(), 8);
}

#[test]
fn variables_and_persistent_totals() {
    let (game, _) = scholars_mate();
    let mut ir = Ir::new();
    let c = ir.var("checks", VarKind::Value);
    ir.vars[c.0 as usize].persistent = true;
    let one = ir.add(Filter::Numbers(NumberFilter::Number(1)), sp());
    let check = ir.add(Filter::PositionState(PositionStateFilter::Check), sp());
    let inc = ir.add(Filter::Variables(VariableFilter::Assign { var: c, op: Some(ArithOp::Add), value: one }), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![check, inc])), sp()));
    let q = Query::new(ir).unwrap();
    let mut s1 = Scratch::default();
    let mut s2 = Scratch::default();
    q.eval_game(&mut s1, &game);
    q.eval_game(&mut s1, &game);
    q.eval_game(&mut s2, &game);
    assert_eq!(s1.var(c), Some(&Value::Number(2)));
    assert_eq!(q.persistent_totals(&[s1, s2]), vec![("checks".to_string(), "3".to_string())]);
}

#[test]
fn comments_of_failed_branches_are_discarded() {
    let (game, line) = scholars_mate();
    let mut ir = Ir::new();
    let a = ir.add(Filter::Numbers(NumberFilter::Str("lost".into())), sp());
    let ca = ir.add(Filter::Output(OutputFilter::Comment(vec![a])), sp());
    let f = ir.add(Filter::False, sp());
    let failed = ir.add(Filter::Logic(LogicFilter::And(vec![ca, f])), sp());
    let b = ir.add(Filter::Numbers(NumberFilter::Str("mate on ".into())), sp());
    let k = pieces(&mut ir, Color::Black, Role::King, Bitboard::FULL);
    let cb = ir.add(Filter::Output(OutputFilter::Comment(vec![b, k])), sp());
    let or = ir.add(Filter::Logic(LogicFilter::Or(vec![failed, cb])), sp());
    let mate = ir.add(Filter::PositionState(PositionStateFilter::Mate), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![mate, or])), sp()));
    let m = run(ir, &game);
    assert_eq!(m.comments, vec![(line[6], "mate on e8".to_string())]);
}

#[test]
fn sort_keeps_the_best_value() {
    let (game, _) = scholars_mate();
    let mut ir = Ir::new();
    let ply = ir.add(Filter::PositionState(PositionStateFilter::Ply), sp());
    let check = ir.add(Filter::PositionState(PositionStateFilter::Check), sp());
    let s =
        ir.add(Filter::Output(OutputFilter::Sort { doc: "ply".into(), min: false, quiet: false, value: ply }), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![check, s])), sp()));
    assert_eq!(run(ir, &game).sort, vec![("ply".to_string(), SortValue::Number(7))]);
    let mut ir = Ir::new();
    let ply = ir.add(Filter::PositionState(PositionStateFilter::Ply), sp());
    ir.root = Some(
        ir.add(Filter::Output(OutputFilter::Sort { doc: "ply".into(), min: true, quiet: false, value: ply }), sp()),
    );
    assert_eq!(run(ir, &game).sort, vec![("ply".to_string(), SortValue::Number(0))]);
}

#[test]
fn header_filters_and_tag_prefiltering() {
    let mut b = GameBuilder::new(1);
    b.line(NodeId::ROOT, &["e4"]).unwrap();
    b.tag("White", "Carlsen, Magnus").tag("WhiteElo", "2850").tag("Date", "2019.05.01").tag("Result", "1-0");
    let game = b.finish(None);
    let mut ir = Ir::new();
    let w = ir.add(Filter::Header(HeaderFilter::Field(HeaderField::Player(Color::White))), sp());
    let needle = ir.add(Filter::Numbers(NumberFilter::Str("Carlsen".into())), sp());
    let player = ir.add(Filter::Numbers(NumberFilter::Contains { haystack: w, needle, ignore_case: false }), sp());
    let elo = ir.add(Filter::Header(HeaderFilter::Field(HeaderField::Elo(Color::White))), sp());
    let limit = ir.add(Filter::Numbers(NumberFilter::Number(2800)), sp());
    let strong = ir.add(Filter::Numbers(NumberFilter::Compare { first: elo, rest: vec![(CmpOp::Ge, limit)] }), sp());
    let year = ir.add(Filter::Header(HeaderFilter::Year), sp());
    let y = ir.add(Filter::Numbers(NumberFilter::Number(2019)), sp());
    let in_year = ir.add(Filter::Numbers(NumberFilter::Compare { first: year, rest: vec![(CmpOp::Eq, y)] }), sp());
    let result = ir.add(Filter::Header(HeaderFilter::Result(GameResult::WhiteWins)), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![player, strong, in_year, result])), sp()));
    let q = Query::new(ir.clone()).unwrap();
    assert!(!q.needs_positions());
    assert!(q.may_match_tags(&crate::eval::Scratch::default(), &game));
    assert!(q.eval_game(&mut Scratch::default(), &game).matched);

    let mut other = game.clone();
    other.tags[0].value = b"Anand, V".to_vec();
    assert!(!q.may_match_tags(&crate::eval::Scratch::default(), &other));

    // A mixed query still prefilters on its header conjuncts.
    let check = ir.add(Filter::PositionState(PositionStateFilter::Check), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![player, check])), sp()));
    let q = Query::new(ir).unwrap();
    assert!(q.needs_positions());
    assert!(!q.may_match_tags(&crate::eval::Scratch::default(), &other));
    assert!(q.may_match_tags(&crate::eval::Scratch::default(), &game));
}

#[test]
fn variations_are_searched_only_when_asked() {
    let mut b = GameBuilder::new(1);
    let main = b.line(NodeId::ROOT, &["f3", "e5", "g4", "Nc6"]).unwrap();
    let side = b.line(main[2], &["Qh4#"]).unwrap();
    let mut game = b.finish(None);
    game.number = 1;
    let mut ir = Ir::new();
    ir.root = Some(ir.add(Filter::PositionState(PositionStateFilter::Mate), sp()));
    assert!(!run(ir.clone(), &game).matched);
    ir.settings.variations = true;
    let m = run(ir.clone(), &game);
    assert_eq!(m.positions, vec![side[0]]);
    let var = ir.add(Filter::PositionState(PositionStateFilter::Variation), sp());
    ir.root = Some(var);
    assert_eq!(run(ir, &game).positions, vec![side[0]]);
}

#[test]
fn runaway_loop_and_bad_regex_are_errors() {
    let (game, _) = scholars_mate();
    let mut ir = Ir::new();
    let t = ir.add(Filter::True, sp());
    ir.root = Some(ir.add(Filter::Variables(VariableFilter::While { cond: Some(t), body: t }), sp()));
    let m = run(ir, &game);
    assert!(m.error.is_some() && !m.matched);

    let mut ir = Ir::new();
    let s = ir.add(Filter::Numbers(NumberFilter::Str("x".into())), sp());
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::RegexMatch { subject: s, pattern: "(".into() }), sp()));
    assert!(Query::new(ir).is_err());
}

#[test]
fn regex_groups_and_string_builtins() {
    let mut b = GameBuilder::new(1);
    b.tag("Event", "World Championship 2021");
    let game = b.finish(None);
    let mut ir = Ir::new();
    let ev = ir.add(Filter::Header(HeaderFilter::Field(HeaderField::Event)), sp());
    let re = ir.add(Filter::Numbers(NumberFilter::RegexMatch { subject: ev, pattern: r"(\d{4})".into() }), sp());
    let g = ir.add(Filter::Numbers(NumberFilter::RegexGroup(1)), sp());
    let int = ir.add(Filter::Numbers(NumberFilter::Call(Builtin::Int, vec![g])), sp());
    let year = ir.add(Filter::Numbers(NumberFilter::Number(2021)), sp());
    let eq = ir.add(Filter::Numbers(NumberFilter::Compare { first: int, rest: vec![(CmpOp::Eq, year)] }), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![re, eq])), sp()));
    assert!(run(ir, &game).matched);
}

#[test]
fn identity_iteration_binds_distinct_pieces() {
    let (game, _) = scholars_mate();
    // two distinct white queens at some position: impossible
    let mut ir = Ir::new();
    let a = ir.var("a", VarKind::Piece);
    let bvar = ir.var("b", VarKind::Piece);
    let t = ir.add(Filter::True, sp());
    let inner = ir.add(
        Filter::Variables(VariableFilter::IdentityIter {
            var: bvar,
            mask: PieceMask::piece(Color::White, Role::Queen),
            body: t,
        }),
        sp(),
    );
    ir.root = Some(ir.add(
        Filter::Variables(VariableFilter::IdentityIter {
            var: a,
            mask: PieceMask::piece(Color::White, Role::Queen),
            body: inner,
        }),
        sp(),
    ));
    ir.settings.per_game = true;
    assert!(!run(ir.clone(), &game).matched);
    // but two distinct white knights exist
    let inner = ir.add(
        Filter::Variables(VariableFilter::IdentityIter {
            var: bvar,
            mask: PieceMask::piece(Color::White, Role::Knight),
            body: t,
        }),
        sp(),
    );
    ir.root = Some(ir.add(
        Filter::Variables(VariableFilter::IdentityIter {
            var: a,
            mask: PieceMask::piece(Color::White, Role::Knight),
            body: inner,
        }),
        sp(),
    ));
    let m = run(ir, &game);
    assert!(m.matched);
    assert_eq!(m.positions, vec![NodeId::ROOT]);
}

#[test]
fn echo_compares_positions_square_by_square() {
    // 1.Nf3 Nf6 2.Ng1 Ng8 repeats the start position at ply 4.
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["Nf3", "Nf6", "Ng1", "Ng8"]).unwrap();
    let game = b.finish(None);
    let mut ir = Ir::new();
    let s = ir.var("s", VarKind::Position);
    let t = ir.var("t", VarKind::Position);
    let sv = ir.add(Filter::Variables(VariableFilter::Var(s)), sp());
    let tv = ir.add(Filter::Variables(VariableFilter::Var(t)), sp());
    let same = ir.add(Filter::Sets(SetFilter::Intersection(vec![sv, tv])), sp());
    let all = ir.add(Filter::Sets(SetFilter::Squares(Bitboard::FULL)), sp());
    let eq = ir.add(Filter::Numbers(NumberFilter::Compare { first: same, rest: vec![(CmpOp::Eq, all)] }), sp());
    ir.root = Some(ir.add(
        Filter::GameTree(GameTreeFilter::Echo {
            source: s,
            target: t,
            in_all: false,
            variations: false,
            marks: false,
            body: eq,
        }),
        sp(),
    ));
    let m = run(ir, &game);
    // The start position and the one after 2...Ng8 are each other's echo.
    assert_eq!(m.positions, vec![NodeId::ROOT, line[3]]);
}

#[test]
fn consecutive_moves_across_branches() {
    let mut b = GameBuilder::new(1);
    let main = b.line(NodeId::ROOT, &["e4", "e5", "Nf3"]).unwrap();
    let side = b.line(NodeId::ROOT, &["d4", "e5", "Nf3"]).unwrap();
    let mut ir = Ir::new();
    ir.settings.variations = true;
    let s = ir.var("s", VarKind::Position);
    let t = ir.var("t", VarKind::Position);
    let sv = ir.add(Filter::Variables(VariableFilter::Var(s)), sp());
    let tv = ir.add(Filter::Variables(VariableFilter::Var(t)), sp());
    let cm = ir.add(
        Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { x: sv, y: tv, min: 1, max: i64::MAX, quiet: true }),
        sp(),
    );
    let two = ir.add(Filter::Numbers(NumberFilter::Number(2)), sp());
    let ge = ir.add(Filter::Numbers(NumberFilter::Compare { first: cm, rest: vec![(CmpOp::Ge, two)] }), sp());
    let mainline = ir.add(Filter::PositionState(PositionStateFilter::Mainline), sp());
    let echo = ir.add(
        Filter::GameTree(GameTreeFilter::Echo {
            source: s,
            target: t,
            in_all: true,
            variations: false,
            marks: false,
            body: ge,
        }),
        sp(),
    );
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![mainline, echo])), sp()));
    let m = run(ir, b.game());
    assert_eq!(m.positions, vec![main[2]]);
    let _ = side;
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    // On a thread with the stack the scan gives its workers (a debug build's frames are
    // several times a release build's, more than a test thread's default stack holds at
    // the deepest nesting allowed).
    let worker = std::thread::Builder::new().stack_size(crate::scan::pipeline::WORKER_STACK_BYTES).spawn(|| {
        let (game, _) = scholars_mate();
        let mut ir = Ir::new();
        let mut f = ir.add(Filter::PositionState(PositionStateFilter::Check), sp());
        for _ in 0..5000 {
            f = ir.add(Filter::Logic(LogicFilter::Not(f)), sp());
        }
        ir.root = Some(f);
        run(ir, &game)
    });
    let m = worker.expect("a worker thread").join().expect("no overflow");
    assert!(m.error.is_some());
    assert!(!m.matched);
}

/// Runs `echo (s t) { consecutivemoves(s t) >= n }` on the main line of `game`.
fn consecutive_echo(game: &crate::pgn::Game, n: i64) -> Vec<NodeId> {
    let mut ir = Ir::new();
    ir.settings.variations = true;
    let s = ir.var("s", VarKind::Position);
    let t = ir.var("t", VarKind::Position);
    let sv = ir.add(Filter::Variables(VariableFilter::Var(s)), sp());
    let tv = ir.add(Filter::Variables(VariableFilter::Var(t)), sp());
    let cm = ir.add(
        Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { x: sv, y: tv, min: 1, max: i64::MAX, quiet: true }),
        sp(),
    );
    let num = ir.add(Filter::Numbers(NumberFilter::Number(n)), sp());
    let ge = ir.add(Filter::Numbers(NumberFilter::Compare { first: cm, rest: vec![(CmpOp::Ge, num)] }), sp());
    let mainline = ir.add(Filter::PositionState(PositionStateFilter::Mainline), sp());
    let echo = ir.add(
        Filter::GameTree(GameTreeFilter::Echo {
            source: s,
            target: t,
            in_all: true,
            variations: false,
            marks: false,
            body: ge,
        }),
        sp(),
    );
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![mainline, echo])), sp()));
    run(ir, game).positions
}

#[test]
fn consecutive_moves_found_at_an_offset() {
    // The side line plays the knight manoeuvre Nf3 Nf6 Ng1 two plies later than the main line.
    let mut b = GameBuilder::new(1);
    let main = b.line(NodeId::ROOT, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"]).unwrap();
    b.line(NodeId::ROOT, &["e4", "e5", "Nf3", "Nf6", "Ng1"]).unwrap();
    // Every main-line position from 2.Ng1 on shares the three-move run with the side line's end,
    // even where the run does not end at the main-line position itself.
    assert_eq!(consecutive_echo(b.game(), 3), main[2..].to_vec());
    assert!(consecutive_echo(b.game(), 4).is_empty());
}

#[test]
fn consecutive_moves_ignore_the_promotion_piece() {
    // 1.a8=Q+ Kb2 2.Ke2 against 1.a8=R+ Kb2 2.Ke2: the same pawn move with a different
    // promotion piece counts as the same move.
    let fen = "8/P7/8/8/8/8/k7/4K3 w - - 0 1";
    let mut b = GameBuilder::from_fen(1, fen).unwrap();
    let main = b.line(NodeId::ROOT, &["a8=Q+", "Kb2", "Ke2"]).unwrap();
    b.line(NodeId::ROOT, &["a8=R+", "Kb2", "Ke2"]).unwrap();
    // All three moves agree (pawn a7-a8, Ka2-b2, Ke1-e2), so the main line's last position has
    // a run of three with the side line's last position.
    assert_eq!(consecutive_echo(b.game(), 3), vec![main[2]]);
}

#[test]
fn try_marks_white_alternatives_off_the_main_line() {
    let mut b = GameBuilder::new(1);
    let main = b.line(NodeId::ROOT, &["e4", "e5", "Nf3"]).unwrap();
    let white_try = b.line(NodeId::ROOT, &["d4", "d5"]).unwrap();
    let black_alt = b.line(main[0], &["c5", "Nf3"]).unwrap();
    let nested = b.line(white_try[0], &["Nf6", "c4"]).unwrap();
    let mut ir = Ir::new();
    ir.settings.variations = true;
    ir.root = Some(ir.add(Filter::GameTree(GameTreeFilter::Try), sp()));
    let m = run(ir, b.game());
    // Only the positions of the White alternative 1.d4 that hang directly off the main line.
    assert_eq!(m.positions, white_try);
    assert!(!m.positions.iter().any(|p| black_alt.contains(p) || nested.contains(p)));
}

#[test]
fn path_goes_on_along_the_move_that_matched() {
    // From the start: main 1.e4 e5, variation 1.Nf3 d5. The path "a knight move, then a black
    // pawn move to e5" must not mix the two lines: the knight move is in the variation, the
    // move to e5 only in the main line.
    let mut b = GameBuilder::new(1);
    b.line(NodeId::ROOT, &["e4", "e5"]).unwrap();
    let side = b.line(NodeId::ROOT, &["Nf3", "d5"]).unwrap();
    let build = |to_e5: bool| {
        let mut ir = Ir::new();
        ir.settings.variations = true;
        let knight = pieces(&mut ir, Color::White, Role::Knight, Bitboard::FULL);
        let mut first = mv(MoveSource::Next);
        first.from = Some(knight);
        let first = ir.add(Filter::Move(Box::new(first)), sp());
        let mut second = mv(MoveSource::Next);
        let target = if to_e5 { Square::E5 } else { Square::D5 };
        second.to = Some(ir.add(Filter::Sets(SetFilter::Squares(sq(target))), sp()));
        let second = ir.add(Filter::Move(Box::new(second)), sp());
        let body = ir.add(Filter::GameTree(GameTreeFilter::SeqConcat(vec![first, second])), sp());
        let params = LineParams { follow_moves: true, last_position: true, ..LineParams::default() };
        let line = ir.add(Filter::GameTree(GameTreeFilter::Line { params, body }), sp());
        let init = ir.add(Filter::PositionState(PositionStateFilter::Initial), sp());
        ir.root = Some(ir.add(Filter::Logic(LogicFilter::And(vec![init, line])), sp()));
        ir
    };
    assert!(!run(build(true), b.game()).matched);
    let m = run(build(false), b.game());
    assert!(m.matched);
    assert_eq!(m.positions, vec![NodeId::ROOT]);
    let _ = side;
}

#[test]
fn positionid_numbers_the_main_line_first() {
    // Main 1.e4 e5, variation 1.d4: the variation is written first in PGN order but is
    // numbered after the whole main line.
    let mut b = GameBuilder::new(1);
    let main = b.line(NodeId::ROOT, &["e4", "e5"]).unwrap();
    let side = b.line(NodeId::ROOT, &["d4"]).unwrap();
    let mut ir = Ir::new();
    ir.settings.variations = true;
    let id = ir.add(Filter::GameTree(GameTreeFilter::PositionId), sp());
    let three = ir.add(Filter::Numbers(NumberFilter::Number(3)), sp());
    ir.root = Some(ir.add(Filter::Numbers(NumberFilter::Compare { first: id, rest: vec![(CmpOp::Eq, three)] }), sp()));
    let m = run(ir, b.game());
    assert_eq!(m.positions, side);
    let _ = main;
}

/// Run a CQL 6 script on a game.
fn run_script(src: &str, game: &Game) -> GameMatch {
    run(crate::lang::cql6::parse(src).expect("script parses"), game)
}

#[test]
fn piece_seen_in_another_position_is_its_square_there() {
    // `parent:$p` is the square the piece stood on in the parent position, and
    // `$A = $p` stores the square it stands on now.
    let (game, line) = scholars_mate();
    // After 2.Bc4 (line[2]) the white bishop is on c4 and was on f1 in the parent.
    let m = run_script("cql() piece $p in B { $A = $p $C = parent:$p $A != $C $C == f1 $A == c4 }", &game);
    assert_eq!(m.positions, vec![line[2]]);
    // The piece variable itself still follows the piece: `$p` is where it stands now.
    // The initial position has no parent, so `parent:$p` fails there.
    let m = run_script("cql() piece $p in B { parent:$p == f1 $p == f1 }", &game);
    assert_eq!(m.positions, vec![line[0], line[1]]);
    // A piece that was not yet where it is now: the parent square of a bishop that is
    // on c4 is never c4 itself.
    let m = run_script("cql() piece $p in Bc4 parent:$p == c4", &game);
    assert_eq!(m.positions, vec![line[3], line[4], line[5], line[6]]);
}

// ----- path (`⊢`) ------------------------------------------------------------

#[test]
fn path_focus_skips_moves_of_other_pieces() {
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["e4", "e5", "Nf3", "Nc6", "Ng5", "d6", "Nf3"]).unwrap();
    // Two moves of the king's knight, with 2...Nc6 skipped over. The path begins with a move
    // of the focus, so it starts just before 2.Nf3, not earlier.
    let m = run_script("cql() ⊢◎♘g1 ――f3 ――g5", b.game());
    assert_eq!(m.positions, vec![line[1]]);
    // Without a focus every move counts: no skipping.
    let m = run_script("cql() ⊢ ♘――f3 ♘――g5", b.game());
    assert!(!m.matched);
}

#[test]
fn path_value_counts_focused_moves_and_max_scores_the_skipped_ones() {
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["e4", "e5", "Nf3", "Nc6", "Ng5", "d6", "Nf3"]).unwrap();
    // Value: the knight's moves (2); `max pathcountunfocused`: the moves skipped (Nc6).
    let m = run_script("cql() (⊢◎♘g1 ――f3 ――g5) == 2", b.game());
    assert_eq!(m.positions, vec![line[1]]);
    let m = run_script("cql() (⊢◎♘g1 max pathcountunfocused ――f3 ――g5) == 1", b.game());
    assert_eq!(m.positions, vec![line[1]]);
    // The longest path wins: three knight moves from just before 2.Nf3.
    let m = run_script("cql() (⊢◎♘g1 ――+) == 3", b.game());
    assert_eq!(m.positions, vec![line[1]]);
}

#[test]
fn path_variables_follow_each_path_on_its_own() {
    // Main 1.e4 d5, variation 1.d4 e5: no black reply is on the file of White's pawn move,
    // although each file occurs in some line. Main 1.e4 e5, variation 1.d4 d5: both are.
    let script = "cql(variations) initial ⊢ ♙―― F=file to ♟―― file to == F";
    let mut crossed = GameBuilder::new(1);
    crossed.line(NodeId::ROOT, &["e4", "d5"]).unwrap();
    crossed.line(NodeId::ROOT, &["d4", "e5"]).unwrap();
    assert!(!run_script(script, crossed.game()).matched);
    let mut mirrored = GameBuilder::new(1);
    mirrored.line(NodeId::ROOT, &["e4", "e5"]).unwrap();
    mirrored.line(NodeId::ROOT, &["d4", "d5"]).unwrap();
    assert!(run_script(script, mirrored.game()).matched);
}

#[test]
fn path_status_and_piecepath() {
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["e4", "e5", "Nf3", "Nc6", "Ng5", "d6", "Nf3"]).unwrap();
    // `pathstart` is the position the path started from: the pawn was still on e2 there.
    let m = run_script("cql() ⊢◎♘g1 ――f3 ――g5 pathstart:♟e5", b.game());
    assert_eq!(m.positions, vec![line[1]]);
    let m = run_script("cql() ⊢◎♘g1 ――f3 ――g5 pathstart:♟e7", b.game());
    assert!(!m.matched);
    // `piecepath` comments the knight's route at the start of the path (CQL 6.2
    // `PathNode::notate`).
    let m = run_script("cql() ⊢◎♘g1 piecepath ――f3 ――g5 ――f3", b.game());
    assert!(m.comments.contains(&(line[1], "Focus path: Ng1-f3-g5-f3".to_string())), "{:?}", m.comments);
    // A path's `pathcount` inside its constituents counts the moves made so far.
    let m = run_script("cql() ⊢◎♘g1 ――f3 pathcount == 1 ――g5 pathcount == 2", b.game());
    assert!(m.matched);
}

#[test]
fn path_nestban_starts_no_path_inside_a_found_one() {
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["Nf3", "e5", "Ng5", "d6", "Nh3", "c6", "Ng5", "a6", "Nf3", "h6", "Ng1"]).unwrap();
    // The knight's round trip g1-f3-g5-h3-g5-f3-g1 is found from the start, and the shorter
    // f3-g5-h3-g5-f3 from inside it; nestban keeps only the first.
    let round = "⊢◎♘ ――~pathstart:♘∩□ {2,} ――pathstart:♘∩□";
    let all = run_script(&format!("cql() {round}"), b.game());
    let banned = run_script(&format!("cql() {}", round.replace("◎♘", "◎♘ nestban")), b.game());
    assert!(all.positions.contains(&line[1]));
    assert_eq!(banned.positions, vec![NodeId::ROOT]);
}

#[test]
fn if_without_else_matches_when_its_condition_fails() {
    let (game, _) = scholars_mate();
    let m = run_script("cql() initial if check false", &game);
    assert_eq!(m.positions, vec![NodeId::ROOT]);
    let m = run_script("cql() initial if not check false", &game);
    assert!(!m.matched);
}

#[test]
fn while_regex_runs_once_per_match() {
    let (game, _) = scholars_mate();
    let m = run_script("cql() initial Count=0 while (\"RBNQ\" ~~ \".\") Count+=1 Count==4", &game);
    assert_eq!(m.positions, vec![NodeId::ROOT]);
}

#[test]
fn dash_target_gives_the_value() {
    // `♙――e4(from)` is the square the pawn left; `◭T=…――(from)` holds that pawn.
    let (game, _) = scholars_mate();
    let m = run_script("cql() initial (♙――e4(from)) == e2", &game);
    assert_eq!(m.positions, vec![NodeId::ROOT]);
    let m = run_script("cql() initial ◭Mover=♙――e4(from) Mover == e2", &game);
    assert_eq!(m.positions, vec![NodeId::ROOT]);
}

#[test]
fn castling_is_a_move_of_the_rook_too() {
    let mut b = GameBuilder::new(1);
    // 4.O-O, then the castled rook goes f1-e1-e2.
    // line[5] is the position before 4.O-O.
    let line =
        b.line(NodeId::ROOT, &["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O", "d6", "Re1", "a6", "Re2"]).unwrap();
    // The rook's move: h1 to f1. The king's: e1 to g1. The two are not mixed.
    let m = run_script("cql() ♖h1――f1", b.game());
    assert_eq!(m.positions, vec![line[5]]);
    let m = run_script("cql() ♔――g1", b.game());
    assert_eq!(m.positions, vec![line[5]]);
    let m = run_script("cql() ♔――f1", b.game());
    assert!(!m.matched);
    // Under a match through the rook, `from` and `to` are the rook's squares.
    let m = run_script("cql() ♖――(from == h1 to == f1)", b.game());
    assert_eq!(m.positions, vec![line[5]]);
    // Under a match through the king, they are the king's; under a move filter both views
    // fit, they are both (CQL 6.2 `QMove::smartFrom`/`smartTo`, checked on the reference).
    // (`o-o` alone is the move that led here; inside the move's condition that is the move.)
    let m = run_script("cql() ♔――(from == e1 to == g1)", b.game());
    assert_eq!(m.positions, vec![line[5]]);
    let m = run_script("cql() ――(o-o from == e1 to == g1)", b.game());
    assert!(!m.matched);
    let m = run_script("cql() ――(o-o from == [e1,h1] to == [g1,f1])", b.game());
    assert_eq!(m.positions, vec![line[5]]);
    // A path following the h1 rook sees O-O as its move to f1, then e1 and e2.
    let m = run_script("cql() ⊢◎♖h1 ―― x=to ―― ――e2 x == f1", b.game());
    assert_eq!(m.positions, vec![line[5]]);
}

#[test]
fn virtual_mainline_is_main_moves_and_black_alternatives() {
    // 1.f3 e5 2.g4 Nc6 (2...Qh4#), and (1...d5 2.g4) off the first move.
    let mut b = GameBuilder::new(1);
    let main = b.line(NodeId::ROOT, &["f3", "e5", "g4", "Nc6"]).unwrap();
    let mate = b.line(main[2], &["Qh4#"]).unwrap();
    let early = b.line(main[0], &["d5", "g4"]).unwrap();
    let white_alternative = b.line(main[1], &["d4"]).unwrap();
    let mut game = b.finish(None);
    game.number = 1;
    let mut ir = Ir::new();
    let vml = ir.add(Filter::PositionState(PositionStateFilter::VirtualMainline), sp());
    ir.root = Some(vml);
    ir.settings.variations = true;
    let q = Query::new(ir).unwrap();
    let mut scratch = Scratch::default();
    scratch.prepare(&q.ir);
    let mut ctx = super::engine::Ctx::new(&q, &game, &mut scratch.vars, &mut scratch.dicts, &scratch.squares);
    let on = |ctx: &mut super::engine::Ctx, origin: NodeId, n: NodeId| {
        ctx.origin = origin;
        ctx.test(vml, super::engine::Loc::Node(n)).unwrap()
    };
    // CQL 6.2 (`QPos::virtualmainline`): the moves from the start are main continuations or
    // alternatives of Black's; where the position is asked from does not matter.
    for origin in [NodeId::ROOT, mate[0], early[0]] {
        for n in [NodeId::ROOT, main[0], main[1], main[2], main[3], mate[0], early[0], early[1]] {
            assert!(on(&mut ctx, origin, n), "{n:?} from {origin:?}");
        }
        // 2.d4 is White's alternative to 2.g4: off the virtual main line.
        assert!(!on(&mut ctx, origin, white_alternative[0]));
    }
}

// ----- stopping early where only the answer counts ------------------------------------

#[test]
fn iterations_with_effects_still_visit_every_square() {
    // The body writes a comment, so finding the first rook is not enough: both are visited.
    let (game, _) = scholars_mate();
    let m = run_script("cql() initial piece X in R comment(X)", &game);
    let texts: Vec<&str> = m.comments.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, vec!["Ra1", "Rh1"]);
}

#[test]
fn effect_free_nested_iterations_match_where_a_line_exists() {
    // A white queen with a clear diagonal to the black king: only after 4.Qxf7# (the queen
    // on h5 is blocked by the f7 pawn).
    let (game, line) = scholars_mate();
    let m = run_script("cql() piece X in Q piece Y in k ray diagonal (X Y)", &game);
    assert_eq!(m.positions, vec![line[6]]);
    // Three links: a black piece with a black piece behind it on a white line piece's line.
    // At the start every white rook, bishop and queen looks at its own pawns only.
    let m = run_script("cql() initial piece X in [QRB] piece Y in [qrbnp] piece Z in [qrbnp] ray (X Y Z)", &game);
    assert!(m.positions.is_empty());
}

#[test]
fn effect_free_filters_are_told_apart_from_writing_ones() {
    let mut ir = Ir::new();
    let x = ir.var("x", VarKind::Square);
    let all = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::ANY_PIECE, squares: Bitboard::FULL }), sp());
    let v = ir.add(Filter::Variables(VariableFilter::Var(x)), sp());
    let between = ir.add(Filter::Geometry(GeometryFilter::Between(v, v)), sp());
    let inter = ir.add(Filter::Sets(SetFilter::Intersection(vec![all, between])), sp());
    let six = ir.add(Filter::Numbers(NumberFilter::Number(6)), sp());
    let cmp = ir.add(Filter::Numbers(NumberFilter::Compare { first: inter, rest: vec![(CmpOp::Eq, six)] }), sp());
    let pure_iter =
        ir.add(Filter::Variables(VariableFilter::SquareIter { var: x, domain: all, body: cmp, forall: false }), sp());
    let text = ir.add(Filter::Numbers(NumberFilter::Str("seen".into())), sp());
    let comment = ir.add(Filter::Output(OutputFilter::Comment(vec![text])), sp());
    let writing = ir.add(Filter::Logic(LogicFilter::And(vec![cmp, comment])), sp());
    let writing_iter = ir
        .add(Filter::Variables(VariableFilter::SquareIter { var: x, domain: all, body: writing, forall: false }), sp());
    let assign = ir.add(Filter::Variables(VariableFilter::Assign { var: x, op: None, value: all }), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::Or(vec![pure_iter, writing_iter, assign])), sp()));
    let q = Query::new(ir).unwrap();
    assert!(q.is_pure(cmp) && q.is_pure(pure_iter));
    assert!(!q.is_pure(comment) && !q.is_pure(writing) && !q.is_pure(writing_iter) && !q.is_pure(assign));
    assert_eq!(q.shape(inter), super::Shape::DirectSet, "an intersection of sets is computed directly");
    assert_eq!(q.shape(cmp), super::Shape::Pure);
    assert_eq!(q.shape(writing), super::Shape::Other);
    assert_eq!(q.shape(v), super::Shape::Var(x));
}

/// Positions of `game` where the CQL 6 script `src` matches.
fn matches_of(src: &str, game: &Game) -> Vec<NodeId> {
    let ir = crate::lang::cql6::parse(src).unwrap_or_else(|e| panic!("{src}: {}", e.render("t.cql", src)));
    run(ir, game).positions
}

#[test]
fn cql62_rules_settled_by_the_reference() {
    // 1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6 4.Qxf7#: a white queen throughout, a check only at the end.
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]).unwrap();
    let game = b.finish(None);
    let all = line.len() + 1;
    // A set assignment binds even where the move filter finds nothing (to the empty set).
    assert_eq!(matches_of("cql() v = e2――(to)", &game).len(), all);
    assert_eq!(matches_of("cql() v = e2――(to) #v == 1", &game), vec![NodeId::ROOT]);
    // A line must consume a position: `check?` alone needs the check.
    assert_eq!(matches_of("cql() line --> check?", &game), vec![line[6]]);
    // A path must make a move: `path k` never matches, `path k(―― ――)` where two moves follow.
    assert!(matches_of("cql() path k", &game).is_empty());
    assert_eq!(matches_of("cql() path k(―― ――)", &game).len(), all - 2);
    // `lowercase` as a filter of its own never matches; its string compares.
    assert!(matches_of("cql() lowercase \"K\"", &game).is_empty());
    assert_eq!(matches_of("cql() lowercase \"K\" == \"k\"", &game).len(), all);
    // colortype is the piece type signed by colour.
    assert_eq!(matches_of("cql() colortype d1 == 5 colortype d8 == -5", &game), vec![NodeId::ROOT, line[0], line[1]]);
    // `(b|q)――` is how `b|q――` reads: a move of a black bishop or queen (none here).
    assert!(matches_of("cql() b|q――", &game).is_empty());
    assert_eq!(matches_of("cql() Q――q|p", &game), vec![line[5]]);
    // A function argument is evaluated at the call: `T` is the queen's square before the move.
    assert_eq!(matches_of("cql() function F(T){――(T)} F(Q)", &game).len(), line.len());
    // ≽ is a strict descendant; ancestor/descendant likewise.
    assert!(matches_of("cql() initialposition ≽ currentposition", &game).is_empty());
    assert_eq!(matches_of("cql() descendant(∙ initialposition)", &game).len(), line.len());
    assert_eq!(matches_of("cql() ancestor(initialposition ∙)", &game).len(), line.len());
}

#[test]
fn universal_iteration_over_a_move_set_that_finds_nothing_holds() {
    // 1.e4 e5 2.Qh5 Nc6: no knight ever moves from g8, so `move from ♞g8` finds nothing at
    // every position and `square all`/`piece all` over it hold vacuously (CQL 6.2); the
    // existential forms match nowhere.
    let mut b = GameBuilder::new(1);
    let line = b.line(NodeId::ROOT, &["e4", "e5", "Qh5", "Nc6"]).unwrap();
    let game = b.finish(None);
    let all = line.len() + 1;
    assert_eq!(matches_of("cql() square all x in move from ng8 {false}", &game).len(), all);
    assert_eq!(matches_of("cql() piece all x in move from ng8 {false}", &game).len(), all);
    assert!(matches_of("cql() square x in move from ng8 {true}", &game).is_empty());
    // Where the move set is not empty the body still decides: Nc6 is a move from b8.
    assert_eq!(matches_of("cql() square all x in move from nb8 {false}", &game).len(), all - 1);
}

/// Inside a path, `pathlastposition` is the end of the best complete path found so far from
/// the same start, none before the first (CQL 6.2 reads the path's `bestSoFar`); after the
/// path it is the end of the path that matched.
#[test]
fn pathlastposition_inside_a_path_is_the_best_path_so_far() {
    let (game, line) = scholars_mate();
    // Before any path is complete there is no last position: the constituent never holds.
    assert!(run_script("cql() path -- -- pathlastposition", &game).positions.is_empty());
    // The mating move ends at the last position, so a path ending in mate matches where it
    // starts (two moves before the end, on the main line only).
    assert_eq!(run_script("cql() path -- -- mate", &game).positions, vec![line[4]]);
    // Read after the path, it is the end of the path that matched.
    assert_eq!(run_script("cql() {path -- -- mate} pathlastposition:mate", &game).positions, vec![line[4]]);
}

#[test]
fn a_number_matched_against_a_position_abandons_the_game() {
    let (game, _) = scholars_mate();
    // `1` alone: an error at the first position, as CQL 6.2 stops there.
    let mut ir = Ir::new();
    let one = ir.add(Filter::Numbers(NumberFilter::Number(1)), sp());
    ir.root = Some(one);
    let m = run(ir, &game);
    assert!(m.error.as_ref().is_some_and(|e| e.message.contains("the number 1")), "{:?}", m.error);
    assert!(!m.matched);
    // `true or 1`: the number is never reached.
    let mut ir = Ir::new();
    let t = ir.add(Filter::True, sp());
    let one = ir.add(Filter::Numbers(NumberFilter::Number(1)), sp());
    ir.root = Some(ir.add(Filter::Logic(LogicFilter::Or(vec![t, one])), sp()));
    let m = run(ir, &game);
    assert!(m.error.is_none() && m.matched, "{:?}", m.error);
    // A number giving a value (`x = 3`) is no error.
    let mut ir = Ir::new();
    let x = ir.var("x", VarKind::Value);
    let three = ir.add(Filter::Numbers(NumberFilter::Number(3)), sp());
    ir.root = Some(ir.add(Filter::Variables(VariableFilter::Assign { var: x, op: None, value: three }), sp()));
    let m = run(ir, &game);
    assert!(m.error.is_none() && m.matched, "{:?}", m.error);
}
