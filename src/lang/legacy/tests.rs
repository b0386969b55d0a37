//! Tests of the whole legacy front-end: IR shapes of the conformance scripts (against the
//! CQL 6 script each one is paired with), errors, and a sweep over the suite's scripts.

use super::parse;
use crate::ir::{Filter, FilterId, Ir, PieceMask, TransformKind};
use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter,
    VariableFilter,
};
use shakmaty::{Bitboard, Color, Role};

/// Names of the pieces of a mask (`A`, `a`, `[RQ]`, `_` for empty squares).
fn mask_name(mask: PieceMask) -> String {
    if mask == PieceMask::WHITE {
        return "A".into();
    }
    if mask == PieceMask::BLACK {
        return "a".into();
    }
    if mask == PieceMask::ANY_PIECE {
        return "[Aa]".into();
    }
    let mut s = String::new();
    for color in [Color::White, Color::Black] {
        for role in [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn] {
            if mask.contains_piece(color, role) {
                let c = role.char();
                s.push(if color.is_white() { c.to_ascii_uppercase() } else { c });
            }
        }
    }
    if mask.contains_empty() {
        s.push('_');
    }
    if s.chars().count() == 1 {
        s
    } else {
        format!("[{s}]")
    }
}

fn squares_name(bb: Bitboard) -> String {
    if bb == Bitboard::FULL {
        return String::new();
    }
    let names: Vec<String> = bb.into_iter().map(|sq| sq.to_string()).collect();
    if names.len() == 1 {
        names[0].clone()
    } else {
        format!("[{}]", names.join(","))
    }
}

/// A compact, deterministic rendering of an IR sub-tree, CQL-6-like.
fn shape(ir: &Ir, id: FilterId) -> String {
    let s = |x: FilterId| shape(ir, x);
    let list = |v: &[FilterId]| v.iter().map(|&x| shape(ir, x)).collect::<Vec<_>>().join(", ");
    match ir.get(id) {
        Filter::True => "true".into(),
        Filter::False => "false".into(),
        Filter::Numbers(NumberFilter::Number(n)) => n.to_string(),
        Filter::Numbers(NumberFilter::Str(t)) => format!("{t:?}"),
        Filter::Sets(SetFilter::Squares(bb)) => format!("sq{}", squares_name(*bb)),
        Filter::Sets(SetFilter::Pieces { mask, squares }) => format!("{}{}", mask_name(*mask), squares_name(*squares)),
        Filter::Sets(SetFilter::Union(v)) => format!("union({})", list(v)),
        Filter::Sets(SetFilter::Intersection(v)) => format!("inter({})", list(v)),
        Filter::Sets(SetFilter::Count(x)) => format!("#{}", s(*x)),
        Filter::Geometry(GeometryFilter::Attacks { attackers, targets, value_is_targets: false }) => {
            format!("({} attacks {})", s(*attackers), s(*targets))
        }
        Filter::Geometry(GeometryFilter::Attacks { attackers, targets, value_is_targets: true }) => {
            format!("({} attackedby {})", s(*targets), s(*attackers))
        }
        Filter::Numbers(NumberFilter::Compare { first, rest }) => {
            let mut out = format!("{{{}", s(*first));
            for (op, x) in rest {
                out.push_str(&format!(" {op:?} {}", s(*x)));
            }
            out.push('}');
            out
        }
        Filter::Numbers(NumberFilter::Arith(op, a, b)) => format!("({} {op:?} {})", s(*a), s(*b)),
        Filter::Numbers(NumberFilter::Call(b, args)) => format!("{b:?}({})", list(args)),
        Filter::Logic(LogicFilter::And(v)) => format!("and({})", list(v)),
        Filter::Logic(LogicFilter::Or(v)) => format!("or({})", list(v)),
        Filter::Logic(LogicFilter::Not(x)) => format!("not({})", s(*x)),
        Filter::PositionState(PositionStateFilter::ToMove(Color::White)) => "wtm".into(),
        Filter::PositionState(PositionStateFilter::ToMove(Color::Black)) => "btm".into(),
        Filter::Move(m) => {
            let mut parts = Vec::new();
            if let Some(f) = m.from {
                parts.push(format!("from={}", s(f)));
            }
            if let Some(t) = m.to {
                parts.push(format!("to={}", s(t)));
            }
            if m.promote != 0 {
                parts.push(format!("promote={:#b}", m.promote));
            }
            if m.kind != crate::ir::MoveKind::Any {
                parts.push(format!("{:?}", m.kind));
            }
            format!("move({})", parts.join(" "))
        }
        Filter::GameTree(GameTreeFilter::Find { all, range, body, .. }) => match (all, range) {
            (false, None) => format!("find({})", s(*body)),
            (_, Some((lo, hi))) => format!("find {lo}..{hi}({})", s(*body)),
            (true, None) => format!("find all({})", s(*body)),
        },
        Filter::Transform { kind, range: None, count: false, body } => {
            format!("{}({})", format!("{kind:?}").to_lowercase(), s(*body))
        }
        Filter::GameTree(GameTreeFilter::Line { body, .. }) => format!("line({})", s(*body)),
        Filter::GameTree(GameTreeFilter::SeqConcat(v)) => format!("seq({})", list(v)),
        Filter::GameTree(GameTreeFilter::SeqRepeat { body, min: 0, max: u32::MAX }) => format!("{}*", s(*body)),
        Filter::Variables(VariableFilter::IdentityIter { var, mask, body }) => {
            format!("foreach {} in {} ({})", ir.vars[var.0 as usize].name, mask_name(*mask), s(*body))
        }
        Filter::Variables(VariableFilter::Var(v)) => ir.vars[v.0 as usize].name.clone(),
        Filter::Header(HeaderFilter::Field(h)) => format!("{h:?}"),
        Filter::Numbers(NumberFilter::Contains { haystack, needle, ignore_case }) => {
            format!("contains{}({}, {})", if *ignore_case { "_ci" } else { "" }, s(*haystack), s(*needle))
        }
        Filter::Geometry(GeometryFilter::Direction { dirs, min, max, arg, .. }) => {
            format!("dir{}:{min}-{max}({})", dirs.0, s(*arg))
        }
        other => format!("{other:?}").to_lowercase(),
    }
}

