//! Tests of the CQL 6 front-end: IR shapes per feature family, Unicode/ASCII
//! equivalence, diagnostics, and a parse of every conformance script.

use super::*;
use crate::ir::*;
use shakmaty::{Bitboard, Color, Role, Square};

fn ok(src: &str) -> Ir {
    match parse(src) {
        Ok(ir) => ir,
        Err(e) => panic!("{src}\n{}", e.render("t.cql", src)),
    }
}

/// The single body filter of `cql() BODY`.
fn body(ir: &Ir) -> &Filter {
    match ir.get(ir.root.expect("root")) {
        Filter::And(v) if v.len() == 1 => ir.get(v[0]),
        other => other,
    }
}

fn err(src: &str) -> Error {
    parse(src).expect_err(src)
}

#[test]
fn all_conformance_scripts_parse() {
    let root = std::path::Path::new("/work/shared/conformance/cql6/scripts");
    if !root.exists() {
        eprintln!("conformance scripts absent; skipped");
        return;
    }
    let mut focused = (0, 0);
    let mut examples = (0, 0);
    let mut failures = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(root).unwrap().flatten().map(|e| e.path()).collect();
    dirs.sort();
    for dir in dirs {
        let group = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let src = std::fs::read_to_string(&f).unwrap_or_default();
            let res = parse(&src);
            let tally = if group.starts_with("examples") { &mut examples } else { &mut focused };
            tally.1 += 1;
            match res {
                Ok(_) => tally.0 += 1,
                Err(e) => failures.push(format!("{}: {}", f.display(), e.render("", &src).lines().next().unwrap_or(""))),
            }
        }
    }
    eprintln!("focused groups: {}/{} parse; examples: {}/{} parse", focused.0, focused.1, examples.0, examples.1);
    for f in &failures {
        eprintln!("  {f}");
    }
    assert_eq!(focused.0, focused.1, "every focused script must parse");
}
