//! Every query example in `docs/*.md` runs as a test.
//!
//! A fenced block tagged `cql` (CQL 6), `legacy` or `yacpdb` is run with the release
//! binary on the bundled games in `data/`. The block must parse and run (exit 0 or 1).
//! A line `// expect: match` (or `; expect: match` in legacy blocks) in the block
//! additionally requires that some bundled game matches; `expect: none` that none does.
//! YACPDB blocks take their expectation from a following line `-- expect: …` inside the block.

use std::path::Path;
use std::process::Command;

struct Example {
    file: String,
    line: usize,
    syntax: String,
    text: String,
}

fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir("docs").expect("docs/ exists").flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut current: Option<Example> = None;
        for (i, line) in text.lines().enumerate() {
            if let Some(ex) = current.as_mut() {
                if line.trim_start().starts_with("```") {
                    out.push(current.take().unwrap());
                } else {
                    ex.text.push_str(line);
                    ex.text.push('\n');
                }
            } else if let Some(tag) = line.trim_start().strip_prefix("```") {
                let tag = tag.trim();
                if tag == "cql" || tag == "legacy" || tag == "yacpdb" {
                    current = Some(Example {
                        file: path.display().to_string(),
                        line: i + 1,
                        syntax: tag.to_string(),
                        text: String::new(),
                    });
                }
            }
        }
    }
    out
}

fn data_files() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("data")
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("pgn"))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn every_documented_example_runs() {
    let bin = env!("CARGO_BIN_EXE_cqlrs");
    let examples = examples();
    assert!(examples.len() >= 10, "docs/ should hold runnable examples, found {}", examples.len());
    let dir = std::env::temp_dir().join(format!("cqlrs-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    for (n, ex) in examples.iter().enumerate() {
        let mut cmd = Command::new(bin);
        for f in data_files() {
            cmd.arg("--input").arg(f);
        }
        cmd.arg("--count");
        if ex.syntax == "yacpdb" {
            let query: String =
                ex.text.lines().filter(|l| !l.trim_start().starts_with("--")).collect::<Vec<_>>().join(" ");
            cmd.arg("--yacpdb").arg(query.trim());
        } else {
            let ext = if ex.syntax == "legacy" { "cql" } else { "cql" };
            let script = dir.join(format!("ex{n}.{ext}"));
            std::fs::write(&script, &ex.text).unwrap();
            if ex.syntax == "legacy" {
                cmd.arg("--syntax").arg("legacy");
            }
            cmd.arg(&script);
        }
        let out = cmd.output().expect("run cqlrs");
        let code = out.status.code().unwrap_or(-1);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let count: Option<u64> = stdout.trim().parse().ok();
        let where_ = format!("{}:{}", ex.file, ex.line);
        if code != 0 && code != 1 {
            failures.push(format!("{where_}: exit {code}: {}", String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        if ex.text.contains("expect: match") && !matches!(count, Some(c) if c > 0) {
            failures.push(format!("{where_}: expected some match, got {stdout:?}"));
        }
        if ex.text.contains("expect: none") && count != Some(0) {
            failures.push(format!("{where_}: expected no match, got {stdout:?}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{} of {} examples failed:\n{}", failures.len(), examples.len(), failures.join("\n"));
    assert!(Path::new("data").exists());
}
