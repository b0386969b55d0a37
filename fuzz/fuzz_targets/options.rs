//! Fuzz the command-line reader: any argument list (the input split at NUL bytes, the
//! first word being the program name) is rewritten by the option table and read by clap
//! without a panic; a rewritten list never holds a single-dash word the table did not
//! produce, so no short flags are ever bundled; the checks on option values and the
//! text options add to a query never panic either.
#![no_main]

use std::cell::RefCell;

use clap::{Command, CommandFactory, FromArgMatches};
use cqlrs::cli::args::{normalize, Args};
use libfuzzer_sys::fuzz_target;

thread_local! {
    // Built once: with debug assertions on, clap checks the whole option table each time
    // a command is built, which would cost more than the reading itself.
    static COMMAND: RefCell<Command> = RefCell::new(Args::command());
}

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
    let matches = COMMAND.with(|command| command.borrow_mut().try_get_matches_from_mut(&rewritten));
    if let Ok(args) = matches.and_then(|m| Args::from_arg_matches(&m)) {
        let _ = cqlrs::cli::check_args(&args);
    }
});
