//! Helpers shared by the integration tests: a fresh folder per test, running the binary,
//! small files, and the shared data folder beside the repository ([`shared`]).
//!
//! Each test binary includes this module with `mod common;` and uses a part of it.
#![allow(dead_code)]

pub mod shared;

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The cqlrs binary Cargo built for the tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_cqlrs");

/// A folder of its own for one test, under the system's temporary folder; its name holds
/// the test binary, the process and the test's name, so parallel tests and runs never
/// share one. A copy left over by an earlier run is removed first, and the folder is
/// removed when the value is dropped (unless [`TempDir::keep`] was called).
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Keep the folder after the test (for files a test binary shares between tests).
    pub fn keep(self) -> PathBuf {
        let path = self.path.clone();
        std::mem::forget(self);
        path
    }
}

impl Deref for TempDir {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.path
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for TempDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A new, empty folder for the test `name` (see [`TempDir`]).
pub fn temp_dir(name: &str) -> TempDir {
    let path = std::env::temp_dir().join(format!("cqlrs-{}-{}-{name}", env!("CARGO_CRATE_NAME"), std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).expect("create the test's temporary folder");
    TempDir { path }
}

/// Write `text` to the file `name` in one folder that all the tests of this binary share
/// for the whole run (they run in parallel, so it is never removed while they run); its
/// path. Give each test its own file names. The file is written under a name of this
/// thread's and then renamed, so that tests sharing a helper that writes the same file
/// never read it half written.
pub fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cqlrs-{}-{}", env!("CARGO_CRATE_NAME"), std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the tests' temporary folder");
    let thread = format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let draft = write(&dir, &format!(".{name}.{thread}"), text);
    let path = dir.join(name);
    std::fs::rename(&draft, &path).expect("rename a test file");
    path
}

/// Write `bytes` to the file `name` in `dir`; its path.
pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write a test file");
    path
}

/// Run the binary with these arguments and no standard input.
pub fn cqlrs(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("run cqlrs")
}

/// Run the binary in `dir` with these arguments and no standard input.
pub fn cqlrs_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(dir).stdin(Stdio::null()).output().expect("run cqlrs")
}

/// The run's standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The run's standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// 1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6 4.Qxf7#: eight positions (plies 0 to 7), one check (the
/// mate, in which the queen takes the f7 pawn), a white queen on the board in all of them.
pub const SCHOLARS_MATE: &str = "[Event \"scholar\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n\
1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n";

/// Does `query` (a CQL 6 body, given with `-cql`) match the scholar's mate
/// ([`SCHOLARS_MATE`])? The run must end with exit status 0 or 1 and print the game's
/// number or nothing.
pub fn matches_scholars_mate(query: &str) -> bool {
    let pgn = temp_file("scholars-mate.pgn", SCHOLARS_MATE);
    let o = cqlrs(&["-i", pgn.to_str().unwrap(), "--numbers", "-cql", query]);
    assert!(o.status.code() == Some(0) || o.status.code() == Some(1), "{query}: {}", stderr(&o));
    match stdout(&o).trim() {
        "1" => true,
        "" => false,
        other => panic!("{query}: unexpected output {other:?}"),
    }
}

/// The PGN output (games with their comments) of the script `cql(variations) query` run
/// on the games `pgn` (written to the test file `name`.pgn): what an equivalence test
/// compares between two forms of a query. The run must end with exit status 0 or 1.
pub fn variations_output(name: &str, pgn: &str, query: &str) -> String {
    use std::hash::{Hash, Hasher};
    let games = temp_file(&format!("{name}.pgn"), pgn);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    query.hash(&mut hasher);
    let script = temp_file(&format!("{name}-{:x}.cql", hasher.finish()), &format!("cql(variations) {query}"));
    let o = cqlrs(&["-i", games.to_str().unwrap(), "-o", "-", script.to_str().unwrap()]);
    assert!(o.status.code() == Some(0) || o.status.code() == Some(1), "{query}: {}", stderr(&o));
    stdout(&o)
}

/// The first `games` games of a PGN file (its bytes as they are: a corpus need not be
/// UTF-8; a game starts at a line `[Event `), written to `dir/name`.
pub fn first_games(source: &Path, games: usize, dir: &Path, name: &str) -> PathBuf {
    let bytes = std::fs::read(source).expect("read a corpus");
    let mut end = bytes.len();
    let (mut seen, mut at) = (0, 0);
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"[Event ") {
            seen += 1;
            if seen > games {
                end = at;
                break;
            }
        }
        at += line.len();
    }
    write(dir, name, &bytes[..end])
}

/// Is this a line of a run's summary (the games read and matched) or of its warnings'
/// tally, rather than a line a query wrote?
pub fn is_summary_line(line: &str) -> bool {
    (line.contains(" of ") && line.contains(" game") && line.contains("match")) || line.contains("warnings not shown")
}
