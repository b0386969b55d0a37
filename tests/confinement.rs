//! Scripts from strangers and text from archives, run through the `cqlrs` binary:
//!
//! - a script's `readfile`, `writefile`, `include` and `cql(output …)` reach only files
//!   in the script's folder and the output's folder (or folders given with
//!   `--allow-files`): every way out — `..`, an absolute path, a symbolic link, writing
//!   over another script, an output with another extension — is refused before the run
//!   (a quoted name: an error with its line, column and caret) or abandons the game (a
//!   name computed from the game), and no file outside is read into the output or
//!   written;
//! - `--secure` refuses every file access of the script;
//! - text that reaches the output from a game's tags or from the script cannot change
//!   the PGN's structure: read back, the tags, moves and comments are the same data.
//!
//! Every test builds its own folders under the system's temporary directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cqlrs::input::RawGame;
use cqlrs::pgn::{Game, GameParser};

const BIN: &str = env!("CARGO_BIN_EXE_cqlrs");

/// A game whose tags name files outside the script's folder, for names computed while
/// the query runs.
const GAMES: &str = "[Event \"../victims/escaped.cqo\"]\n[Site \"../victims/prep.pgn\"]\n[White \"W\"]\n\
                     [Black \"B\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n";

/// The user's own files next to the script's folder: they must stay as they are.
const PREPARATION: &str = "[Event \"my secret preparation\"]\n\n1. d4 Nf6 2. c4 *\n";

/// A folder with the script's folder `scripts/` (the games, another script) and,
/// beside it, the user's `victims/` folder.
struct Site {
    root: PathBuf,
    scripts: PathBuf,
    victims: PathBuf,
}

impl Site {
    fn new(name: &str) -> Site {
        let root = std::env::temp_dir().join(format!("cqlrs-confinement-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let scripts = root.join("scripts");
        let victims = root.join("victims");
        std::fs::create_dir_all(&scripts).unwrap();
        std::fs::create_dir_all(&victims).unwrap();
        // Canonical, so that messages and links name the real folders.
        let (scripts, victims) = (scripts.canonicalize().unwrap(), victims.canonicalize().unwrap());
        std::fs::write(scripts.join("games.pgn"), GAMES).unwrap();
        std::fs::write(scripts.join("other.cql"), "cql() mate\n").unwrap();
        std::fs::write(victims.join("prep.pgn"), PREPARATION).unwrap();
        std::fs::write(victims.join("victim.cqo"), "untouched\n").unwrap();
        std::fs::write(victims.join("lib.cql"), "function Evil() { check }\n").unwrap();
        Site { root, scripts, victims }
    }

    /// Write `text` as the script `name` in the script's folder and run it there on the
    /// games, with `extra` options in front.
    fn run(&self, name: &str, text: &str, extra: &[&str]) -> Output {
        std::fs::write(self.scripts.join(name), text).unwrap();
        self.run_script(name, extra)
    }

    /// Run the script `name` of the script's folder there on the games, with `extra`
    /// options in front.
    fn run_script(&self, name: &str, extra: &[&str]) -> Output {
        let mut args: Vec<&str> = extra.to_vec();
        args.extend(["-i", "games.pgn", name]);
        Command::new(BIN).current_dir(&self.scripts).args(&args).output().expect("run cqlrs")
    }

    /// Every file under the site (links not followed) with its bytes.
    fn files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut found = BTreeMap::new();
        let mut todo = vec![self.root.clone()];
        while let Some(dir) = todo.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    todo.push(path);
                } else if meta.is_file() {
                    found.insert(path.clone(), std::fs::read(&path).unwrap());
                }
            }
        }
        found
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The files under the site that a run changed, made or removed, ignoring the run's
/// own PGN output in the script's folder.
fn changed(before: &BTreeMap<PathBuf, Vec<u8>>, after: &BTreeMap<PathBuf, Vec<u8>>, scripts: &Path) -> Vec<PathBuf> {
    let own_output = |p: &Path| p.parent() == Some(scripts) && p.extension().is_some_and(|e| e == "pgn");
    let mut differ: Vec<PathBuf> = after
        .iter()
        .filter(|(p, bytes)| before.get(*p) != Some(bytes) && !own_output(p))
        .map(|(p, _)| p.clone())
        .collect();
    differ.extend(before.keys().filter(|p| !after.contains_key(*p)).cloned());
    differ
}

