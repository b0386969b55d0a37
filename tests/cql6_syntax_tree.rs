//! The CQL 6 syntax tree prints back to CQL text that reads the same: for every text CQL
//! 6.2 accepts in the shared parser suite (`conformance/parser`, texts from an independent
//! parser's test suite), every script of the shared `cql6` suite and every gallery script
//! (`examples/cql`), parse → print → parse gives the same tree (places aside) and the same
//! IR. A printed script is also a fixed point: printing it again gives the same text.

use std::path::{Path, PathBuf};

use cqlrs::ir::dump::dump;
use cqlrs::lang::cql6::parse_with_syntax;

mod common;

use common::shared;

/// Parse, print, parse again; a description of the first difference, if any. `Ok(false)`
/// when the script itself is refused.
fn round_trip(source: &str) -> Result<bool, String> {
    let (ir, tree) = parse_with_syntax(source);
    let Ok(ir) = ir else { return Ok(false) };
    let printed = tree.print();
    let (reread_ir, reread_tree) = parse_with_syntax(&printed);
    let reread_ir = reread_ir.map_err(|e| format!("the printed text is refused: {e:?}\n--- printed:\n{printed}"))?;
    if tree.shape() != reread_tree.shape() {
        return Err(format!(
            "the printed text reads as another tree\n--- printed:\n{printed}\n--- tree:\n{}\n--- reread:\n{}",
            tree.shape(),
            reread_tree.shape()
        ));
    }
    if dump(&ir) != dump(&reread_ir) {
        return Err(format!(
            "the printed text lowers to another IR\n--- printed:\n{printed}\n--- IR:\n{}\n--- reread:\n{}",
            dump(&ir),
            dump(&reread_ir)
        ));
    }
    if reread_tree.print() != printed {
        return Err(format!(
            "printing is not a fixed point\n--- printed:\n{printed}\n--- again:\n{}",
            reread_tree.print()
        ));
    }
    Ok(true)
}

/// Run the round trip on each script; fail with the first few that do not survive it
/// (or that are refused, when `all_accepted`). The number of scripts accepted and checked.
fn check_all(scripts: &[PathBuf], all_accepted: bool) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in scripts {
        let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match round_trip(&source) {
            Ok(true) => checked += 1,
            Ok(false) if all_accepted => failures.push(format!("{}: the script is refused", path.display())),
            Ok(false) => {}
            Err(why) => failures.push(format!("{}: {why}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} scripts do not survive print and reparse; the first:\n{}",
        failures.len(),
        failures.iter().take(3).cloned().collect::<Vec<_>>().join("\n\n")
    );
    checked
}

/// The `.cql` files under `dir`, recursively, sorted.
fn cql_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "cql") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_accepted_parser_suite_text_prints_and_reparses_to_the_same_tree_and_ir() {
    let Some(suite) = shared::shared_path("conformance/parser") else { return };
    let cases = std::fs::read_to_string(suite.join("cases.jsonl")).expect("cases.jsonl");
    let mut scripts = Vec::new();
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("a JSON case");
        if case.get("expect_error").is_some() {
            continue;
        }
        let script = case["script"].as_str().expect("a script path");
        scripts.push(suite.join(script));
    }
    scripts.sort();
    scripts.dedup();
    // The suite's 4,386 cases held 1,000 accepted texts when this was written.
    assert!(scripts.len() >= 900, "only {} accepted texts found", scripts.len());
    check_all(&scripts, true);
}

#[test]
fn every_parser_suite_text_the_parser_accepts_prints_and_reparses_to_the_same_tree_and_ir() {
    // All the texts of the folder, the refused cases and those without a case too: each
    // one the parser accepts must survive the round trip.
    let Some(suite) = shared::shared_path("conformance/parser") else { return };
    let scripts = cql_files(&suite.join("scripts"));
    assert!(scripts.len() > 4000, "only {} texts found", scripts.len());
    let accepted = check_all(&scripts, false);
    assert!(accepted >= 900, "only {accepted} texts accepted");
}

#[test]
fn every_cql6_suite_script_prints_and_reparses_to_the_same_tree_and_ir() {
    let Some(suite) = shared::shared_path("conformance/cql6") else { return };
    let cases = std::fs::read_to_string(suite.join("cases.jsonl")).expect("cases.jsonl");
    let mut scripts = Vec::new();
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("a JSON case");
        if case.get("expect_error").is_none() {
            scripts.push(suite.join(case["script"].as_str().expect("a script path")));
        }
    }
    scripts.sort();
    scripts.dedup();
    assert!(scripts.len() > 300, "only {} scripts found", scripts.len());
    check_all(&scripts, true);
}

#[test]
fn every_gallery_script_prints_and_reparses_to_the_same_tree_and_ir() {
    let gallery = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join("cql");
    let scripts = cql_files(&gallery);
    assert!(scripts.len() >= 47, "only {} gallery scripts found", scripts.len());
    check_all(&scripts, true);
}
