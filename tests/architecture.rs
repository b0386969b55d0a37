//! The shape of the source tree, checked on every test run: no file over
//! [`MAX_FILE_LINES`] lines, no function over [`MAX_FN_LINES`] lines unless a `// long:`
//! comment right above it says why, no `thread_local!` (derived state lives in the
//! compiled query or in a worker's scratch, not beside them), and no import circle
//! between two files.
//!
//! How it reads the code (simple on purpose; the tree is formatted by `cargo fmt`):
//! - A function is a line declaring `fn name` (not in a comment) whose body opens on that
//!   line or a later one; it ends at the first later line holding only `}` at the
//!   declaration's indentation. Its length counts both lines. The `// long:` comment may
//!   stand above the function's doc comments and attributes.
//! - A file's module path comes from its place under `src/` (`a/mod.rs` and `a.rs` are
//!   `a`); `lib.rs` is the crate root; `main.rs` (the binary, another crate) is left out
//!   of the circle check. Inline `mod name {` blocks (tests) count for `super::`.
//! - A file uses another when a `use` item, or a `crate::…`/`super::…` path in its code
//!   (not in comments), names a module the other file holds: the longest prefix of the
//!   path that is a file's module decides. A module and its ancestors are one unit (a
//!   parent declares and re-exports its children), so uses between them do not count.
//! - A circle is two files each using the other.
//!
//! It also holds docs/architecture.md to the code: its table of where each CQL 6 keyword
//! is read is the parser's own (`FAMILY_WORDS`), and every file it and the README's map
//! of the layout name exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest file, in lines.
const MAX_FILE_LINES: usize = 1200;

/// Longest function, in lines, without a `// long:` reason.
const MAX_FN_LINES: usize = 150;

/// Exceptions to the rules below, each with its reason (none today: every long function
/// carries its `// long:` reason beside it instead).
const ALLOWED: &[&str] = &[];

/// Every `.rs` file under `dir`, in name order.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("src/ readable").map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A source file: its path from the crate root (`src/…`), module path and lines.
struct File {
    name: String,
    module: Vec<String>,
    lines: Vec<String>,
}

fn read_tree() -> Vec<File> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    rust_files(&root.join("src"), &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap();
            let mut module: Vec<String> =
                rel.trim_start_matches("src/").trim_end_matches(".rs").split('/').map(String::from).collect();
            if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                module.pop();
            }
            File { name: rel, module, lines: text.lines().map(String::from).collect() }
        })
        .collect()
}

/// Is the line (trimmed) a comment?
fn is_comment(line: &str) -> bool {
    line.trim_start().starts_with("//")
}

/// The name of the function a line declares, if it does.
fn declared_fn(line: &str) -> Option<&str> {
    if is_comment(line) {
        return None;
    }
    let t = line.trim_start();
    let at = t.find("fn ")?;
    // Only qualifiers before `fn`: `pub`, `pub(crate)`, `const`, `unsafe`, `async`, `extern "C"`.
    let before = &t[..at];
    let qualifiers_only = before
        .split_whitespace()
        .all(|w| w.starts_with("pub") || ["const", "unsafe", "async", "extern", "\"C\"", "default"].contains(&w));
    if !qualifiers_only {
        return None;
    }
    let rest = &t[at + 3..];
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// Functions over [`MAX_FN_LINES`] lines without a `// long:` reason: `(name, lines)`.
fn long_functions(file: &File) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, line) in file.lines.iter().enumerate() {
        let Some(name) = declared_fn(line) else { continue };
        let indent = line.len() - line.trim_start().len();
        // The body opens where the signature ends with `{`; a `;` first is a declaration.
        let mut open = None;
        for (j, l) in file.lines.iter().enumerate().skip(i) {
            let t = l.trim_end();
            if t.ends_with('{') {
                open = Some(j);
                break;
            }
            if t.ends_with(';') || (j > i && declared_fn(l).is_some()) {
                break;
            }
        }
        let Some(open) = open else { continue };
        let close = format!("{}}}", " ".repeat(indent));
        let Some(end) = (open + 1..file.lines.len()).find(|&j| file.lines[j].trim_end() == close) else { continue };
        let length = end - i + 1;
        if length <= MAX_FN_LINES {
            continue;
        }
        let mut k = i;
        let mut reasoned = false;
        while k > 0 {
            k -= 1;
            let above = file.lines[k].trim_start();
            if above.starts_with("// long:") {
                reasoned = true;
                break;
            }
            if !(above.starts_with("///") || above.starts_with("#[") || above.starts_with("//")) {
                break;
            }
        }
        if !reasoned {
            out.push((name.to_string(), length));
        }
    }
    out
}

