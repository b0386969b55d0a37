//! Move constituents of `path` (issue 33): the evaluator tells most of them from the move
//! alone (its line, kind, promotion and squares) instead of evaluating the move filter in
//! full. Each query is run in two equivalent forms, the move constituents bare and wrapped
//! as `{X true}` (which takes the general evaluation); the output games, with the comments
//! the path writes, must be the same.

mod common;

/// Games with promotions (to a queen and a knight), castling on both sides, an en passant
/// capture, a null move and variations at several plies.
const GAMES: &str = r#"[Event "promotions"]
[SetUp "1"]
[FEN "8/1P4k1/8/8/8/K7/6p1/8 w - - 0 1"]
[Result "*"]

1. b8=Q g1=N (1... g1=Q 2. Qb7+ Kg6) 2. Qb7+ Kg6 (2... Kh6 3. Qc6+) 3. Qc6+ *

[Event "castling"]
[SetUp "1"]
[FEN "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]
[Result "*"]

1. O-O (1. O-O-O O-O 2. Rd2 Rf7) 1... O-O-O 2. Rf2 Rd7 3. Kg2 *

[Event "en passant"]
[SetUp "1"]
[FEN "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"]
[Result "*"]

1. e4 dxe3 2. Kd1 e2+ 3. Kd2 (3. Kxe2 Kd7) 3... e1=Q+ 4. Kxe1 *

[Event "opening"]
[Result "*"]

1. e4 e5 (1... c5 2. Nf3 d6) 2. Nf3 (2. -- Nc6 3. Nf3) 2... Nc6 3. Bb5 a6 4. Bxc6 dxc6 *

"#;

/// The output of `query` on [`GAMES`], variations searched (every game, comments included).
fn output(query: &str) -> String {
    common::variations_output("path-moves", GAMES, query)
}

/// The query with each `[X]` written as `X` (quick) and as `{X true}` (general). A move
/// with `primary` or `secondary` is written `X (true)` instead (braced, those words would
/// speak of the move before), which takes the general evaluation for moves that fit X.
fn forms(query: &str) -> (String, String) {
    let quick = query.replace(['[', ']'], "");
    let mut general = String::new();
    for (k, part) in query.split(['[', ']']).enumerate() {
        if k % 2 == 0 {
            general.push_str(part);
        } else if part.contains("primary") || part.contains("secondary") {
            general.push_str(&format!("{part} (true)"));
        } else {
            general.push_str(&format!("{{{part} true}}"));
        }
    }
    (quick, general)
}

/// The numbers of the games an output holds.
fn games(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("{Game number ").and_then(|r| r.split('}').next()))
        .map(String::from)
        .collect()
}

#[test]
fn move_constituents_told_from_the_move_match_as_in_general() {
    // (query, games it matches: chess facts of the games above)
    let cases: &[(&str, &[&str])] = &[
        // Promotions to a queen: game 1 (in the variation too), game 3.
        ("⊢ [――=♛]", &["1", "3"]),
        ("⊢ [――=♞]", &["1"]),
        ("⊢ primary [――=♛]", &["1", "3"]),
        // Castling is a rook move too (h1-f1), and a king move (e1-g1).
        ("⊢ [♖――f1]", &["2"]),
        ("⊢ [♔――g1]", &["2"]),
        ("⊢ [――] [――] [――]", &["1", "2", "3", "4"]),
        ("⊢ ([――])*", &["1", "2", "3", "4"]),
        ("⊢ [△――] ([――]){2,} [▲――=♛]", &["3"]),
        ("⊢ [―― secondary] [―― primary] [―― primary]", &["1", "2", "4"]),
        ("path focus R [--] [--]", &["2"]),
        ("⊢ [△×▲]", &["3", "4"]),
        // The en passant capture 1... dxe3.
        ("⊢ [♟×♙]", &["3"]),
        ("⊢ max #△ ([――]){1,3}", &["1", "2", "3", "4"]),
        ("⊢ [e2――e4] [▲――] [△――]", &["3", "4"]),
        ("⊢ [―― secondary]", &["1", "2", "3", "4"]),
    ];
    for (query, expected) in cases {
        let (quick, general) = forms(query);
        let fast = output(&quick);
        assert_eq!(games(&fast), *expected, "{quick}");
        assert_eq!(fast, output(&general), "{quick} and {general} differ");
    }
}
