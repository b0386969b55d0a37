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
        eprintln!("`script` is not installed: the terminal test is skipped");
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
    let spun =
        Command::new(BIN).args(["-cql", "check", "--count", "--progress", "always"]).stdin(stdin).output().unwrap();
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