fn lower(src: &str) -> Ir {
    match parse(src) {
        Ok(ir) => ir,
        Err(e) => panic!("{src}\n{}", e.render("t.cql", src)),
    }
}

fn root_shape(src: &str) -> String {
    let ir = lower(src);
    assert!(ir.settings.per_game, "legacy queries are evaluated once per game");
    shape(&ir, ir.root.expect("a root"))
}

fn error_of(src: &str) -> String {
    match parse(src) {
        Ok(_) => panic!("expected an error for {src}"),
        Err(e) => e.render("t.cql", src),
    }
}

// ---- IR shapes of every conformance case that has a CQL 6 equivalent ----------------
// Each test quotes the CQL 6 script; the shape is what it means, with the match list's
// "some position matches" made explicit as `find(…)` evaluated at the start position.

#[test]
fn eq_ac_double_check() {
    // cql() flipcolor {#(A attacks k) == 2}
    assert_eq!(
        root_shape("(match (position :attackcount A k 2 :flipcolor))"),
        "find(flipcolor({#(A attacks k) Eq 2}))"
    );
}

#[test]
fn eq_ac_king_one_flight_square() {
    // cql() btm check #(_ attackedby k) == 1
    assert_eq!(
        root_shape("(match (position :btm :check :attackcount k . 1))"),
        "find(and(btm, check, {#(_ attackedby k) Eq 1}))"
    );
}

#[test]
fn eq_ac_smothered_mate() {
    // cql() flipcolor {mate not (k attacks [A_])}
    assert_eq!(
        root_shape("(match (position :flipcolor :attackcount k [A.] 0 :mate))"),
        "find(flipcolor(and(not((k attacks [KQRBNP_])), mate)))"
    );
}

#[test]
fn eq_cnt_pawncount_consecutive3() {
    // cql() flipcolor {P & up 1 (P & up 1 P)}
    assert_eq!(
        root_shape("(match (position :pawncount consecutive(3) >0 :flipcolor))"),
        "find(flipcolor({#inter(P, dir1:1-1(inter(P, dir1:1-1(P)))) Gt 0}))"
    );
}

#[test]
fn eq_cnt_piececount() {
    // cql() #[Qq] >= 3
    assert_eq!(root_shape("(match (position :piececount [Qq] >=3))"), "find({#[Qq] Ge 3})");
    // cql() #R == 2 #r == 0 #[Qq] == 0
    assert_eq!(
        root_shape("(match (position :piececount R 2 :piececount r 0 :piececount [Qq] 0))"),
        "find(and({#R Eq 2}, {#r Eq 0}, {#[Qq] Eq 0}))"
    );
}

#[test]
fn eq_cnt_powerdifference() {
    // cql() flipcolor {power [RBN] - power [rbn] <= -2}
    assert_eq!(
        root_shape("(match (position :flipcolor :powerdifference [RrBbNn] <=-2))"),
        "find(flipcolor({(Power([RBN]) Sub Power([rbn])) Le -2}))"
    );
    // cql() power A - power a >= -100  power A - power a <= -9  btm check
    assert_eq!(
        root_shape("(match (position :powerdifference U -100 -9 :btm :check))"),
        "find(and({-100 Le (Power(A) Sub Power(a)) Le -9}, btm, check))"
    );
}

