//! Fuzz the CQL 6 respelling converters: a text that parses means the same (same IR dump)
//! after `--to-ascii`, after `--to-unicode`, and after either round trip; a text that does
//! not parse is still converted without a panic.
#![no_main]

use cqlrs::lang::{self, Syntax};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let Ok(ir) = lang::parse(source, Syntax::Cql6) else {
        let _ = lang::cql6::to_unicode(&lang::cql6::to_ascii(source));
        return;
    };
    let want = cqlrs::ir::dump::dump(&ir);
    let ascii = lang::cql6::to_ascii(source);
    let unicode = lang::cql6::to_unicode(source);
    let respellings = [lang::cql6::to_unicode(&ascii), lang::cql6::to_ascii(&unicode), ascii, unicode];
    for respelled in &respellings {
        let again = lang::parse(respelled, Syntax::Cql6).map(|ir| cqlrs::ir::dump::dump(&ir));
        assert_eq!(again.as_ref().ok(), Some(&want), "{source:?} respelled as {respelled:?}");
    }
});
