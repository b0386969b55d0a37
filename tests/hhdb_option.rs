//! CQL's `-hhdb KEY… [TEXT]` option: it adds one `hhdb` filter to the query, read as CQL
//! 6.2's command-line reader reads it (`hhdb-options-parse.cpp`). The studies are written
//! here, their `[White]`/`[Black]` tags as HHdb writes them; the expected game numbers are
//! what CQL 6.2 (build 9.493) gives with `-hhdb composer Kasparyan` and `-hhdb "(c)"`.

use std::process::Output;

mod common;
use common::{cqlrs, temp_dir};

/// Three studies: 1 by Kasparyan with the mark `(c)`, 2 by Troitzky, 3 by Kasparyan.
fn studies(dir: &std::path::Path) -> String {
    let game = |white: &str, black: &str| {
        format!(
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"1950.??.??\"]\n[Round \"?\"]\n[White \"{white}\"]\n\
             [Black \"{black}\"]\n[Result \"1-0\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 1-0\n\n"
        )
    };
    let text = game("Kasparyan, Genrikh Moiseevich", "+0000.10e1e8 (c)")
        + &game("Troitzky, Alexey Alexeyevich", "+0000.10e1e8")
        + &game("Kasparyan, Genrikh Moiseevich", "+0000.10e1e8");
    let path = dir.join("studies.pgn");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn numbers(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect()
}

#[test]
fn a_key_and_its_text_select_the_composer() {
    let dir = temp_dir("composer");
    let pgn = studies(&dir);
    let o = cqlrs(&["-i", &pgn, "--numbers", "-hhdb", "composer", "Kasparyan", "-cql", "cql() initial"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(numbers(&o), ["1", "3"]);
}

#[test]
fn a_quoted_mark_and_the_words_after_the_keys() {
    let dir = temp_dir("mark");
    let pgn = studies(&dir);
    // `(c)` is a key; `initial` is not, so the words of `-hhdb` end before it and the
    // script given with `-cql` follows.
    let o = cqlrs(&["-i", &pgn, "--numbers", "-hhdb", "(c)", "-cql", "initial"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(numbers(&o), ["1"]);
}

#[test]
fn no_key_after_the_option_is_an_error() {
    let o = cqlrs(&["-hhdb", "kasparyan", "-cql", "initial"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("`-hhdb` needs hhdb keys"), "{err}");
    let o = cqlrs(&["-hhdb", "composer"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs the text to look for"));
}