#[test]
fn eq_gseq_queen_capture_then_mate() {
    // cql() Q--[Aa] find {mate btm}   (gaps made explicit as `true*`)
    assert_eq!(
        root_shape("(match (position :gappedsequence ((position :movefrom Q :moveto U) (position :mate :btm))))"),
        "find(line(seq(true*, move(from=Q to=[Aa]), true*, and(mate, btm))))"
    );
}

#[test]
fn eq_keywords() {
    // cql() initial #[Aa] >= 2 #[Aa] <= 5
    assert_eq!(root_shape("(match (position :initial :piececount U 2 5))"), "find(and(initial, {2 Le #[Aa] Le 5}))");
    // cql() movenumber >= 10 movenumber <= 20 mate
    assert_eq!(root_shape("(match (position :movenumber 10 20 :mate))"), "find(and({10 Le movenumber Le 20}, mate))");
    // cql() wtm not check K--g1
    assert_eq!(
        root_shape("(match (position :wtm :nocheck :movefrom K :moveto ?g1))"),
        "find(and(wtm, not(check), move(from=K to=sqg1)))"
    );
    assert_eq!(root_shape("(match (position :wtm !:check))"), "find(and(wtm, not(check)))");
    // cql() wtm check #(n attacks K) == 1
    assert_eq!(
        root_shape("(match (position :wtm :check :attackcount n K 1))"),
        "find(and(wtm, check, {#(n attacks K) Eq 1}))"
    );
}

#[test]
fn eq_lg_and_not() {
    // cql() btm check #(A attacks k) == 1 not (#(N attacks k) == 1)
    assert_eq!(
        root_shape(
            "(match (position :btm :check :and ((position :attackcount A k 1) (position :not :attackcount N k 1))))"
        ),
        "find(and(btm, check, and({#(A attacks k) Eq 1}, not({#(N attacks k) Eq 1}))))"
    );
}

#[test]
fn eq_matchcount() {
    // cql() initial find all {check btm true} >= 20, <= 1000
    assert_eq!(root_shape("(match (position :check :btm :matchcount 20 1000))"), "find 20..1000(and(check, btm))");
    // cql() initial find mate  find all {check true} == 1
    assert_eq!(
        root_shape("(match (position :mate) (position :check :matchcount 1))"),
        "and(find(mate), find 1..1(check))"
    );
    // `:matchcount 0 3`: zero matches included (Scidb's position-list page).
    assert_eq!(root_shape("(match (position :check :matchcount 0 3))"), "find 0..3(check)");
}

#[test]
fn eq_misc_match_lists() {
    // cql() true
    assert_eq!(root_shape("(match)   ; CQL-S: matches every game"), "true");
    // cql() result 1-0 "a" in lowercase player white or … black
    assert_eq!(
        root_shape("(match :result 1-0 :player a)"),
        "and(result(whitewins), or(contains_ci(Player(White), \"a\"), contains_ci(Player(Black), \"a\")))"
    );
    // cql() year == 2013
    assert_eq!(root_shape("(match :year 2013)"), "{year Eq 2013}");
    // cql() gamenumber >= 10 gamenumber <= 60 btm check
    assert_eq!(
        root_shape("(match :gamenumber 10 60 (position :btm :check))"),
        "and({10 Le gamenumber Le 60}, find(and(btm, check)))"
    );
    // cql() {elo white in range} or {elo black in range}  wtm check
    assert_eq!(
        root_shape("(match :elo 2750 2900 (position :wtm :check))"),
        "and(or({2750 Le Elo(White) Le 2900}, {2750 Le Elo(Black) Le 2900}), find(and(wtm, check)))"
    );
    // cql() "costeff" in lowercase player …
    assert_eq!(
        root_shape("(match :player costeff (position))"),
        "and(or(contains_ci(Player(White), \"costeff\"), contains_ci(Player(Black), \"costeff\")), find(true))"
    );
    // cql() result 1/2-1/2 stalemate
    assert_eq!(root_shape("(match :result 1/2 (position :stalemate))"), "and(result(draw), find(stalemate))");
}

#[test]
fn eq_variations() {
    // cql(variations) btm mate
    let ir = lower("(match (position :variations :btm :mate))");
    assert!(ir.settings.variations);
    assert_eq!(shape(&ir, ir.root.unwrap()), "find(and(btm, mate))");
    // cql(variations) variation btm mate
    let ir = lower("(match (position :variationsonly :btm :mate))");
    assert!(ir.settings.variations);
    assert_eq!(shape(&ir, ir.root.unwrap()), "find(and(variation, btm, mate))");
    // A list without `:variations` next to one with it stays on the main line.
    let ir = lower("(match (position :mate) (position :variations :check))");
    assert_eq!(shape(&ir, ir.root.unwrap()), "and(find(and(mainline, mate)), find(check))");
    let ir = lower("(match :variations (position :mate))");
    assert_eq!(shape(&ir, ir.root.unwrap()), "find(mate)");
    assert!(ir.settings.variations);
}

