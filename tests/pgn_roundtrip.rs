//! Text from archives and from scripts cannot change the structure of the PGN cqlrs
//! writes. A property test through the binary: games with random tag values and random
//! comments — quotes, backslashes, braces, brackets, semicolons, percent signs, line
//! breaks, non-ASCII letters — and random legal moves are written to a file, a query
//! copies tag values into new tags (`settag`) and into a comment (`comment`), and the
//! output, read back by cqlrs, holds the same tags, the same moves and the same comments
//! (a brace of the query's text written as `_`, as CQL 6.2 does).
//!
//! Each generated case is a file of many games run through the binary once, so that
//! more than 100,000 generated values are checked in a few binary runs.
//! `CQLRS_ROUNDTRIP_DIR=DIR` keeps the files of every case there (to check them with
//! another PGN reader: `scripts/pgn-roundtrip-python-chess DIR`), and
//! `CQLRS_ROUNDTRIP_CASES=N` runs N files instead of 24.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use cqlrs::pgn::{Game, GameParser};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position};

const BIN: &str = env!("CARGO_BIN_EXE_cqlrs");

/// Games per generated file.
const GAMES_PER_CASE: usize = 400;
/// Generated files.
const CASES: u32 = 24;

/// The query: the Event and Site values into new tags, White's name into a comment at
/// the start. `quiet`: no match marks, so the comments read back are exactly the game's
/// own, the game number and the query's.
const QUERY: &str =
    "cql(quiet)\ninitial {comment (player white) settag (\"Annotator\" event) settag (\"Note\" site)}\n";

/// One generated game.
#[derive(Clone, Debug)]
struct GameSpec {
    /// Event, Site, White, Black, Round, Remark values (any text without a line break:
    /// a tag value in a PGN file cannot hold one).
    tags: Vec<String>,
    /// Choices among the legal moves, one a ply.
    plies: Vec<u16>,
    /// A comment before the first move, and one after each move (texts without `}`).
    comments: Vec<Option<String>>,
}

const TAG_NAMES: [&str; 6] = ["Event", "Site", "White", "Black", "Round", "Remark"];

/// The characters generated texts are made of: the PGN's own punctuation, escapes,
/// blanks and line breaks, and a few letters (ASCII and not).
fn text_char(line_breaks: bool, close_brace: bool) -> impl Strategy<Value = char> {
    let mut chars: Vec<char> = "ab Z09\"\\{[];%().*$-!?#+=/e\u{e9}\u{265a}\u{4e2d}\t".chars().collect();
    if close_brace {
        chars.push('}');
    }
    if line_breaks {
        chars.extend(['\n', '\n']);
    }
    prop::sample::select(chars)
}

fn text(max: usize, line_breaks: bool, close_brace: bool) -> impl Strategy<Value = String> {
    prop::collection::vec(text_char(line_breaks, close_brace), 0..max).prop_map(|c| c.into_iter().collect())
}

fn game_spec() -> impl Strategy<Value = GameSpec> {
    // Event, Site and White are copied by the query, which matches only when each has a
    // value (not only blanks): they are never empty; the others may be.
    let copied = prop::collection::vec(text(14, false, true).prop_filter("a value", |t| t.chars().any(|c| c > ' ')), 3);
    let others = prop::collection::vec(text(14, false, true), TAG_NAMES.len() - 3);
    let tags = (copied, others).prop_map(|(mut a, b)| {
        a.extend(b);
        a
    });
    let plies = prop::collection::vec(any::<u16>(), 0..7);
    (tags, plies).prop_flat_map(|(tags, plies)| {
        let comments = prop::collection::vec(prop::option::weighted(0.6, text(16, true, false)), plies.len() + 1);
        comments.prop_map(move |comments| GameSpec { tags: tags.clone(), plies: plies.clone(), comments })
    })
}

/// A tag value as PGN writes it (`\\` and `\"`).
fn escaped(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The moves of a game: SAN (with check marks) of the chosen legal moves.
fn sans(plies: &[u16]) -> Vec<String> {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for &choice in plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[choice as usize % legal.len()].clone();
        out.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
    }
    out
}

