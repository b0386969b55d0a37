//! Probe of the legacy language against Scidb's CQL-S manual.
//!
//! `tests/legacy_keywords.txt` lists every keyword the manual's pages describe (match list,
//! position list, relation list), with the page it comes from and parameters the manual
//! shows for it. Each keyword is tried, through the release binary, in the list the
//! manual puts it in. The probe fails when a keyword is refused, unless the keyword is in
//! [`DOCUMENTED_REFUSALS`]: those must be refused with an error that names the keyword,
//! and each must be listed in the Legacy section of `docs/compat.md`.

use std::path::Path;
use std::process::Command;

/// Keywords cqlrs refuses on purpose (keyword, list), with the reason; each is repeated in
/// the Legacy section of docs/compat.md. Only the keywords that need a chess engine's
/// evaluation may be here (issue #16's acceptance); [`only_engine_keywords_are_refused`]
/// keeps it so.
const DOCUMENTED_REFUSALS: &[(&str, &str, &str)] = &[
    (":evaluation", "position", "needs a chess engine's evaluation"),
    (":moveevaluation", "position", "needs a chess engine's evaluation"),
    (":endgameevaluation", "position", "needs endgame tablebases"),
];

struct Row {
    keyword: String,
    list: String,
    page: String,
    params: String,
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string("tests/legacy_keywords.txt").expect("keyword list");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert!(cols.len() == 4, "bad line in legacy_keywords.txt: {l:?}");
            Row {
                keyword: cols[0].to_string(),
                list: cols[1].to_string(),
                page: cols[2].to_string(),
                params: cols[3].to_string(),
            }
        })
        .collect()
}

/// The probe script for one keyword in its list.
fn script(row: &Row) -> String {
    let kw = format!("{} {}", row.keyword, row.params);
    match row.list.as_str() {
        "match" if row.keyword == ":forany" => format!("(match {kw} (position $t))"),
        "match" => format!("(match {kw})"),
        "relation" => format!("(match (position :relation ({kw})))"),
        _ if row.keyword == ":tagmatch" => format!("(match :forany t N (position {kw}))"),
        _ if row.keyword == ":sumrange" => format!("(match (position P :shift :accumulate acc {kw}))"),
        _ => format!("(match (position {kw}))"),
    }
}

/// Run one probe: `Ok` when it ran (exit 0 or 1), `Err(stderr)` when it was refused.
fn probe(dir: &Path, n: usize, text: &str) -> Result<(), String> {
    let script = dir.join(format!("probe{n}.cql"));
    std::fs::write(&script, text).unwrap();
    let pgn = dir.join("empty.pgn");
    let out = Command::new(env!("CARGO_BIN_EXE_cqlrs"))
        .arg("--syntax")
        .arg("legacy")
        .arg("--input")
        .arg(&pgn)
        .arg("--count")
        .arg(&script)
        .output()
        .expect("run cqlrs");
    match out.status.code() {
        Some(0) | Some(1) => Ok(()),
        _ => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

#[test]
fn every_manual_keyword_is_accepted_where_the_manual_allows_it() {
    let rows = rows();
    assert!(rows.len() >= 180, "the manual documents about 190 keywords, found {}", rows.len());
    let dir = std::env::temp_dir().join(format!("cqlrs-legacy-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("empty.pgn"),
        "[Event \"probe\"]\n[Site \"x\"]\n[Date \"2017.05.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
    )
    .unwrap();
    let mut failures = Vec::new();
    let mut accepted = 0;
    for (n, row) in rows.iter().enumerate() {
        let text = script(row);
        let refusal = DOCUMENTED_REFUSALS.iter().find(|(k, l, _)| *k == row.keyword && *l == row.list);
        match (probe(&dir, n, &text), refusal) {
            (Ok(()), None) => accepted += 1,
            (Err(e), None) => failures.push(format!(
                "{} ({} list, {}) refused: {}\n  script: {text}",
                row.keyword,
                row.list,
                row.page,
                e.trim()
            )),
            (Ok(()), Some(_)) => failures.push(format!(
                "{} is accepted now: take it out of DOCUMENTED_REFUSALS and docs/compat.md",
                row.keyword
            )),
            (Err(e), Some(_)) => {
                if !e.contains(&format!("`{}`", row.keyword)) {
                    failures.push(format!("{} is refused without naming it: {}", row.keyword, e.trim()));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{} of {} keywords failed:\n{}", failures.len(), rows.len(), failures.join("\n"));
    assert_eq!(accepted + DOCUMENTED_REFUSALS.len(), rows.len());
}

#[test]
fn only_engine_keywords_are_refused() {
    let engine = [":evaluation", ":moveevaluation", ":endgameevaluation"];
    for (kw, _, why) in DOCUMENTED_REFUSALS {
        assert!(engine.contains(kw), "{kw} is refused ({why}) but only engine-evaluation keywords may be");
    }
}

#[test]
fn documented_refusals_are_listed_in_compat() {
    let compat = std::fs::read_to_string("docs/compat.md").expect("docs/compat.md");
    let legacy = compat.split("## Legacy").nth(1).expect("a Legacy section in docs/compat.md");
    let legacy = legacy.split("\n## ").next().unwrap_or("");
    for (kw, _, why) in DOCUMENTED_REFUSALS {
        assert!(legacy.contains(&format!("`{kw}`")), "docs/compat.md's Legacy section should list `{kw}` ({why})");
    }
}

#[test]
fn the_list_names_manual_pages_and_lists() {
    for row in rows() {
        assert!(row.keyword.starts_with(':'), "{}", row.keyword);
        assert!(["match", "position", "relation"].contains(&row.list.as_str()), "{}: list {}", row.keyword, row.list);
        assert!(row.page.starts_with("CQL-"), "{}: page {}", row.keyword, row.page);
    }
}
