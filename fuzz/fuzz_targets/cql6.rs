//! Fuzz the cql6 query front-end: any text either parses and goes the whole compile path
//! (type check, transform expansion, normalisation, runaway-loop check, `--dump-ir`,
//! `Query::new`) or gives a diagnostic; never a panic. A text that parses means the same
//! (same IR dump) after `--to-ascii`, after `--to-unicode`, and after either round trip.
#![no_main]

mod common;

use cqlrs::lang::{self, Syntax};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let Some(want) = common::compile(source, Syntax::Cql6) else {
        // A text that does not parse is still converted without a panic.
        let _ = lang::cql6::to_unicode(&lang::cql6::to_ascii(source));
        return;
    };
    let ascii = lang::cql6::to_ascii(source);
    let unicode = lang::cql6::to_unicode(source);
    let respellings = [lang::cql6::to_unicode(&ascii), lang::cql6::to_ascii(&unicode), ascii, unicode];
    for respelled in &respellings {
        let again = lang::parse(respelled, Syntax::Cql6).map(|ir| cqlrs::ir::dump::dump(&ir));
        assert_eq!(again.as_ref().ok(), Some(&want), "{source:?} respelled as {respelled:?}");
    }
});