/// The PGN text of a generated game.
fn pgn_of(spec: &GameSpec) -> String {
    let mut text = String::new();
    for (name, value) in TAG_NAMES.iter().zip(&spec.tags) {
        text.push_str(&format!("[{name} \"{}\"]\n", escaped(value)));
    }
    text.push_str("[Result \"*\"]\n\n");
    if let Some(c) = &spec.comments[0] {
        text.push_str(&format!("{{{c}}} "));
    }
    for (i, san) in sans(&spec.plies).iter().enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(san);
        text.push(' ');
        if let Some(c) = &spec.comments[i + 1] {
            text.push_str(&format!("{{{c}}} "));
            if i % 2 == 0 {
                text.push_str(&format!("{}... ", i / 2 + 1));
            }
        }
    }
    text.push_str("*\n\n");
    text
}

/// A comment's text as a reader gives it back: blanks at its ends left out.
fn trimmed(text: &str) -> String {
    text.trim_matches(|c: char| c <= ' ' || c == '\u{7f}').to_string()
}

/// White's name as `player white` gives it (CQL 6.2's `standardPlayerName`, as
/// docs/compat.md describes it): blanks at the start dropped, exactly one blank after a
/// comma (none at the end), blanks, tabs and dots at the end dropped, `van ` and
/// `Van Der `/`Van Den `/`Van De ` capitalised as CQL does; then a rating ` (dddd)` at
/// the end taken off.
fn as_player_reads(name: &str) -> String {
    let mut out = String::new();
    let (mut after_comma, mut at_start) = (false, true);
    for c in name.chars() {
        match c {
            ',' => {
                out.push(',');
                after_comma = true;
                at_start = false;
            }
            ' ' if after_comma || at_start => {}
            ' ' => out.push(' '),
            _ => {
                if after_comma {
                    out.push(' ');
                }
                after_comma = false;
                at_start = false;
                out.push(c);
            }
        }
    }
    let mut out = out.trim_end_matches(['.', ' ', '\t']).to_string();
    if out.starts_with("van ") {
        out.replace_range(0..1, "V");
    }
    if ["Van Der ", "Van Den ", "Van De "].iter().any(|p| out.starts_with(p)) {
        out.replace_range(4..5, "d");
    }
    let b = out.as_bytes();
    let n = b.len();
    if n > 7
        && b[n - 1] == b')'
        && b[n - 6] == b'('
        && b[n - 7] == b' '
        && b[n - 5..n - 1].iter().all(u8::is_ascii_digit)
    {
        out.truncate(n - 7);
    }
    out
}

/// A game's own comment as it reads back: written on one line (each line break a space),
/// as CQL 6.2 writes it (docs/gui.md), then trimmed by the reader.
fn own_comment(text: &str) -> String {
    trimmed(&text.replace("\r\n", " ").replace(['\n', '\r'], " "))
}

