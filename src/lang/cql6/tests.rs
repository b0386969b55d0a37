//! Tests of the CQL 6 front-end: IR shapes per feature family, Unicode/ASCII
//! equivalence, diagnostics, and a parse of every conformance script.

use super::*;
use crate::ir::*;
use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, LogicFilter, NumberFilter, OutputFilter, PositionStateFilter,
    SetFilter, VariableFilter,
};
use shakmaty::{Bitboard, Color, Role, Square};

fn ok(src: &str) -> Ir {
    match parse(src) {
        Ok(ir) => ir,
        Err(e) => panic!("{src}\n{}", e.render("t.cql", src)),
    }
}

fn err(src: &str) -> Error {
    parse(src).expect_err(src)
}

/// Parses every conformance script. Scripts named by `cases.jsonl` were accepted by
/// the reference program; the others in the folder were refused by it.
#[test]
fn all_conformance_scripts_parse() {
    let suite = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/conformance/cql6"));
    let root = suite.join("scripts");
    if !root.exists() {
        eprintln!("conformance scripts absent; skipped");
        return;
    }
    let cases = std::fs::read_to_string(suite.join("cases.jsonl")).unwrap_or_default();
    let mut focused = (0, 0);
    let mut examples = (0, 0);
    let mut refused = (0, 0);
    let mut failures = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).collect();
    dirs.sort();
    for dir in dirs {
        let group = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let name = format!("scripts/{group}/{}\"", f.file_name().unwrap().to_string_lossy());
            let src = std::fs::read_to_string(&f).unwrap_or_default();
            let res = parse(&src);
            if !cases.contains(&name) {
                refused.1 += 1;
                if res.is_err() {
                    refused.0 += 1;
                } else {
                    eprintln!("  accepted although refused by the reference: {}", f.display());
                }
                continue;
            }
            let tally = if group.starts_with("examples") { &mut examples } else { &mut focused };
            tally.1 += 1;
            match res {
                Ok(_) => tally.0 += 1,
                Err(e) => {
                    failures.push(format!("{}: {}", f.display(), e.render("", &src).lines().next().unwrap_or("")))
                }
            }
        }
    }
    eprintln!(
        "focused groups: {}/{} parse; accepted examples: {}/{} parse; scripts the reference refused: {}/{} rejected",
        focused.0, focused.1, examples.0, examples.1, refused.0, refused.1
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert_eq!(focused.0, focused.1, "every focused script must parse");
}

/// A canonical text of the tree under `id` (children inlined), to compare queries
/// parsed into different arenas.
fn render(ir: &Ir, id: FilterId) -> String {
    static ID: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let text = format!("{:?}", ir.get(id));
    let re = ID.get_or_init(|| regex::Regex::new(r"FilterId\((\d+)\)").unwrap());
    re.replace_all(&text, |c: &regex::Captures| {
        let n: u32 = c[1].parse().unwrap();
        format!("<{}>", render(ir, FilterId(n)))
    })
    .into_owned()
}

fn root_text(src: &str) -> String {
    let ir = ok(src);
    render(&ir, ir.root.unwrap())
}

/// The ids of the top-level filters.
fn top(ir: &Ir) -> Vec<FilterId> {
    match ir.get(ir.root.unwrap()) {
        Filter::Logic(LogicFilter::And(v)) => v.clone(),
        _ => panic!("root is not an And"),
    }
}

fn sp() -> Span {
    Span::default()
}

fn piece(c: Color, r: Role) -> PieceMask {
    PieceMask::piece(c, r)
}

#[test]
fn header_settings() {
    let ir = ok("cql(input a.pgn output out.pgn variations matchcount 2 5 result 1-0 gamenumber 5 9 silent quiet matchstring \"M\") true");
    let s = &ir.settings;
    assert_eq!(s.input, vec!["a.pgn".to_string()]);
    assert_eq!(s.output.as_deref(), Some("out.pgn"));
    assert!(s.variations && s.silent && s.quiet);
    assert_eq!(s.matchcount, (2, 5));
    assert_eq!(s.gamenumber, Some((5, 9)));
    assert_eq!(s.result, Some(GameResult::WhiteWins));
    assert_eq!(s.matchstring.as_deref(), Some("M"));
    // One number is both ends, as in every CQL 6.2 range (the reference binary matches
    // only games with exactly that many positions).
    assert_eq!(ok("cql(matchcount 10) check").settings.matchcount, (10, 10));
}

#[test]
fn piece_designators_lower_to_pieces() {
    let mut ir = ok("cql() Kg1 [RQ]a-h7 >= 2 ◭ □ ▦");
    let t = top(&ir);
    let k = ir.add(
        Filter::Sets(SetFilter::Pieces { mask: piece(Color::White, Role::King), squares: Bitboard::from(Square::G1) }),
        sp(),
    );
    assert_eq!(t[0], k);
    let rank7 = Bitboard::from_rank(shakmaty::Rank::Seventh);
    let rq = ir.add(
        Filter::Sets(SetFilter::Pieces {
            mask: piece(Color::White, Role::Rook).with(piece(Color::White, Role::Queen)),
            squares: rank7,
        }),
        sp(),
    );
    let two = ir.add(Filter::Numbers(NumberFilter::Number(2)), sp());
    let cmp = ir.add(Filter::Numbers(NumberFilter::Compare { first: rq, rest: vec![(CmpOp::Ge, two)] }), sp());
    assert_eq!(t[1], cmp);
    let any = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::ANY_PIECE, squares: Bitboard::FULL }), sp());
    assert_eq!(t[2], any);
    let empty = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::EMPTY, squares: Bitboard::FULL }), sp());
    assert_eq!(t[3], empty);
    let all = ir.add(Filter::Sets(SetFilter::Squares(Bitboard::FULL)), sp());
    assert_eq!(t[4], all);
}

#[test]
fn precedence_power_difference() {
    let mut ir = ok("cql() power▲ - power△ ≥ 9");
    let t = top(&ir);
    let black = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::BLACK, squares: Bitboard::FULL }), sp());
    let white = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::WHITE, squares: Bitboard::FULL }), sp());
    let pb = ir.add(Filter::Numbers(NumberFilter::Call(Builtin::Power, vec![black])), sp());
    let pw = ir.add(Filter::Numbers(NumberFilter::Call(Builtin::Power, vec![white])), sp());
    let diff = ir.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Sub, pb, pw)), sp());
    let nine = ir.add(Filter::Numbers(NumberFilter::Number(9)), sp());
    let cmp = ir.add(Filter::Numbers(NumberFilter::Compare { first: diff, rest: vec![(CmpOp::Ge, nine)] }), sp());
    assert_eq!(t, vec![cmp]);
}

