//! The front-ends agree: a legacy `(match …)` script and its CQL 6 equivalent print the
//! same `--dump-ir` (after `ir::normalize`).
//!
//! Two sources of pairs: the legacy conformance suite (every case that names a
//! `cql6_equivalent`; the shared folder is `$CQLRS_SHARED`, else `../shared` beside the
//! repository; skipped with a note when it is not there, a failure under `CI=true`), and the self-contained pairs written below.
//! File names are not meaning: the `input`/`output` parts of the settings line are left
//! out of the comparison (a script may name its PGN files, its equivalent may not). Both
//! are compiled with `-quiet`: a CQL 6 `find` notes what it found in the output
//! (`Found`), a legacy position list does not, and that is the only difference.

use std::path::Path;
use std::process::Command;

/// Pairs of the suite whose CQL 6 equivalent means something slightly different, with
/// the reason. Keep this short.
const KNOWN_DIFFERENT: &[(&str, &str)] = &[
    (
        "gseq_queen_capture_then_mate.cql",
        "`:gappedsequence (A B)` puts B strictly after A (a `line` with gaps); the CQL 6 \
         equivalent `A find B` also accepts B at A's own position (here impossible, since \
         A moves and B is mate, but not in general)",
    ),
    (
        "tf_shift_flip_flipcolor_knight_check.cql",
        "legacy shifts each flipped copy (all 672 placements of the knight check); CQL 6 \
         `shift flip {…}` shifts the eight flipped copies together, only as far as all \
         of them stay on the board (400 placements)",
    ),
];

