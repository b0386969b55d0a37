//! One run of a query over games: what the run owns besides the compiled query.
//!
//! Takes in: the run's input files (from the command line, or from an embedder) and what
//! the query does while it runs (`cql_abort`, `writefile`, `lastgamenumber`).
//! Gives out: whether the run was stopped, the files it writes, the number of its games.
//! Must never: be process-wide. Every compiled [`super::Query`] starts a run of its own,
//! so two runs in one process, one after the other or at the same time on two threads,
//! share nothing unless their caller hands both the same [`Run`] (the survey does, for the
//! themes it runs together over one archive).

use std::sync::atomic::{AtomicBool, Ordering};

use super::files::RunFiles;

/// The state of one run: the `cql_abort` flag and the files the run reads and writes. It
/// lives beside the compiled query ([`super::Query::run`]) and every worker reaches it
/// through the query it evaluates.
#[derive(Debug, Default)]
pub struct Run {
    /// Set once the query reached a `cql_abort` (or a failed `assert`): the run stops, and
    /// evaluates no further game.
    aborted: AtomicBool,
    /// The inputs, the files never to write, and the files `writefile` opened.
    files: RunFiles,
}

impl Run {
    /// A fresh run: nothing stopped, no file known or opened.
    pub fn new() -> Run {
        Run::default()
    }

    /// Tell the run which files it reads: the PGN inputs (`pgn`) and any other file
    /// (`other`: the query script, `-similarposition` files). `writefile` refuses all of
    /// them; `lastgamenumber` counts the games of the PGN inputs.
    pub fn register_inputs(&self, pgn: &[String], other: &[String]) {
        self.files.register_inputs(pgn, other);
    }

    /// Tell the run which files it writes itself (its output and `--rejects` file, `-`
    /// for standard output): `writefile` refuses them with a message.
    pub fn register_outputs(&self, outputs: &[String]) {
        self.files.register_outputs(outputs);
    }

    /// Has the run reached a `cql_abort` (or a failed `assert`)? It then evaluates no
    /// further game.
    pub fn abort_requested(&self) -> bool {
        self.aborted.load(Ordering::Relaxed)
    }

    /// Stop the run: `cql_abort` was reached.
    pub(crate) fn request_abort(&self) {
        self.aborted.store(true, Ordering::Relaxed);
    }

    /// The files the run reads and writes.
    pub(crate) fn files(&self) -> &RunFiles {
        &self.files
    }
}
