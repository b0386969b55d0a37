//! `echo` whose body asks for `source < target` (issue 33): the targets whose position id
//! is not above the source's are passed over without evaluating the body. Each query is
//! run as written and with the order asked through `positionid` (which is evaluated at
//! every target); the output must be the same.

mod common;

/// An en passant capture, a promotion and its capture, with a variation; an opening with
/// variations (one a null move) and a capture.
const GAMES: &str = r#"[Event "en passant"]
[SetUp "1"]
[FEN "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"]
[Result "*"]

1. e4 dxe3 2. Kd1 e2+ 3. Kd2 (3. Kxe2 Kd7) 3... e1=Q+ 4. Kxe1 *

[Event "opening"]
[Result "*"]

1. e4 e5 (1... c5 2. Nf3 d6) 2. Nf3 (2. -- Nc6 3. Nf3) 2... Nc6 3. Bb5 a6 4. Bxc6 dxc6 *

[Event "quiet"]
[Result "*"]

1. Nf3 Nf6 2. Ng1 Ng8 *

"#;

/// The output of `query` (variations searched) on [`GAMES`].
fn output(query: &str) -> String {
    common::variations_output("echo-pairs", GAMES, query)
}

/// The numbers of the games an output holds.
fn games(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("{Game number ").and_then(|r| r.split('}').next()))
        .map(String::from)
        .collect()
}

#[test]
fn targets_before_the_source_are_passed_over_with_the_same_answer() {
    // (query, the same with the order through `positionid`, games it matches)
    let cases: &[(&str, &str, &[&str])] = &[
        // The white king where it stood and a black piece fewer: game 1 (1... e1=Q+ 4. Kxe1
        // against the start), game 2 (4. Bxc6 against any position before it).
        (
            "echo (s t) { s < t  K == s:K  #a < s:#a }",
            "echo (s t) { s:positionid < positionid  K == s:K  #a < s:#a }",
            &["1", "2"],
        ),
        (
            "echo (s t) in all { t > s  k == s:k  #A < s:#A }",
            "echo (s t) in all { positionid > s:positionid  k == s:k  #A < s:#A }",
            &["1", "2"],
        ),
        // The same position again later (game 3 returns to the start).
        (
            "echo (s t) { s < t  sidetomove == s:sidetomove  A == s:A  a == s:a }",
            "echo (s t) { s:positionid < positionid  sidetomove == s:sidetomove  A == s:A  a == s:a }",
            &["3"],
        ),
    ];
    for (query, general, expected) in cases {
        let quick = output(query);
        assert_eq!(games(&quick), *expected, "{query}");
        assert_eq!(quick, output(general), "{query} and {general} differ");
    }
}
