//! Where the tests find the shared data (conformance suites and corpora) that lives
//! beside the repository rather than in it.
//!
//! The folder is `$CQLRS_SHARED` when that is set, else `../shared` next to the
//! repository's root (how CI lays out a clone). A test that needs it and does not find it
//! says so and is not run, except under `CI=true`, where a missing folder is a failure:
//! a CI run must never pass by skipping its corpus checks. The note is written to the
//! terminal past the test harness's capture (which hides what a passing test prints), so
//! that `cargo test` shows which tests checked nothing.

use std::path::{Path, PathBuf};

/// Is this a CI run (`CI=true`, as CI services set it)?
#[allow(dead_code)]
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The shared data folder, or where it was looked for.
fn shared_candidate() -> PathBuf {
    match std::env::var_os("CQLRS_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared"),
    }
}

/// `sub` inside the shared data folder when it exists; `None` (with a note on stderr)
/// when it does not. Panics under `CI=true` instead of returning `None`.
pub fn shared_path(sub: &str) -> Option<PathBuf> {
    let path = shared_candidate().join(sub);
    if path.exists() {
        return Some(path);
    }
    let message = format!(
        "the shared test data `{}` is missing (set CQLRS_SHARED to the shared folder, or put it at ../shared beside the repository)",
        path.display()
    );
    assert!(!in_ci(), "CI=true: {message}");
    skipped(&message);
    None
}

/// Say on the terminal that the running test checked nothing, and why. Written to the
/// stderr handle itself rather than with `eprintln!`, which the harness captures and
/// shows only for a failing test.
pub fn skipped(why: &str) {
    use std::io::Write as _;
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}; it checked nothing");
}
