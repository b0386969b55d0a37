//! A YACPDB query embedded in a CQL 6 script (`yacpdb "…"`) lowers into the same IR and
//! agrees with the stand-alone YACPDB front-end.

use cqlrs::ir::{dump, Filter};
use cqlrs::lang::{parse, Syntax};
use cqlrs::{CompileOptions, Query};

#[test]
fn embedded_yacpdb_query_lowers_to_the_yacpdb_nodes() {
    // Both go through the one compile path (parse, expand, normalize, check).
    let compile = |text: &str, syntax| Query::compile(text, &mut CompileOptions::new(syntax)).unwrap();
    let embedded_query = compile(r#"yacpdb "ClosedWalk(wR, 4, *) > 1 AND NOT Twins > 1""#, Syntax::Cql6);
    let alone_query = compile("ClosedWalk(wR, 4, *) > 1 AND NOT Twins > 1", Syntax::Yacpdb);
    let (embedded, alone) = (embedded_query.ir(), alone_query.ir());
    let text = dump::dump(embedded);
    let tree_alone = dump::dump(alone);
    let tree_alone = tree_alone.split("tree:").nth(1).unwrap();
    // The CQL 6 root is a conjunction holding the YACPDB tree.
    for line in tree_alone.lines().filter(|l| !l.trim().is_empty()) {
        assert!(text.contains(line.trim()), "missing `{}` in\n{text}", line.trim());
    }
    let yacpdb_nodes = (0..embedded.len())
        .filter(|&i| matches!(embedded.get(cqlrs::ir::FilterId(i as u32)), Filter::Yacpdb(_)))
        .count();
    assert_eq!(yacpdb_nodes, 2);
}

#[test]
fn error_inside_the_embedded_query_points_into_the_string() {
    let src = r#"initial yacpdb "ClosedWalk(wR, 5, fals)""#;
    let err = parse(src, Syntax::Cql6).unwrap_err();
    let rendered = err.render("q.cql", src);
    assert!(rendered.contains("q.cql:1:35:"), "{rendered}");
    assert!(rendered.contains("not a boolean"), "{rendered}");
}

#[test]
fn yacpdb_needs_a_string() {
    let err = parse("yacpdb mate", Syntax::Cql6).unwrap_err();
    assert!(err.diagnostics[0].message.contains("needs the query as a string"));
}

#[path = "../examples/embed.rs"]
mod embed;

/// `examples/embed.rs` compiles a query once and runs it on a game built in code and on
/// games read from PGN bytes: it finds the two mates, at the plies they happen.
#[test]
fn the_embedding_example_finds_both_mates() {
    assert_eq!(embed::mates_found(), vec![("fool's mate".to_string(), 4), ("scholar's mate".to_string(), 7)]);
}
