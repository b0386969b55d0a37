//! The first hour of a new user (issue 28), run through the binary: CQL's ranged
//! options give the games the same query written in the script gives; a PGN given where
//! the script goes, text that is not PGN, a directory, a missing file and a cut
//! compressed file each get one plain message; a typo inside braces is one error and a
//! square off the board is named; `--help` and the manual page show what the README
//! uses; and every `cqlrs` example of README.md runs as written on the bundled data and
//! prints what the README says it prints.
//! Every test works in its own temporary directory.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;
use common::{cqlrs_in, stderr, stdout, temp_dir, BIN};

/// The game numbers a `--numbers` run printed.
fn numbers(o: &Output) -> Vec<u64> {
    stdout(o).lines().map(|l| l.trim().parse().unwrap_or_else(|_| panic!("not a number: {l:?}"))).collect()
}

// ----- 1. ranged options and their script forms ----------------------------------------

/// Four movetexts with a known number of positions in which the side to move is in
/// check (counted by hand, and confirmed with python-chess's `board.is_check()`):
/// none; Qxf7# (1); Bxf7+, Qh5+ (2); Bxf7+, Qh5+, Qf3+ (3).
const NO_CHECK: &str = "1. d4 d5 2. c4 e6 *";
const ONE_CHECK: &str = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0";
const TWO_CHECKS: &str = "1. e4 e5 2. Bc4 Nc6 3. Bxf7+ Kxf7 4. Qh5+ g6 *";
const THREE_CHECKS: &str = "1. e4 e5 2. Bc4 Nc6 3. Bxf7+ Kxf7 4. Qh5+ g6 5. Qf3+ Ke8 *";

/// Seven games: (date tag, White's rating, movetext). Game 6 has no date and no rating,
/// game 7 an unknown date.
fn ranged_games() -> String {
    let games = [
        (Some("1899.05.01"), Some(1800), NO_CHECK),
        (Some("1900.01.01"), Some(2000), ONE_CHECK),
        (Some("1905.03.03"), Some(2100), TWO_CHECKS),
        (Some("1910.12.31"), Some(2800), THREE_CHECKS),
        (Some("1911.01.01"), Some(2801), ONE_CHECK),
        (None, None, TWO_CHECKS),
        (Some("????.??.??"), Some(1999), THREE_CHECKS),
    ];
    let mut text = String::new();
    for (i, (date, elo, moves)) in games.iter().enumerate() {
        text.push_str(&format!("[Event \"game {}\"]\n", i + 1));
        if let Some(d) = date {
            text.push_str(&format!("[Date \"{d}\"]\n"));
        }
        if let Some(e) = elo {
            text.push_str(&format!("[WhiteElo \"{e}\"]\n"));
        }
        text.push_str(&format!("\n{moves}\n\n"));
    }
    text
}

#[test]
fn ranged_options_select_the_games_their_script_forms_select() {
    let dir = temp_dir("ranges");
    std::fs::write(dir.join("g.pgn"), ranged_games()).unwrap();
    // (options, query of the option run, equivalent queries written in the script,
    // games counted by hand from the table above; the CQL 6.2 binary gives the same games
    // for `-year 1900 1910`, `-year 1905`, `-gamenumber 3 6`, `-matchcount 2 3` and
    // `-matchcount 1` on this file).
    let cases: &[(&[&str], &str, &[&str], &[u64])] = &[
        (&["-year", "1900", "1910"], "true", &["1900 <= year <= 1910", "year >= 1900 and year <= 1910"], &[2, 3, 4]),
        (&["-year", "1905"], "true", &["year == 1905"], &[3]),
        (&["-year", "1899", "1900"], "true", &["1899 <= year <= 1900"], &[1, 2]),
        (&["-year", "1911", "2000"], "true", &["1911 <= year <= 2000"], &[5]),
        (&["-gamenumber", "3", "6"], "true", &["cql(gamenumber 3 6) true", "3 <= gamenumber <= 6"], &[3, 4, 5, 6]),
        (&["-gamenumber", "4"], "true", &["cql(gamenumber 4) true", "gamenumber == 4"], &[4]),
        (&["-matchcount", "2", "3"], "check", &["cql(matchcount 2 3) check"], &[3, 4, 6, 7]),
        (&["-matchcount", "1"], "check", &["cql(matchcount 1 1) check"], &[2, 5]),
        (&["-matchcount", "3", "9"], "check", &["cql(matchcount 3 9) check"], &[4, 7]),
        (
            &["-year", "1900", "1910", "-matchcount", "2", "3"],
            "check",
            &["cql(matchcount 2 3) 1900 <= year <= 1910 check"],
            &[3, 4],
        ),
    ];
    // CQL 6.2 has no `-elo` option (its command-line reader has none): the option is
    // refused with the query form, which selects the games rated 2000 to 2800.
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "--numbers", "-elo", "2000", "2800", "-cql", "true"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("2000 <= elo white <= 2800"), "{}", stderr(&o));
    std::fs::write(dir.join("q.cql"), "2000 <= elo white <= 2800\n").unwrap();
    assert_eq!(numbers(&cqlrs_in(&dir, &["-i", "g.pgn", "--numbers", "q.cql"])), [2, 3, 4]);
    for (options, body, scripts, expected) in cases {
        let mut args: Vec<&str> = vec!["-i", "g.pgn", "--numbers", "-cql", body];
        args.extend_from_slice(options);
        let o = cqlrs_in(&dir, &args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{options:?}: {}", stderr(&o));
        assert_eq!(numbers(&o), *expected, "{options:?} {body}: {}", stderr(&o));
        for script in *scripts {
            std::fs::write(dir.join("q.cql"), format!("{script}\n")).unwrap();
            let o = cqlrs_in(&dir, &["-i", "g.pgn", "--numbers", "q.cql"]);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{script}: {}", stderr(&o));
            assert_eq!(numbers(&o), *expected, "script `{script}` against {options:?}: {}", stderr(&o));
        }
    }
}

