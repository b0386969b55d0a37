//! The command line as a person meets it: the progress bar in a real pseudo-terminal
//! (through `script` from util-linux), completions and the manual page, colour in error
//! messages, "did you mean" for mistyped options, and the player options.

use std::process::{Command, Output, Stdio};

mod common;
use common::{temp_dir, BIN};

const DATA: [&str; 2] = ["data/lichess-2016-05-first1500.pgn", "data/lichess-2017-05-sample.pgn"];

fn cqlrs(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).env_remove("NO_COLOR").output().unwrap()
}

/// Run a shell command line in a pseudo-terminal (util-linux `script`); `None` when
/// `script` is not installed. Gives everything the terminal received (whatever the
/// command's exit status).
fn in_terminal(command: &str) -> Option<String> {
    let out = Command::new("script").args(["-qec", command, "/dev/null"]).stdin(Stdio::null()).output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn the_bar_is_drawn_in_a_terminal_and_cleared_at_the_end() {
    // Both bundled files: more than the 1 MiB from which `--progress auto` draws.
    let command = format!("{BIN} -cql check -i {} -i {} --count -s", DATA[0], DATA[1]);
    let Some(screen) = in_terminal(&command) else {
        common::shared::skipped("`script` (util-linux) is not installed");
        return;
    };
    assert!(screen.contains("MiB") && screen.contains("games") && screen.contains("ETA"), "{screen:?}");
    assert!(screen.contains('[') && screen.contains("=>"), "no bar drawn: {screen:?}");
    // The bar is cleared (carriage return, erase line) before the count and the summary.
    let count_at = screen.rfind("matches of 1798 games").expect("summary line");
    let cleared_at = screen.rfind("\r\x1b[2K").expect("the bar is erased");
    assert!(cleared_at < count_at);
    let after = &screen[cleared_at..];
    assert!(!after.contains("ETA"), "bar drawn again after it was cleared: {after:?}");
    // `never` draws nothing in the same terminal.
    let quiet = in_terminal(&format!("{command} --progress never")).unwrap();
    assert!(!quiet.contains("ETA") && !quiet.contains("\x1b[2K"), "{quiet:?}");
}

#[test]
fn no_bar_off_a_terminal_unless_always() {
    let plain = cqlrs(&["-cql", "check", "-i", DATA[0], "-i", DATA[1], "--count"]);
    let err = String::from_utf8_lossy(&plain.stderr);
    assert!(!err.contains("ETA") && !err.contains('\x1b'), "{err:?}");
    let forced = cqlrs(&["-cql", "check", "-i", DATA[0], "--count", "--progress", "always"]);
    let err = String::from_utf8_lossy(&forced.stderr);
    assert!(err.contains("KiB") && err.contains("ETA"), "{err:?}");
    assert_eq!(
        String::from_utf8_lossy(&forced.stdout),
        String::from_utf8_lossy(&cqlrs(&["-cql", "check", "-i", DATA[0], "--count"]).stdout)
    );
    // Standard input has no size: a spinner with the bytes read so far.
    let stdin = std::fs::File::open(DATA[1]).unwrap();
    let spun = Command::new(BIN)
        .args(["-i", "-", "-cql", "check", "--count", "--progress", "always"])
        .stdin(stdin)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&spun.stderr);
    assert!(err.contains("read,") && !err.contains("ETA"), "{err:?}");
}

