//! What a run owns belongs to that run: the files `writefile` opened, the inputs
//! `lastgamenumber` counts and the tables of `similarposition` files. A second query in the
//! same process, run after the first or beside it on another thread, sees none of the
//! first one's. (Each of these was once a process-wide static: a file opened by one run
//! was appended to by the next, without the next run's file policy being asked; the
//! inputs registered last were counted for every run; a `similarposition` file was read
//! once per process, so a query compiled after the file changed saw the old positions.)

use std::path::{Path, PathBuf};

use cqlrs::eval::{GameMatch, Scratch};
use cqlrs::pgn::{Game, GameBuilder};
use cqlrs::{CompileOptions, FilePolicy, Query};

/// A new empty folder for one test.
fn fresh_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cqlrs-run-context-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// A game of these moves (SAN).
fn game(moves: &[&str]) -> Game {
    let mut builder = GameBuilder::new(1);
    for san in moves {
        builder.play(san).expect("a legal move");
    }
    builder.finish(Some("*"))
}

fn compile(text: &str, policy: FilePolicy) -> Query {
    Query::compile(text, &mut CompileOptions::default().files(policy)).expect("the query compiles")
}

fn run(query: &Query, game: &Game) -> GameMatch {
    query.eval_game(&mut Scratch::default(), game)
}

fn text_of(path: &Path) -> String {
    std::fs::read_to_string(path).expect("the file was written")
}

/// `writefile` empties a file when its run first writes to it: a second run writing the
/// same file starts it again, rather than appending to what the first run left open.
#[test]
fn a_file_written_by_one_run_is_started_afresh_by_the_next() {
    let dir = fresh_dir("writefile");
    let file = dir.join("notes.cqo");
    let writing = |word: &str| {
        let text = format!("cql() initial writefile (\"{}\" \"{word}\")", file.display());
        compile(&text, FilePolicy::unrestricted())
    };
    let start = game(&[]);
    // One thread: two runs one after the other.
    assert!(run(&writing("one"), &start).matched);
    assert_eq!(text_of(&file), "one");
    assert!(run(&writing("two"), &start).matched);
    assert_eq!(text_of(&file), "two", "the second run does not append to the first run's file");
    // Two threads: each run on a thread of its own.
    for word in ["three", "four"] {
        let query = writing(word);
        std::thread::scope(|s| {
            s.spawn(|| assert!(run(&query, &game(&[])).matched)).join().expect("the run ends");
        });
        assert_eq!(text_of(&file), word);
    }
    // Within one run the file is written once and then appended to, game after game.
    let query = writing("five");
    let mut scratch = Scratch::default();
    assert!(query.eval_game(&mut scratch, &start).matched);
    assert!(query.eval_game(&mut scratch, &start).matched);
    assert_eq!(text_of(&file), "fivefive");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file opened by one run is not "already open" for the next: the next run's own file
/// policy decides whether it may write there (here `--secure`, which forbids any file).
#[test]
fn a_later_run_asks_its_own_file_policy_about_a_file_an_earlier_run_wrote() {
    let dir = fresh_dir("policy");
    let file = dir.join("out.cqo");
    let free =
        compile(&format!("cql() initial writefile (\"{}\" \"one\")", file.display()), FilePolicy::unrestricted());
    assert!(run(&free, &game(&[])).matched);
    assert_eq!(text_of(&file), "one");
    // The name is computed while the query runs, so the policy is asked then (a quoted
    // name would be refused at compile time already).
    let secure_text = format!("cql() initial name = \"{}\" writefile (name \"two\")", file.display());
    let secure = compile(&secure_text, FilePolicy::forbidden());
    let refused = run(&secure, &game(&[]));
    let error = refused.error.expect("the secure run may not write the file");
    assert!(error.message.contains("--secure"), "{}", error.message);
    std::thread::scope(|s| {
        let secure = compile(&secure_text, FilePolicy::forbidden());
        let refused = s.spawn(move || run(&secure, &game(&[]))).join().expect("the run ends");
        assert!(refused.error.is_some(), "on another thread too");
    });
    assert_eq!(text_of(&file), "one", "the file the first run wrote is left as it was");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two runs with different inputs, both set up before either evaluates a game:
/// `lastgamenumber` counts each run's own inputs (3 games and 5 games), on one thread
/// and on two at the same time.
#[test]
fn lastgamenumber_counts_the_inputs_of_its_own_run() {
    let dir = fresh_dir("lastgamenumber");
    let pgn = |name: &str, games: usize| {
        let path = dir.join(name);
        std::fs::write(&path, "[Event \"x\"]\n\n1. e4 *\n\n".repeat(games)).expect("a PGN file");
        path.display().to_string()
    };
    let (three, five) = (pgn("three.pgn", 3), pgn("five.pgn", 5));
    let counting = |n: usize, input: &str| {
        let query = compile(&format!("cql() lastgamenumber == {n}"), FilePolicy::unrestricted());
        query.run().register_inputs(&[input.to_string()], &[]);
        query
    };
    let of_three = counting(3, &three);
    let of_five = counting(5, &five);
    let start = game(&[]);
    assert!(run(&of_three, &start).matched, "the first run counts its own 3 games");
    assert!(run(&of_five, &start).matched, "the second run counts its own 5 games");
    std::thread::scope(|s| {
        let a = s.spawn(|| run(&counting(3, &three), &game(&[])).matched);
        let b = s.spawn(|| run(&counting(5, &five), &game(&[])).matched);
        assert!(a.join().expect("the run ends") && b.join().expect("the run ends"));
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `similarposition` file is read by the query compiled with it: a query compiled
/// after the file changed finds the positions the file now holds, while the first query
/// keeps its own. The game played is 1. d4; the file first holds 1. e4 e5 (only the start
/// position in common), then 1. d4 d5 (the start and the position after 1. d4).
#[test]
fn each_query_reads_its_own_similarposition_table() {
    let dir = fresh_dir("similar");
    let file = dir.join("studies.pgn");
    let text = format!("cql() similarposition nosort notransform \"{}\"", file.display());
    let played = game(&["d4"]);
    std::fs::write(&file, "[Event \"a\"]\n\n1. e4 e5 *\n").expect("a PGN file");
    let before = compile(&text, FilePolicy::unrestricted());
    assert_eq!(run(&before, &played).positions.len(), 1, "the start position only");
    std::fs::write(&file, "[Event \"b\"]\n\n1. d4 d5 *\n").expect("a PGN file");
    let after = compile(&text, FilePolicy::unrestricted());
    assert_eq!(run(&after, &played).positions.len(), 2, "the start and the position after 1. d4");
    assert_eq!(run(&before, &played).positions.len(), 1, "the first query keeps what it read");
    std::thread::scope(|s| {
        let a = s.spawn(|| run(&before, &game(&["d4"])).positions.len());
        let b = s.spawn(|| run(&after, &game(&["d4"])).positions.len());
        assert_eq!((a.join().expect("the run ends"), b.join().expect("the run ends")), (1, 2));
    });
    let _ = std::fs::remove_dir_all(&dir);
}