/// The text the query writes into a comment, as CQL 6.2 writes it: braces as `_`, line
/// breaks as spaces (docs/output.md).
fn as_written_in_comment(text: &str) -> String {
    text.chars()
        .map(|c| {
            if matches!(c, '{' | '}') {
                '_'
            } else if matches!(c, '\n' | '\r') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// The games of a PGN file as cqlrs reads them.
fn read_games(path: &Path) -> Vec<Game> {
    cqlrs::input::Games::new(vec![path.display().to_string()])
        .map(|raw| {
            let raw = raw.expect("a game");
            let mut game = Game::default();
            GameParser::new().parse(&raw, &mut game, &|_| true).unwrap_or_else(|e| panic!("{e}"));
            game
        })
        .collect()
}

/// Values checked over all cases (tag values and comment texts).
static CHECKED: AtomicUsize = AtomicUsize::new(0);

fn check_case(dir: &Path, case: usize, specs: &[GameSpec]) -> Result<(), TestCaseError> {
    let input = dir.join(format!("case{case}-in.pgn"));
    let output = dir.join(format!("case{case}-out.pgn"));
    std::fs::write(&input, specs.iter().map(pgn_of).collect::<String>()).unwrap();
    let script = dir.join("roundtrip.cql");
    std::fs::write(&script, QUERY).unwrap();
    let run = Command::new(BIN)
        .args(["-i", input.to_str().unwrap(), "-o", output.to_str().unwrap(), script.to_str().unwrap()])
        .output()
        .unwrap();
    prop_assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let games = read_games(&output);
    prop_assert_eq!(games.len(), specs.len());
    let mut checked = 0;
    for (n, (spec, game)) in specs.iter().zip(&games).enumerate() {
        let tag = |name: &str| game.tag(name).map(|t| t.text().into_owned());
        // The tags in the PGN export format: the Seven Tag Roster in its order (the date
        // the game lacks written as `????.??.??`), the game's other tags, then those
        // `settag` added; each value exact.
        let names: Vec<&str> = game.tags.iter().map(|t| t.name.as_str()).collect();
        prop_assert_eq!(
            names,
            ["Event", "Site", "Date", "Round", "White", "Black", "Result", "Remark", "Annotator", "Note"]
        );
        prop_assert_eq!(tag("Date"), Some("????.??.??".to_string()));
        for (name, value) in TAG_NAMES.iter().zip(&spec.tags) {
            prop_assert_eq!(tag(name), Some(value.clone()), "game {} tag {}", n + 1, name);
        }
        prop_assert_eq!(tag("Annotator"), Some(spec.tags[0].clone()));
        prop_assert_eq!(tag("Note"), Some(spec.tags[1].clone()));
        checked += TAG_NAMES.len() + 2;
        // The moves.
        let ids: Vec<_> = game.mainline().collect();
        let moves: Vec<String> = ids.iter().skip(1).map(|&id| game.node(id).san.to_string()).collect();
        prop_assert_eq!(&moves, &sans(&spec.plies), "game {}", n + 1);
        // The comments: at the start the game number, the game's own comment and White's
        // name; after each move the game's own comment.
        let mut start = vec![format!("Game number {}", n + 1)];
        start.extend(spec.comments[0].as_deref().map(own_comment));
        // A name that standardises to nothing is no value: CQL writes `<false>`.
        let name = as_written_in_comment(&as_player_reads(&spec.tags[2]));
        start.push(if name.is_empty() { "<false>".to_string() } else { trimmed(&name) });
        prop_assert_eq!(&game.node(ids[0]).comments, &start, "game {}", n + 1);
        for (k, &id) in ids.iter().enumerate().skip(1) {
            let own: Vec<String> = spec.comments[k].as_deref().map(own_comment).into_iter().collect();
            prop_assert_eq!(&game.node(id).comments, &own, "game {} ply {}", n + 1, k);
        }
        checked += 1 + spec.comments.iter().take(ids.len()).filter(|c| c.is_some()).count();
    }
    CHECKED.fetch_add(checked, Ordering::Relaxed);
    Ok(())
}

#[test]
fn tags_moves_and_comments_read_back_the_same() {
    let keep = std::env::var_os("CQLRS_ROUNDTRIP_DIR").map(PathBuf::from);
    let dir =
        keep.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("cqlrs-roundtrip-{}", std::process::id())));
    std::fs::create_dir_all(&dir).unwrap();
    let case = AtomicUsize::new(0);
    let cases = std::env::var("CQLRS_ROUNDTRIP_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(CASES);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let result = runner.run(&prop::collection::vec(game_spec(), GAMES_PER_CASE), |specs| {
        check_case(&dir, case.fetch_add(1, Ordering::Relaxed), &specs)
    });
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    if let Err(e) = result {
        panic!("{e}");
    }
    let checked = CHECKED.load(Ordering::Relaxed);
    eprintln!("{checked} generated tag values and comment texts read back the same");
    assert!(checked >= 100_000, "only {checked} generated values were checked");
}