#[test]
fn precedence_iteration_inside_comparison_and_attack_chain() {
    let mut ir = ok("cql() 3≤x∊▲ △→x→♚");
    let t = top(&ir);
    let x = ir.find_var("x").unwrap();
    assert_eq!(ir.vars[x.0 as usize].kind, VarKind::Square);
    let three = ir.add(Filter::Numbers(NumberFilter::Number(3)), sp());
    let black = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::BLACK, squares: Bitboard::FULL }), sp());
    let white = ir.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::WHITE, squares: Bitboard::FULL }), sp());
    let king = ir
        .add(Filter::Sets(SetFilter::Pieces { mask: piece(Color::Black, Role::King), squares: Bitboard::FULL }), sp());
    let xv = ir.add(Filter::Variables(VariableFilter::Var(x)), sp());
    // An arrow chain is one x-ray chain, not nested attacks.
    let outer = ir
        .add(Filter::Geometry(GeometryFilter::AttackChain { sets: vec![white, xv, king], value_is_last: false }), sp());
    let it = ir
        .add(Filter::Variables(VariableFilter::SquareIter { var: x, domain: black, body: outer, forall: false }), sp());
    let cmp = ir.add(Filter::Numbers(NumberFilter::Compare { first: three, rest: vec![(CmpOp::Le, it)] }), sp());
    assert_eq!(t, vec![cmp]);
}

#[test]
fn precedence_transform_swallows_comparison() {
    let mut ir = ok("cql() flipcolor count {♕==0} == 2");
    let t = top(&ir);
    let q = ir
        .add(Filter::Sets(SetFilter::Pieces { mask: piece(Color::White, Role::Queen), squares: Bitboard::FULL }), sp());
    let zero = ir.add(Filter::Numbers(NumberFilter::Number(0)), sp());
    let two = ir.add(Filter::Numbers(NumberFilter::Number(2)), sp());
    let inner = ir.add(Filter::Numbers(NumberFilter::Compare { first: q, rest: vec![(CmpOp::Eq, zero)] }), sp());
    let outer = ir.add(Filter::Numbers(NumberFilter::Compare { first: inner, rest: vec![(CmpOp::Eq, two)] }), sp());
    let tr = ir.add(Filter::Transform { kind: TransformKind::FlipColor, range: None, count: true, body: outer }, sp());
    assert_eq!(t, vec![tr]);
    // With parentheses the count is compared.
    let ir2 = ok("cql() (flipcolor count {♕==0}) == 2");
    assert!(matches!(ir2.get(top(&ir2)[0]), Filter::Numbers(NumberFilter::Compare { .. })));
}

