//! What a script writes, checked against what CQL 6.2 wrote for it: the games and their
//! order (with `sort`, the script's own order of values), the comments at every position
//! (`comment`, `{CQL}` marks, `Found N of M`, sort values in the first comment) and the
//! console messages (`message`).
//!
//! The expectations in `tests/cql62-output/` were recorded by running the reference CQL
//! 6.2 program on the same games: `scripts/record-cql62-output PATH/TO/cql` runs this test
//! in its recording mode (`CQLRS_RECORD_WITH`), which writes them instead of comparing.
//!
//! Both programs' outputs go through one normalisation, so that only what differs by design
//! is set aside (docs/compat.md):
//! - CQL 6.2 writes `?` for every byte of a character outside ASCII: so is cqlrs's text read;
//! - CQL 6.2 joins the comments of one position into one `{…}`, cqlrs writes each of them in
//!   its own braces: the words of a position's comments are compared, not the braces;
//! - CQL 6.2 appends `Game number N` to a game's own first comment, cqlrs writes it before:
//!   at the start position, the words `Game number N` are put first;
//! - the tag pairs, the layout of the movetext and the PGN spelling of the moves are not
//!   compared (cqlrs writes tags as read and moves in the export format);
//! - CQL 6.2 prints messages on standard output (with a `.` for every thousand games), cqlrs
//!   on standard error.

mod common;

use common::{shared::shared_path, temp_dir, BIN};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Replace every byte outside ASCII by `?`, as CQL 6.2 writes such text.
fn as_cql_writes(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| if b.is_ascii() { b as char } else { '?' }).collect()
}

/// One game of an output: its number and the words of the comments at each position.
#[derive(Debug, PartialEq, Eq)]
struct WrittenGame {
    number: String,
    /// Per position that has comments: its place in the game tree and the words.
    comments: Vec<(String, String)>,
}

/// Where a token stream is in the game tree: per open line, the path to its start and
/// the moves made in it.
struct Frame {
    prefix: String,
    ply: usize,
    variations: usize,
}

/// The games of a PGN output, with their comments placed by position (a position is its
/// ply along the main line, and for a variation the ply it branches at and its number).
fn games_of(text: &str) -> Vec<WrittenGame> {
    let mut games: Vec<WrittenGame> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut in_tags = false;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    // Place and words of the comments of the game being read, in order.
    let add_comment = |games: &mut Vec<WrittenGame>, frames: &Vec<Frame>, words: String| {
        let Some(game) = games.last_mut() else { return };
        let frame = frames.last().expect("a game has its main line");
        let place = format!("{}{}", frame.prefix, frame.ply);
        match game.comments.last_mut() {
            Some((p, w)) if *p == place => {
                if !words.is_empty() {
                    if !w.is_empty() {
                        w.push(' ');
                    }
                    w.push_str(&words);
                }
            }
            _ => game.comments.push((place, words)),
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '[' => {
                if !in_tags {
                    games.push(WrittenGame { number: String::new(), comments: Vec::new() });
                    frames = vec![Frame { prefix: String::new(), ply: 0, variations: 0 }];
                    in_tags = true;
                }
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '{' => {
                in_tags = false;
                let start = i + 1;
                while i < chars.len() && chars[i] != '}' {
                    i += 1;
                }
                let body: String = chars[start..i.min(chars.len())].iter().collect();
                let words = body.split_whitespace().collect::<Vec<_>>().join(" ");
                add_comment(&mut games, &frames, words);
                i += 1;
            }
            ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                in_tags = false;
                let top = frames.last_mut().expect("a line");
                top.variations += 1;
                let prefix = format!("{}{}v{}:", top.prefix, top.ply.saturating_sub(1), top.variations);
                frames.push(Frame { prefix, ply: 0, variations: 0 });
                i += 1;
            }
            ')' => {
                if frames.len() > 1 {
                    frames.pop();
                }
                i += 1;
            }
            _ if c.is_whitespace() => i += 1,
            _ => {
                in_tags = false;
                let start = i;
                while i < chars.len() && !chars[i].is_whitespace() && !"{}();[".contains(chars[i]) {
                    i += 1;
                }
                let token: String = chars[start..i].iter().collect();
                // A move number may be glued to its move (`1.d4`, `1...Nf6`).
                let token = token.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
                let is_move = !token.is_empty()
                    && !token.starts_with('$')
                    && !matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
                    && token.chars().any(|c| c.is_ascii_alphabetic() || c == '-');
                if is_move && !games.is_empty() {
                    frames.last_mut().expect("a line").ply += 1;
                }
            }
        }
    }
    for game in &mut games {
        // `Game number N` first among the start position's words, wherever it was written.
        if let Some((place, words)) = game.comments.first_mut() {
            if place == "0" {
                let list: Vec<&str> = words.split(' ').collect();
                if let Some(k) = list.windows(3).position(|w| w[0] == "Game" && w[1] == "number") {
                    game.number = list[k + 2].to_string();
                    let mut moved: Vec<&str> = list[k..k + 3].to_vec();
                    moved.extend(list[..k].iter().chain(&list[k + 3..]));
                    *words = moved.join(" ");
                }
            }
        }
    }
    games
}

