//! The type check against CQL 6.2's verdicts: each text below is accepted or refused, at
//! the place given, as `cql -parse` (CQL 6.2, build 9.493) accepts or refuses it.

use super::*;

/// The byte offset and message of the first diagnostic for `text`, or `None` when the
/// CQL 6 front-end accepts it.
fn refusal(text: &str) -> Option<(usize, String)> {
    match crate::lang::cql6::parse(text) {
        Ok(_) => None,
        Err(e) => e.diagnostics.first().map(|d| (d.span.start as usize, d.message.clone())),
    }
}

fn accepted(texts: &[&str]) {
    for t in texts {
        assert_eq!(refusal(t), None, "CQL 6.2 accepts {t:?}");
    }
}

/// `text` is refused with the first diagnostic at the first occurrence of `at`.
fn refused_at(text: &str, at: &str) {
    let want = text.find(at).expect("marker in text");
    let got = refusal(text);
    assert!(got.is_some(), "CQL 6.2 refuses {text:?}");
    assert_eq!(got.map(|g| g.0), Some(want), "position of the error in {text:?}");
}

#[test]
fn comparisons_need_values_of_one_kind() {
    accepted(&["#♙ > 3", "\"a\" < \"b\"", "parent < currentposition", "k == q", "k > 2", "3 < k", "ply ≺ 3"]);
    refused_at("true != 1", "true");
    refused_at("a >= \"t\"", "\"t\"");
    refused_at("initialposition > 1", "1");
    refused_at("k < q", "q");
    refused_at("initialposition != currentposition", "currentposition");
    refused_at("move == 3", "move");
}

#[test]
fn arithmetic_needs_numbers_or_strings() {
    // (`k -2` is `k` and the number -2: accepted, and an error when run.)
    accepted(&["ply + 3", "\"a\" + \"b\"", "#k * 2", "{line --> check} * 2", "find all check + 3", "k -2"]);
    refused_at("K % 3", "K");
    refused_at("\"v\" / 3", "\"v\"");
    refused_at("2 + \"a\"", "\"a\"");
    refused_at("(line --> check) * 2", "line");
    refused_at("2 - e2--e4", "e2");
}

#[test]
fn set_operators_need_sets() {
    accepted(&["k | q", "k & a-h8", "parent & currentposition", "k | e2--e4", "e2--e4 & k", "#k | q"]);
    refused_at("k ∪ currentposition", "currentposition");
    refused_at("comment(\"q\") | 2", "comment");
    refused_at("~3", "3");
    refused_at("e2-- | k", "e2");
}

#[test]
fn bare_moves_are_no_sets() {
    accepted(&["--", "v = --(to)", "e2--e4(check)", "move to e4 | k", "(--Qa4=q) and 2", "--Qa4=q -2"]);
    refused_at("v = e4--e5", "e4");
    refused_at("--=q or 2", "q");
    refused_at("--(k)--", "--(k)");
    refused_at("-- and――", "――");
    refused_at("-- (k)", "(");
    refused_at("--{2 4}", "{");
    refused_at("countmoves ×-2", "-");
    refused_at("legal [x]", "legal");
}

#[test]
fn assignments_keep_their_kind() {
    accepted(&["v = 3 v = 4", "v = \"a\" v += \"b\"", "v = k v = q", "persistent v += 3"]);
    refused_at("y = 7 y = k", "k");
    refused_at("y = currentposition y = \"a\"", "\"a\"");
    refused_at("v = check", "check");
    refused_at("y += k", "y");
    refused_at("persistent x = currentposition", "currentposition");
    refused_at("y = \"3\" y *= \"4\"", "\"4\"");
}

#[test]
fn line_constituents_and_repetitions() {
    accepted(&["line --> check+ --> mate", "line --> check{2,3} --> mate", "line --> move from k *"]);
    refused_at("line --> 3", "3");
    refused_at("line --> N + 2", "N");
    refused_at("{5}", "{5}");
    refused_at("line primary secondary --> check", "line");
}

#[test]
fn keyword_arguments() {
    accepted(&["max(3 4)", "makesquare(5 4)", "makesquare \"e4\"", "sort \"d\" #k", "settag(\"a\" \"b\")"]);
    refused_at("max(2)", "2");
    refused_at("makesquare(6 \"a\")", "6");
    refused_at("settag(\"MyTag\" 1)", "1");
    refused_at("move count", "move");
    refused_at("x = 1 square x in R btm", "square");
    // CQL 6.2 wants a filter after `{` ("syntax error following a '{'").
    refused_at("flipcolor {}", "{");
}

#[test]
fn brace_repetitions() {
    for t in ["{5}", "{2,}", "{,3}", "{2,4}", "{0}"] {
        assert!(is_brace_repetition(t), "{t}");
    }
    for t in ["{}", "{,}", "{2 4}", "{ 5}", "{e2 2}", "{a}"] {
        assert!(!is_brace_repetition(t), "{t}");
    }
}

#[test]
fn pin_is_a_set_like_any_other() {
    // CQL 6.2 refuses `x + 1` for a square variable, whether it holds `a1` or `pin`.
    refused_at("x = a1 x + 1 > 2", "x + 1");
    refused_at("x = pin x + 1 > 2", "x + 1");
    refused_at("x = 2 x = pin", "pin");
    accepted(&["x = pin", "x = pin from R #x > 1", "y = pin y == a1", "x = pin x = a1"]);
}

#[test]
fn echo_and_a_comment_symbol_have_no_value() {
    // CQL 6.2: "right hand side is neither a set filter nor a numeric filter …".
    refused_at("x = echo (s t) check", "echo");
    refused_at("y = 1 + echo (s t) check", "echo");
    refused_at("x = echo (s t) {R}", "echo");
    // With a numeric body `echo` is a number.
    accepted(&["x = echo (s t) {ply}", "sort \"n\" echo (s t) {ply}", "echo (s t) {ply} + 1 > 2"]);
    refused_at("x = hascomment \"!\"", "hascomment");
    // Without a symbol, `hascomment` is the comment's text.
    accepted(&["x = hascomment"]);
}

#[test]
fn sort_of_a_set_is_a_number() {
    // CQL 6.2 sorts by the number of squares and types the filter as a number.
    accepted(&["{sort \"a\" R} + 1 > 2", "y = sort \"a\" R y + 1 > 2", "y = sort \"a\" R y = 3"]);
    refused_at("y = sort \"a\" R #y > 2", "y > 2");
    refused_at("y = sort \"a\" R y = a1", "a1");
}
