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

/// A `cql_abort` belongs to the query that reached it: another query compiled in the same
/// process, before or after it, on one thread or on two, keeps its answers (the flag was
/// once process-wide, and a fresh `mate` then found nothing).
#[test]
fn an_aborted_query_leaves_other_queries_in_the_process_alone() {
    use cqlrs::eval::Scratch;
    use cqlrs::pgn::GameBuilder;
    let fools_mate = || {
        let mut builder = GameBuilder::new(1);
        for san in ["f3", "e5", "g4", "Qh4#"] {
            builder.play(san).expect("a legal move");
        }
        builder.finish(Some("0-1"))
    };
    let compile = |text: &str| Query::compile(text, &mut CompileOptions::default()).expect("the query compiles");
    let game = fools_mate();
    let before = compile("cql() mate");
    let aborting = compile("cql() cql_abort");
    let result = aborting.eval_game(&mut Scratch::default(), &game);
    assert!(result.error.is_some(), "cql_abort gives the game up");
    assert!(aborting.abort_requested());
    // The query compiled before, and one compiled after, still find the mate (the
    // fool's mate ends in mate at ply 4), on this thread and on another.
    let after = compile("cql() mate");
    for query in [&before, &after] {
        assert!(!query.abort_requested());
        assert!(query.eval_game(&mut Scratch::default(), &game).matched);
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            let aborting = compile("cql() cql_abort");
            assert!(aborting.eval_game(&mut Scratch::default(), &fools_mate()).error.is_some());
        });
        s.spawn(|| assert!(after.eval_game(&mut Scratch::default(), &fools_mate()).matched));
    });
    assert!(before.eval_game(&mut Scratch::default(), &game).matched);
}