/// The record compared: games in output order with their comments, then the messages.
fn record(pgn: &[u8], messages: &[String]) -> String {
    let mut out = String::new();
    for game in games_of(&as_cql_writes(pgn)) {
        out.push_str(&format!("game {}\n", game.number));
        for (place, words) in game.comments {
            out.push_str(&format!("  @{place} {words}\n"));
        }
    }
    for m in messages {
        out.push_str(&format!("message {m}\n"));
    }
    out
}

/// The messages CQL 6.2 printed on standard output: every line but its banner, its
/// summary and blank lines, without the progress dots.
fn reference_messages(stdout: &[u8]) -> Vec<String> {
    as_cql_writes(stdout)
        .lines()
        .map(|l| l.trim_start_matches('.'))
        .filter(|l| !l.is_empty() && !l.starts_with("CQL version") && !common::is_summary_line(l))
        .map(str::to_string)
        .collect()
}

/// The messages cqlrs printed on standard error: every line but its own warnings and
/// summary.
fn cqlrs_messages(stderr: &[u8]) -> Vec<String> {
    as_cql_writes(stderr)
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("cqlrs:") && !common::is_summary_line(l))
        .map(str::to_string)
        .collect()
}

/// The scripts checked: the examples of the conformance suite and the manual's examples
/// (`scripts/manual-examples`) that write something (`message`, `comment`, `sort`, `str`,
/// dictionaries, `settag`), the suite's `comments` group, and the scripts of
/// `tests/cql62-output/scripts`.
fn scripts(shared: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let writes = ["message", "comment", "sort", "str", "dictionary", "settag"];
    let suite = shared.join("conformance/cql6/scripts");
    for group in ["examples-official", "examples-reti", "examples-nilslindemann", "examples-misc", "comments"] {
        let Ok(entries) = std::fs::read_dir(suite.join(group)) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if path.extension().is_some_and(|e| e == "cql")
                && (group == "comments" || writes.iter().any(|w| text.contains(w)))
            {
                out.push(path);
            }
        }
    }
    let manual = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/manual-examples");
    for entry in std::fs::read_dir(manual).expect("scripts/manual-examples").flatten() {
        let path = entry.path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if path.extension().is_some_and(|e| e == "cql") && writes.iter().any(|w| text.contains(w)) {
            out.push(path);
        }
    }
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cql62-output/scripts");
    for entry in std::fs::read_dir(own).expect("tests/cql62-output/scripts").flatten() {
        out.push(entry.path());
    }
    out.sort();
    out
}

/// The name of the expectation of one script on one corpus.
fn expectation_name(script: &Path, corpus: &str) -> String {
    let group =
        script.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = script.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!("{group}--{stem}@{corpus}.txt")
}

/// Scripts where more than one image of a transformed body writes a comment at the same
/// position. CQL 6.2 evaluates the images in the order of its internal comparison of
/// their filter trees (`Node::transformless`, transformcompare.cpp), cqlrs in the order
/// of the transform's group, so the comments of one position may come in another order
/// (docs/compat.md). For these scripts the words of each position are compared in any
/// order: every comment must still be there.
const IMAGE_ORDER: &[&str] =
    &["examples-reti/cql-files_silly_bad_bishop.cql", "examples-reti/cql-files_silly_outpost.cql"];

