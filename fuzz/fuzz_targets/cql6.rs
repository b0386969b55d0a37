//! Fuzz the cql6 query front-end: any text either goes the whole compile path (parse with
//! the type check, transform expansion, normalisation, runaway-loop check, `--dump-ir`,
//! `Query::new`) or gives a diagnostic with a caret; never a panic. The respelling law is
//! checked by the `cql6_respell` target, so that this one runs as fast as compiling does.
#![no_main]

mod common;

use cqlrs::lang::Syntax;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    common::compile(source, Syntax::Cql6);
});
