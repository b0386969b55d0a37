//! cqlrs as the `cql` of programs written for CQL 6.2: a batch runner that treats any
//! non-zero exit status as a failed run and counts the games of an output file by its
//! `[Event ` lines, and a GUI that reads CQL's GUI protocol from stdout
//! (`-gui -guipgnstdout`). Each test writes its own small PGN files; the expected
//! matches are chess facts worked out by hand (which games end in mate, on which move),
//! and the expected lines are those of the PGN standard's export format and of CQL's
//! GUI protocol (docs/gui.md).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{cqlrs, temp_dir, BIN};

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Four games as lichess and TWIC write them: game 1 (no `Event` tag, as in lichess
/// exports) ends in Fool's mate (2...Qh4#, White to move on move 3), game 2 in Scholar's
/// mate (4.Qxf7#, Black to move on move 4); games 3 and 4 end without mate.
const GAMES: &str = "[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
[Event \"Club\"]\n[Site \"Town\"]\n[Date \"2020.01.02\"]\n[Round \"1\"]\n[White \"c\"]\n[Black \"d\"]\n[Result \"1-0\"]\n[WhiteElo \"1500\"]\n\n\
1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
[Event \"Club\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n\n\
[Site \"x\"]\n\n1. d4 d5 *\n\n";

/// One row of a batch runner's summary: what reti's runner (`run_cql_job`) records.
#[derive(Debug, PartialEq)]
struct Row {
    status: &'static str,
    match_count: Option<usize>,
    returncode: i32,
}

/// Run a script the way a batch runner calls `cql`: `-i PGN -o OUT -matchstring STEM
/// SCRIPT`, the output removed first; a non-zero status or a missing output file is a
/// failure; the matches are the output's lines that start with `[Event `.
fn batch_run(dir: &Path, pgn: &str, script: &str) -> Row {
    let stem = Path::new(script).file_stem().unwrap().to_string_lossy().into_owned();
    let out = dir.join(format!("{stem}-out.pgn"));
    let _ = std::fs::remove_file(&out);
    let o = cqlrs(&["-i", pgn, "-o", &out.to_string_lossy(), "-matchstring", &stem, script]);
    let returncode = o.status.code().unwrap_or(-1);
    if returncode != 0 {
        return Row { status: "error", match_count: None, returncode };
    }
    let Ok(written) = std::fs::read_to_string(&out) else {
        return Row { status: "error", match_count: None, returncode };
    };
    let count = written.lines().filter(|l| l.starts_with("[Event ")).count();
    Row { status: "ok", match_count: Some(count), returncode }
}

#[test]
fn a_batch_runner_gets_status_0_and_counts_games_by_their_event_lines() {
    let dir = temp_dir("batch");
    let pgn = write(&dir, "games.pgn", GAMES);
    let mates = write(&dir, "mates.cql", "cql() mate\n");
    let stalemates = write(&dir, "stalemates.cql", "cql() stalemate\n");
    let broken = write(&dir, "broken.cql", "cql() mate mtae\n");
    // Both mates are counted, the lichess-style game without an Event tag too.
    assert_eq!(batch_run(&dir, &pgn, &mates), Row { status: "ok", match_count: Some(2), returncode: 0 });
    // A run that matches nothing completed: status 0, an output file with no game.
    assert_eq!(batch_run(&dir, &pgn, &stalemates), Row { status: "ok", match_count: Some(0), returncode: 0 });
    // A script that does not compile is a failure.
    let row = batch_run(&dir, &pgn, &broken);
    assert_eq!((row.status, row.match_count), ("error", None));
    assert_ne!(row.returncode, 0);
}

#[test]
fn grep_status_is_only_given_on_request() {
    let dir = temp_dir("grep");
    let pgn = write(&dir, "games.pgn", GAMES);
    let none = cqlrs(&["-i", &pgn, "-cql", "stalemate", "--numbers"]);
    assert_eq!(none.status.code(), Some(0), "{}", text(&none.stderr));
    let grep = cqlrs(&["-i", &pgn, "-cql", "stalemate", "--numbers", "--grep-status"]);
    assert_eq!(grep.status.code(), Some(1), "{}", text(&grep.stderr));
    let found = cqlrs(&["-i", &pgn, "-cql", "mate", "--numbers", "--grep-status"]);
    assert_eq!(found.status.code(), Some(0));
    assert_eq!(text(&found.stdout), "1\n2\n");
    // The old switch still works and changes nothing.
    let old = cqlrs(&["-i", &pgn, "-cql", "stalemate", "--numbers", "--exit-zero"]);
    assert_eq!(old.status.code(), Some(0));
}

#[test]
fn games_are_written_with_the_seven_tag_roster_first() {
    let dir = temp_dir("roster");
    let pgn = write(&dir, "games.pgn", GAMES);
    let out = dir.join("o.pgn").to_string_lossy().into_owned();
    let o = cqlrs(&["-i", &pgn, "-o", &out, "-cql", "mate"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let written = std::fs::read_to_string(&out).unwrap();
    // The PGN export format: the seven tags in order, `?` (and `????.??.??`) for a
    // missing one, then the game's other tags.
    let first = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\n";
    assert!(written.starts_with(first), "{written}");
    let second = "[Event \"Club\"]\n[Site \"Town\"]\n[Date \"2020.01.02\"]\n[Round \"1\"]\n[White \"c\"]\n[Black \"d\"]\n[Result \"1-0\"]\n[WhiteElo \"1500\"]\n\n";
    assert!(written.contains(second), "{written}");
    // A set-up position's FEN comes after every other tag.
    let setup = write(
        &dir,
        "setup.pgn",
        "[FEN \"7k/8/6KQ/8/8/8/8/8 w - - 0 1\"]\n[SetUp \"1\"]\n[Annotator \"z\"]\n[Result \"1-0\"]\n\n1. Qg7# 1-0\n\n",
    );
    let o = cqlrs(&["-i", &setup, "-o", "-", "-cql", "mate"]);
    let written = text(&o.stdout);
    let tags = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"1-0\"]\n\
                [SetUp \"1\"]\n[Annotator \"z\"]\n[FEN \"7k/8/6KQ/8/8/8/8/8 w - - 0 1\"]\n\n";
    assert!(written.starts_with(tags), "{written}");
}

#[test]
fn the_summary_line_and_progress_are_cqls_on_stdout_when_the_games_go_to_a_file() {
    let dir = temp_dir("summary");
    let pgn = write(&dir, "games.pgn", GAMES);
    let out = dir.join("o.pgn").to_string_lossy().into_owned();
    let o = cqlrs(&["-i", &pgn, "-o", &out, "-cql", "mate", "-showmatches", "-lineincrement", "2"]);
    let stdout = text(&o.stdout);
    // `-lineincrement 2`: a dot every game (2/10, at least 1) and `[N]` every second game;
    // `-showmatches`: `<N>` after the progress of each matching game.
    assert!(stdout.starts_with(".<1>[2]\n<2>.[4]\n"), "{stdout}");
    let summary = stdout.lines().find(|l| l.contains(" matches of ")).expect("summary line");
    let words: Vec<&str> = summary.split(' ').collect();
    assert_eq!(&words[..5], ["2", "matches", "of", "4", "games"], "{summary}");
    assert_eq!((words[5], words[7], words[8]), ("in", "seconds", "using"), "{summary}");
    assert!(words[6].parse::<f64>().is_ok() && words[9].parse::<u32>().is_ok(), "{summary}");
    assert!(summary.ends_with(&format!(" to {out}")), "{summary}");
}

#[test]
fn noclobber_append_and_nosort() {
    let dir = temp_dir("files");
    let pgn = write(&dir, "games.pgn", GAMES);
    let out = write(&dir, "kept.pgn", "old text\n");
    let o = cqlrs(&["-i", &pgn, "-o", &out, "-cql", "mate", "--noclobber"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old text\n");
    let o = cqlrs(&["-i", &pgn, "-o", &out, "-cql", "mate", "--append"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let appended = std::fs::read_to_string(&out).unwrap();
    assert!(appended.starts_with("old text\n[Event \"?\"]"), "{appended}");
    assert_eq!(appended.matches("[Event ").count(), 2);
    // `--append` is a long option only: CQL's `-a` is another option.
    let o = cqlrs(&["-i", &pgn, "-o", &out, "-cql", "mate", "-append"]);
    assert_eq!(o.status.code(), Some(2));
    // Sorted by the move number of the mate, largest first: game 2 (move 4) before
    // game 1 (move 3); `--nosort` keeps the input order.
    let order = |extra: &[&str]| {
        let mut args = vec!["-i", pgn.as_str(), "-o", "-", "-cql", "mate sort \"move\" movenumber"];
        args.extend_from_slice(extra);
        let o = cqlrs(&args);
        let s = text(&o.stdout);
        s.match_indices("{Game number ").map(|(i, _)| s[i + 13..i + 14].to_string()).collect::<Vec<_>>()
    };
    assert_eq!(order(&[]), ["2", "1"]);
    assert_eq!(order(&["--nosort"]), ["1", "2"]);
}

/// What a GUI takes from CQL's GUI protocol.
#[derive(Debug, Default)]
struct GuiStream {
    /// `<CqlGuiVariable> NAME VALUE`: the last value of each name.
    variables: BTreeMap<String, String>,
    /// Every `currentgamenumber` in order.
    progress: Vec<u64>,
    messages: Vec<String>,
    errors: Vec<String>,
    /// The `numbergames` and `numberbytes` of the `<CqlGuiPgn …>` header.
    pgn_header: Option<(u64, u64)>,
    /// The text between the header and `</CqlGuiPgn>`.
    games: String,
    normal_exit: bool,
}

/// Read the protocol line by line as a GUI does (qcql's `CQLProcess.read_data`): a
/// message or error either on one line (`<CqlGuiMessage> TEXT </CqlGuiMessage>`) or as
/// lines between its opening and closing tags; the games are every line between
/// `<CqlGuiPgn …>` and `</CqlGuiPgn>`.
fn read_gui_stream(stdout: &str) -> GuiStream {
    let mut s = GuiStream::default();
    let mut block: Option<(&str, Vec<String>)> = None;
    let mut in_games = false;
    for line in stdout.split_inclusive('\n') {
        if in_games {
            if line.starts_with("</CqlGuiPgn>") {
                in_games = false;
            } else {
                s.games.push_str(line);
            }
            continue;
        }
        let trimmed = line.trim_end_matches('\n');
        if let Some((kind, lines)) = block.as_mut() {
            if trimmed.starts_with(&format!("</CqlGui{kind}>")) {
                let joined = lines.join("\n");
                if *kind == "Message" {
                    s.messages.push(joined)
                } else {
                    s.errors.push(joined)
                }
                block = None;
            } else {
                lines.push(trimmed.trim().to_string());
            }
            continue;
        }
        for kind in ["Message", "Error"] {
            let open = format!("<CqlGui{kind}>");
            let close = format!("</CqlGui{kind}>");
            if let Some(rest) = trimmed.strip_prefix(&open) {
                match rest.strip_suffix(&close) {
                    Some(one) if kind == "Message" => s.messages.push(one.trim().to_string()),
                    Some(one) => s.errors.push(one.trim().to_string()),
                    None => block = Some((kind, Vec::new())),
                }
            }
        }
        if block.is_some() || trimmed.starts_with("<CqlGuiMessage>") || trimmed.starts_with("<CqlGuiError>") {
            continue;
        }
        if trimmed.starts_with("<CqlGuiNormalExit>") {
            s.normal_exit = true;
        } else if let Some(rest) = trimmed.strip_prefix("<CqlGuiVariable> ") {
            let (name, value) = rest.split_once(' ').unwrap_or((rest, ""));
            if name == "currentgamenumber" {
                s.progress.push(value.parse().unwrap());
            }
            s.variables.insert(name.to_string(), value.to_string());
        } else if let Some(rest) = trimmed.strip_prefix("<CqlGuiPgn ") {
            let field = |key: &str| -> u64 {
                let at = rest.find(key).unwrap() + key.len();
                rest[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
            };
            s.pgn_header = Some((field("numbergames="), field("numberbytes=")));
            in_games = true;
        }
    }
    s
}

#[test]
fn a_gui_reads_the_matching_games_and_the_tallies() {
    let dir = temp_dir("gui-match");
    let pgn = write(&dir, "games.pgn", GAMES);
    let script = write(&dir, "mates.cql", "cql() mate\n");
    // As qcql starts it.
    let o = cqlrs(&["-gui", "--guipgnstdout", "-input", &pgn, &script]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let s = read_gui_stream(&stdout);
    assert_eq!(s.variables["version"], "6.2", "{stdout}");
    assert!(s.variables.contains_key("build"));
    assert_eq!(s.variables["numbermatches"], "2", "{stdout}");
    assert_eq!(s.variables["numbergamesexamined"], "4");
    assert!(s.variables["numberthreads"].parse::<u32>().unwrap() >= 1);
    assert!(s.variables["seconds"].parse::<f64>().is_ok());
    assert_eq!(s.variables["outputfile"], "", "the games went to stdout");
    assert_eq!(s.pgn_header, Some((2, s.games.len() as u64)), "{stdout}");
    assert_eq!(s.games.matches("[Event ").count(), 2);
    assert!(s.games.contains("{Game number 1}") && s.games.contains("{Game number 2}"));
    assert!(s.messages.is_empty() && s.errors.is_empty(), "{s:?}");
    assert!(s.normal_exit);
    // The PGN block starts on a line of its own and is closed on one.
    assert!(stdout.contains("\n<CqlGuiPgn numbergames=2 "), "{stdout}");
    assert!(stdout.contains("</CqlGuiPgn>\n"), "{stdout}");
    assert!(stdout.ends_with("\n<CqlGuiNormalExit>\n"), "{stdout}");
}

#[test]
fn a_gui_reads_the_position_of_a_syntax_error() {
    let dir = temp_dir("gui-error");
    let pgn = write(&dir, "games.pgn", GAMES);
    // `mtae` is not a filter: line 1, column 12 (counted from 1).
    let script = write(&dir, "bad.cql", "cql() mate mtae\n");
    let o = cqlrs(&["-gui", "--guipgnstdout", "-input", &pgn, &script]);
    assert_ne!(o.status.code(), Some(0));
    let s = read_gui_stream(&text(&o.stdout));
    assert_eq!(s.variables.get("linenumbererror").map(String::as_str), Some("1"), "{s:?}");
    assert_eq!(s.variables.get("columnnumbererror").map(String::as_str), Some("12"));
    assert_eq!(s.errors.len(), 1, "{s:?}");
    assert!(s.errors[0].contains("mtae"), "{s:?}");
    assert!(!s.normal_exit && s.pgn_header.is_none());
    // An error without a position in a script (an input that is not there) is one line.
    let o = cqlrs(&["-gui", "--guipgnstdout", "-input", &dir.join("none.pgn").to_string_lossy(), &script]);
    assert_ne!(o.status.code(), Some(0));
    let missing = write(&dir, "ok.cql", "cql() mate\n");
    let o = cqlrs(&["-gui", "--guipgnstdout", "-input", &dir.join("none.pgn").to_string_lossy(), &missing]);
    assert_ne!(o.status.code(), Some(0));
    let stdout = text(&o.stdout);
    let s = read_gui_stream(&stdout);
    assert_eq!(s.errors.len(), 1, "{stdout}");
    assert!(s.errors[0].contains("none.pgn"), "{stdout}");
    assert!(!s.normal_exit);
}

#[test]
fn a_gui_reads_messages_and_progress() {
    let dir = temp_dir("gui-message");
    let pgn = write(&dir, "games.pgn", GAMES);
    let script = write(&dir, "m.cql", "cql() mate message (\"mated\") message quiet (\"plain\")\n");
    let o = cqlrs(&["-gui", "--guipgnstdout", "-input", &pgn, "-lineincrement", "10", &script]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let s = read_gui_stream(&stdout);
    // A message names the game and the position (`move N(wtm)`: the move number and
    // the side to move there) unless it is `quiet`.
    assert_eq!(s.messages, ["Game: 1 move 3(wtm): mated", "plain", "Game: 2 move 4(btm): mated", "plain"], "{stdout}");
    // `-lineincrement 10`: the GUI hears of every game (10/10).
    assert_eq!(s.progress, [1, 2, 3, 4], "{stdout}");
    assert_eq!(s.variables["numbermatches"], "2");
    assert!(s.normal_exit);
    // Without `-guipgnstdout` the games go to the file, and the GUI is told its name.
    let out = dir.join("o.pgn").to_string_lossy().into_owned();
    let o = cqlrs(&["-gui", "-input", &pgn, "-output", &out, &script]);
    let s = read_gui_stream(&text(&o.stdout));
    assert_eq!(s.variables["outputfile"], out);
    assert!(s.pgn_header.is_none() && s.normal_exit);
    assert_eq!(std::fs::read_to_string(&out).unwrap().matches("[Event ").count(), 2);
}

#[test]
fn guipgnstdin_reads_the_games_from_stdin() {
    let dir = temp_dir("gui-stdin");
    let script = write(&dir, "mates.cql", "cql() mate\n");
    let mut child = Command::new(BIN)
        .args(["-gui", "-guipgnstdout", "-guipgnstdin", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(GAMES.as_bytes()).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let s = read_gui_stream(&text(&o.stdout));
    assert_eq!(s.variables["numbermatches"], "2");
    assert_eq!(s.pgn_header.map(|h| h.0), Some(2));
}

#[test]
fn an_inline_query_under_gui_writes_cqldefault_out_pgn() {
    let dir = temp_dir("gui-inline");
    let pgn = write(&dir, "games.pgn", GAMES);
    // As CQL 6.2 does (`cql -gui -i x.pgn -cql mate`): the games go to
    // `cqldefault-out.pgn` in the current directory, named in the summary and `outputfile`.
    let o = common::cqlrs_in(&dir, &["-gui", "-i", &pgn, "-cql", "mate"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let s = read_gui_stream(&stdout);
    assert_eq!(s.variables["outputfile"], "cqldefault-out.pgn", "{stdout}");
    assert!(stdout.contains("2 matches of 4 games in ") && stdout.contains(" to cqldefault-out.pgn\n"), "{stdout}");
    assert!(!stdout.contains("[Event "), "no game on stdout outside a block: {stdout}");
    let written = std::fs::read_to_string(dir.join("cqldefault-out.pgn")).unwrap();
    assert_eq!(written.matches("[Event ").count(), 2, "{written}");
    assert!(s.normal_exit);
    // Without `-gui` an inline query's games go to stdout, and no file is written.
    std::fs::remove_file(dir.join("cqldefault-out.pgn")).unwrap();
    let o = common::cqlrs_in(&dir, &["-i", &pgn, "-cql", "mate"]);
    assert_eq!(text(&o.stdout).matches("[Event ").count(), 2);
    assert!(!dir.join("cqldefault-out.pgn").exists());
}

#[test]
fn the_gui_block_holds_pgn_only() {
    let dir = temp_dir("gui-block");
    // A game whose own comment spans lines that look like the protocol's.
    let tricky = "[Event \"t\"]\n[Result \"1-0\"]\n\n1. e4 {a comment\n</CqlGuiPgn>\n<CqlGuiNormalExit>\nmore} e5 \
                  2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n";
    let pgn = write(&dir, "games.pgn", &format!("{GAMES}{tricky}"));
    let script = write(&dir, "mates.cql", "cql() mate\n");
    let o = cqlrs(&["-gui", "--guipgnstdout", "-input", &pgn, &script]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let s = read_gui_stream(&stdout);
    assert_eq!(s.pgn_header, Some((3, s.games.len() as u64)), "{stdout}");
    assert_eq!(s.games.matches("[Event ").count(), 3, "{stdout}");
    // CQL 6.2 writes the comment on one line.
    assert!(s.games.contains("{a comment </CqlGuiPgn> <CqlGuiNormalExit> more}"), "{}", s.games);
    assert_eq!(stdout.lines().filter(|l| *l == "</CqlGuiPgn>").count(), 1, "{stdout}");
    assert_eq!(stdout.lines().filter(|l| *l == "<CqlGuiNormalExit>").count(), 1, "{stdout}");
    assert!(s.normal_exit);
    // Formats that are not PGN are refused with `-guipgnstdout`, and need `-o` under `-gui`.
    for format in ["--numbers", "--json", "--count", "--positions"] {
        let o = cqlrs(&["-gui", "--guipgnstdout", "-input", &pgn, format, &script]);
        assert_eq!(o.status.code(), Some(2), "{format}");
        assert!(text(&o.stdout).contains("<CqlGuiError>"), "{format}: {}", text(&o.stdout));
        assert!(!text(&o.stdout).lines().any(|l| l.starts_with("<CqlGuiPgn ")), "{format}: {}", text(&o.stdout));
        let o = cqlrs(&["-gui", "-input", &pgn, format, "-cql", "mate"]);
        assert_eq!(o.status.code(), Some(2), "{format}");
        assert!(text(&o.stderr).contains("needs `-o FILE`"), "{format}: {}", text(&o.stderr));
    }
    let numbers = dir.join("numbers.txt");
    let o = cqlrs(&["-gui", "-input", &pgn, "--numbers", "-o", numbers.to_str().unwrap(), "-cql", "mate"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&numbers).unwrap(), "1\n2\n5\n");
}