/// A refusal before the run: exit status 2, the script's name with line and column of
/// the file name, a caret, and the rule.
fn assert_refused_at(out: &Output, script: &str, line_col: &str, rule: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{script}:{line_col}: error:")), "place `{line_col}` missing:\n{err}");
    assert!(err.contains('^'), "caret missing:\n{err}");
    assert!(err.contains(rule), "rule `{rule}` missing:\n{err}");
}

/// The game was abandoned, and the run said so.
fn assert_abandoned(out: &Output, what: &str) {
    let err = stderr(out);
    assert!(err.contains("1 abandoned"), "no abandoned game in the summary:\n{err}");
    assert!(err.contains(what), "`{what}` not reported:\n{err}");
}

#[test]
fn every_file_escape_is_refused_and_nothing_outside_changes() {
    let site = Site::new("escapes");
    let victim = site.victims.join("victim.cqo").display().to_string();
    let prep = site.victims.join("prep.pgn").display().to_string();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&site.victims, site.scripts.join("door")).unwrap();
    // (script, line:column of the name, the rule's words)
    let quoted: Vec<(String, &str, &str)> = vec![
        ("cql()\nwritefile (\"../escaped.cqo\" \"x\")\n".into(), "2:12", "`..` leads outside"),
        (format!("cql()\nwritefile (\"{victim}\" \"x\")\n"), "2:12", "an absolute path leads outside"),
        ("cql()\nwritefile (\"other.cql\" \"x\")\n".into(), "2:12", "never writes over an existing `.cql`"),
        ("cql()\nsettag (\"Note\" readfile \"/etc/passwd\")\n".into(), "2:25", "must end in .pgn, .cql, .cqo"),
        (format!("cql()\nsettag (\"Note\" readfile \"{prep}\")\n"), "2:25", "an absolute path leads outside"),
        ("cql()\ncomment (readfile \"../victims/prep.pgn\")\n".into(), "2:19", "`..` leads outside"),
        (format!("cql(output {}/victim.sh)\ncheck\n", site.victims.display()), "1:12", "must end in .pgn"),
        ("cql(output ../victims/out.pgn)\ncheck\n".into(), "1:12", "`..` leads outside"),
        ("cql(include \"../victims/lib.cql\")\nEvil()\n".into(), "1:13", "`..` leads outside"),
        #[cfg(unix)]
        ("cql()\nwritefile (\"door/victim.cqo\" \"x\")\n".into(), "2:12", "symbolic link"),
        #[cfg(unix)]
        ("cql()\ncomment (readfile \"door/prep.pgn\")\n".into(), "2:19", "symbolic link"),
        #[cfg(unix)]
        ("cql(include \"door/lib.cql\")\nEvil()\n".into(), "1:13", "symbolic link"),
    ];
    for (text, at, rule) in &quoted {
        std::fs::write(site.scripts.join("stranger.cql"), text).unwrap();
        let before = site.files();
        let out = site.run_script("stranger.cql", &[]);
        assert_refused_at(&out, "stranger.cql", at, rule);
        assert_eq!(changed(&before, &site.files(), &site.scripts), Vec::<PathBuf>::new(), "{text}");
    }
    // Names computed from the game (`event`, `site`): the game is abandoned, reported,
    // and the run still finishes with a summary.
    let computed = [
        ("cql()\nname = event\nwritefile (name \"x\")\n", "writefile: `../victims/escaped.cqo`"),
        ("cql()\ncomment (readfile site)\n", "readfile: `../victims/prep.pgn`"),
    ];
    for (text, what) in computed {
        std::fs::write(site.scripts.join("computed.cql"), text).unwrap();
        let before = site.files();
        let out = site.run_script("computed.cql", &["-o", "computed-out.pgn"]);
        assert_abandoned(&out, what);
        assert_eq!(changed(&before, &site.files(), &site.scripts), Vec::<PathBuf>::new(), "{text}");
        let written = std::fs::read_to_string(site.scripts.join("computed-out.pgn")).unwrap_or_default();
        assert!(!written.contains("secret"), "{written}");
    }
    assert!(!site.victims.join("escaped.cqo").exists());
    assert_eq!(std::fs::read_to_string(site.victims.join("victim.cqo")).unwrap(), "untouched\n");
    assert_eq!(std::fs::read_to_string(site.scripts.join("other.cql")).unwrap(), "cql() mate\n");
}

