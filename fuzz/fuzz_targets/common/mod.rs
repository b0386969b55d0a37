//! The compile path every query target drives: the library's one pipeline,
//! `Query::compile` (parse with the type check → transform expansion → normalisation →
//! the runaway-loop check → the query), exactly as `cqlrs` compiles a script.

use cqlrs::lang::Syntax;
use cqlrs::{CompileOptions, Query};

/// Compile `source` as `syntax` through `Query::compile`; print the compiled IR as
/// `--dump-ir` does when it compiles, render the diagnostic with its caret when it does
/// not. Says whether it compiled.
pub fn compile(source: &str, syntax: Syntax) -> bool {
    match Query::compile(source, &mut CompileOptions::new(syntax)) {
        Ok(query) => {
            let _ = cqlrs::ir::dump::dump(query.ir());
            true
        }
        Err(e) => {
            let _ = e.render("fuzz.cql", source);
            false
        }
    }
}