#[test]
fn eq_multiple_lists() {
    // cql() initial find {--=Q} find {--=R} find {--=B} find {--=N}
    assert_eq!(
        root_shape("(match (position :promote [Qq]) (position :promote [Rr]) (position :promote [Bb]) (position :promote [Nn]))"),
        "and(find(move(promote=0b100000)), find(move(promote=0b10000)), find(move(promote=0b1000)), find(move(promote=0b100)))"
    );
    // cql() initial find {Kc1 Rd1 true} find {kg8 rf8 true}
    assert_eq!(
        root_shape("(match (position Kc1 Rd1) (position kg8 rf8))"),
        "and(find(and(Kc1, Rd1)), find(and(kg8, rf8)))"
    );
    // cql() result 0-1 initial find {wtm check} find {#[Qq] == 0} find mate
    assert_eq!(
        root_shape("(match :result 0-1 (position :wtm :check) (position :piececount [Qq] 0) (position :mate))"),
        "and(result(blackwins), find(and(wtm, check)), find({#[Qq] Eq 0}), find(mate))"
    );
}

#[test]
fn eq_moves() {
    // cql() btm --(enpassant)
    assert_eq!(root_shape("(match (position :enpassant :btm))"), "find(and(move(EnPassant), btm))");
    // cql() --[Aa]=Q
    assert_eq!(root_shape("(match (position :promote [Qq] :moveto U))"), "find(move(to=[Aa] promote=0b100000))");
    // cql() Q--r
    assert_eq!(root_shape("(match (position :movefrom Q :moveto r))"), "find(move(from=Q to=r))");
    // cql() n--d4
    assert_eq!(root_shape("(match (position :movefrom n :moveto ?d4))"), "find(move(from=n to=sqd4))");
    // A coloured promotion designator restricts the moving pawn.
    assert_eq!(root_shape("(match (position :promote [RBN]))"), "find(move(from=P promote=0b11100))");
}

#[test]
fn eq_piece_designators() {
    // cql() _d4 [bn]d3 [Aa][a1,h1,a8,h8]
    assert_eq!(root_shape("(match (position .d4 id3 U[a1,h1,a8,h8]))"), "find(and(_d4, [bn]d3, [Aa][a1,h1,a8,h8]))");
    // cql() [RQ]a1-8 qh1-8
    assert_eq!(
        root_shape("(match (position [RQ][a1-8] q[h1-8]))"),
        "find(and([QR][a1,a2,a3,a4,a5,a6,a7,a8], q[h1,h2,h3,h4,h5,h6,h7,h8]))"
    );
}

#[test]
fn eq_game_data_under_flipcolor() {
    // cql() {result 1-0 elo white … elo black …} or {the colour-flipped copy}
    assert_eq!(
        root_shape("(match (position :result 1-0 :whiteelo 1000 2300 :blackelo 2450 3000 :flipcolor))"),
        "find(flipcolor(and(result(whitewins), {1000 Le Elo(White) Le 2300}, {2450 Le Elo(Black) Le 3000})))"
    );
}

#[test]
fn eq_sequences() {
    // cql() wtm line --> R--_ --> {k-- check} --> R--_ --> {k-- check} --> R--_ --> {k-- check}
    let src = "(match (position :wtm :sequence ((position :movefrom R :moveto .) (position :movefrom k :check)
        (position :movefrom R :moveto .) (position :movefrom k :check)
        (position :movefrom R :moveto .) (position :movefrom k :check))))";
    let r = "move(from=R to=_)";
    let k = "and(move(from=k), check)";
    assert_eq!(root_shape(src), format!("find(and(wtm, line(seq({r}, {k}, {r}, {k}, {r}, {k}))))"));
    // The rambling rook: result 1/2-1/2 and five pairs.
    let pair = "(position :movefrom R :moveto .) (position :movefrom k :check)";
    let src = format!("(match :result 1/2 (position :wtm :sequence ({pair} {pair} {pair} {pair} {pair})))");
    let seq = vec![format!("{r}, {k}"); 5].join(", ");
    assert_eq!(root_shape(&src), format!("and(result(draw), find(and(wtm, line(seq({seq})))))"));
}