#[test]
fn transform_and_iteration_arguments_extend_over_and_or() {
    // `flip check and mate` flips the whole conjunction.
    let ir = ok("cql() flip check and mate");
    match ir.get(top(&ir)[0]) {
        Filter::Transform { body, .. } => {
            assert!(matches!(ir.get(*body), Filter::Logic(LogicFilter::And(v)) if v.len() == 2))
        }
        o => panic!("{o:?}"),
    }
    let ir = ok("cql() flipcolor check or mate");
    match ir.get(top(&ir)[0]) {
        Filter::Transform { body, .. } => {
            assert!(matches!(ir.get(*body), Filter::Logic(LogicFilter::Or(v)) if v.len() == 2))
        }
        o => panic!("{o:?}"),
    }
    // The body of `square x in S` runs over `or` as well: `x` is bound in both halves.
    let ir = ok("cql() square all x in _ (♖ attacks x) or (♘ attacks x)");
    let t = top(&ir);
    assert_eq!(t.len(), 1);
    match ir.get(t[0]) {
        Filter::Variables(VariableFilter::SquareIter { body, forall: true, .. }) => {
            assert!(matches!(ir.get(*body), Filter::Logic(LogicFilter::Or(v)) if v.len() == 2))
        }
        o => panic!("{o:?}"),
    }
    // A plain `find` takes the whole conjunction as its body.
    let ir = ok("cql() find check and mate");
    match ir.get(top(&ir)[0]) {
        Filter::GameTree(GameTreeFilter::Find { body, .. }) => {
            assert!(matches!(ir.get(*body), Filter::Logic(LogicFilter::And(v)) if v.len() == 2))
        }
        o => panic!("{o:?}"),
    }
    let ir = ok("cql() piece X in ♕ ray orthogonal (X ♜ ♚) or ray diagonal (X ♝ ♚)");
    match ir.get(top(&ir)[0]) {
        Filter::Variables(VariableFilter::PieceIter { body, .. }) => {
            assert!(matches!(ir.get(*body), Filter::Logic(LogicFilter::Or(_))))
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn not_is_loose_and_light_dark_are_prefix() {
    let ir = ok("cql() not ▲→♔");
    match ir.get(top(&ir)[0]) {
        Filter::Logic(LogicFilter::Not(a)) => {
            assert!(matches!(ir.get(*a), Filter::Geometry(GeometryFilter::Attacks { .. })))
        }
        o => panic!("{o:?}"),
    }
    let ir = ok("cql() light ♗ dark ♝");
    let t = top(&ir);
    assert_eq!(t.len(), 2);
    assert!(matches!(ir.get(t[0]), Filter::Numbers(NumberFilter::Call(Builtin::Light, _))));
    assert!(matches!(ir.get(t[1]), Filter::Numbers(NumberFilter::Call(Builtin::Dark, _))));
}

#[test]
fn comparison_chains_are_one_compare() {
    let ir = ok("cql() 2 < P <= 5");
    match ir.get(top(&ir)[0]) {
        Filter::Numbers(NumberFilter::Compare { first, rest }) => {
            assert_eq!(ir.get(*first), &Filter::Numbers(NumberFilter::Number(2)));
            assert_eq!(rest.iter().map(|r| r.0).collect::<Vec<_>>(), vec![CmpOp::Lt, CmpOp::Le]);
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn count_and_attacked_by_value() {
    let mut ir = ok("cql() #(p <- N) >= 3");
    let t = top(&ir);
    let p = ir
        .add(Filter::Sets(SetFilter::Pieces { mask: piece(Color::Black, Role::Pawn), squares: Bitboard::FULL }), sp());
    let n = ir.add(
        Filter::Sets(SetFilter::Pieces { mask: piece(Color::White, Role::Knight), squares: Bitboard::FULL }),
        sp(),
    );
    let att =
        ir.add(Filter::Geometry(GeometryFilter::Attacks { attackers: n, targets: p, value_is_targets: true }), sp());
    let c = ir.add(Filter::Sets(SetFilter::Count(att)), sp());
    let three = ir.add(Filter::Numbers(NumberFilter::Number(3)), sp());
    let cmp = ir.add(Filter::Numbers(NumberFilter::Compare { first: c, rest: vec![(CmpOp::Ge, three)] }), sp());
    assert_eq!(t, vec![cmp]);
}

#[test]
fn count_takes_an_attack_filter_as_operand() {
    // `#_ attackedby K`: the number of empty squares the white king attacks.
    let with = ok("cql() #_ attackedby K");
    let paren = ok("cql() #(_ attackedby K)");
    assert_eq!(render(&with, with.root.unwrap()), render(&paren, paren.root.unwrap()));
    assert!(
        matches!(with.get(top(&with)[0]), Filter::Sets(SetFilter::Count(a)) if matches!(with.get(*a), Filter::Geometry(GeometryFilter::Attacks { .. })))
    );
    // Arithmetic and comparison still take the count as an operand.
    let ir = ok("cql() #P + 1 > #p");
    assert!(
        matches!(ir.get(top(&ir)[0]), Filter::Numbers(NumberFilter::Compare { first, .. }) if matches!(ir.get(*first), Filter::Numbers(NumberFilter::Arith(..))))
    );
}

#[test]
fn pin_arguments_take_an_intersection() {
    // The pinned-to set is `[qrnb] & ~zz`, not the pin filter intersected with `~zz`.
    let ir = ok("cql() piece zz in [qrnb] pin from Q through zz to [qrnb] & ~zz");
    let text = render(&ir, ir.root.unwrap());
    assert!(text.contains("PinOf { from"), "{text}");
    assert!(!text.contains("Intersection([<PinOf"), "{text}");
    let to = text.split("to: Some(<").nth(1).unwrap_or("");
    assert!(to.starts_with("Intersection"), "{text}");
}

#[test]
fn a_bare_piece_after_move_is_a_separate_filter() {
    let ir = ok("cql() move N");
    let t = top(&ir);
    assert_eq!(t.len(), 2, "{}", render(&ir, ir.root.unwrap()));
    assert!(the_move(&ir, t[0]).from.is_none());
    assert!(matches!(ir.get(t[1]), Filter::Sets(SetFilter::Pieces { .. })));
}

fn the_move(ir: &Ir, id: FilterId) -> MoveFilter {
    match ir.get(id) {
        Filter::Move(m) => (**m).clone(),
        o => panic!("not a move: {o:?}"),
    }
}

#[test]
fn dash_whitespace_decides_one_or_two_filters() {
    let ir = ok("cql() ♘――f5");
    let t = top(&ir);
    assert_eq!(t.len(), 1);
    let m = the_move(&ir, t[0]);
    assert!(matches!(ir.get(m.from.unwrap()), Filter::Sets(SetFilter::Pieces { .. })));
    assert_eq!(ir.get(m.to.unwrap()), &Filter::Sets(SetFilter::Squares(Bitboard::from(Square::F5))));
    let ir = ok("cql() ♘ ――f5");
    let t = top(&ir);
    assert_eq!(t.len(), 2);
    assert!(the_move(&ir, t[1]).from.is_none());
}

#[test]
fn move_forms() {
    let ir = ok("cql() ――=♖");
    let m = the_move(&ir, top(&ir)[0]);
    assert_eq!(m.promote, 1 << (Role::Rook as u8));
    // Colour of the promotion piece is ignored.
    assert_eq!(root_text("cql() ――=♕"), root_text("cql() --=q"));
    let ir = ok("cql() ♕×♛");
    let m = the_move(&ir, top(&ir)[0]);
    assert!(m.capture.is_some() && m.to.is_none());
    let ir = ok("cql() ♕――(check)");
    assert_eq!(ir.get(the_move(&ir, top(&ir)[0]).then.unwrap()), &Filter::PositionState(PositionStateFilter::Check));
    let ir = ok("cql() legal ――(o-o-o)");
    let m = the_move(&ir, top(&ir)[0]);
    assert_eq!((m.source, m.kind), (MoveSource::Legal, MoveKind::CastleQueenside));
    let ir = ok("cql() countmoves legal ―― == 1");
    match ir.get(top(&ir)[0]) {
        Filter::Numbers(NumberFilter::Compare { first, .. }) => {
            let m = the_move(&ir, *first);
            assert_eq!((m.source, m.value), (MoveSource::Legal, MoveValue::Count));
        }
        o => panic!("{o:?}"),
    }
    let ir = ok("cql() move previous capture Q");
    let m = the_move(&ir, top(&ir)[0]);
    assert_eq!(m.source, MoveSource::Previous);
    assert!(m.capture.is_some());
    let ir = ok("cql() ――(enpassant)");
    assert_eq!(the_move(&ir, top(&ir)[0]).kind, MoveKind::EnPassant);
}

#[test]
fn header_filters() {
    let mut ir = ok("cql() event \"ch-CHN\" player white \"Carlsen\" result 1/2-1/2 elo black > 2700");
    let t = top(&ir);
    let ev = ir.add(Filter::Header(HeaderFilter::Field(HeaderField::Event)), sp());
    let s = ir.add(Filter::Numbers(NumberFilter::Str("ch-CHN".into())), sp());
    let c = ir.add(Filter::Numbers(NumberFilter::Contains { haystack: ev, needle: s, ignore_case: false }), sp());
    assert_eq!(t[0], c);
    assert!(matches!(ir.get(t[1]), Filter::Numbers(NumberFilter::Contains { .. })));
    assert_eq!(ir.get(t[2]), &Filter::Header(HeaderFilter::Result(GameResult::Draw)));
    assert!(matches!(ir.get(t[3]), Filter::Numbers(NumberFilter::Compare { .. })));
    // `player` alone is both names in one string (CQL 6.2 `Tokens::match_player`).
    let ir = ok("cql() player \"Sindarov\"");
    assert!(
        matches!(ir.get(top(&ir)[0]), Filter::Numbers(NumberFilter::Contains { haystack, .. }) if matches!(ir.get(*haystack), Filter::NoTransform(_)))
    );
    let ir = ok("cql() tag \"TimeControl\" == \"60+0\"");
    match ir.get(top(&ir)[0]) {
        Filter::Numbers(NumberFilter::Compare { first, .. }) => {
            assert_eq!(ir.get(*first), &Filter::Header(HeaderFilter::Field(HeaderField::Tag("TimeControl".into()))))
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn iteration_forms_agree() {
    let uni = root_text("cql() ∀◭y∊♖ y in a-h7");
    assert_eq!(uni, root_text("cql() [forall] [Aa]y [element] R y in a-h7"));
    assert_eq!(uni, root_text("cql() piece all y in R y in a-h7"));
    assert!(uni.contains("PieceIter") && uni.contains("forall: true"));
    assert_eq!(root_text("cql() x∊▲ #(△→x) >= 3"), root_text("cql() square x in a #(A -> x) >= 3"));
}

#[test]
fn a_second_line_is_not_part_of_the_first_ones_last_constituent() {
    let ir = ok("cql()\nline primary --> check{2}\nline secondary --> check");
    let t = top(&ir);
    assert_eq!(t.len(), 2, "two filters side by side");
    for &l in &t {
        let Filter::GameTree(GameTreeFilter::Line { body, .. }) = ir.get(l) else { panic!("{:?}", ir.get(l)) };
        let Filter::GameTree(GameTreeFilter::SeqConcat(v)) = ir.get(*body) else { panic!() };
        assert_eq!(v.len(), 1);
        assert!(!matches!(ir.get(v[0]), Filter::Logic(LogicFilter::And(_))), "one filter per constituent");
    }
    // A constituent is one filter, as in CQL 6.2: juxtaposed filters end the line and leave
    // the next arrow without a `line` ...
    assert!(crate::lang::cql6::parse("cql() line --> check mate --> check").is_err());
    assert!(crate::lang::cql6::parse("cql() line --> x = 1 x > 0 --> check").is_err());
    // ... except a `move` filter's own `comment( … )` (`match_movebase`).
    let ir = ok("cql() line --> move from k comment(\"k\") --> check");
    let Filter::GameTree(GameTreeFilter::Line { body, .. }) = ir.get(top(&ir)[0]) else { panic!() };
    let Filter::GameTree(GameTreeFilter::SeqConcat(v)) = ir.get(*body) else { panic!() };
    assert_eq!(v.len(), 2);
}

#[test]
fn sequences_lower_to_line() {
    let ir = ok("cql() line --> check{6,8}");
    match ir.get(top(&ir)[0]) {
        Filter::GameTree(GameTreeFilter::Line { params, body }) => {
            assert!(!params.backward);
            match ir.get(*body) {
                Filter::GameTree(GameTreeFilter::SeqConcat(v)) => {
                    assert!(matches!(ir.get(v[0]), Filter::GameTree(GameTreeFilter::SeqRepeat { min: 6, max: 8, .. })))
                }
                o => panic!("{o:?}"),
            }
        }
        o => panic!("{o:?}"),
    }
    let ir = ok("cql() line <-- mate <-- check");
    assert!(matches!(ir.get(top(&ir)[0]), Filter::GameTree(GameTreeFilter::Line { params, .. }) if params.backward));
    // Path: a plain filter after a move becomes the condition after that move.
    let ir = ok("cql() ⊢ ―― check{5,}");
    let Filter::GameTree(GameTreeFilter::Path { body, .. }) = ir.get(top(&ir)[0]) else { panic!() };
    let Filter::GameTree(GameTreeFilter::SeqConcat(v)) = ir.get(*body) else { panic!() };
    let Filter::GameTree(GameTreeFilter::SeqRepeat { body: unit, min: 5, max: u32::MAX }) = ir.get(v[0]) else {
        panic!("{:?}", ir.get(v[0]))
    };
    assert_eq!(ir.get(the_move(&ir, *unit).then.unwrap()), &Filter::PositionState(PositionStateFilter::Check));
}

#[test]
fn find_and_tree_navigation() {
    let ir = ok("cql() initial find all check >= 30");
    let t = top(&ir);
    assert_eq!(ir.get(t[0]), &Filter::PositionState(PositionStateFilter::Initial));
    match ir.get(t[1]) {
        Filter::Numbers(NumberFilter::Compare { first, .. }) => {
            assert!(matches!(ir.get(*first), Filter::GameTree(GameTreeFilter::Find { all: true, .. })))
        }
        o => panic!("{o:?}"),
    }
    let ir = ok("cql() mate parent:check");
    assert!(matches!(ir.get(top(&ir)[1]), Filter::GameTree(GameTreeFilter::AtPosition { .. })));
    let ir = ok("cql() mate find <-- ――=♕");
    assert!(matches!(
        ir.get(top(&ir)[1]),
        Filter::GameTree(GameTreeFilter::Find { direction: FindDirection::Backward, .. })
    ));
    // A plain find swallows the comparison: the rook-corners example.
    let ir = ok("cql() ◭T∊♖ find T == a1");
    let Filter::Variables(VariableFilter::PieceIter { body, .. }) = ir.get(top(&ir)[0]) else {
        panic!("not a piece iteration")
    };
    match ir.get(*body) {
        Filter::GameTree(GameTreeFilter::Find { all: false, range: None, body, .. }) => {
            assert!(matches!(ir.get(*body), Filter::Numbers(NumberFilter::Compare { .. })))
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn transforms_with_range_stay_transforms() {
    let ir = ok("cql() rotate90 3 4 find Ra1");
    assert!(matches!(
        ir.get(top(&ir)[0]),
        Filter::Transform { kind: TransformKind::Rotate90, range: Some((3, 4)), count: false, .. }
    ));
    let ir = ok("cql() ⬓{btm mate}");
    assert!(matches!(ir.get(top(&ir)[0]), Filter::Transform { kind: TransformKind::FlipColor, .. }));
    // rotate45 of a square parses; the expander reports it.
    ok("cql() rotate45 a1");
}

#[test]
fn variables_and_functions() {
    let ir = ok("cql() function twice(v){v + v} x = twice(3) x > 5");
    let t = top(&ir);
    assert_eq!(t.len(), 2);
    let Filter::Variables(VariableFilter::Assign { value, op: None, .. }) = ir.get(t[0]) else { panic!() };
    // The argument 3 is assigned to a fresh variable at the call, which the body then reads.
    let Filter::Logic(LogicFilter::And(parts)) = ir.get(*value) else { panic!("{:?}", ir.get(*value)) };
    let Filter::Variables(VariableFilter::Assign { var, value: three, .. }) = ir.get(parts[0]) else { panic!() };
    assert_eq!(ir.get(*three), &Filter::Numbers(NumberFilter::Number(3)));
    assert!(
        matches!(ir.get(parts[1]), Filter::Numbers(NumberFilter::Arith(ArithOp::Add, a, b)) if a == b && ir.get(*a) == &Filter::Variables(VariableFilter::Var(*var)))
    );
    let ir = ok("cql() persistent Mates += 1");
    assert!(ir.vars[0].persistent);
    // Recursion is refused, not a stack overflow.
    let e = err("cql() function f(v){f(v)} f(1)");
    assert!(e.diagnostics.iter().any(|d| d.message.contains("too deeply")), "{e}");
}

#[test]
fn unicode_and_ascii_give_identical_ir() {
    let pairs = [
        ("♖→♛", "R -> q"),
        ("(♖ ∪ ♕) ∩ a-h8", "(R | Q) & a-h8"),
        ("#◭ ≤ 6 ♔ ≠ 1", "#[Aa] <= 6 K != 1"),
        ("♘――f5", "N--f5"),
        ("♕×♛", "Q[x]q"),
        ("x∊▲ #(△→x) ≥ 3", "x [element] a #(A -> x) >= 3"),
        ("□d4 ▦", "_d4 ."),
    ];
    for (u, a) in pairs {
        assert_eq!(root_text(&format!("cql() {u}")), root_text(&format!("cql() {a}")), "{u} vs {a}");
    }
}

#[test]
fn converters_round_trip_to_the_same_ir() {
    let samples = [
        "cql() ◭y∊♘ #(▲←y) >= 3",
        "cql() ⊢◎△ ♗×h7 ♚×h7",
        "cql() ∀x∊♙ x in a-d1-8 ; comment\n♕――(check) ⬓{btm mate ♚a-h8} ▦",
    ];
    for s in samples {
        let a = to_ascii(s);
        assert!(a.is_ascii(), "{a}");
        assert_eq!(root_text(s), root_text(&a), "{s} -> {a}");
        let u = to_unicode(&a);
        assert_eq!(root_text(s), root_text(&u), "{a} -> {u}");
    }
    assert!(to_ascii("cql() ♔ ; ♕ stays").ends_with("; ♕ stays"));
}

#[test]
fn converters_give_back_the_script_in_either_spelling() {
    let unicode = [
        "cql() ⊢◎△ ♗×h7 ♚×h7",
        "cql() ✵⊢◎T1∪T2 piecepath",
        "cql() ⊢ primary ♛―― ⬓♙a-h2 x=∙",
        "cql(input flip.pgn) ◭y∊♘ #(▲←y) ≥ 3",
    ];
    for u in unicode {
        let a = to_ascii(u);
        assert!(a.is_ascii(), "{a}");
        assert_eq!(to_unicode(&a), u, "via {a}");
    }
    let ascii = [
        "cql(input path.pgn) path focus A B[x]h7 k[x]h7",
        "cql() flip path focus R|B R-- R--",
        "cql() piece T in [a] not [a] attacks T  x = currentposition",
        "cql() flipcolor {wtm Pa-h7}  R -> q",
    ];
    for a in ascii {
        let u = to_unicode(a);
        assert_eq!(to_ascii(&u), a, "via {u}");
        assert_eq!(root_text(a), root_text(&u), "{a} -> {u}");
    }
    assert_eq!(to_unicode("cql(input flip.pgn) flip Ra1"), "cql(input flip.pgn) ✵♖a1");
    assert_eq!(to_unicode("cql() [a] [Aa] [RB]"), "cql() [a] ◭ ♖♗");
}

#[test]
fn errors_have_positions_and_hints() {
    let src = "cql()\n  chek";
    let e = err(src);
    let r = e.render("q.cql", src);
    assert!(r.starts_with("q.cql:2:3: error: unknown filter or variable `chek`"), "{r}");
    assert!(r.contains("^^^^"), "{r}");
    assert!(r.contains("did you mean `check`?"), "{r}");
    let e = err("cql() year 1900 1950");
    assert!(e.diagnostics[0].message.contains("takes no range"));
    // In an argument list the number is the next argument (CQL 6.2 reads it so).
    assert!(crate::lang::cql6::parse("cql() x = max(ply 0) x > 4").is_ok());
    assert!(crate::lang::cql6::parse("cql() min(year 2000) < 1990").is_ok());
    // A number followed by an operator starts a new filter, after `ply` and after `find`.
    assert!(crate::lang::cql6::parse("cql() {max(5 8) <= ply 3 != #[pB]g8}").is_ok());
    for text in ["cql() find 2 <= 8", "cql() find 12 > power B", "cql() find 3 5 > 2"] {
        let ir = crate::lang::cql6::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let dump = crate::ir::dump::dump(&ir);
        assert!(dump.contains("Compare"), "{text}: {dump}");
    }
    // `abs`, `sqrt`, `int`, `ascii` take a whole sum: `abs(0 - 4) - 12` is `abs(-16)`.
    let abs = crate::ir::dump::dump(&crate::lang::cql6::parse("cql() abs(0 - 4) - 12").unwrap());
    let tree = abs.split("tree:").nth(1).unwrap_or(&abs);
    let lines: Vec<&str> = tree.lines().map(str::trim).skip_while(|l| *l != "Call abs").take(3).collect();
    assert_eq!(lines, ["Call abs", "Arith -", "Arith -"], "{abs}");
    let e = err("cql() ◭p∊♙ p");
    assert!(e.diagnostics[0].message.contains("single piece letter"));
    let e = err("(match (position))");
    assert!(e.diagnostics[0].hint.as_deref().unwrap_or("").contains("legacy"));
    let e = err("cql() ♙c-f");
    assert!(e.diagnostics[0].message.contains("ranks"));
    let e = err("cql() line --> . {1 5}");
    assert!(e.diagnostics[0].message.contains("{m,n}"));
}

#[test]
fn many_errors_are_collected_but_capped() {
    let src = format!("cql() {}", "bogusword ".repeat(40));
    let e = err(&src);
    assert_eq!(e.diagnostics.len(), 20);
    let e = err("cql() mtae chek");
    assert_eq!(e.diagnostics.len(), 2);
}

#[test]
fn deep_nesting_is_refused_without_overflow() {
    for open in ["(", "{", "not ", "#", "~ "] {
        let close = match open {
            "(" => ")",
            "{" => "}",
            _ => "",
        };
        let src = format!("cql() {}check{}", open.repeat(5000), close.repeat(5000));
        let e = err(&src);
        assert!(e.diagnostics.iter().any(|d| d.message.contains("nested too deeply")), "{open}");
    }
    ok(&format!("cql() {}check{}", "(".repeat(50), ")".repeat(50)));
}

#[test]
fn garbage_never_panics() {
    for s in [
        "",
        "cql(",
        "cql() )",
        "cql() ――=",
        "cql() [",
        "cql() \"",
        "cql() ◭",
        "cql() x∊",
        "cql() function f(",
        "cql() line",
        "cql() ⊢",
        "cql() 99999999999999999999999",
        "cql() a-",
        "cql() --> <--",
        "cql() f(",
        "\u{feff}cql() check",
    ] {
        let _ = parse(s);
        let _ = to_ascii(s);
        let _ = to_unicode(s);
    }
}

/// Every conformance script that parses gives the same IR after `to_ascii`, and after
/// `to_ascii` then `to_unicode`.
#[test]
fn converters_preserve_ir_on_conformance_scripts() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/conformance/cql6/scripts"));
    if !root.exists() {
        return;
    }
    let mut checked = 0;
    let mut bad = Vec::new();
    for dir in std::fs::read_dir(root).unwrap().flatten() {
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let src = std::fs::read_to_string(f.path()).unwrap_or_default();
            let Ok(ir) = parse(&src) else { continue };
            let want = render(&ir, ir.root.unwrap());
            let ascii = to_ascii(&src);
            let back = to_unicode(&ascii);
            for (label, text) in [("ascii", &ascii), ("unicode", &back)] {
                match parse(text) {
                    Ok(ir2) if render(&ir2, ir2.root.unwrap()) == want => {}
                    _ => bad.push(format!("{} ({label})", f.path().display())),
                }
            }
            checked += 1;
        }
    }
    eprintln!("converters checked on {checked} scripts");
    assert!(bad.is_empty(), "{bad:#?}");
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "cql(", ")", "(", "{", "}", "[", "]", "♔", "◭", "∊", "∀", "→", "←", "――", "×", "⊢", "◎", "⬓", "∙", "x", "T",
        "Kg1", "a-h1-8", "--", "->", "=", "+=", "==", "<", "#", "~", "~~", "\"s\"", "1", "2", ":", "///", "//", "/*",
        ";", "\n", " ", "find", "line", "-->", "<--", "not", "if", "then", "else", "function", "f", "move", "from",
        "to", "echo", "rotate90", "count", "sort", "*", "+", "?", "{2,}", "result", "1-0", "player", "piece", "square",
        "all", "in",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]
        #[test]
        fn parse_and_convert_never_panic(parts in proptest::collection::vec(0..PIECES.len(), 0..40)) {
            let src: String = parts.iter().map(|&i| PIECES[i]).collect::<Vec<_>>().join(" ");
            let _ = parse(&src);
            let glued: String = parts.iter().map(|&i| PIECES[i]).collect();
            let _ = parse(&glued);
            let _ = to_ascii(&glued);
            let _ = to_unicode(&glued);
        }
    }
}

#[test]
fn path_parameters_and_where_a_path_ends() {
    let ir = ok("cql() ◭Mover∊♖ sort \"n\" ⊢◎capture Mover max pathcountunfocused≥2 keepallbest nestban ―― ――");
    let text = crate::ir::dump::dump(&ir);
    assert!(text.contains("Path focus capture max keepallbest nestban"), "{text}");
    assert!(text.contains("PathStatus countunfocused"), "{text}");
    // `piecepath` needs a focus.
    assert!(crate::lang::cql6::parse("cql() ⊢ piecepath ――").is_err());
    // A blank line at the path's top level ends it (CQL 6.2 `Lexer::fixPath`); without one,
    // every filter after a move is a target of that move, whatever the layout.
    let ir = ok("cql()\n⊢ ――\n\nCount=1");
    assert!(matches!(ir.get(top(&ir)[0]), Filter::GameTree(GameTreeFilter::Path { .. })));
    assert!(matches!(ir.get(top(&ir)[1]), Filter::Variables(VariableFilter::Assign { .. })));
    let ir = ok("cql()\n⊢ ――  // a comment\n   \nfind check");
    assert!(matches!(ir.get(top(&ir)[1]), Filter::GameTree(GameTreeFilter::Find { .. })));
    for joined in ["cql()\n⊢ ――\nCount=1", "cql()\n⊢ ――\n// a comment\nCount=1", "cql()\n⊢ (――\n\nCount=1)"]
    {
        let text = crate::ir::dump::dump(&ok(joined));
        assert!(text.contains("then: Assign"), "{joined}: {text}");
    }
    // A block is one filter even when it holds a move: here the target of the path's move,
    // repeated with it.
    let text = crate::ir::dump::dump(&ok("cql() ⊢ ―― {―― not check}* check"));
    assert!(text.contains("SeqRepeat"), "{text}");
    // A repetition applies to a move or a chain only; a bare number is no constituent; a
    // chain cannot follow a move's targets (the parentheses are then one filter's).
    for refused in [
        "cql() ⊢ check* ―― mate",
        "cql() ⊢ {―― not check}* check",
        "cql() ⊢ ―― x=1 * 2",
        "cql() ⊢ ―― check (―― ――)* mate",
        "cql() ⊢ ――**",
    ] {
        assert!(crate::lang::cql6::parse(refused).is_err(), "{refused}");
    }
}

#[test]
fn dictionaries_parse_to_their_own_nodes() {
    let ir = ok("cql() local dictionary D D[ply] = to #D D[1] unbind D[1] unbind D");
    assert_eq!(ir.vars[0].kind, VarKind::Dictionary { local: true });
    assert!(!ir.vars[0].persistent);
    let d = VarId(0);
    let t = top(&ir);
    // The declaration itself is `true`; the rest keep their order.
    let kinds: Vec<&Filter> = t.iter().map(|&f| ir.get(f)).collect();
    assert!(kinds
        .iter()
        .any(|f| matches!(f, Filter::Variables(VariableFilter::DictSet { dict, op: None, .. }) if *dict == d)));
    assert!(kinds.iter().any(|f| matches!(f, Filter::Variables(VariableFilter::DictCount(x)) if *x == d)));
    assert!(kinds
        .iter()
        .any(|f| matches!(f, Filter::Variables(VariableFilter::DictGet { dict, key }) if *dict == d && ir.get(*key) == &Filter::Numbers(NumberFilter::Number(1)))));
    assert!(kinds.iter().any(|f| matches!(f, Filter::Variables(VariableFilter::DictUnbind { key: Some(_), .. }))));
    assert!(kinds.iter().any(|f| matches!(f, Filter::Variables(VariableFilter::DictUnbind { key: None, .. }))));

    let ir = ok("cql() persistent dictionary Wins Wins[player white] += 1");
    assert_eq!(ir.vars[0].kind, VarKind::Dictionary { local: false });
    assert!(ir.vars[0].persistent);
    let ir = ok("cql() dictionary D D[\"a\"] = 1");
    assert_eq!(ir.vars[0].kind, VarKind::Dictionary { local: false });
    assert!(!ir.vars[0].persistent);
}

#[test]
fn dictionary_keys_written_as_designators() {
    // `[Q]` and `[a1]` are read as one designator by the lexer; after a dictionary name they
    // are the key, the same sets as `Q` and `a1`.
    let ir = ok("cql() local dictionary D D[Q] = 1 D[a1] == 2");
    // The declaration matches like `true`.
    let t: Vec<FilterId> = top(&ir).into_iter().filter(|&f| ir.get(f) != &Filter::True).collect();
    let Filter::Variables(VariableFilter::DictSet { key, .. }) = ir.get(t[0]) else { panic!("{:?}", ir.get(t[0])) };
    assert!(
        matches!(ir.get(*key), Filter::Sets(SetFilter::Pieces { mask, .. }) if *mask == PieceMask::piece(Color::White, Role::Queen))
    );
    let Filter::Numbers(NumberFilter::Compare { first, .. }) = ir.get(t[1]) else { panic!() };
    let Filter::Variables(VariableFilter::DictGet { key, .. }) = ir.get(*first) else { panic!() };
    assert_eq!(ir.get(*key), &Filter::Sets(SetFilter::Squares(Bitboard::from(Square::A1))));
    // `#D[k]` is the size of the stored value, not the number of entries.
    let ir = ok("cql() local dictionary D #D[1] > 2");
    let Filter::Numbers(NumberFilter::Compare { first, .. }) = ir.get(top(&ir)[1]) else { panic!() };
    assert!(
        matches!(ir.get(*first), Filter::Sets(SetFilter::Count(g)) if matches!(ir.get(*g), Filter::Variables(VariableFilter::DictGet { .. })))
    );
}

#[test]
fn dictionary_misuse_is_an_error() {
    let e = err("cql() local dictionary D D > 1");
    assert!(e.diagnostics.iter().any(|d| d.message.contains("used with a key")), "{e}");
    let e = err("cql() dictionary check");
    assert!(e.diagnostics.iter().any(|d| d.message.contains("keyword")), "{e}");
    let e = err("cql() x = 1 dictionary x");
    assert!(e.diagnostics.iter().any(|d| d.message.contains("already declared")), "{e}");
    // A dictionary is always bound in CQL 6.2: `isbound D` is accepted (true).
    assert!(crate::lang::cql6::parse("cql() local dictionary D isbound D").is_ok());
    let e = err("cql() local x = 1");
    assert!(e.diagnostics.iter().any(|d| d.message.contains("dictionary only")), "{e}");
    let e = err("cql() dictionary D D[\"a\"] = 1 D[2] = 1");
    assert!(e.diagnostics.iter().any(|d| d.message.contains("the keys of `D`")), "{e}");
    let e = err("cql() local dictionary D D[1");
    assert!(!e.diagnostics.is_empty());
}

#[test]
fn empty_set_literal_and_ascii_piece_assignment() {
    let ir = ok("cql() Seen = []");
    let Filter::Variables(VariableFilter::Assign { value, .. }) = ir.get(top(&ir)[0]) else { panic!() };
    assert_eq!(ir.get(*value), &Filter::Sets(SetFilter::Squares(Bitboard::EMPTY)));
    // `piece T = S` is the ASCII spelling of `◭T=S`.
    let a = ok("cql() piece T = R");
    let b = ok("cql() ◭T=♖");
    assert_eq!(a.vars[0].kind, VarKind::Piece);
    assert_eq!(crate::ir::dump::dump(&a), crate::ir::dump::dump(&b));
}

#[test]
fn arrow_right_operand_takes_in_a_union() {
    // `T→(▦←♚)∪♚`: the arrow's target is the whole union (CQL 6.2, dingstheme example).
    let ir = ok("cql() ◭T∊♙ T→(▦←♚)∪♚");
    let Filter::Variables(VariableFilter::PieceIter { body, .. }) = ir.get(top(&ir)[0]) else {
        panic!("no piece iteration")
    };
    match ir.get(*body) {
        Filter::Geometry(GeometryFilter::Attacks { targets, .. }) => {
            assert!(matches!(ir.get(*targets), Filter::Sets(SetFilter::Union(v)) if v.len() == 2))
        }
        o => panic!("{o:?}"),
    }
    // An intersection on the right binds the same way, and so does a union on the left
    // (CQL 6.2 reads `♖∪♗→♚∩▦` as `(♖∪♗)→(♚∩▦)`).
    let ir = ok("cql() ♖∪♗→♚∩▦");
    match ir.get(top(&ir)[0]) {
        Filter::Geometry(GeometryFilter::Attacks { attackers, targets, .. }) => {
            assert!(matches!(ir.get(*attackers), Filter::Sets(SetFilter::Union(_))));
            assert!(matches!(ir.get(*targets), Filter::Sets(SetFilter::Intersection(_))));
        }
        o => panic!("{o:?}"),
    }
    // A chain of arrows is still one x-ray chain, and `∊` still takes the whole arrow.
    let ir = ok("cql() ♖→♞∪♝→♚");
    assert!(
        matches!(ir.get(top(&ir)[0]), Filter::Geometry(GeometryFilter::AttackChain { sets, .. }) if sets.len() == 3)
    );
    let ir = ok("cql() ◭V∊♖ ◭E∊♖♗♕→V true");
    let Filter::Variables(VariableFilter::PieceIter { body, .. }) = ir.get(top(&ir)[0]) else {
        panic!("no piece iteration")
    };
    let Filter::Variables(VariableFilter::PieceIter { domain, .. }) = ir.get(*body) else {
        panic!("no inner iteration")
    };
    assert!(matches!(ir.get(*domain), Filter::Geometry(GeometryFilter::Attacks { .. })));
}

#[test]
fn complement_takes_in_attack_words_but_not_set_operators() {
    // CQL 6.2: `~K attackedby k` is `~(K attackedby k)`; `~a1 | a1` is `(~a1) | a1`.
    assert!(root_text("cql() ~K attackedby k").starts_with("And([<Complement(<Attacks"));
    assert_eq!(root_text("cql() ~K attackedby k"), root_text("cql() ~(K attackedby k)"));
    assert_eq!(root_text("cql() ~a1 | a1"), root_text("cql() (~a1) | a1"));
    assert_ne!(root_text("cql() ~a1 | a1"), root_text("cql() ~(a1 | a1)"));
}

/// Parentheses hold exactly one filter, as CQL 6.2's parser demands; braces group several.
/// A move's target list and a `while` condition keep their own rules.
#[test]
fn parentheses_hold_exactly_one_filter() {
    for src in ["(Pa2 ra1)", "not (Pa2 ra1)", "()", "x=0 while (x<3 check) x+=1", "x=0 while () x+=1"] {
        let e = err(src);
        assert!(e.diagnostics[0].message.contains("parenthes"), "{src}: {}", e.diagnostics[0].message);
    }
    let e = err("(Pa2 ra1)");
    assert_eq!(e.diagnostics[0].span.start, 5, "the caret is on the second filter");
    for src in
        ["(Pa2)", "not (Pa2)", "{Pa2 ra1}", "--(Rc4 o-o)", "B[x]h7(check k[x]h7(N--g5 check))", "x=0 while (x<3) x+=1"]
    {
        ok(src);
    }
}

#[test]
fn sort_directions_and_refusals() {
    let sort_of = |text: &str| {
        let ir = ok(text);
        let t = top(&ir);
        match ir.get(t[0]) {
            Filter::Output(OutputFilter::Sort { min, doc, .. }) => (*min, doc.clone()),
            other => panic!("{text}: {other:?}"),
        }
    };
    // A plain sort puts the largest first; `min` and, as in CQL 6.2, `max` the smallest.
    assert_eq!(sort_of("cql() sort \"n\" #A"), (false, "n".to_string()));
    assert_eq!(sort_of("cql() sort min \"n\" #A"), (true, "n".to_string()));
    assert_eq!(sort_of("cql() sort max \"n\" #A"), (true, "n".to_string()));
    // `quiet` (first) keeps the value out of the game's comment.
    let ir = ok("cql() sort quiet min \"n\" #A");
    assert!(crate::ir::dump::dump(&ir).contains("Sort min quiet \"n\""), "{}", crate::ir::dump::dump(&ir));
    for refused in [
        "cql() sort 1",
        "cql() sort \"n\" 1",
        "cql() sort max #A",
        "cql() sort min \"\" #A",
        "cql() sort min quiet \"n\" #A",
    ] {
        assert!(crate::lang::cql6::parse(refused).is_err(), "{refused}");
    }
}

#[test]
fn texts_cql_6_2_refuses_are_refused() {
    // Each refused by the reference's parser (its message in the comment).
    for (text, why) in [
        ("cql() piecename d4 & piecename d5", "right side of '&' does not match left side"),
        ("cql() typename d4 & \"Q\"", "right side of '&' does not match left side"),
        ("cql() v=initialposition dictionary X X[v]", "position-valued key for a non-local dictionary"),
        ("cql() dictionary v unbind v[\"key\"]", "key of invalid type (no entry yet)"),
        ("cql() function F(T){--=T}F(Q)", "expected a piece designator or a string filter"),
        ("cql() square x in a1 --=x", "expected a piece designator or a string filter"),
        ("cql() piece y=q y=k", "cannot assign to piece variable"),
        ("cql() piece y=q y=\"a\"", "cannot assign to piece variable"),
        ("cql() y=k piece y=q", "piece variable expected"),
        ("cql() A -> P <- P", "extra text"),
        ("cql() A ← P → P", "extra text"),
        ("cql() (q-2)", "a parenthesised expression holds one filter"),
        ("cql() line --> check{2, }", "could not parse filter inside {…}"),
        ("cql() line --> check{, 4}", "expected a filter after {"),
        ("cql() reversecolor count btm", "expecting a filter after reversecolor"),
        ("cql() path --(check mate)", "a parenthesised expression holds one filter"),
        ("cql() [forall] [Aa] x [element] . k", "no piece declaration with a space"),
        ("cql() ∀◭ x∊. k", "no piece declaration with a space"),
        ("cql() square x in a1 {x = 4}", "type mismatch on assignment (x is a set)"),
        ("cql() square x in a1 {k} piece x in a {k}", "piece variable expected"),
        ("cql() piece x in a {k} square x in a1 {k}", "square variable expected"),
        ("cql() line --> check mate --> check", "extra text (one filter per constituent)"),
    ] {
        assert!(crate::lang::cql6::parse(text).is_err(), "{text}: {why}");
    }
    // Their neighbours that it accepts.
    for text in [
        "cql() piece y=q piece y=k",
        "cql() x=\"Q\" --=x",
        "cql() (#q - 2)",
        "cql() (A -> P) <- P",
        "cql() line --> check{2,}",
        "cql() --(check mate)",
        "cql() local dictionary X X[currentposition]=1",
        "cql() [forall] [Aa]x [element] . k",
        "cql() square x in a1 {x = a2}",
        "cql() square x in a1 {square x in a2 {k}}",
        "cql() dictionary v v[\"a\"]=1 unbind v[\"key\"]",
    ] {
        ok(text);
    }
}

#[test]
fn a_number_in_place_of_a_filter_parses_as_in_cql_6_2() {
    // CQL 6.2 accepts these texts and stops only when it reaches the number at run time;
    // so does cqlrs (the game is abandoned: `eval::tests`).
    for text in
        ["cql() mate 2", "cql() not 1", "cql() find btm 1", "cql() k -2", "cql() check or 3", "cql() x = {check 3}"]
    {
        ok(text);
    }
}