// ----- 2. a PGN where the script goes --------------------------------------------------

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_pgn_given_as_the_script_is_named_and_the_fix_shown() {
    let dir = temp_dir("pgn-script");
    let games = ranged_games();
    std::fs::write(dir.join("games.pgn"), &games).unwrap();
    std::fs::write(dir.join("games.pgn.gz"), gzip(games.as_bytes())).unwrap();
    // A PGN whose name does not say so, recognised by its first line.
    std::fs::write(dir.join("archive.txt"), &games).unwrap();
    for (args, fix) in [
        (&["-cql", "mate", "games.pgn"][..], "cqlrs -i games.pgn -cql mate"),
        (&["games.pgn"][..], "cqlrs -i games.pgn QUERY.cql"),
        (&["-cql", "mate", "games.pgn.gz"][..], "cqlrs -i games.pgn.gz -cql mate"),
        (&["-cql", "btm mate", "archive.txt"][..], "cqlrs -i archive.txt -cql 'btm mate'"),
    ] {
        let o = cqlrs_in(&dir, args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("this is a PGN file, given where the query script goes"), "{args:?}: {err}");
        assert!(err.contains(fix), "{args:?}: {err}");
        assert!(!err.contains("unknown filter"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 2, "{args:?}: {err}");
    }
}

#[test]
fn a_query_word_given_as_the_script_gets_the_inline_form() {
    let dir = temp_dir("word-script");
    std::fs::write(dir.join("g.pgn"), ranged_games()).unwrap();
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "mate"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("mate: no such script file") && err.contains("-cql mate"), "{err}");
}

// ----- 3. inputs that are not PGN ------------------------------------------------------