#[test]
fn eq_tags() {
    // cql() initial piece T in [NP] { find {T & N} find all {T-- true} == 1 find {mate T attacks k} }
    assert_eq!(
        root_shape("(match :forany knight N (position :movefrom $knight :matchcount 1) (position :mate :attackcount $knight k 1))"),
        "foreach knight in N (and(find 1..1(move(from=knight)), find(and(mate, {#(knight attacks k) Eq 1}))))"
    );
    // cql() initial piece T in [Pp] { find {T & Q} }
    assert_eq!(root_shape("(match :forany p [Pp] (position :tagmatch p Q))"), "foreach p in [Pp] (find(inter(p, Q)))");
    // cql() initial piece T in [RrPp] { find {T & [Rr]} find {T & a1} find {T & a8} }
    assert_eq!(
        root_shape("(match :forany r [Rr] (position $r[a1]) (position $r[a8]))"),
        "foreach r in [Rr] (and(find(inter(r, sqa1)), find(inter(r, sqa8))))"
    );
    // The seed: four corners, with :pgn/:output going to the settings.
    let ir = lower(
        "(match :pgn heijden.pgn :output out.pgn :forany rook [rR] (position $rook[a1]) (position $rook[h1]) (position $rook[h8]) (position $rook[a8]))",
    );
    assert_eq!(ir.settings.input, vec!["heijden.pgn".to_string()]);
    assert_eq!(ir.settings.output.as_deref(), Some("out.pgn"));
    assert_eq!(
        shape(&ir, ir.root.unwrap()),
        "foreach rook in [Rr] (and(find(inter(rook, sqa1)), find(inter(rook, sqh1)), find(inter(rook, sqh8)), find(inter(rook, sqa8))))"
    );
    // cql() piece T1 in [NP] { piece T2 in [NP] { not (T1 & T2) … } } — distinctness is the
    // evaluator's job for nested IdentityIters.
    assert_eq!(
        root_shape("(match :forany n1 N :forany n2 N (position $n1[e5]) (position $n2[e5]))"),
        "foreach n1 in N (foreach n2 in N (and(find(inter(n1, sqe5)), find(inter(n2, sqe5)))))"
    );
}

#[test]
fn eq_transforms() {
    // cql() mate flip {Qg7 kh8}  (here the transform wraps the whole list)
    assert_eq!(root_shape("(match (position Qg7 kh8 :mate :flip))"), "find(flip(and(Qg7, kh8, mate)))");
    // cql() flipvertical {Bb5 nc6 ke8}
    assert_eq!(root_shape("(match (position Bb5 nc6 ke8 :flipvertical))"), "find(flipvertical(and(Bb5, nc6, ke8)))");
    // cql() flipcolor shift flip {Nd4 kf5}: the last keyword is the outermost transform
    assert_eq!(
        root_shape("(match (position Nd4 kf5 :shift :flip :flipcolor))"),
        "find(flipcolor(flip(shift(and(Nd4, kf5)))))"
    );
    // cql() shift {Pd2 #[pP]d3-7 == 0 #p[c3-7,e3-7] == 0}
    assert_eq!(
        root_shape("(match (position Pd2 :piececount [pP][d3-7] 0 :piececount p[c3-7,e3-7] 0 :shift))"),
        "find(shift(and(Pd2, {#[Pp][d3,d4,d5,d6,d7] Eq 0}, {#p[c3,e3,c4,e4,c5,e5,c6,e6,c7,e7] Eq 0})))"
    );
    // cql() shifthorizontal {Pc3 Pd4 Pe5}
    assert_eq!(
        root_shape("(match (position Pc3 Pd4 Pe5 :shifthorizontal))"),
        "find(shifthorizontal(and(Pc3, Pd4, Pe5)))"
    );
}

// ---- further lowering rules ------------------------------------------------------------

#[test]
fn not_flag_wraps_transforms_and_pretransform_wraps_the_count() {
    assert_eq!(root_shape("(match (position :not :check :flipcolor))"), "find(not(flipcolor(check)))");
    assert_eq!(
        root_shape("(match (position :moveto [Aa]d4 :shift :pretransformmatchcount 12 unlimited))"),
        "shift(find 12..9223372036854775807(move(to=[Aa]d4)))"
    );
    assert_eq!(root_shape("(match (position :mate :nomatch))"), "not(find(mate))");
    assert_eq!(root_shape("(match (position :not (position :check)))"), "find(not(check))");
}

#[test]
fn general_attackcount_sums_over_attackers() {
    let ir = lower("(match (position :attackcount A a 3))");
    let text = shape(&ir, ir.root.unwrap());
    assert!(text.starts_with("find(and(assign"), "{text}");
    assert!(text.contains("squareiter"), "{text}");
    assert_eq!(ir.vars.len(), 2);
}