/// The record with the words of each position's comments sorted.
fn words_in_any_order(record: &str) -> String {
    record
        .lines()
        .map(|line| match line.strip_prefix("  @").and_then(|rest| rest.split_once(' ')) {
            Some((place, words)) => {
                let mut list: Vec<&str> = words.split(' ').collect();
                list.sort_unstable();
                format!("  @{place} {}", list.join(" "))
            }
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn what_scripts_write_is_what_cql62_wrote() {
    let Some(shared) = shared_path("") else { return };
    let reference = std::env::var("CQLRS_RECORD_WITH").ok();
    let dir = temp_dir("cql62-output");
    let corpora = [
        ("twic", common::first_games(&shared.join("corpus/conformance/twic1599.pgn"), 150, &dir, "twic.pgn")),
        ("studies", common::first_games(&shared.join("corpus/conformance/studies253.pgn"), 60, &dir, "studies.pgn")),
    ];
    let expectations = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cql62-output/expected");
    let scripts = scripts(&shared);
    assert!(scripts.len() >= 50, "only {} scripts found", scripts.len());
    let mut checked = 0;
    let mut failures = Vec::new();
    for script in &scripts {
        for (name, corpus) in &corpora {
            let expected_file = expectations.join(expectation_name(script, name));
            let out = dir.join("out.pgn");
            let _ = std::fs::remove_file(&out);
            if let Some(cql) = &reference {
                let run = Command::new(cql)
                    .arg("-s")
                    .arg("-i")
                    .arg(corpus)
                    .arg("-o")
                    .arg(&out)
                    .arg(script)
                    .current_dir(&*dir)
                    .stdin(Stdio::null())
                    .output()
                    .expect("run the reference");
                let text = if run.status.success() {
                    record(&std::fs::read(&out).unwrap_or_default(), &reference_messages(&run.stdout))
                } else {
                    "# CQL 6.2 did not run this script\n".to_string()
                };
                std::fs::create_dir_all(&expectations).expect("create the expectations folder");
                std::fs::write(&expected_file, text).expect("write an expectation");
                continue;
            }
            let expected = std::fs::read_to_string(&expected_file).unwrap_or_else(|_| {
                panic!("{} is missing: record it with scripts/record-cql62-output", expected_file.display())
            });
            if expected.starts_with('#') {
                continue;
            }
            let run = Command::new(BIN)
                .arg("-i")
                .arg(corpus)
                .arg("-o")
                .arg(&out)
                .arg("--max-warnings")
                .arg("0")
                .arg(script)
                .current_dir(&*dir)
                .stdin(Stdio::null())
                .output()
                .expect("run cqlrs");
            let mut got = record(&std::fs::read(&out).unwrap_or_default(), &cqlrs_messages(&run.stderr));
            let mut expected = expected;
            if IMAGE_ORDER.iter().any(|name| script.ends_with(name)) {
                got = words_in_any_order(&got);
                expected = words_in_any_order(&expected);
            }
            checked += 1;
            if got != expected {
                let line = got.lines().zip(expected.lines()).position(|(a, b)| a != b);
                let shown = line.map(|k| {
                    format!(
                        "\n    cqlrs:   {}\n    CQL 6.2: {}",
                        got.lines().nth(k).unwrap_or(""),
                        expected.lines().nth(k).unwrap_or("")
                    )
                });
                failures.push(format!(
                    "{} on {name}: first difference at line {:?} ({} and {} lines){}",
                    script.display(),
                    line.map(|k| k + 1),
                    got.lines().count(),
                    expected.lines().count(),
                    shown.unwrap_or_default()
                ));
            }
        }
    }
    if reference.is_some() {
        return;
    }
    assert!(checked >= 80, "only {checked} runs compared");
    assert!(
        failures.is_empty(),
        "{} of {checked} runs write otherwise than CQL 6.2:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_normalisation_places_comments_by_position_and_reads_cql_layout() {
    let cql = "[Event \"x\"]\n\n{(EG#1). Game number 7  plies: 85}\n1.Kc5+ $1 {hello ?? 1 CQL} ( 1.Kd5+ {v} ) 1...Nf6 {b} 1-0\n";
    let ours = "[Event \"x\"]\n\n{Game number 7} {(EG#1).} {plies: 85} 1. Kc5+ $1 {hello ü 1} {CQL} (1. Kd5+ {v}) 1... Nf6 {b} 1-0\n";
    let a = record(cql.as_bytes(), &[]);
    let b = record(ours.as_bytes(), &[]);
    assert_eq!(a, b);
    assert!(
        a.contains("game 7\n  @0 Game number 7 (EG#1). plies: 85\n  @1 hello ?? 1 CQL\n  @0v1:1 v\n  @2 b\n"),
        "{a}"
    );
}
