//! Integration tests of error carets: a diagnostic names the line and column of the text
//! it is about, even when an equal filter is written earlier in the script (equal IR
//! nodes are one node, so the place is found per occurrence). Each test writes its
//! script and a one-game PGN file to its own temporary directory and runs the binary.

use std::process::{Command, Stdio};

mod common;
use common::{temp_dir, BIN};

/// Run the script `text` (written as `q.cql`) on one short game; exit code and stderr.
fn run(name: &str, text: &str) -> (Option<i32>, String) {
    let dir = temp_dir(name);
    let script = dir.join("q.cql");
    std::fs::write(&script, text).unwrap();
    let pgn = dir.join("g.pgn");
    std::fs::write(&pgn, "[Event \"e\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n").unwrap();
    let out = Command::new(BIN)
        .args([script.to_str().unwrap(), "-i", pgn.to_str().unwrap(), "--count"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The `(line, column)` of the first `q.cql:LINE:COL: error:` line, the source line shown
/// under it and the caret line.
fn first_error(stderr: &str) -> ((usize, usize), String, String) {
    let lines: Vec<&str> = stderr.lines().collect();
    let at = lines.iter().position(|l| l.contains("q.cql:") && l.contains(": error:")).expect("an error line");
    let head = lines[at];
    let place = &head[head.find("q.cql:").unwrap() + "q.cql:".len()..];
    let mut fields = place.split(':');
    let line: usize = fields.next().unwrap().parse().unwrap();
    let col: usize = fields.next().unwrap().parse().unwrap();
    let text = lines[at + 2].split_once(" | ").map_or("", |(_, t)| t).to_string();
    let caret = lines[at + 3].split_once(" | ").map_or("", |(_, t)| t).to_string();
    ((line, col), text, caret)
}

/// The text the caret line underlines in the shown source line.
fn underlined(text: &str, caret: &str) -> String {
    let from = caret.find('^').expect("a caret");
    let width = caret.trim_end().len() - from;
    text.chars().skip(from).take(width).collect()
}

#[test]
fn transform_error_points_at_its_own_line() {
    // `Ka1` on line 2 and line 3 are one IR node; the error is about line 3.
    let (code, err) = run("rotate45", "cql()\nKa1\nrotate45 Ka1\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`rotate45` cannot be applied to a particular square"), "{err}");
    let ((line, col), text, caret) = first_error(&err);
    assert_eq!((line, col), (3, 10), "{err}");
    assert_eq!(text, "rotate45 Ka1");
    assert_eq!(underlined(&text, &caret), "Ka1");
}

#[test]
fn nested_transform_error_points_inside_the_inner_transform() {
    let (code, err) = run("nested", "cql()\n{Ka1 check}\nflip {rotate45 {Ka1 check}}\n");
    assert_eq!(code, Some(2), "{err}");
    let ((line, col), text, caret) = first_error(&err);
    assert_eq!((line, col), (3, 17), "{err}");
    assert_eq!(underlined(&text, &caret), "Ka1");
}

#[test]
fn type_error_points_at_the_operand_written_in_the_operator() {
    // `check` alone is fine on line 2; on line 3 it is the right side of `+`.
    let (code, err) = run("plus", "cql()\ncheck\nx = 1 + check\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("the right side of `+`"), "{err}");
    let ((line, col), text, caret) = first_error(&err);
    assert_eq!((line, col), (3, 9), "{err}");
    assert_eq!(underlined(&text, &caret), "check");
}

#[test]
fn an_error_written_twice_is_reported_at_its_first_place() {
    let (code, err) = run("twice", "cql()\ncheck\nrotate45 Kb2\nrotate45 Kb2\n");
    assert_eq!(code, Some(2), "{err}");
    let ((line, col), _, _) = first_error(&err);
    assert_eq!((line, col), (3, 10), "{err}");
}