#[test]
fn ray_and_doublecheck() {
    assert_eq!(
        root_shape("(match (position :rayorthogonal (R . k)))"),
        format!("find(ray {{ dirs: directions(15), sets: [filterid(0), filterid(1), filterid(2)], xray: false }})")
    );
    let ir = lower("(match (position :doublecheck))");
    assert!(shape(&ir, ir.root.unwrap()).contains("{#(a attacks K) Ge 2}"));
}

#[test]
fn transform_kinds_are_read() {
    let ir = lower("(match (position K :fliphorizontal :shiftvertical))");
    let root = ir.root.unwrap();
    let Filter::GameTree(GameTreeFilter::Find { body, .. }) = ir.get(root) else { panic!() };
    let Filter::Transform { kind, body, .. } = ir.get(*body) else { panic!() };
    assert_eq!(*kind, TransformKind::ShiftVertical);
    assert!(matches!(ir.get(*body), Filter::Transform { kind: TransformKind::FlipHorizontal, .. }));
}

// ---- errors ----------------------------------------------------------------------------

#[test]
fn errors_have_spans_carets_and_hints() {
    let r = error_of("(match (position :mtae))");
    assert!(r.contains("t.cql:1:18: error: unknown position list keyword `:mtae`"), "{r}");
    assert!(r.contains("^^^^^"), "{r}");
    assert!(r.contains("did you mean `:mate`?"), "{r}");

    let r = error_of("cql() mate");
    assert!(r.contains("this looks like CQL 6 syntax"), "{r}");
    let r = error_of("// x\ncql(input a.pgn)\nmate");
    assert!(r.contains("this looks like CQL 6 syntax"), "{r}");

    assert!(error_of("(match (position $rook[a1]))").contains("unknown tag `rook`"));
    assert!(error_of("(match (position :piececount R))").contains("`:piececount` needs a range"));
    assert!(error_of("(match (position :piececount R x))").contains("expected a range"));
    assert!(error_of("(match (position Xa1))").contains("not a piece designator"));
    assert!(error_of("(match (position :relation (:flipcolor)))").contains("not supported"));
    assert!(error_of("(match (position :relation (:rotate90)))").contains("unknown relation keyword"));
    assert!(error_of("(match (position :relation (:missingpiececount U)))").contains("needs a range"));
    assert!(error_of("(match (position :relation (:samesidetomov)))").contains("did you mean `:samesidetomove`"));
    assert!(error_of("(match (position :relation :wtm))").contains("needs a relation list"));
    let r = error_of("(match :forany r [Rr] (position :and ((position :relation ()))))");
    assert!(r.contains("tags cannot be used together with `:relation`"), "{r}");
    assert!(error_of("(match (position :relation (:newpiececount $r 0)))").contains("tags cannot be used"));
    assert!(error_of("(match :mate)").contains("belongs in a position list"));
    assert!(error_of("(match (position :year 2000))").contains("belongs in a match list"));
    assert!(error_of("(match (position :and ((position :matchcount 2))))").contains("directly inside the match list"));
    assert!(error_of("(match :forany a N :forany b N :forany c N (position))").contains("at most two tags"));
    assert!(error_of("(position :mate)").contains("single `(match …)` list"));
    assert!(error_of("(match) (match)").contains("only one"));
    assert!(error_of("").contains("empty"));
    assert!(error_of("(match (position !:flip))").contains("cannot be negated"));
    assert!(error_of("(match (position 3))").contains("unexpected number"));
    assert!(error_of("(match (position (position)))").contains("cannot stand alone"));
}

#[test]
fn deep_nesting_is_an_error() {
    let mut src = String::from("(match ");
    for _ in 0..200 {
        src.push_str("(position :not ");
    }
    src.push_str(&")".repeat(201));
    assert!(error_of(&src).contains("nested"));
}

#[test]
fn arbitrary_bytes_never_panic() {
    let samples = [
        "(",
        ")",
        "(match",
        "(match (position :piececount",
        "(match :forany",
        "(match :forany x",
        "(match (position :sequence",
        "(match (position :sequence (x)))",
        "(match (position :ray (R)))",
        "(match (position :pawncount))",
        "(match (position :pawncount P))",
        "(match (position [ ]))",
        "(match (position :promote K))",
        "(match (position :tagmatch))",
        "(match :not x)",
        "(match :and (x))",
        "(match (position :attackcount A))",
        "(match (position :powerdifference))",
        "(match (position !x))",
        "(match (position \"a\"))",
        "(match :result 2-0)",
        "(match (position ♔e1))",
    ];
    for s in samples {
        let _ = parse(s);
    }
}

// ---- the conformance suite's legacy scripts ------------------------------------------

