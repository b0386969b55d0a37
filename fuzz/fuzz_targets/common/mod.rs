//! The compile path every query target drives, step for step as `cqlrs` runs a query
//! script (src/cli/mod.rs `execute`): parse (with the type check) → transform expansion
//! → normalisation → the runaway-loop check → `--dump-ir` → `Query::new`.

use cqlrs::ir::Ir;
use cqlrs::lang::{self, Syntax};

/// Parse `source` as `syntax` and, when it parses, compile it the way the command line
/// does; a diagnostic at any step ends the path. Gives back the IR dump of the parsed
/// (not yet expanded) query, or `None` when it did not parse.
pub fn compile(source: &str, syntax: Syntax) -> Option<String> {
    match lang::parse(source, syntax) {
        Ok(ir) => {
            let parsed = cqlrs::ir::dump::dump(&ir);
            finish(ir, source);
            Some(parsed)
        }
        Err(e) => {
            let _ = e.to_string();
            let _ = e.render("fuzz.cql", source);
            None
        }
    }
}

fn finish(mut ir: Ir, source: &str) {
    if let Err(diagnostics) = cqlrs::ir::transform::expand(&mut ir) {
        let _ = lang::Error { diagnostics }.render("fuzz.cql", source);
        return;
    }
    cqlrs::ir::normalize::normalize(&mut ir);
    if let Some(diagnostic) = cqlrs::cli::checks::runaway_loop(&ir) {
        let _ = lang::Error { diagnostics: vec![diagnostic] }.render("fuzz.cql", source);
        return;
    }
    let _ = cqlrs::ir::dump::dump(&ir);
    if let Err(e) = cqlrs::eval::Query::new(ir) {
        let _ = e.to_string();
    }
}