#[test]
fn completions_and_man_page_list_every_long_option() {
    let help = String::from_utf8(cqlrs(&["--help"]).stdout).unwrap();
    let longs: Vec<String> = help
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("--"))
        .map(|w| w.trim_end_matches([',', '.', '`', ')']).split(['=', '`']).next().unwrap().to_string())
        .filter(|w| w.len() > 1 && w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    assert!(longs.len() > 60, "{longs:?}");
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = cqlrs(&["completions", shell]);
        assert!(out.status.success());
        let script = String::from_utf8(out.stdout).unwrap();
        for long in &longs {
            let spelled = if shell == "fish" { format!("-l {long}") } else { format!("--{long}") };
            assert!(script.contains(&spelled), "{shell} completion lacks --{long}");
        }
    }
    let page = String::from_utf8(cqlrs(&["man"]).stdout).unwrap();
    assert!(page.starts_with(".ie") && page.contains(".TH cqlrs 1"));
    for long in &longs {
        assert!(page.contains(&format!("\\-\\-{}", long.replace('-', "\\-"))), "man page lacks --{long}");
    }
    assert_eq!(cqlrs(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn a_script_named_like_a_command_is_still_a_script() {
    let dir = temp_dir("names");
    let script = dir.join("completions.cql");
    std::fs::write(&script, "cql() mate").unwrap();
    let data = std::fs::canonicalize(DATA[0]).unwrap();
    let out = Command::new(BIN)
        .current_dir(&dir)
        .args(["completions.cql", "-i", data.to_str().unwrap(), "--count"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let direct = cqlrs(&["-cql", "mate", "-i", DATA[0], "--count"]);
    assert_eq!(out.stdout, direct.stdout);
    std::fs::write(dir.join("man"), "cql() mate").unwrap();
    let out =
        Command::new(BIN).current_dir(&dir).args(["./man", "-i", data.to_str().unwrap(), "--count"]).output().unwrap();
    assert_eq!(out.stdout, direct.stdout);
}

#[test]
fn errors_are_coloured_only_when_asked_or_on_a_terminal() {
    let args = ["-cql", "mtae", "-i", DATA[0]];
    let plain = String::from_utf8(cqlrs(&args).stderr).unwrap();
    assert!(plain.contains("error: unknown filter") && plain.contains("^^^^") && !plain.contains('\x1b'), "{plain:?}");
    let coloured = String::from_utf8(cqlrs(&[&args[..], &["--color", "always"]].concat()).stderr).unwrap();
    assert!(coloured.contains("\x1b[1;31merror\x1b[0m") && coloured.contains("\x1b[1;31m ^^^^"), "{coloured:?}");
    let never = String::from_utf8(cqlrs(&[&args[..], &["--color", "never"]].concat()).stderr).unwrap();
    assert_eq!(never, plain);
    let command = format!("{BIN} -cql mtae -i {}", DATA[0]);
    if let Some(screen) = in_terminal(&command) {
        assert!(screen.contains("\x1b[1;31merror"), "{screen:?}");
        let no_color = in_terminal(&format!("NO_COLOR=1 {command}")).unwrap();
        assert!(!no_color.contains('\x1b') && no_color.contains("error: unknown filter"), "{no_color:?}");
    }
}

#[test]
fn mistyped_options_get_a_suggestion() {
    for (typed, expected) in [
        ("-gamenumbr", "did you mean `-gamenumber`?"),
        ("-plyer", "did you mean `-player`?"),
        ("-sort", "`sort` is a filter of the query"),
        ("-srot", "`sort` is a filter of the query"),
        ("--sort", "`sort` is a filter of the query"),
    ] {
        let out = cqlrs(&[typed, "x"]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(&format!("unknown option `{typed}`")) && err.contains(expected), "{typed}: {err}");
    }
}

#[test]
fn player_options_match_substrings_case_sensitively() {
    let dir = temp_dir("players");
    let pgn = dir.join("g.pgn");
    std::fs::write(
        &pgn,
        "[White \"Tal, Mikhail\"]\n[Black \"Botvinnik, Mikhail\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
         [White \"Petrosian\"]\n[Black \"Spassky\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n\n",
    )
    .unwrap();
    let pgn = pgn.to_str().unwrap();
    // Counts as the CQL 6.2 binary gives them (docs/compat.md).
    for (option, value, count) in [
        ("-player", "Tal", "1"),
        ("-player", "tal", "0"),
        ("-player", "Mikh", "1"),
        ("-player", "ss", "1"),
        ("-white", "Tal", "1"),
        ("-white", "Botv", "0"),
        ("-black", "Botv", "1"),
        ("-black", "Mikhail", "1"),
    ] {
        let out = cqlrs(&["-i", pgn, option, value, "--count"]);
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), count, "{option} {value}");
    }
}

#[test]
fn include_brings_in_a_library_of_functions() {
    let dir = temp_dir("include");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(dir.join("lib/mates.cql"), "// shared\nfunction Mated() { mate }\n").unwrap();
    std::fs::write(
        dir.join("lib/both.cql"),
        "cql(include \"mates.cql\")\nfunction CheckOrMate() { check or Mated() }\n",
    )
    .unwrap();
    std::fs::write(dir.join("q.cql"), "cql(include \"lib/both.cql\" include \"lib/mates.cql\")\nMated()\n").unwrap();
    let data = std::fs::canonicalize(DATA[0]).unwrap();
    let data = data.to_str().unwrap();
    // Run from another directory: paths resolve against the script's directory.
    let script = dir.join("q.cql");
    let out = cqlrs(&[script.to_str().unwrap(), "-i", data, "--count"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, cqlrs(&["-cql", "mate", "-i", data, "--count"]).stdout);
    // A missing file and a cycle: exit 2, a caret under the name in the including file.
    std::fs::write(dir.join("missing.cql"), "cql(include \"lib/none.cql\")\nmate\n").unwrap();
    let out = cqlrs(&[dir.join("missing.cql").to_str().unwrap(), "-i", data]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("missing.cql:1:13: error: cannot include `lib/none.cql`") && err.contains("^^^^"), "{err}");
    std::fs::write(dir.join("lib/loop.cql"), "cql(include \"../cycle.cql\")\nfunction L() { check }\n").unwrap();
    std::fs::write(dir.join("cycle.cql"), "cql(include \"lib/loop.cql\")\nL()\n").unwrap();
    let out = cqlrs(&[dir.join("cycle.cql").to_str().unwrap(), "-i", data]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("loop.cql:1:13: error: `../cycle.cql` includes itself"), "{err}");
    // An error inside the library is shown in the library's own lines.
    std::fs::write(dir.join("lib/broken.cql"), "function B() {\n  mtae\n}\n").unwrap();
    std::fs::write(dir.join("usebroken.cql"), "cql(include \"lib/broken.cql\")\nB()\n").unwrap();
    let err = String::from_utf8(cqlrs(&[dir.join("usebroken.cql").to_str().unwrap(), "-i", data]).stderr).unwrap();
    assert!(err.contains("broken.cql:2:3: error: unknown filter or variable `mtae`"), "{err}");
}

// ----- the first hour, second round (issue 45) --------------------------------------

/// Run the binary in `dir` with `args` and the given bytes on standard input.
fn cqlrs_with_stdin(dir: &std::path::Path, args: &[&str], input: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let _ = pipe.write_all(input);
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Three games: Fool's mate (game 1), Scholar's mate (game 2), and a quiet game (game 3).
const THREE_GAMES: &str = "[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
[White \"c\"]\n[Black \"d\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n\
[White \"e\"]\n[Black \"f\"]\n[Result \"*\"]\n\n1. d4 d5 *\n\n";

#[test]
fn without_i_stdin_is_not_read_and_no_file_is_replaced() {
    let dir = temp_dir("no-input");
    common::write(&dir, "royal-fork.cql", "mate\n");
    common::write(&dir, "royal-fork-out.pgn", "earlier result\n");
    // Games on a stdin that is not a terminal, as cron or a GUI gives it: not read.
    let o = cqlrs_with_stdin(&dir, &["royal-fork.cql"], THREE_GAMES.as_bytes());
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("no input") && err(&o).contains("`-i -`"), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(dir.join("royal-fork-out.pgn")).unwrap(), "earlier result\n");
    // Asked for with `-i -`: both mates are found and written.
    let o = cqlrs_with_stdin(&dir, &["-i", "-", "royal-fork.cql"], THREE_GAMES.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let written = std::fs::read_to_string(dir.join("royal-fork-out.pgn")).unwrap();
    assert_eq!(written.matches("[Result ").count(), 2, "{written}");
    // `-parse` reads no games and needs none.
    let o = cqlrs_with_stdin(&dir, &["-parse", "royal-fork.cql"], b"");
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}

#[test]
fn a_runaway_query_stops_early_and_names_the_budget() {
    let dir = temp_dir("runaway");
    common::write(&dir, "old.pgn", "precious\n");
    let data = |f: &str| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(f).to_string_lossy().into_owned();
    let started = std::time::Instant::now();
    let o = common::cqlrs_in(
        &dir,
        &["-i", &data(DATA[0]), "-cql", "i = 0 while (i >= 0) { i += 1 }", "-o", "old.pgn", "--threads", "2"],
    );
    let seconds = started.elapsed().as_secs_f64();
    let e = err(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("stopped early") && e.contains("a while loop ran more than 1000000 times"), "{e}");
    assert!(e.contains("the query itself must change"), "{e}");
    // Stopped after a few games of the 1,500 (a full run takes minutes of processor time).
    assert!(seconds < 30.0, "{seconds} s");
    assert!(e.lines().filter(|l| l.contains("query abandoned")).count() <= 6, "{e}");
    assert_eq!(std::fs::read_to_string(dir.join("old.pgn")).unwrap(), "precious\n");
    // A step budget: the message names the option to raise.
    let o = common::cqlrs_in(
        &dir,
        &["-i", &data(DATA[0]), "-cql", "i = 0 while (i < 100) { i += 1 }", "--max-game-steps", "50", "--count"],
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("raise the budget: `--max-game-steps`"), "{e}");
    // Repeats of one reason are counted, not printed, when the run goes on: a query
    // abandoned on a few games only is no runaway.
    let many = THREE_GAMES.repeat(20);
    common::write(&dir, "many.pgn", &many);
    let o = common::cqlrs_in(
        &dir,
        &["-i", "many.pgn", "-cql", "if (result 1-0) { i = 0 while (i >= 0) { i += 1 } } else mate", "--count"],
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert_eq!(e.matches("query abandoned").count(), 5, "{e}");
    assert!(e.contains("15 more warnings not shown"), "{e}");
    assert!(e.contains("(0 unmatched, 0 skipped, 20 abandoned)") || e.contains("20 abandoned"), "{e}");
}

#[test]
fn help_lists_the_commands_and_help_is_a_command() {
    let help = String::from_utf8(cqlrs(&["--help"]).stdout).unwrap();
    assert!(help.contains("cqlrs survey -i") && help.contains("cqlrs help"), "{help}");
    let o = cqlrs(&["help"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), help);
    let o = cqlrs(&["help", "survey"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Usage: cqlrs survey"));
    let o = cqlrs(&["help", "frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no command `frobnicate`"), "{}", err(&o));
}

#[test]
fn messages_say_what_went_wrong_in_the_users_words() {
    let dir = temp_dir("messages");
    common::write(&dir, "games.pgn", THREE_GAMES);
    common::write(&dir, "script.cql", "mate\n");
    // Games where the script goes, with a second word.
    let o = common::cqlrs_in(&dir, &["games.pgn", "script.cql"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("`cqlrs -i games.pgn script.cql`"), "{}", err(&o));
    assert!(!err(&o).contains("unexpected argument"), "{}", err(&o));
    // An unclosed block: where it was opened, as line and column.
    common::write(&dir, "open.cql", "cql(input games.pgn)\n\n  { mate\n");
    let o = common::cqlrs_in(&dir, &["open.cql"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("the block opened at line 3, column 3 is not closed"), "{}", err(&o));
    // A missing script: a sentence, not the system's error number.
    let o = common::cqlrs_in(&dir, &["-i", "games.pgn", "missing.cql"]);
    assert!(err(&o).contains("missing.cql: no such script file") && !err(&o).contains("os error"), "{}", err(&o));
    // A reversed year range, in the words typed.
    let o = common::cqlrs_in(&dir, &["-i", "games.pgn", "-year", "2018", "2017", "-cql", "mate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("`-year 2018 2017` is an empty range") && err(&o).contains("-year 2017 2018"),
        "{}",
        err(&o)
    );
}

#[test]
fn gamenumber_does_not_count_the_games_it_leaves_out_as_unmatched() {
    let dir = temp_dir("gamenumber");
    common::write(&dir, "games.pgn", THREE_GAMES);
    let o = common::cqlrs_in(&dir, &["-i", "games.pgn", "-gamenumber", "2", "-cql", "mate", "--count"]);
    assert_eq!(o.status.code(), Some(0));
    // Games 1 and 2 are read (the reader stops after the range); game 2 matches.
    assert!(err(&o).contains("1 match of 2 games (0 unmatched, 0 skipped, 1 outside -gamenumber)"), "{}", err(&o));
    let o = common::cqlrs_in(&dir, &["-i", "games.pgn", "-gamenumber", "3", "-cql", "mate", "--summary-json"]);
    let record: serde_json::Value = serde_json::from_str(err(&o).trim()).unwrap();
    assert_eq!((record["unmatched"].as_u64(), record["passed_over"].as_u64()), (Some(1), Some(2)));
}

#[test]
fn one_unreadable_input_among_several_is_skipped_and_the_rest_written() {
    let dir = temp_dir("one-bad-file");
    common::write(&dir, "a.pgn", THREE_GAMES);
    common::write(&dir, "notes.pgn", "These are my notes, not games.\n");
    common::write(&dir, "out.pgn", "earlier\n");
    let args = ["-i", "a.pgn", "-i", "notes.pgn", "-i", "gone.pgn", "-cql", "mate", "-o", "out.pgn"];
    let o = common::cqlrs_in(&dir, &args);
    let e = err(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("notes.pgn: this is not PGN") && e.contains("gone.pgn: no such file"), "{e}");
    assert!(e.contains("2 input files could not be read") && e.contains("`out.pgn` holds the matches"), "{e}");
    let written = std::fs::read_to_string(dir.join("out.pgn")).unwrap();
    assert_eq!(written.matches("[Result ").count(), 2, "{written}");
    // `--exit-zero`: the same output and messages, status 0.
    let mut zero = args.to_vec();
    zero.push("--exit-zero");
    let o = common::cqlrs_in(&dir, &zero);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("2 input files could not be read"), "{}", err(&o));
    // `--count-games` follows the same rule: the file is named and counts no games.
    let o = common::cqlrs_in(&dir, &["--count-games", "-i", "a.pgn", "-i", "notes.pgn"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let o = common::cqlrs_in(&dir, &["--count-games", "--exit-zero", "-i", "a.pgn", "-i", "notes.pgn"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let record: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(record["games"], 3);
    // When no input can be read, nothing is written over the old file.
    std::fs::write(dir.join("out.pgn"), "earlier\n").unwrap();
    let o = common::cqlrs_in(&dir, &["-i", "gone.pgn", "-cql", "mate", "-o", "out.pgn"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(dir.join("out.pgn")).unwrap(), "earlier\n");
}

#[test]
fn threads_beyond_the_limit_are_refused_and_leave_nothing() {
    let dir = temp_dir("threads");
    common::write(&dir, "a.pgn", THREE_GAMES);
    let o = common::cqlrs_in(&dir, &["-i", "a.pgn", "-cql", "mate", "-o", "out.pgn", "--threads", "100000"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("`--threads 100000`") && err(&o).contains("1024"), "{}", err(&o));
    let left: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, ["a.pgn"], "{left:?}");
    // The largest count allowed runs.
    let o = common::cqlrs_in(&dir, &["-i", "a.pgn", "-cql", "mate", "--count", "--threads", "1024"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "2\n");
}

#[test]
fn a_terminal_gets_one_summary_line() {
    let dir = temp_dir("one-line");
    let pgn = common::write(&dir, "a.pgn", THREE_GAMES);
    let out = dir.join("out.pgn");
    let command = format!("{BIN} -i {} -cql mate -o {}", pgn.display(), out.display());
    let Some(screen) = in_terminal(&command) else {
        common::shared::skipped("`script` (util-linux) is not installed");
        return;
    };
    assert_eq!(
        screen.matches("matches of 3 games").count() + screen.matches("match of 3 games").count(),
        1,
        "{screen:?}"
    );
    assert!(screen.contains("2 matches of 3 games (1 unmatched, 0 skipped)"), "{screen:?}");
    // A program reading stdout still gets CQL's line.
    let o = common::cqlrs(&["-i", pgn.to_str().unwrap(), "-cql", "mate", "-o", out.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 matches of 3 games in "), "{o:?}");
}