/// The paths of a `use` tree (`a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`), each
/// as its segments; `self` in a group names the group's prefix.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    fn parse(s: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let s = s.trim();
        if s.is_empty() {
            return;
        }
        if let Some(open) = s.find('{') {
            let head: Vec<String> =
                s[..open].split("::").map(str::trim).filter(|x| !x.is_empty()).map(String::from).collect();
            let mut base = prefix.to_vec();
            base.extend(head);
            let inner = &s[open + 1..s.rfind('}').unwrap_or(s.len())];
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        parse(&inner[start..i], &base, out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            parse(&inner[start..], &base, out);
        } else {
            let path = s.split(" as ").next().unwrap_or(s);
            let mut full = prefix.to_vec();
            full.extend(path.split("::").map(str::trim).filter(|x| !x.is_empty() && *x != "self").map(String::from));
            out.push(full);
        }
    }
    let mut out = Vec::new();
    parse(tree, &[], &mut out);
    out
}

/// The `crate::…` and `super::…` paths written in a line of code, each as its segments.
fn inline_paths(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = line[from..].find(start).map(|a| a + from) {
            from = at + start.len();
            let preceded = at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
            // `super::super::x` is read once, from its first `super`.
            if preceded || (start == "super::" && at >= 7 && &line[at - 7..at] == "super::") {
                continue;
            }
            let rest = &line[at..];
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
            out.push(rest[..end].split("::").filter(|s| !s.is_empty()).map(String::from).collect());
        }
    }
    out
}

/// Every path a file names with `use` items and inline `crate::`/`super::` paths, made
/// absolute (from the crate root), with the module it is named in.
fn named_paths(file: &File) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    // Inline `mod name {` blocks: (indentation, name).
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut pending_use: Option<String> = None;
    for line in &file.lines {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if inline.last().is_some_and(|(i, _)| *i == indent && t == "}") {
            inline.pop();
            continue;
        }
        if is_comment(line) {
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        if let Some(pos) = words.iter().position(|w| *w == "mod") {
            if words.last() == Some(&"{") && pos + 2 == words.len() - 1 {
                inline.push((indent, words[pos + 1].to_string()));
                continue;
            }
        }
        let mut module = file.module.clone();
        module.extend(inline.iter().map(|(_, n)| n.clone()));
        let mut paths = Vec::new();
        if let Some(text) = pending_use.as_mut() {
            text.push_str(t);
            if t.ends_with(';') {
                let tree = pending_use.take().unwrap();
                paths.extend(expand_use(tree.trim_end_matches(';')));
            }
        } else if let Some(rest) = t.strip_prefix("use ").or_else(|| t.split_once(" use ").map(|(_, r)| r)) {
            if t.starts_with("use ") || t.starts_with("pub") {
                if rest.ends_with(';') {
                    paths.extend(expand_use(rest.trim_end_matches(';')));
                } else {
                    pending_use = Some(rest.to_string());
                }
            } else {
                paths.extend(inline_paths(t));
            }
        } else {
            paths.extend(inline_paths(t));
        }
        for p in paths {
            if let Some(abs) = absolute(&module, &p) {
                out.push(abs);
            }
        }
    }
    out
}

/// A path named in module `module`, from the crate root; `None` for other crates.
fn absolute(module: &[String], path: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "super" => {
            let mut base = module.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        "self" => {
            let mut base = module.to_vec();
            base.extend(path[1..].iter().cloned());
            Some(base)
        }
        // A child module named without a prefix; other crates are not ours.
        _ => {
            let mut base = module.to_vec();
            base.extend(path.iter().cloned());
            Some(base)
        }
    }
}

/// Is `a` the module `b` or one of its ancestors?
fn is_prefix(a: &[String], b: &[String]) -> bool {
    a.len() <= b.len() && a == &b[..a.len()]
}

fn allowed(item: &str) -> bool {
    ALLOWED.contains(&item)
}

#[test]
fn no_file_is_too_long() {
    let over: Vec<String> = read_tree()
        .iter()
        .filter(|f| f.lines.len() > MAX_FILE_LINES && !allowed(&format!("file {}", f.name)))
        .map(|f| format!("{}: {} lines", f.name, f.lines.len()))
        .collect();
    assert!(over.is_empty(), "files over {MAX_FILE_LINES} lines (split them by meaning):\n{}", over.join("\n"));
}

#[test]
fn no_function_is_too_long_without_a_reason() {
    let mut over = Vec::new();
    for f in read_tree() {
        for (name, lines) in long_functions(&f) {
            if !allowed(&format!("fn {} {name}", f.name)) {
                over.push(format!("{}: fn {name}: {lines} lines", f.name));
            }
        }
    }
    assert!(
        over.is_empty(),
        "functions over {MAX_FN_LINES} lines (split them, or say why beside them with `// long: …`):\n{}",
        over.join("\n")
    );
}