#[test]
fn files_in_the_folders_work_and_allow_files_opens_another() {
    let site = Site::new("allowed");
    // Inside the script's folder: written, then read back into a tag.
    std::fs::write(site.scripts.join("notes.cqo"), "old").unwrap();
    let out = site.run(
        "inside.cql",
        "cql()\ninitial writefile (\"sub.cqo\" \"made here\") settag (\"Note\" readfile \"notes.cqo\")\n",
        &["-o", "inside-out.pgn"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(site.scripts.join("sub.cqo")).unwrap(), "made here");
    let games = read_games(&site.scripts.join("inside-out.pgn"));
    assert_eq!(tag(&games[0], "Note").as_deref(), Some("old"));
    // The user's folder, once allowed, by any path.
    let prep = site.victims.join("prep.pgn").display().to_string();
    let text = format!("cql()\ninitial settag (\"Note\" readfile \"{prep}\")\n");
    let refused = site.run("reach.cql", &text, &["-o", "reach-out.pgn"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let allowed =
        site.run("reach.cql", &text, &["--allow-files", site.victims.to_str().unwrap(), "-o", "reach-out.pgn"]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    let games = read_games(&site.scripts.join("reach-out.pgn"));
    // A tag value cannot hold a line break: each is written as a space.
    assert_eq!(tag(&games[0], "Note"), Some(PREPARATION.replace('\n', " ")));
    // An allowed folder must exist.
    let missing = site.run("reach.cql", &text, &["--allow-files", "no-such-folder"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("no-such-folder"), "{}", stderr(&missing));
}

#[test]
fn secure_refuses_every_file_access() {
    let site = Site::new("secure");
    std::fs::write(site.scripts.join("lib.cql"), "function Mated() { mate }\n").unwrap();
    std::fs::write(site.scripts.join("notes.cqo"), "notes\n").unwrap();
    let quoted = [
        ("cql()\ncomment (readfile \"notes.cqo\")\n", "2:19"),
        ("cql()\nwritefile (\"new.cqo\" \"x\")\n", "2:12"),
        ("cql(include \"lib.cql\")\nMated()\n", "1:13"),
        ("cql(output mine.pgn)\ncheck\n", "1:12"),
        ("cql(input games.pgn)\ncheck\n", "1:11"),
    ];
    for (text, at) in quoted {
        std::fs::write(site.scripts.join("s.cql"), text).unwrap();
        let before = site.files();
        // Without `-i`, so that the script's own `input` is the one read.
        let out = Command::new(BIN).current_dir(&site.scripts).args(["--secure", "s.cql"]).output().unwrap();
        assert_refused_at(&out, "s.cql", at, "--secure");
        assert_eq!(changed(&before, &site.files(), &site.scripts), Vec::<PathBuf>::new(), "{text}");
    }
    // A name computed from the game: abandoned.
    let out = site.run("c.cql", "cql()\ncomment (readfile (\"notes\" + \".cqo\"))\n", &["--secure", "-o", "c-out.pgn"]);
    let err = stderr(&out);
    assert!(out.status.code() == Some(2) || err.contains("1 abandoned"), "{err}");
    assert!(err.contains("--secure"), "{err}");
    assert!(!site.scripts.join("new.cqo").exists());
}

/// The games of a PGN file as cqlrs reads them.
fn read_games(path: &Path) -> Vec<Game> {
    let mut games = Vec::new();
    for raw in cqlrs::input::Games::new(vec![path.display().to_string()]) {
        let raw: RawGame = raw.expect("a game");
        let mut game = Game::default();
        GameParser::new().parse(&raw, &mut game, &|_| true).unwrap_or_else(|e| panic!("{e}"));
        games.push(game);
    }
    games
}

fn tag(game: &Game, name: &str) -> Option<String> {
    game.tag(name).map(|t| t.text().into_owned())
}

/// The main line's moves and the comments after each position (the start first).
fn moves_and_comments(game: &Game) -> (Vec<String>, Vec<Vec<String>>) {
    let ids: Vec<_> = game.mainline().collect();
    let moves = ids.iter().skip(1).map(|&id| game.node(id).san.to_string()).collect();
    let comments = ids.iter().map(|&id| game.node(id).comments.clone()).collect();
    (moves, comments)
}

#[test]
fn injected_text_stays_data() {
    let site = Site::new("injection");
    // A tag value with escaped quotes that, written back unescaped, would be two tags.
    let evil_event = r#"a"] [White "Evil"#;
    let games =
        "[Event \"a\\\"] [White \\\"Evil\"]\n[White \"Real\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. e4 {a} e5 *\n";
    std::fs::write(site.scripts.join("evil.pgn"), games).unwrap();
    let script = "cql()\ninitial comment (\"a} 1. e4 {b\") settag (\"Annotator\" event)\n";
    std::fs::write(site.scripts.join("inject.cql"), script).unwrap();
    let out = Command::new(BIN)
        .current_dir(&site.scripts)
        .args(["-i", "evil.pgn", "-o", "inject-out.pgn", "inject.cql"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let back = read_games(&site.scripts.join("inject-out.pgn"));
    assert_eq!(back.len(), 1);
    let game = &back[0];
    assert_eq!(tag(game, "Event").as_deref(), Some(evil_event));
    assert_eq!(tag(game, "Annotator").as_deref(), Some(evil_event));
    assert_eq!(tag(game, "White").as_deref(), Some("Real"));
    assert_eq!(game.tags.iter().filter(|t| t.name == "White").count(), 1);
    let (moves, comments) = moves_and_comments(game);
    assert_eq!(moves, ["e4", "e5"], "no move injected");
    // CQL 6.2 writes a brace of the script's text as `_` (MarkBoard::cleanCommentBuffer).
    assert!(comments[0].iter().any(|c| c == "a_ 1. e4 _b"), "{comments:?}");
    assert_eq!(comments[1], ["a"]);
}

/// Issue 43, item 1: the script's own `input` (and the legacy `:pgn`) goes through the
/// same gate as its other files; a refusal does not tell whether a file outside exists.
#[test]
fn the_scripts_own_input_is_confined() {
    let site = Site::new("input");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&site.victims, site.scripts.join("door")).unwrap();
    let prep = site.victims.join("prep.pgn").display().to_string();
    let missing = site.victims.join("missing.pgn").display().to_string();
    let mut cases: Vec<(String, &str)> = vec![
        ("cql(input \"../victims/prep.pgn\" output \"loot.pgn\")\ncheck\n".into(), "`..` leads outside"),
        (format!("cql(input {prep} output loot.pgn)\ncheck\n"), "an absolute path leads outside"),
        ("(match :pgn ../victims/prep.pgn :output loot.pgn\n (position))\n".into(), "`..` leads outside"),
    ];
    #[cfg(unix)]
    cases.push(("cql(input door/prep.pgn output loot.pgn)\ncheck\n".into(), "symbolic link"));
    for (text, rule) in &cases {
        std::fs::write(site.scripts.join("stranger.cql"), text).unwrap();
        let out = Command::new(BIN).current_dir(&site.scripts).arg("stranger.cql").output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{text}\n{err}");
        assert!(err.contains("input") && err.contains(rule), "{text}\n{err}");
        assert!(!site.scripts.join("loot.pgn").exists(), "{text}");
    }
    // The same words whether the file outside exists or not.
    let said = |name: &str| {
        std::fs::write(site.scripts.join("probe.cql"), format!("cql(input {name})\ncheck\n")).unwrap();
        let out = Command::new(BIN).current_dir(&site.scripts).arg("probe.cql").output().unwrap();
        // The message's line (the caret below is as long as the name).
        stderr(&out).replace(name, "NAME").lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(said(&prep), said(&missing));
    assert!(said(&prep).contains("leads outside"));
    // Inside the folder the script's input is read as before.
    let out = site.run("own.cql", "cql(input games.pgn output own-out.pgn)\ntrue\n", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(site.scripts.join("own-out.pgn")).unwrap().contains("Nf3"));
}

/// Issue 43, items 2 and 6: files are opened without following links and checked once
/// open: a hard link to a file outside, a FIFO (for reading, writing or as the script's
/// input) are refused without waiting, and a link swapped in while runs go on never
/// lets a run read or write outside.
#[cfg(unix)]
#[test]
fn links_and_fifos_are_refused_once_opened() {
    let site = Site::new("opened");
    // A hard link inside the folder to the user's file outside.
    std::fs::hard_link(site.victims.join("prep.pgn"), site.scripts.join("hard.pgn")).unwrap();
    let out = site.run("hard.cql", "cql()\ninitial comment (readfile \"hard.pgn\")\n", &["-o", "hard-out.pgn"]);
    assert_abandoned(&out, "other names (hard links)");
    let written = std::fs::read_to_string(site.scripts.join("hard-out.pgn")).unwrap_or_default();
    assert!(!written.contains("secret"), "{written}");
    // FIFOs: refused at once, for writing as for reading.
    for name in ["pipe.cqo", "pipe.pgn"] {
        assert!(Command::new("mkfifo").arg(site.scripts.join(name)).status().unwrap().success());
    }
    let started = std::time::Instant::now();
    let cases = [
        ("cql()\ninitial writefile (\"pipe.cqo\" \"x\")\n", "not a regular file"),
        ("cql()\ninitial comment (readfile \"pipe.cqo\")\n", "not a regular file"),
        ("cql(input pipe.pgn)\ncheck\n", "not a regular file"),
    ];
    for (text, rule) in cases {
        std::fs::write(site.scripts.join("fifo.cql"), text).unwrap();
        let out =
            Command::new(BIN).current_dir(&site.scripts).args(["-o", "fifo-out.pgn", "fifo.cql"]).output().unwrap();
        assert!(stderr(&out).contains(rule), "{text}\n{}", stderr(&out));
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "a FIFO held a run up");
    // A link swapped in and out between the runs' checks and opens: the victim outside
    // stays as it was and no run reads it.
    let race = site.scripts.join("race.cqo");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flipper = {
        let (race, victim, stop) = (race.clone(), site.victims.join("victim.cqo"), stop.clone());
        std::thread::spawn(move || {
            let spare = race.with_extension("tmp");
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::write(&spare, "inside\n");
                let _ = std::fs::rename(&spare, &race);
                let _ = std::os::unix::fs::symlink(&victim, &spare);
                let _ = std::fs::rename(&spare, &race);
            }
        })
    };
    std::fs::write(
        site.scripts.join("race.cql"),
        "cql()\ninitial comment (readfile \"race.cqo\") writefile (\"race.cqo\" \"RACED\")\n",
    )
    .unwrap();
    for _ in 0..40 {
        let out =
            Command::new(BIN).current_dir(&site.scripts).args(["-o", "race-out.pgn", "race.cql"]).output().unwrap();
        let written = std::fs::read_to_string(site.scripts.join("race-out.pgn")).unwrap_or_default();
        assert!(!written.contains("untouched"), "a run read the file outside:\n{written}\n{}", stderr(&out));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    flipper.join().unwrap();
    assert_eq!(std::fs::read_to_string(site.victims.join("victim.cqo")).unwrap(), "untouched\n");
}

/// Issue 43, item 9: `writefile` into the run's own output or rejects file is refused
/// with a message (the run replaces those files whole at its end).
#[test]
fn writefile_into_the_runs_own_output_is_refused() {
    let site = Site::new("own-output");
    for (option, name) in [("-o", "mine.cqo"), ("--rejects", "rejects.cqo")] {
        let text = format!("cql()\ninitial writefile (\"{name}\" \"text\")\n");
        let extra: Vec<&str> = if option == "-o" { vec!["-o", name] } else { vec!["-o", "x.pgn", "--rejects", name] };
        let out = site.run("own.cql", &text, &extra);
        assert_abandoned(&out, "this run's own output or rejects file");
    }
}

/// Issue 43, item 5: a `;` comment that holds `}` is written so that, read back, the
/// game has the input's moves and the comment's text.
#[test]
fn a_rest_of_line_comment_cannot_inject_moves() {
    let site = Site::new("semicolon");
    let games = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 ; } d5 2. exd5 {\ne5 2. Nf3 *\n";
    std::fs::write(site.scripts.join("semi.pgn"), games).unwrap();
    std::fs::write(site.scripts.join("all.cql"), "cql()\ntrue\n").unwrap();
    let out = Command::new(BIN)
        .current_dir(&site.scripts)
        .args(["-i", "semi.pgn", "-o", "semi-out.pgn", "all.cql"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let back = read_games(&site.scripts.join("semi-out.pgn"));
    assert_eq!(back.len(), 1);
    let (moves, comments) = moves_and_comments(&back[0]);
    assert_eq!(moves, ["e4", "e5", "Nf3"], "no move injected");
    assert!(comments[1].iter().any(|c| c.trim() == "} d5 2. exd5 {"), "{comments:?}");
    // Twice through: still the same moves.
    let again = Command::new(BIN)
        .current_dir(&site.scripts)
        .args(["-i", "semi-out.pgn", "-o", "semi-again.pgn", "all.cql"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(moves_and_comments(&read_games(&site.scripts.join("semi-again.pgn"))[0]).0, ["e4", "e5", "Nf3"]);
}