#[test]
fn every_suite_script_parses() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/conformance/legacy/scripts"));
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("conformance suite not present; skipped");
        return;
    };
    let mut parsed = 0;
    let mut failed = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("cql") {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        match parse(&src) {
            Ok(_) => parsed += 1,
            Err(e) => failed.push(format!("{}\n{}", path.display(), e.render(&path.display().to_string(), &src))),
        }
    }
    eprintln!("legacy suite: {parsed} parsed, {} failed", failed.len());
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(parsed > 0);
}

mod fuzz {
    use super::parse;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "(",
        ")",
        "(match",
        "(position",
        ":forany",
        "t",
        "$t",
        "$t[a1]",
        ":tagmatch",
        ":piececount",
        ":attackcount",
        ":powerdifference",
        ":sequence",
        ":gappedsequence",
        ":and",
        ":or",
        ":not",
        "!:check",
        ":flipcolor",
        ":shift",
        ":matchcount",
        ":movefrom",
        ":moveto",
        ":promote",
        ":ray",
        ":pawncount",
        "consecutive(2)",
        "R",
        "[RQ][a1-8]",
        "?d4",
        ".",
        "U",
        "[ ]",
        "2",
        "-3",
        "unlimited",
        ">=1",
        "*",
        ";",
        "\n",
        "\"x\"",
        "[",
        "]",
        "é",
        ":year",
        ":result",
        "1/2",
        ":player",
        ":variations",
        ":nomatch",
    ];

    proptest! {
        #[test]
        fn random_token_soup_never_panics(picks in proptest::collection::vec(0usize..PIECES.len(), 0..40)) {
            let src: Vec<&str> = picks.iter().map(|&i| PIECES[i]).collect();
            let _ = parse(&src.join(" "));
        }

        #[test]
        fn random_text_never_panics(src in ".{0,80}") {
            let _ = parse(&src);
        }
    }
}

// ---- `:relation` and the CQL-S header keywords, run on small games ----------------

/// Games of a small PGN text, numbered from 1.
fn games(pgn: &str) -> Vec<crate::pgn::Game> {
    use crate::input::RawGame;
    use std::sync::Arc;
    let mut out = Vec::new();
    for (i, text) in pgn.split("\n\n[").enumerate() {
        let text = if i == 0 { text.to_string() } else { format!("[{text}") };
        let raw = RawGame {
            number: i as u64 + 1,
            file: Arc::from("t.pgn"),
            line: 1,
            bytes: text.into_bytes(),
            ..RawGame::default()
        };
        let mut g = crate::pgn::Game::default();
        crate::pgn::GameParser::new().parse(&raw, &mut g, &|_| true).expect("test game parses");
        out.push(g);
    }
    out
}

/// The numbers of the games a legacy script matches.
fn matching(src: &str, pgn: &str) -> Vec<u64> {
    let q = crate::eval::Query::new(lower(src)).expect("query builds");
    let mut scratch = crate::eval::Scratch::default();
    games(pgn).iter().filter(|g| q.eval_game(&mut scratch, g).matched).map(|g| g.number).collect()
}

/// 1: the knights go out and come back (the start position recurs after 4 plies, and a
/// variation repeats the trick); 2: they go out and stay out; 3: the knights come back
/// only in a variation; 4: a capture, so a piece of the start position vanishes for good.
const RELATION_GAMES: &str = "[Event \"Knights back\"]\n[Date \"2020.01.02\"]\n[Termination \"normal\"]\n\n\
1. Nf3 Nf6 2. Ng1 Ng8 3. e4 *\n\n\
[Event \"Knights out\"]\n[Date \"2021.05.06\"]\n[Variant \"Standard\"]\n\n1. Nf3 Nf6 2. Nc3 Nc6 3. e4 *\n\n\
[Event \"Back in a side line\"]\n[Date \"2021.07.08\"]\n\n1. Nf3 Nf6 2. Nc3 (2. Ng1 Ng8) 2... Nc6 *\n\n\
[Event \"Capture\"]\n[Date \"2019.??.??\"]\n[PlyCount \"99\"]\n\n1. e4 d5 2. exd5 Qxd5 *\n";