#[test]
fn no_thread_local_state() {
    let mut found = Vec::new();
    for f in read_tree() {
        for (i, line) in f.lines.iter().enumerate() {
            if !is_comment(line) && line.contains("thread_local!") {
                found.push(format!("{}:{}", f.name, i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "thread_local! state (keep it in the query or the worker's scratch):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_import_circles() {
    let files: Vec<File> = read_tree().into_iter().filter(|f| f.name != "src/main.rs").collect();
    let by_module: BTreeMap<Vec<String>, usize> =
        files.iter().enumerate().map(|(i, f)| (f.module.clone(), i)).collect();
    let mut uses: BTreeSet<(usize, usize)> = BTreeSet::new();
    for (i, f) in files.iter().enumerate() {
        for path in named_paths(f) {
            let target = (0..=path.len()).rev().find_map(|n| by_module.get(&path[..n]).copied());
            if let Some(j) = target {
                let (a, b) = (&files[i].module, &files[j].module);
                if !is_prefix(a, b) && !is_prefix(b, a) {
                    uses.insert((i, j));
                }
            }
        }
    }
    let mut circles = Vec::new();
    for &(i, j) in &uses {
        if i < j && uses.contains(&(j, i)) {
            let (a, b) = (&files[i].name, &files[j].name);
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            if !allowed(&format!("circle {a} {b}")) {
                circles.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(circles.is_empty(), "files that use each other (move what both need to one side):\n{}", circles.join("\n"));
}

#[test]
fn the_readers_understand_the_forms_they_rely_on() {
    assert_eq!(
        expand_use("super::{a, b::{self, c}, d as e}"),
        vec![vec!["super", "a"], vec!["super", "b"], vec!["super", "b", "c"], vec!["super", "d"]]
    );
    assert_eq!(
        inline_paths("let x = crate::scan::run(super::super::y::Z);"),
        vec![vec!["crate", "scan", "run"], vec!["super", "super", "y", "Z"]]
    );
    assert_eq!(absolute(&["a".into(), "b".into()], &["super".into(), "c".into()]), Some(vec!["a".into(), "c".into()]));
    assert_eq!(declared_fn("    pub(crate) fn run<E>("), Some("run"));
    assert_eq!(declared_fn("    // fn not_code()"), None);
    assert_eq!(declared_fn("    let f = |x| x; // fn"), None);
}

/// The table of docs/architecture.md: one row per parser family, its words sorted.
fn keyword_table() -> String {
    let mut out = String::from("| parser family | keywords |\n|---|---|\n");
    for (family, words) in cqlrs::lang::cql6::parser::FAMILY_WORDS {
        let mut words: Vec<&str> = words.to_vec();
        words.sort_unstable();
        let listed: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
        out.push_str(&format!("| `{family}` | {} |\n", listed.join(" ")));
    }
    out
}

#[test]
fn the_keyword_table_of_the_architecture_is_the_parsers() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md")).unwrap();
    let start = "<!-- keywords: generated from lang::cql6::parser::FAMILY_WORDS -->\n";
    let end = "<!-- end keywords -->";
    let a = doc.find(start).expect("docs/architecture.md has the keyword table's start marker") + start.len();
    let b = doc[a..].find(end).expect("and its end marker") + a;
    let expected = keyword_table();
    assert!(
        doc[a..b] == expected,
        "docs/architecture.md's keyword table is not the parser's; put this between the markers:\n{expected}"
    );
    // Every keyword is in the table once.
    let total: usize = cqlrs::lang::cql6::parser::FAMILY_WORDS.iter().map(|(_, w)| w.len()).sum();
    assert_eq!(total, cqlrs::lang::cql6::parser::KEYWORDS.len());
    assert!(expected.contains("`pin`") && expected.contains("| `attacks_and_geometry` |"));
}

/// The paths written in back quotes in a Markdown text that name files or folders of the
/// repository (`src/…`, `tests/…`, `docs/…`, …), without patterns (`<family>`, `*`).
fn files_named_in(text: &str) -> Vec<String> {
    let roots = ["src/", "tests/", "docs/", "scripts/", "benches/", "assets/", "examples/", "fuzz/", ".ci/"];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| roots.iter().any(|r| t.starts_with(r)))
        .filter(|t| !t.contains(['<', '*', ' ', '{']))
        .map(|t| t.trim_end_matches('/').to_string())
        .collect()
}

#[test]
fn the_architecture_and_the_readme_name_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    let mut seen = 0;
    for doc in ["docs/architecture.md", "README.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for path in files_named_in(&text) {
            seen += 1;
            if !root.join(&path).exists() {
                missing.push(format!("{doc}: `{path}`"));
            }
        }
    }
    assert!(seen > 20, "the docs name the files of the layout ({seen} found)");
    assert!(missing.is_empty(), "files named in the docs that do not exist:\n{}", missing.join("\n"));
    assert_eq!(files_named_in("see `src/a.rs`, `docs/<x>.md` and `ir::visit`"), vec!["src/a.rs".to_string()]);
}
