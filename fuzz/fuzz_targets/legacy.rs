//! Fuzz the legacy query front-end: any text either parses and goes the whole compile path
//! (transform expansion, normalisation, runaway-loop check, `--dump-ir`, `Query::new`)
//! or gives a diagnostic; never a panic.
#![no_main]

mod common;

use cqlrs::lang::Syntax;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let _ = common::compile(source, Syntax::Legacy);
});
