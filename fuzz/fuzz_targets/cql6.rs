//! Fuzz the cql6 query front-end: any text either parses into IR whose transforms
//! expand, which prints with `--dump-ir` and compiles into a query, or gives a diagnostic;
//! never a panic. A text that parses means the same after `--to-ascii` and after
//! `--to-ascii` then `--to-unicode` (same IR dump).
#![no_main]

use cqlrs::lang::{self, Syntax};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    match lang::parse(source, Syntax::Cql6) {
        Ok(mut ir) => {
            let want = cqlrs::ir::dump::dump(&ir);
            let ascii = lang::cql6::to_ascii(source);
            let back = lang::cql6::to_unicode(&ascii);
            for respelled in [&ascii, &back] {
                let again = lang::parse(respelled, Syntax::Cql6).map(|ir| cqlrs::ir::dump::dump(&ir));
                assert_eq!(again.as_ref().ok(), Some(&want), "{source:?} respelled as {respelled:?}");
            }
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
