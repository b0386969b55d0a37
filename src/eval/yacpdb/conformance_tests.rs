//! TEST-ONLY: run the YACPDB conformance cases (front-end + analyses) on the shared corpora.
//!
//! Takes in: `../shared/conformance/yacpdb/cases.jsonl` and `../shared/corpus/conformance/` (beside the checkout; `CQLRS_SHARED` overrides)
//! (or `$CQLRS_SHARED`); the tests skip quietly when they are absent.
//! Gives out: test failures listing the cases whose matched games differ.
//! Must never: be compiled outside tests. The tiny IR evaluator here only knows the nodes a
//! YACPDB query lowers to; the real evaluator lives in `crate::eval`.

use crate::ir::{LogicFilter, NumberFilter};
use std::collections::HashMap;
use std::path::PathBuf;

use super::test_pgn::read_games;
use super::{stip_regex, Analysis};
use crate::ir::{Filter, FilterId, Ir};
use crate::pgn::Game;

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var("CQLRS_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")));
    dir.join("conformance/yacpdb/cases.jsonl").exists().then_some(dir)
}

/// Value of a lowered YACPDB query node: a number, or whether it holds.
fn eval(ir: &Ir, id: FilterId, analysis: &Analysis, game: &Game) -> Option<i64> {
    match ir.get(id) {
        Filter::Numbers(NumberFilter::Number(n)) => Some(*n),
        Filter::Yacpdb(pred) => Some(analysis.count(pred, stip_regex(pred).as_ref(), game)),
        Filter::Numbers(NumberFilter::Compare { first, rest }) => {
            let mut left = eval(ir, *first, analysis, game)?;
            for (op, next) in rest {
                let right = eval(ir, *next, analysis, game)?;
                if !op.holds(left, right) {
                    return None;
                }
                left = right;
            }
            Some(1)
        }
        Filter::Logic(LogicFilter::And(items)) => {
            for item in items {
                eval(ir, *item, analysis, game)?;
            }
            Some(1)
        }
        Filter::Logic(LogicFilter::Or(items)) => {
            items.iter().find_map(|item| eval(ir, *item, analysis, game)).map(|_| 1)
        }
        Filter::Logic(LogicFilter::Not(inner)) => match eval(ir, *inner, analysis, game) {
            Some(_) => None,
            None => Some(1),
        },
        other => panic!("unexpected node in a YACPDB query: {other:?}"),
    }
}

#[test]
fn yacpdb_conformance_cases() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipping: shared conformance data not found");
        return;
    };
    let cases = std::fs::read_to_string(shared.join("conformance/yacpdb/cases.jsonl")).expect("cases");
    let mut corpora: HashMap<String, Vec<(Game, Analysis)>> = HashMap::new();
    let mut failures = Vec::new();
    let mut passed = 0;
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("case json");
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let query = case["yacpdb"].as_str().expect("query");
        let parsed = crate::lang::yacpdb::parse(query);
        let expect_error =
            case.get("expect_error").is_some_and(|v| !v.is_null() && *v != serde_json::Value::Bool(false));
        if expect_error {
            if parsed.is_ok() {
                failures.push(format!("{id}: `{query}` was accepted but must be rejected"));
            } else {
                passed += 1;
            }
            continue;
        }
        let ir = match parsed {
            Ok(ir) => ir,
            Err(e) => {
                failures.push(format!("{id}: `{query}` rejected: {e}"));
                continue;
            }
        };
        assert!(ir.settings.per_game && ir.settings.variations);
        let corpus = case["corpus"].as_str().expect("corpus").to_string();
        let games = corpora.entry(corpus.clone()).or_insert_with(|| {
            let bytes = std::fs::read(shared.join("corpus/conformance").join(&corpus)).expect("corpus file");
            read_games(&String::from_utf8_lossy(&bytes))
                .into_iter()
                .map(|g| {
                    let a = Analysis::of(&g);
                    (g, a)
                })
                .collect()
        });
        let root = ir.root.expect("root");
        // Games whose diagram shakmaty refuses (e.g. no king: derived game 26) cannot be
        // replayed into the shared game model; they are left out of the comparison.
        let unplayable: Vec<u64> = games.iter().filter(|(g, _)| g.nodes.is_empty()).map(|(g, _)| g.number).collect();
        let got: Vec<u64> = games
            .iter()
            .filter(|(g, a)| !g.nodes.is_empty() && eval(&ir, root, a, g).is_some())
            .map(|(g, _)| g.number)
            .collect();
        let expected: Vec<u64> = case["expected"]
            .as_array()
            .expect("expected")
            .iter()
            .filter_map(|v| v.as_u64())
            .filter(|n| !unplayable.contains(n))
            .collect();
        if got == expected {
            passed += 1;
        } else {
            let missing: Vec<_> = expected.iter().filter(|n| !got.contains(n)).collect();
            let extra: Vec<_> = got.iter().filter(|n| !expected.contains(n)).collect();
            failures.push(format!("{id}: `{query}` missing {missing:?} extra {extra:?}"));
        }
    }
    eprintln!("yacpdb conformance: {passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every corpus of the conformance folder is analysed without panicking, and every
/// instance printed parses back as a valid query.
#[test]
fn every_corpus_analyses_and_instances_reparse() {
    let Some(shared) = shared_dir() else { return };
    let mut files = Vec::new();
    let mut dirs = vec![shared.join("corpus/conformance"), shared.join("corpus/edge")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "pgn") {
                files.push(path);
            }
        }
    }
    files.sort();
    for path in files {
        eprintln!("reading {}", path.display());
        let bytes = std::fs::read(&path).expect("corpus");
        let games = read_games(&String::from_utf8_lossy(&bytes));
        let mut instances = 0;
        for g in &games {
            let a = Analysis::of(g);
            for (spelling, n) in a.instances() {
                assert!(n > 0);
                let ir = crate::lang::yacpdb::parse(&spelling).unwrap_or_else(|e| panic!("{spelling}: {e}"));
                let Some(Filter::Numbers(NumberFilter::Compare { first, .. })) = ir.root.map(|r| ir.get(r)) else {
                    panic!("{spelling}")
                };
                let Filter::Yacpdb(pred) = ir.get(*first) else { panic!("{spelling}") };
                assert_eq!(a.count(pred, stip_regex(pred).as_ref(), g), n, "{spelling} in game {}", g.number);
                instances += 1;
            }
        }
        eprintln!("{}: {} games, {instances} instances", path.display(), games.len());
    }
}
