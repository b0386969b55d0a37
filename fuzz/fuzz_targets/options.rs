//! Fuzz the command-line reader: any argument list (the input split at NUL bytes, the
//! first word being the program name) is rewritten by the option table and read by clap
//! without a panic; a rewritten list never holds a single-dash word the table did not
//! produce, so no short flags are ever bundled; the checks on option values and the
//! text options add to a query never panic either.
#![no_main]

use clap::Parser;
use cqlrs::cli::args::{normalize, Args};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut argv = vec!["cqlrs".to_string()];
    argv.extend(text.split('\0').take(64).map(str::to_string));
    let Ok(rewritten) = normalize(argv.clone()) else { return };
    assert!(rewritten.len() <= argv.len() + 1, "{argv:?} grew into {rewritten:?}");
    let mut after_separator = false;
    for word in &rewritten[1..] {
        if word == "--" {
            after_separator = true;
        }
        // Every option word is `--name` or `--name=value`; a lone `-x` may only be a
        // positional (`-` for stdin) or come after `--`.
        if !after_separator && word.starts_with('-') && !word.starts_with("--") {
            assert_eq!(word, "-", "{argv:?} → {rewritten:?}");
        }
    }
    if let Ok(args) = Args::try_parse_from(&rewritten) {
        let _ = cqlrs::cli::check_args(&args);
    }
});
