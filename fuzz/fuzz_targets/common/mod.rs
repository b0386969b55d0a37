//! The compile path every query target drives: the library's one pipeline,
//! `Query::compile` (parse with the type check → transform expansion → normalisation →
//! the runaway-loop check → the query), exactly as `cqlrs` compiles a script.

use cqlrs::lang::{self, Syntax};
use cqlrs::{CompileOptions, Query};

/// Parse `source` as `syntax` and, when it parses, compile it through `Query::compile`
/// and print the compiled IR as `--dump-ir` does; a diagnostic at any step ends the path.
/// Gives back the IR dump of the parsed (not yet expanded) query, or `None` when it did
/// not parse.
pub fn compile(source: &str, syntax: Syntax) -> Option<String> {
    match lang::parse(source, syntax) {
        Ok(ir) => {
            let parsed = cqlrs::ir::dump::dump(&ir);
            match Query::compile(source, &mut CompileOptions::new(syntax)) {
                Ok(query) => {
                    let _ = cqlrs::ir::dump::dump(query.ir());
                }
                Err(e) => {
                    let _ = e.render("fuzz.cql", source);
                }
            }
            Some(parsed)
        }
        Err(e) => {
            let _ = e.to_string();
            let _ = e.render("fuzz.cql", source);
            None
        }
    }
}
