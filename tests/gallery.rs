//! The theme gallery: every script in `examples/cql/` runs on the bundled data
//! (`data/*.pgn`: 1,798 lichess games and the 1,319 lichess-study puzzles and
//! studies bundled with pychess) and must match exactly the number of games recorded
//! below. Each count was checked by reading matched games (docs/themes.md shows one
//! example per script); a change in a count means either the engine or the script
//! changed meaning, and the table must only be updated after looking at the games.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cqlrs");

/// The bundled PGN files, in the order the game numbers in docs/themes.md count them.
const DATA: [&str; 3] = [
    "data/lichess-2016-05-first1500.pgn",
    "data/lichess-2017-05-sample.pgn",
    "data/gallery/pychess-studies-and-puzzles.pgn",
];

/// Script name (without `.cql`) and the number of bundled games it matches.
const EXPECTED: &[(&str, u64)] = &[
    ("anastasia-mate", 7),
    ("arabian-mate", 10),
    ("back-rank-mate", 115),
    ("bishop-knight-mate", 3),
    ("boden-mate", 4),
    ("bristol", 15),
    ("castling-mate", 2),
    ("clearance", 83),
    ("decoy", 230),
    ("deflection", 59),
    ("discovered-check", 164),
    ("double-check", 77),
    ("excelsior", 6),
    ("fools-mate", 4),
    ("greek-gift", 1),
    ("grimshaw", 2),
    ("interference", 4),
    ("king-hunt", 23),
    ("king-pawn-vs-king", 1),
    ("knight-fork", 83),
    ("knight-promotion-check", 11),
    ("lucena", 4),
    ("model-mate", 136),
    ("opera-mate", 31),
    ("opposite-bishops", 3),
    ("pawn-ending-opposition", 24),
    ("pawn-fork", 18),
    ("pawn-mate", 53),
    ("perpetual-check", 3),
    ("philidor", 1),
    ("pin-wins-queen", 8),
    ("pinned-piece-won", 9),
    ("platzwechsel", 9),
    ("promotion-echo", 4),
    ("queen-sacrifice", 203),
    ("queen-vs-pawn", 17),
    ("queen-vs-rook", 1),
    ("rook-round-trip", 5),
    ("rook-vs-bishop", 13),
    ("rook-vs-knight", 8),
    ("scholars-mate", 37),
    ("skewer", 21),
    ("smothered-mate", 9),
    ("stalemate-swindle", 23),
    ("switchback", 15),
    ("underpromotion", 19),
    ("zwischenzug", 109),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The names of all `.cql` files in examples/cql, sorted.
fn gallery_scripts() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("examples/cql"))
        .expect("examples/cql exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cql"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs one script over the bundled data and returns the number of matching games.
fn count_matches(script: &Path) -> u64 {
    let mut cmd = Command::new(BIN);
    for file in DATA {
        cmd.arg("-i").arg(root().join(file));
    }
    let out = cmd.arg("--count").arg(script).stdin(Stdio::null()).output().expect("cqlrs runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}: exit status {:?}\n{stderr}",
        script.display(),
        out.status.code()
    );
    stdout.trim().parse().unwrap_or_else(|_| panic!("{}: no count on stdout: {stdout:?}\n{stderr}", script.display()))
}

#[test]
fn gallery_has_at_least_forty_scripts_and_the_table_lists_each_once() {
    let scripts = gallery_scripts();
    assert!(scripts.len() >= 40, "only {} gallery scripts", scripts.len());
    let mut listed: Vec<String> = EXPECTED.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(scripts, listed, "examples/cql and the EXPECTED table disagree");
}

#[test]
fn every_gallery_script_starts_with_a_header_comment() {
    for name in gallery_scripts() {
        let text = std::fs::read_to_string(root().join("examples/cql").join(format!("{name}.cql"))).unwrap();
        let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//")).collect();
        assert!(header.len() >= 2, "{name}.cql: header comment of at least two lines expected");
    }
}

#[test]
fn every_gallery_script_is_listed_in_docs_themes() {
    let doc = std::fs::read_to_string(root().join("docs/themes.md")).unwrap();
    for name in gallery_scripts() {
        assert!(doc.contains(&format!("`{name}.cql`")), "docs/themes.md does not list {name}.cql");
    }
}

#[test]
fn every_gallery_script_matches_its_checked_count() {
    // Run the scripts on two threads of our own; each cqlrs run uses its own workers.
    let jobs: Vec<(String, u64)> = EXPECTED.iter().map(|(n, c)| (n.to_string(), *c)).collect();
    let (left, right) = jobs.split_at(jobs.len() / 2);
    let check = |part: Vec<(String, u64)>| {
        let mut failures = Vec::new();
        for (name, expected) in part {
            let got = count_matches(&root().join("examples/cql").join(format!("{name}.cql")));
            if got != expected || got == 0 {
                failures.push(format!("{name}: {got} games (table says {expected})"));
            }
        }
        failures
    };
    let (l, r) = (left.to_vec(), right.to_vec());
    let handle = std::thread::spawn(move || check(l));
    let mut failures = check(r);
    failures.extend(handle.join().unwrap());
    assert!(failures.is_empty(), "gallery counts changed:\n{}", failures.join("\n"));
}
