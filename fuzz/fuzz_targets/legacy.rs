//! Fuzz the legacy query front-end: any text either parses into IR whose transforms
//! expand, which prints with `--dump-ir` and compiles into a query, or gives a diagnostic;
//! never a panic.
#![no_main]

use cqlrs::lang::{self, Syntax};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    match lang::parse(source, Syntax::Legacy) {
        Ok(mut ir) => {
            let _ = cqlrs::ir::dump::dump(&ir);
            if cqlrs::ir::transform::expand(&mut ir).is_ok() {
                let _ = cqlrs::ir::dump::dump(&ir);
                let _ = cqlrs::eval::Query::new(ir);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
