//! Every query example in `docs/*.md` runs as a test.
//!
//! A fenced block tagged `cql` (CQL 6), `legacy` or `yacpdb` is run with the release
//! binary on the bundled games in `data/`. The block must parse and run (exit 0 or 1).
//! A line `// expect: match` (or `; expect: match` in legacy blocks) in the block
//! additionally requires that some bundled game matches; `expect: none` that none does.
//! YACPDB blocks take their expectation from a following line `-- expect: …` inside the block.
//!
//! A second test checks coverage: every keyword and Unicode symbol the CQL 6 front-end
//! accepts, every legacy `:keyword` and every YACPDB predicate is used in at least one of
//! those runnable examples. The lists come from the front-ends' own tables and source,
//! so a new keyword without a documented example makes the test fail.

use std::path::{Path, PathBuf};
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
    // One example per call; `None` when it behaved as documented.
    let run = |n: usize, ex: &Example| -> Option<String> {
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
            return Some(format!("{where_}: exit {code}: {}", String::from_utf8_lossy(&out.stderr)));
        }
        if ex.text.contains("expect: match") && !matches!(count, Some(c) if c > 0) {
            return Some(format!("{where_}: expected some match, got {stdout:?}"));
        }
        if ex.text.contains("expect: none") && count != Some(0) {
            return Some(format!("{where_}: expected no match, got {stdout:?}"));
        }
        None
    };
    // Two workers: the examples are independent processes.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut failures: Vec<(usize, String)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut found = Vec::new();
                    loop {
                        let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(ex) = examples.get(n) else { break };
                        if let Some(f) = run(n, ex) {
                            found.push((n, f));
                        }
                    }
                    found
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("worker")).collect()
    });
    failures.sort();
    let failures: Vec<String> = failures.into_iter().map(|(_, f)| f).collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{} of {} examples failed:\n{}", failures.len(), examples.len(), failures.join("\n"));
    assert!(Path::new("data").exists());
}

/// Words the CQL 6 parser accepts: its keyword table plus every lowercase word literal it
/// compares a token against (header options, path parameters), read from its source (the
/// files of `src/lang/cql6/parser/`, tests left out, and `hhdb.rs`, whose words are the
/// annotation names `hhdb` reads after it, examples of `hhdb` itself standing for them).
fn cql6_words() -> std::collections::BTreeSet<String> {
    let mut words: std::collections::BTreeSet<String> =
        cqlrs::lang::cql6::parser::KEYWORDS.iter().map(|w| w.to_string()).collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir("src/lang/cql6/parser")
        .expect("parser sources")
        .map(|e| e.expect("a parser source").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tests.rs") && !p.ends_with("hhdb.rs"))
        .collect();
    files.sort();
    let src: String = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("parser source");
            text.split("#[cfg(test)]").next().unwrap_or("").to_string()
        })
        .collect();
    let src = src.as_str();
    // Look at every `"` that opens a lowercase word literal; quotes are not paired up,
    // so a stray `'"'` elsewhere cannot shift the reading.
    for (start, _) in src.match_indices('"') {
        let rest = &src[start + 1..];
        let len = rest.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit())).unwrap_or(rest.len());
        let word = &rest[..len];
        if word.is_empty() || !word.starts_with(|c: char| c.is_ascii_lowercase()) || !rest[len..].starts_with('"') {
            continue;
        }
        let before = src[..start].trim_end();
        let after = rest[len + 1..].trim_start();
        let compared = after.starts_with("=>")
            || (after.starts_with('|') && !after.starts_with("||"))
            || (before.ends_with('|') && !before.ends_with("||"))
            || before.ends_with("==")
            || before.ends_with("_word(");
        if compared {
            words.insert(word.to_string());
        }
    }
    words
}

/// Non-ASCII characters the CQL 6 lexer reads as symbols or piece figurines, read from its source.
fn cql6_symbols() -> std::collections::BTreeSet<char> {
    let src = std::fs::read_to_string("src/lang/cql6/lexer.rs").expect("lexer source");
    let src = src.split("#[cfg(test)]").next().unwrap_or("");
    let chars: Vec<char> = src.chars().collect();
    let mut out = std::collections::BTreeSet::new();
    for w in chars.windows(3) {
        if w[0] == '\'' && w[2] == '\'' && !w[1].is_ascii() {
            out.insert(w[1]);
        }
    }
    out
}

#[test]
fn every_keyword_has_a_runnable_example() {
    use std::collections::BTreeSet;
    let examples = examples();
    // What the examples use, token by token (comments and strings do not count).
    let mut cql_words = BTreeSet::new();
    let mut cql_chars = BTreeSet::new();
    let mut legacy_words = BTreeSet::new();
    let mut yacpdb_words = BTreeSet::new();
    for ex in &examples {
        match ex.syntax.as_str() {
            "cql" => {
                let lexed = cqlrs::lang::cql6::lexer::lex(&ex.text);
                for t in &lexed.tokens {
                    if let cqlrs::lang::cql6::lexer::Tok::Word(w) = &t.tok {
                        cql_words.insert(w.clone());
                    }
                    if !matches!(t.tok, cqlrs::lang::cql6::lexer::Tok::Str(_)) {
                        let text = ex.text.get(t.span.start as usize..t.span.end as usize).unwrap_or("");
                        cql_chars.extend(text.chars().filter(|c| !c.is_ascii()));
                    }
                }
            }
            "legacy" => {
                for line in ex.text.lines() {
                    let code = line.split(';').next().unwrap_or("");
                    for w in code.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
                        if w.starts_with(':') {
                            legacy_words.insert(w.to_string());
                        }
                    }
                }
            }
            _ => {
                for line in ex.text.lines().filter(|l| !l.trim_start().starts_with("--")) {
                    for w in line.split(|c: char| !c.is_ascii_alphanumeric()) {
                        yacpdb_words.insert(w.to_string());
                    }
                }
            }
        }
    }
    let mut missing = Vec::new();
    for w in cql6_words() {
        if !cql_words.contains(&w) {
            missing.push(format!("CQL 6 keyword `{w}`"));
        }
    }
    for c in cql6_symbols() {
        if !cql_chars.contains(&c) {
            missing.push(format!("CQL 6 symbol `{c}`"));
        }
    }
    let legacy =
        cqlrs::lang::legacy::lower::keywords::KEYWORDS.iter().filter(|k| k.refusal_reason().is_none()).map(|k| k.word);
    for w in legacy.collect::<BTreeSet<_>>() {
        if !legacy_words.contains(w) {
            missing.push(format!("legacy keyword `{w}`"));
        }
    }
    for (p, _) in cqlrs::lang::yacpdb::PREDICATES {
        if !yacpdb_words.contains(*p) {
            missing.push(format!("YACPDB predicate `{p}`"));
        }
    }
    assert!(cql6_words().len() > 100 && cql6_symbols().len() > 20, "keyword tables not found");
    assert!(
        missing.is_empty(),
        "{} accepted keywords have no runnable example in docs/:\n{}",
        missing.len(),
        missing.join("\n")
    );
}