#[test]
fn text_that_is_not_pgn_is_reported_once_and_counted_as_unreadable() {
    let dir = temp_dir("not-pgn");
    std::fs::write(dir.join("g.pgn"), ranged_games()).unwrap();
    let readme = "# cqlrs\n\ncqlrs finds chess games by theme.\n\n```sh\n# 1. Build, then run\ncargo run --release -- -i a.pgn\n```\n";
    std::fs::write(dir.join("README.md"), readme).unwrap();
    std::fs::write(dir.join("games.json"), "{\"games\": [{\"white\": \"Tal\", \"moves\": \"e4 e5\"}]}\n").unwrap();
    for file in ["README.md", "games.json"] {
        let o = cqlrs_in(&dir, &["-i", "g.pgn", "-i", file, "-cql", "check", "--count"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        assert_eq!(err.matches("not PGN").count(), 1, "{file}: {err}");
        assert!(err.contains(&format!("{file}: this is not PGN")), "{file}: {err}");
        // Only the seven games of g.pgn are counted (game 1 has no check); the text file
        // is no game.
        assert!(err.contains("6 matches of 7 games (1 unmatched, 0 skipped)"), "{file}: {err}");
        assert!(!err.contains("illegal move"), "{file}: {err}");
        assert!(err.contains("1 input file could not be read"), "{file}: {err}");
    }
    // Empty input is no game and no error.
    std::fs::write(dir.join("empty.pgn"), "").unwrap();
    let o = cqlrs_in(&dir, &["-i", "g.pgn", "-i", "empty.pgn", "-cql", "check", "--count"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_directory_and_a_missing_file_get_plain_messages() {
    let dir = temp_dir("dir-missing");
    std::fs::write(dir.join("g.pgn"), ranged_games()).unwrap();
    std::fs::create_dir_all(dir.join("games")).unwrap();
    let o = cqlrs_in(&dir, &["-i", "games", "-cql", "mate", "--count"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("games: is a directory, not a PGN file"), "{err}");
    assert!(err.contains("-i games/*.pgn"), "{err}");
    assert!(!err.contains("reading failed") && !err.contains("line 0"), "{err}");

    let o = cqlrs_in(&dir, &["-i", "g.pgn", "-i", "nothere.pgn", "-cql", "mate", "--count"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("nothere.pgn: no such file"), "{err}");
    assert!(!err.contains("to the end"), "{err}");
    assert!(err.contains("1 input file could not be read"), "{err}");
}

#[test]
fn a_compressed_stream_cut_short_is_named_and_the_run_fails() {
    let dir = temp_dir("cut");
    let mut text = String::new();
    for _ in 0..400 {
        text.push_str(&ranged_games());
    }
    let gz = gzip(text.as_bytes());
    let zst = zstd::encode_all(text.as_bytes(), 3).unwrap();
    let bz = {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    // Cut in the middle, and cut by only the last bytes (the stream's trailer).
    for (name, whole) in [("a.pgn.gz", &gz), ("a.pgn.zst", &zst), ("a.pgn.bz2", &bz)] {
        for cut in [whole.len() / 2, whole.len() - 3] {
            std::fs::write(dir.join(name), &whole[..cut]).unwrap();
            let o = cqlrs_in(&dir, &["-i", name, "-cql", "mate", "--count"]);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{name} cut at {cut}: {err}");
            assert!(err.contains(&format!("{name}: the compressed stream ends early")), "{name} cut at {cut}: {err}");
            assert!(!err.contains("unterminated tag"), "{name} cut at {cut}: {err}");
        }
    }
}

// ----- 6. errors -------------------------------------------------------------------------

#[test]
fn a_typo_inside_braces_is_one_error() {
    let dir = temp_dir("typo");
    for query in ["{ mate chekc }", "flipcolor { btm mtae }", "{ check\n  chekc }\nmate"] {
        let o = cqlrs_in(&dir, &["-parse", "-cql", query]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{query}: {err}");
        assert_eq!(err.matches("error:").count(), 1, "{query}: {err}");
        assert!(!err.contains("unexpected `}`"), "{query}: {err}");
        assert!(err.contains("unknown filter or variable"), "{query}: {err}");
    }
    // Two typos in one block are two errors, and still no complaint about the brace.
    let o = cqlrs_in(&dir, &["-parse", "-cql", "{ foo typo }"]);
    let err = stderr(&o);
    assert_eq!(err.matches("error:").count(), 2, "{err}");
    assert!(!err.contains("unexpected `}`"), "{err}");
    // A move written as in PGN gets the CQL 6 spelling.
    let o = cqlrs_in(&dir, &["-parse", "-cql", "Qxh7"]);
    assert!(stderr(&o).contains("`Q[x]h7`"), "{}", stderr(&o));
    let o = cqlrs_in(&dir, &["-parse", "-cql", "exd5"]);
    assert!(stderr(&o).contains("`P[x]d5`"), "{}", stderr(&o));
    // An unclosed brace is still reported as such.
    let o = cqlrs_in(&dir, &["-parse", "-cql", "{ mate"]);
    assert!(stderr(&o).contains("expected `}`"), "{}", stderr(&o));
}

#[test]
fn a_square_off_the_board_is_named() {
    let dir = temp_dir("square");
    for (query, square) in [("♚a-h9", "a-h9"), ("Ka-h9", "a-h9"), ("♖e0", "e0"), ("a-h9 & K", "a-h9"), ("♖e9", "e9")]
    {
        let o = cqlrs_in(&dir, &["-parse", "-cql", query]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{query}: {err}");
        assert!(err.contains(&format!("`{square}` is not a square")), "{query}: {err}");
        assert_eq!(err.matches("error:").count(), 1, "{query}: {err}");
        assert!(!err.contains("unknown filter"), "{query}: {err}");
    }
    // Squares on the board still read as before.
    let o = cqlrs_in(&dir, &["-parse", "-cql", "♚a-h8 Ka1-8 a-h1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

// ----- 4, 5. help, manual page, completions --------------------------------------------

#[test]
fn help_and_manual_page_show_the_input_and_output_options() {
    let dir = temp_dir("help");
    let o = cqlrs_in(&dir, &["--help"]);
    let help = stdout(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(help.contains("-i GAMES.pgn"), "{help}");
    assert!(help.contains("-i, --input <FILE>") && help.contains("-o, --output <FILE>"), "{help}");

    let o = cqlrs_in(&dir, &["man"]);
    let page = stdout(&o);
    assert_eq!(o.status.code(), Some(0));
    let sections: Vec<&str> =
        page.lines().filter_map(|l| l.strip_prefix(".SH ")).map(|s| s.trim_matches('"')).collect();
    for wanted in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO"] {
        assert!(sections.contains(&wanted), "no {wanted} in {sections:?}");
    }
    assert!(page.contains("\\-i GAMES.pgn") || page.contains("\\-i GAMES"), "synopsis without -i");
    // Only pages that exist are named: no per-command pages are installed.
    assert!(!page.contains("cqlrs\\-completions(") && !page.contains("cqlrs\\-man("), "{page}");
    assert!(!page.contains("cqlrs-completions(") && !page.contains("cqlrs-man("), "{page}");
}

#[test]
fn bash_completes_the_single_dash_cql_options() {
    let dir = temp_dir("completion");
    let o = cqlrs_in(&dir, &["completions", "bash"]);
    let script = stdout(&o);
    assert_eq!(o.status.code(), Some(0));
    // The words offered for the command itself: the `opts` list of its `cqlrs)` case.
    let top = script
        .lines()
        .skip_while(|l| l.trim() != "cqlrs)")
        .find(|l| l.trim_start().starts_with("opts=\""))
        .expect("an opts list for cqlrs");
    for word in ["-gamenumber", "-matchcount", "-year", "-input", "-output", "-flipcolor", "-parse", "--input"] {
        assert!(top.split(|c: char| c == ' ' || c == '"').any(|w| w == word), "{word} missing from {top}");
    }
    // bash itself offers them for `cqlrs -gamen<Tab>`, when bash is there.
    if Command::new("bash").arg("--version").output().is_ok() {
        let path = dir.join("cqlrs.bash");
        std::fs::write(&path, &script).unwrap();
        let probe = format!(
            "source {}; COMP_WORDS=(cqlrs -gamen); COMP_CWORD=1; COMP_LINE='cqlrs -gamen'; COMP_POINT=12; \
             _cqlrs cqlrs -gamen cqlrs; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display()
        );
        let o = Command::new("bash").arg("-c").arg(&probe).output().unwrap();
        assert_eq!(stdout(&o).trim(), "-gamenumber", "{}", stderr(&o));
    }
}

// ----- 4. README examples ----------------------------------------------------------------

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One example of README.md: the command line and the texts the README says it prints
/// (`# prints: …` lines after it; `…` stands for any text).
struct Example {
    command: String,
    prints: Vec<String>,
}

/// The commands of README.md's `sh` blocks that run cqlrs (`cqlrs …` or
/// `cargo run --release -- …`), in order.
fn readme_examples() -> Vec<Example> {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut examples: Vec<Example> = Vec::new();
    let mut in_sh = false;
    // A line ending in `\` goes on in the next one, as the shell reads it.
    let mut lines: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        match lines.last_mut() {
            Some(last) if open => last.push_str(line.trim_start()),
            _ => lines.push(line.to_string()),
        }
        let last = lines.last_mut().expect("a line was just pushed");
        open = last.ends_with('\\');
        if open {
            last.pop();
        }
    }
    for line in lines.iter().map(String::as_str) {
        if line.starts_with("```") {
            in_sh = line.trim() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(p) = line.strip_prefix("# prints: ") {
            examples.last_mut().expect("`# prints:` after a command").prints.push(p.to_string());
        } else if let Some(rest) = line.strip_prefix("cargo run --release -- ") {
            examples.push(Example { command: format!("cqlrs {rest}"), prints: Vec::new() });
        } else if line.starts_with("cqlrs ") || line.starts_with("mkdir -p ") {
            examples.push(Example { command: line.to_string(), prints: Vec::new() });
        }
    }
    examples
}

/// Does `output` contain the pieces of `pattern` (split at `…`) in order?
fn shows(output: &str, pattern: &str) -> bool {
    let mut rest = output;
    for piece in pattern.split('…').map(str::trim).filter(|p| !p.is_empty()) {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn every_readme_example_runs_as_written_and_prints_what_it_says() {
    let dir = temp_dir("readme");
    // A fresh clone's working directory: the bundled data and scripts, a home of its own.
    let copy = |from: &str| {
        let status = Command::new("cp").arg("-r").arg(repo().join(from)).arg(&dir).status().unwrap();
        assert!(status.success());
    };
    copy("data");
    copy("examples");
    let bin_dir = dir.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(BIN, bin_dir.join("cqlrs")).unwrap();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let examples = readme_examples();
    assert!(examples.len() >= 12, "only {} examples found", examples.len());
    for example in &examples {
        let o = Command::new("sh")
            .arg("-c")
            .arg(&example.command)
            .current_dir(&dir)
            .env("PATH", &path)
            .env("HOME", &home)
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(0), "`{}` failed:\n{all}", example.command);
        for p in &example.prints {
            assert!(shows(&all, p), "`{}` does not print `{p}`:\n{all}", example.command);
        }
    }
}