/// The settings line without file names, and the rest of the dump.
fn comparable(dump: &str) -> String {
    let mut out = String::new();
    for (i, line) in dump.lines().enumerate() {
        if i == 0 {
            let kept: Vec<&str> =
                line.split(" | ").filter(|part| !part.starts_with("input ") && !part.starts_with("output ")).collect();
            out.push_str(&kept.join(" | "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// `cqlrs -quiet --dump-ir SCRIPT`, which must succeed.
fn dump_ir(script: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cqlrs"))
        .args(["-quiet", "--dump-ir"])
        .arg(script)
        .output()
        .expect("run cqlrs");
    assert!(out.status.success(), "--dump-ir {} failed: {}", script.display(), String::from_utf8_lossy(&out.stderr));
    comparable(&String::from_utf8_lossy(&out.stdout))
}

mod common;
use common::temp_dir;

#[test]
fn suite_pairs_print_the_same_ir() {
    let Some(dir) = common::shared::shared_path("conformance/legacy") else { return };
    let cases = std::fs::read_to_string(dir.join("cases.jsonl")).expect("the legacy suite's cases.jsonl");
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("a JSON case");
        let (Some(script), Some(equivalent)) = (case["script"].as_str(), case["cql6_equivalent"].as_str()) else {
            continue;
        };
        let pair = (script.to_string(), equivalent.to_string());
        if !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    assert!(!pairs.is_empty(), "the suite names no CQL 6 equivalents");
    let mut failures = Vec::new();
    let mut compared = 0;
    for (script, equivalent) in &pairs {
        let name = Path::new(script).file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if KNOWN_DIFFERENT.iter().any(|(known, _)| *known == name) {
            continue;
        }
        compared += 1;
        let legacy = dump_ir(&dir.join(script));
        let cql6 = dump_ir(&dir.join(equivalent));
        if legacy != cql6 {
            failures.push(format!("{script} vs {equivalent}:\n--- legacy\n{legacy}--- cql6\n{cql6}"));
        }
    }
    assert!(failures.is_empty(), "{} of {compared} pairs differ:\n{}", failures.len(), failures.join("\n"));
}

/// Self-contained pairs: (legacy, CQL 6) with the same meaning.
const INLINE_PAIRS: &[(&str, &str)] = &[
    // Position-list keywords against CQL 6 filters; a single list is per position.
    ("(match (position :wtm :check :attackcount n K 1))", "cql() wtm check #(n attacks K) == 1"),
    // `:player` ignores case; CQL 6 lower-cases.
    (
        "(match :player Carlsen (position :mate))",
        "cql() \"carlsen\" in lowercase player white or \"carlsen\" in lowercase player black\nmate",
    ),
    // Several lists: each is a `find` from the start; `:matchcount` counts.
    (
        "(match (position :mate) (position :check :matchcount 2 5))",
        "cql() initial\nfind mate\nfind all {check} >= 2\nfind all {check} <= 5",
    ),
    // A tag follows one piece (here a queen or a pawn that promotes to one).
    (
        "(match :forany q [Qq] (position $q[d1]) (position $q[d8]))",
        "cql() initial piece Tag in [QqPp] { find {Tag & [Qq]} find {Tag & d1} find {Tag & d8} }",
    ),
    // A transform of the whole list against a transform of its piece part.
    ("(match (position Qg7 kh8 :mate :flip))", "cql() mate flip {Qg7 kh8}"),
    // Header keywords and ranges: `n m` is two comparisons.
    (
        "(match :year 2016 :gamenumber 3 40 (position :btm :stalemate))",
        "cql() year == 2016 gamenumber >= 3 gamenumber <= 40 btm stalemate",
    ),
    // Bracketed squares after a bracketed piece type.
    ("(match (position U[a1,h1,a8,h8] .d4))", "cql() [Aa][a1,h1,a8,h8] _d4"),
    // The empty match list matches every game.
    ("(match)", "cql() true"),
];

#[test]
fn inline_pairs_print_the_same_ir() {
    let dir = temp_dir("inline");
    let mut failures = Vec::new();
    for (n, (legacy_text, cql6_text)) in INLINE_PAIRS.iter().enumerate() {
        let legacy_path = dir.join(format!("pair{n}-legacy.cql"));
        let cql6_path = dir.join(format!("pair{n}-cql6.cql"));
        std::fs::write(&legacy_path, legacy_text).expect("write script");
        std::fs::write(&cql6_path, cql6_text).expect("write script");
        let legacy = dump_ir(&legacy_path);
        let cql6 = dump_ir(&cql6_path);
        assert!(legacy.contains("tree:"), "no tree in {legacy}");
        if legacy != cql6 {
            failures.push(format!("{legacy_text}\n  vs {cql6_text}\n--- legacy\n{legacy}--- cql6\n{cql6}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{} of {} pairs differ:\n{}", failures.len(), INLINE_PAIRS.len(), failures.join("\n"));
}

#[test]
fn different_meanings_print_different_ir() {
    // The comparison is not vacuous: a changed number or keyword shows.
    let dir = temp_dir("different");
    let a = dir.join("a.cql");
    let b = dir.join("b.cql");
    std::fs::write(&a, "(match (position :wtm :check :attackcount n K 1))").expect("write");
    std::fs::write(&b, "cql() wtm check #(n attacks K) == 2").expect("write");
    assert_ne!(dump_ir(&a), dump_ir(&b));
    std::fs::write(&b, "cql() btm check #(n attacks K) == 1").expect("write");
    assert_ne!(dump_ir(&a), dump_ir(&b));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn file_names_are_left_out_of_the_comparison() {
    let dump = "settings: matchcount 1.. | variations no | input [\"a.pgn\"] | output \"o.pgn\"\ntree:\n  Mate\n";
    assert_eq!(comparable(dump), "settings: matchcount 1.. | variations no\ntree:\n  Mate\n");
}

/// `:relation` against `echo (s t)` written by hand: (legacy, CQL 6, what it finds).
const RELATION_PAIRS: &[(&str, &str, &str)] = &[
    (
        "(match (position :relation ()))",
        "cql()\necho (s t) {\n  s ≺ t\n  mainline\n  sidetomove == s:sidetomove\n  not (s:[Aa] & _)\n  \
         not ([Aa] & s:_)\n}\n",
        "the occupied squares recur later in the main line, same side to move",
    ),
    (
        "(match (position :relation (:variations :changesidetomove :originaldifferentcount 0)))",
        "cql(variations)\nmainline\necho (s t) in all {\n  s ≺ t\n  sidetomove != s:sidetomove\n  not (s:[Aa] & _)\n  \
         not ([Aa] & s:_)\n  #(s:[Aa] & ~((s:K & K) | (s:Q & Q) | (s:R & R) | (s:B & B) | (s:N & N) | (s:P & P)\n  \
         | (s:k & k) | (s:q & q) | (s:r & r) | (s:b & b) | (s:n & n) | (s:p & p))) == 0\n}\n",
        "the same board recurs with the other side to move (a lost tempo), variations included",
    ),
];

/// `cqlrs --numbers -i PGN SCRIPT`: the numbers of the matching games.
fn game_numbers(pgn: &Path, script: &Path) -> Vec<u64> {
    let out = Command::new(env!("CARGO_BIN_EXE_cqlrs"))
        .arg("--numbers")
        .arg("-i")
        .arg(pgn)
        .arg(script)
        .output()
        .expect("run cqlrs");
    assert!(
        out.status.success(),
        "{} on {} failed: {}",
        script.display(),
        pgn.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim().parse().expect("a game number")).collect()
}

#[test]
fn relation_finds_the_games_its_echo_finds() {
    let Some(corpus) = common::shared::shared_path("corpus/conformance") else { return };
    let pgns = [corpus.join("worldmatches.pgn"), corpus.join("studies253.pgn")];
    assert!(pgns.iter().all(|p| p.exists()), "the conformance corpus under {} lacks {pgns:?}", corpus.display());
    let dir = temp_dir("relation");
    for (n, (legacy_text, cql6_text, what)) in RELATION_PAIRS.iter().enumerate() {
        let legacy = dir.join(format!("relation{n}-legacy.cql"));
        let cql6 = dir.join(format!("relation{n}-cql6.cql"));
        std::fs::write(&legacy, legacy_text).expect("write script");
        std::fs::write(&cql6, cql6_text).expect("write script");
        let mut found = 0;
        for pgn in &pgns {
            let by_legacy = game_numbers(pgn, &legacy);
            assert_eq!(by_legacy, game_numbers(pgn, &cql6), "{what}: {legacy_text} on {}", pgn.display());
            found += by_legacy.len();
        }
        assert!(found > 0, "{what}: no game found, the comparison says nothing");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