#[test]
fn relation_finds_a_recurring_set_up() {
    // Default relation: a later main-line position, same side to move, no piece of P1
    // gone and no new piece: the same occupied squares (here: the same position).
    assert_eq!(matching("(match (position :relation ()))", RELATION_GAMES), vec![1]);
    // P2 may be in a variation (game 3), or only there (game 1's recurrence is main line).
    assert_eq!(matching("(match (position :relation (:variations)))", RELATION_GAMES), vec![1, 3]);
    assert_eq!(matching("(match (position :relation (:variationsonly)))", RELATION_GAMES), vec![3]);
    // One piece moved (one square emptied, one filled) with the other side to move: the
    // first move of every game.
    let one_move = "(match (position :relation (:changesidetomove :missingpiececount U 1 :newpiececount U 1)))";
    assert_eq!(matching(one_move, RELATION_GAMES), vec![1, 2, 3, 4]);
    // Game 4, start position against the one after 2...Qxd5 (white to move in both):
    // e2, d7, d8 are emptied (3 pieces, 2 of them black), d5 is the only new piece (e4 was
    // filled and emptied again by the capture). No other game has such a pair.
    let capture = "(match (position :initial :relation (:missingpiececount a 2 :missingpiececount U 3 \
                   :newpiececount U 1)))";
    assert_eq!(matching(capture, RELATION_GAMES), vec![4]);
    // Same/different counts: after 1.Nf3 Nf6 2.Nc3 Nc6 (main line of games 2 and 3), 28 of
    // the 32 start squares still hold their piece and 4 differ (b1 g1 b8 g8 emptied).
    let counts = "(match (position :initial :relation (:missingpiececount U 4 :newpiececount U 4 \
                  :originalsamecount 28 :originaldifferentcount 4)))";
    assert_eq!(matching(counts, RELATION_GAMES), vec![2, 3]);
    // One more piece that stayed is one too many.
    let counts = counts.replace("originalsamecount 28", "originalsamecount 29");
    assert!(matching(&counts, RELATION_GAMES).is_empty());
    // With `:pattern`, only the squares the list's designators match in P1 count: the
    // white knights on b1 and g1 are both away in that later position of games 2 and 3.
    let pattern = "(match (position :initial N :relation (:missingpiececount U 4 :newpiececount U 4 \
                   :pattern :originalsamecount 0 :originaldifferentcount 2)))";
    assert_eq!(matching(pattern, RELATION_GAMES), vec![2, 3]);
    let pattern = pattern.replace("originaldifferentcount 2", "originaldifferentcount 4");
    assert!(matching(&pattern, RELATION_GAMES).is_empty());
    // With no piece moved or added, the side to move cannot change in these games (no
    // null moves), so `:ignoresidetomove` finds the same games as the default.
    assert_eq!(matching("(match (position :relation (:ignoresidetomove)))", RELATION_GAMES), vec![1]);
    assert!(matching("(match (position :relation (:changesidetomove)))", RELATION_GAMES).is_empty());
    // `:not` and `!` negate the relation like any other keyword.
    assert_eq!(matching("(match (position :initial !:relation ()))", RELATION_GAMES), vec![2, 3, 4]);
}

#[test]
fn cql_s_header_keywords() {
    assert_eq!(matching("(match :date \"2021\")", RELATION_GAMES), vec![2, 3]);
    assert_eq!(matching("(match :date 2019.??)", RELATION_GAMES), vec![4]);
    assert_eq!(matching("(match :termination \"NORMAL\")", RELATION_GAMES), vec![1]);
    assert_eq!(matching("(match :variant standard)", RELATION_GAMES), vec![2]);
    // The real number of main-line plies (game 4 has 4, whatever its PlyCount tag says;
    // game 3 has 4 in the main line and a longer side line does not count).
    assert_eq!(matching("(match :plycount 4)", RELATION_GAMES), vec![3, 4]);
    assert_eq!(matching("(match :plycount 5 100)", RELATION_GAMES), vec![1, 2]);
    assert!(matching("(match :plycount 99)", RELATION_GAMES).is_empty());
}

#[test]
fn isstalemate_is_stalemate() {
    assert_eq!(root_shape("(match (position :isstalemate))"), root_shape("(match (position :stalemate))"));
    // Black to move, no legal move, not in check.
    let stale = "[Event \"s\"]\n[SetUp \"1\"]\n[FEN \"7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\"]\n\n1. Qf7 *\n";
    assert_eq!(matching("(match (position :isstalemate))", stale), vec![1]);
    assert!(matching("(match (position :isstalemate))", RELATION_GAMES).is_empty());
}

/// A transform keyword written twice in one list counts once, where it first appears.
#[test]
fn repeated_transform_keywords_count_once() {
    assert_eq!(
        root_shape("(match (position Nd4 kf5 :shift :flip :flip :flip :shift))"),
        root_shape("(match (position Nd4 kf5 :shift :flip))")
    );
    assert_eq!(
        root_shape("(match (position :attackcount A k 2 :flipcolor :flipcolor))"),
        root_shape("(match (position :attackcount A k 2 :flipcolor))")
    );
    assert_ne!(
        root_shape("(match (position Nd4 kf5 :flip :shift))"),
        root_shape("(match (position Nd4 kf5 :shift :flip))"),
        "the order of different keywords is kept"
    );
}
