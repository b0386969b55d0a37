//! A theme survey's findings: what many queries found in one archive, counted and written
//! as tables (`summary.csv`, `summary.json`, `cooccurrence.csv`, `breakdown.csv`) and as
//! a page people read in a browser (`report.html`, see [`html`]).
//!
//! Takes in: the games of a survey scan ([`scan::SurveyGame`]), in input
//! order, each with the themes that matched it.
//! Gives out: per theme the games and positions matched, the first match's locator and
//! an example position; the games each pair of themes share; per theme the games by
//! result, ECO group, rating band, decade and source file.
//! Must never: keep a game beyond its own tally (memory is the number of themes
//! squared plus the breakdown values, not the archive).

pub mod html;
pub mod scan;
mod svg;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use shakmaty::{Color, Position, Role, Square};

use crate::eval::GameMatch;
use crate::pgn::{Game, Played};
use scan::SurveyGame;

/// The tags of a game the breakdowns sort it by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFacts {
    /// The game's result: `1-0`, `0-1`, `1/2-1/2`, or `*` (unknown or unfinished).
    pub result: &'static str,
    /// The ECO group of the opening (`A` to `E`), when the game has an ECO code.
    pub eco: Option<char>,
    /// The mean of the two players' Elo ratings, when both are given.
    pub mean_elo: Option<u32>,
    /// The year the game was played, when its date gives one.
    pub year: Option<u32>,
}

impl GameFacts {
    /// The facts of a game, read from its tags.
    pub fn of(game: &Game) -> GameFacts {
        let tag = |name: &str| game.tag(name).map(|t| t.text());
        let result = match tag("Result").as_deref().map(str::trim) {
            Some("1-0") => "1-0",
            Some("0-1") => "0-1",
            Some("1/2-1/2") => "1/2-1/2",
            _ => "*",
        };
        let eco = tag("ECO")
            .and_then(|e| e.trim().chars().next())
            .map(|c| c.to_ascii_uppercase())
            .filter(|c| ('A'..='E').contains(c));
        let elo = |name: &str| tag(name).and_then(|e| e.trim().parse::<u32>().ok()).filter(|&e| e > 0);
        let mean_elo = match (elo("WhiteElo"), elo("BlackElo")) {
            (Some(w), Some(b)) => Some((w + b) / 2),
            _ => None,
        };
        let year = |name: &str| {
            let text = tag(name)?;
            let digits = text.trim().get(..4)?;
            if digits.bytes().all(|b| b.is_ascii_digit()) {
                digits.parse::<u32>().ok()
            } else {
                None
            }
        };
        GameFacts { result, eco, mean_elo, year: year("Date").or_else(|| year("UTCDate")) }
    }
}

/// The dimensions a theme's games are broken down by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dimension {
    /// The game's result.
    Result,
    /// The ECO group of the opening, A to E.
    Eco,
    /// 200-point bands of the players' mean Elo.
    Rating,
    /// The decade the game was played in.
    Decade,
    /// The input file the game came from.
    File,
}

impl Dimension {
    /// Every dimension, in the order the report shows them.
    pub const ALL: [Dimension; 5] =
        [Dimension::Result, Dimension::Eco, Dimension::Rating, Dimension::Decade, Dimension::File];

    /// The dimension's name in `breakdown.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Result => "result",
            Dimension::Eco => "eco",
            Dimension::Rating => "rating",
            Dimension::Decade => "decade",
            Dimension::File => "file",
        }
    }

    /// The dimension's title in the report.
    pub fn title(self) -> &'static str {
        match self {
            Dimension::Result => "Result",
            Dimension::Eco => "ECO group",
            Dimension::Rating => "Mean Elo",
            Dimension::Decade => "Decade",
            Dimension::File => "Source file",
        }
    }
}

/// A value a game takes in a dimension, ordered as the report lists them: results in
/// their usual order, bands and decades by number, files by input order; unknown last.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bucket {
    /// Where the value sorts within its dimension.
    pub rank: u64,
    /// The value as written (`1-0`, `B`, `1800-1999`, `1980s`, a file name, `unknown`).
    pub label: String,
}

/// Rank of the unknown value: after every known one.
const UNKNOWN: u64 = u64::MAX;

fn buckets(facts: &GameFacts, file_index: usize, file: &str) -> [(Dimension, Bucket); 5] {
    let unknown = || Bucket { rank: UNKNOWN, label: "unknown".into() };
    let result_rank = ["1-0", "0-1", "1/2-1/2", "*"].iter().position(|r| *r == facts.result).unwrap_or(3) as u64;
    [
        (Dimension::Result, Bucket { rank: result_rank, label: facts.result.to_string() }),
        (Dimension::Eco, facts.eco.map_or_else(unknown, |c| Bucket { rank: c as u64, label: c.to_string() })),
        (
            Dimension::Rating,
            facts.mean_elo.map_or_else(unknown, |elo| {
                let low = elo / 200 * 200;
                Bucket { rank: low as u64, label: format!("{low}-{}", low + 199) }
            }),
        ),
        (
            Dimension::Decade,
            facts.year.map_or_else(unknown, |y| {
                let decade = y / 10 * 10;
                Bucket { rank: decade as u64, label: format!("{decade}s") }
            }),
        ),
        (Dimension::File, Bucket { rank: file_index as u64, label: file.to_string() }),
    ]
}

/// Where a game is: its input file, the byte offset of its first byte there, its number
/// in the run and its ordinal within the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locator {
    /// The input file.
    pub file: String,
    /// Byte offset of the game's first byte in the file (in the decompressed text).
    pub offset: u64,
    /// The game's number in the run (from 1 across all inputs).
    pub game: u64,
    /// The game's ordinal within its file.
    pub file_game: u64,
}

/// A matched position to show: the board, the move that led there, the squares the
/// query's comments name there, and the game it is from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    /// The pieces, `a1` first (index = square), as FEN letters; `None` for an empty square.
    pub board: [Option<char>; 64],
    /// The move that led to the position, numbered (`23. Qxh7+`, `23... Kxh7`); empty at
    /// the start of the game.
    pub last_move: String,
    /// The squares that move went from and to.
    pub move_squares: Vec<u8>,
    /// The squares the query's comments at this position name (`comment`, `///`).
    pub marked: Vec<u8>,
    /// The query's comments at this position.
    pub comments: Vec<String>,
    /// White's and Black's names (`?` when not given).
    pub players: (String, String),
    /// The event (`?` when not given).
    pub event: String,
    /// The date as given (`????.??.??` parts dropped), empty when unknown.
    pub date: String,
}

impl Example {
    /// The first position `found` marks in `game`, as an example to draw; `None` when the
    /// match marks no position.
    pub fn of(game: &Game, found: &GameMatch) -> Option<Example> {
        let &id = found.positions.first()?;
        let node = game.nodes.get(id.index())?;
        let mut board = [None; 64];
        for square in Square::ALL {
            board[square as usize] = node.pos.board().piece_at(square).map(|piece| piece.char());
        }
        let mut last_move = String::new();
        let mut move_squares = Vec::new();
        if let Some(parent) = node.parent.and_then(|p| game.nodes.get(p.index())) {
            let number = parent.pos.fullmoves().get();
            let dots = if parent.pos.turn() == Color::White { "." } else { "..." };
            let _ = write!(last_move, "{number}{dots} {}", node.san.as_str());
            if let Some(Played::Move(m)) = &node.played {
                if let Some(from) = m.from() {
                    move_squares.push(from as u8);
                }
                move_squares.push(m.to() as u8);
            }
        }
        let comments: Vec<String> = found.comments.iter().filter(|(n, _)| *n == id).map(|(_, c)| c.clone()).collect();
        let mut marked: Vec<u8> = comments.iter().flat_map(|c| squares_named(c)).collect();
        marked.sort_unstable();
        marked.dedup();
        let tag = |name: &str| {
            game.tag(name).map(|t| t.text().trim().to_string()).filter(|t| !t.is_empty()).unwrap_or_else(|| "?".into())
        };
        let date = game
            .tag("Date")
            .or_else(|| game.tag("UTCDate"))
            .map(|t| t.text().split('.').take_while(|p| !p.contains('?')).collect::<Vec<_>>().join("."))
            .unwrap_or_default();
        Some(Example {
            board,
            last_move,
            move_squares,
            marked,
            comments,
            players: (tag("White"), tag("Black")),
            event: tag("Event"),
            date,
        })
    }

    /// The piece on square `index` (a1 = 0): its colour and kind.
    pub fn piece(&self, index: usize) -> Option<(Color, Role)> {
        let c = self.board.get(index).copied().flatten()?;
        let role = Role::from_char(c.to_ascii_lowercase())?;
        Some((if c.is_ascii_uppercase() { Color::White } else { Color::Black }, role))
    }
}

/// The squares a comment names (`e4`, `h7`), in order of appearance: a file letter and a
/// rank digit standing alone as a word.
fn squares_named(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for i in 0..bytes.len().saturating_sub(1) {
        let (f, r) = (bytes[i], bytes[i + 1]);
        let alone_before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let alone_after = bytes.get(i + 2).is_none_or(|b| !b.is_ascii_alphanumeric());
        if (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r) && alone_before && alone_after {
            out.push(Square::from_coords(
                shakmaty::File::new(u32::from(f - b'a')),
                shakmaty::Rank::new(u32::from(r - b'1')),
            ) as u8);
        }
    }
    out
}

/// What the survey found for one theme.
#[derive(Clone, Debug)]
pub struct ThemeTally {
    /// The theme's name (its script's file stem).
    pub name: String,
    /// The script it was compiled from.
    pub script: String,
    /// The script's language: `cql6`, `legacy` or `yacpdb`.
    pub language: &'static str,
    /// Games matched.
    pub games: u64,
    /// Positions matched, over all matched games.
    pub positions: u64,
    /// Where the first matching game is.
    pub first: Option<Locator>,
    /// The first matching game's first marked position.
    pub example: Option<Example>,
    /// Games matched per dimension value.
    pub breakdown: BTreeMap<(Dimension, Bucket), u64>,
    /// Games the query gave up on or could not reread (reported on the console).
    pub warnings: u64,
}

/// A script that did not compile: it is left out of the survey.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    /// The script's path.
    pub script: String,
    /// The compile error as the command line prints it.
    pub error: String,
}

/// Everything the survey counted.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// One per theme, in the order the scripts were given.
    pub themes: Vec<ThemeTally>,
    /// The scripts that did not compile.
    pub failed: Vec<Failed>,
    /// The input files, in order.
    pub inputs: Vec<String>,
    /// Games read (including skipped ones).
    pub read: u64,
    /// Games that could not be read, for any theme.
    pub skipped: u64,
    /// Games read only up to a move that cannot be played (the themes saw the moves
    /// before it; counted among the games read, as a single run counts them).
    pub partly_read: u64,
    /// Games matched by at least one theme.
    pub matched_any: u64,
    /// `both[a * n + b]`: games matched by themes `a` and `b` (`both[a * n + a]` = games
    /// matched by `a`).
    pub both: Vec<u64>,
    /// All readable games per dimension value (the baseline the themes are read against).
    pub all: BTreeMap<(Dimension, Bucket), u64>,
}

impl Tally {
    /// An empty tally for these themes (name, script, language) and input files.
    pub fn new(themes: Vec<(String, String, &'static str)>, inputs: Vec<String>, failed: Vec<Failed>) -> Tally {
        let n = themes.len();
        Tally {
            themes: themes
                .into_iter()
                .map(|(name, script, language)| ThemeTally {
                    name,
                    script,
                    language,
                    games: 0,
                    positions: 0,
                    first: None,
                    example: None,
                    breakdown: BTreeMap::new(),
                    warnings: 0,
                })
                .collect(),
            failed,
            inputs,
            both: vec![0; n * n],
            ..Tally::default()
        }
    }

    /// Count one game (games must come in input order, so that the first match found
    /// is the first in the archive).
    pub fn add(&mut self, game: &SurveyGame) {
        self.read += 1;
        if game.skipped.is_some() {
            self.skipped += 1;
        }
        if game.partly_read.is_some() {
            self.partly_read += 1;
        }
        for (theme, _) in &game.warnings {
            self.themes[*theme].warnings += 1;
        }
        let Some(facts) = &game.facts else { return };
        let file_index = self.inputs.iter().position(|f| **f == *game.file).unwrap_or(self.inputs.len());
        let values = buckets(facts, file_index, &game.file);
        for value in &values {
            *self.all.entry(value.clone()).or_default() += 1;
        }
        if game.matches.is_empty() {
            return;
        }
        self.matched_any += 1;
        let n = self.themes.len();
        for m in &game.matches {
            for other in &game.matches {
                self.both[m.theme * n + other.theme] += 1;
            }
            let theme = &mut self.themes[m.theme];
            theme.games += 1;
            theme.positions += m.positions;
            if theme.first.is_none() {
                theme.first = Some(Locator {
                    file: game.file.to_string(),
                    offset: game.offset,
                    game: game.number,
                    file_game: game.file_number,
                });
            }
            if theme.example.is_none() {
                theme.example = m.example.clone();
            }
            for value in &values {
                *theme.breakdown.entry(value.clone()).or_default() += 1;
            }
        }
    }

    /// Games matched by both themes `a` and `b`.
    pub fn shared(&self, a: usize, b: usize) -> u64 {
        self.both[a * self.themes.len() + b]
    }

    /// The share of games read that theme `t` matched (0 when nothing was read).
    pub fn share(&self, t: usize) -> f64 {
        if self.read == 0 {
            0.0
        } else {
            self.themes[t].games as f64 / self.read as f64
        }
    }

    /// Theme indices, most matched games first (ties by name).
    pub fn ranked(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.themes.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.themes[a], &self.themes[b]);
            y.games.cmp(&x.games).then_with(|| x.name.cmp(&y.name))
        });
        order
    }

    /// `summary.csv`: per theme, games and positions matched, share of games read, and
    /// the first match's locator.
    pub fn summary_csv(&self) -> String {
        let mut out = String::from(
            "theme,script,language,games_matched,positions_matched,share_of_games_read,first_file,first_offset,first_game,first_game_in_file\n",
        );
        for (t, theme) in self.themes.iter().enumerate() {
            let first = theme.first.as_ref();
            let row = [
                theme.name.clone(),
                theme.script.clone(),
                theme.language.to_string(),
                theme.games.to_string(),
                theme.positions.to_string(),
                format!("{:.6}", self.share(t)),
                first.map_or(String::new(), |f| f.file.clone()),
                first.map_or(String::new(), |f| f.offset.to_string()),
                first.map_or(String::new(), |f| f.game.to_string()),
                first.map_or(String::new(), |f| f.file_game.to_string()),
            ];
            push_csv_row(&mut out, &row);
        }
        out
    }

    /// `summary.json`: the games read and skipped, the inputs, every theme's counts and
    /// first match, and the scripts that did not compile.
    pub fn summary_json(&self) -> String {
        use serde_json::{json, Value};
        let themes: Vec<Value> = self
            .themes
            .iter()
            .enumerate()
            .map(|(t, theme)| {
                json!({
                    "theme": theme.name,
                    "script": theme.script,
                    "language": theme.language,
                    "games_matched": theme.games,
                    "positions_matched": theme.positions,
                    "share_of_games_read": self.share(t),
                    "first_match": theme.first.as_ref().map(|f| json!({
                        "file": f.file,
                        "offset": f.offset,
                        "game": f.game,
                        "game_in_file": f.file_game,
                    })),
                    "warnings": theme.warnings,
                })
            })
            .collect();
        let failed: Vec<Value> = self.failed.iter().map(|f| json!({ "script": f.script, "error": f.error })).collect();
        let record = json!({
            "games_read": self.read,
            "games_skipped": self.skipped,
            "games_partly_read": self.partly_read,
            "games_matched_by_any_theme": self.matched_any,
            "inputs": self.inputs,
            "themes": themes,
            "failed": failed,
        });
        serde_json::to_string_pretty(&record).unwrap_or_default() + "\n"
    }

    /// `cooccurrence.csv`: for every pair of themes, the games both matched.
    pub fn cooccurrence_csv(&self) -> String {
        let mut out = String::from("theme_a,theme_b,games_both\n");
        for a in 0..self.themes.len() {
            for b in a + 1..self.themes.len() {
                let row = [self.themes[a].name.clone(), self.themes[b].name.clone(), self.shared(a, b).to_string()];
                push_csv_row(&mut out, &row);
            }
        }
        out
    }

    /// `breakdown.csv`: per theme (and for all readable games, as theme `(all games)`),
    /// the games per value of each dimension.
    pub fn breakdown_csv(&self) -> String {
        let mut out = String::from("theme,dimension,value,games\n");
        let mut rows = |name: &str, counts: &BTreeMap<(Dimension, Bucket), u64>| {
            for ((dimension, bucket), games) in counts {
                push_csv_row(
                    &mut out,
                    &[name.to_string(), dimension.name().into(), bucket.label.clone(), games.to_string()],
                );
            }
        };
        rows("(all games)", &self.all);
        for theme in &self.themes {
            rows(&theme.name, &theme.breakdown);
        }
        out
    }
}

/// Append one CSV row: fields with a comma, quote or line break are quoted. A field
/// that a spreadsheet would take for a formula (it starts with `=`, `+`, `-`, `@`, a tab
/// or a carriage return: a theme named after its script file, a file name, a tag) gets a
/// `'` in front and is quoted, as OWASP's advice on CSV injection has it, so that it is
/// shown as text and never run.
fn push_csv_row(out: &mut String, fields: &[String]) {
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if field.starts_with(['=', '+', '-', '@', '\t', '\r']) {
            out.push_str("\"'");
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else if field.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(field);
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_are_named_as_whole_words() {
        // e4 = file 4 + 8 * rank 3 = 28; h7 = 7 + 8 * 6 = 55; "Qe4x" and "a12" are not squares.
        assert_eq!(squares_named("fork on e4, h7"), vec![28, 55]);
        assert_eq!(squares_named("Qe4x a12 b9"), Vec::<u8>::new());
    }

    #[test]
    fn csv_fields_with_commas_and_quotes_are_quoted() {
        let mut out = String::new();
        push_csv_row(&mut out, &["a,b".into(), "say \"hi\"".into(), "plain".into()]);
        assert_eq!(out, "\"a,b\",\"say \"\"hi\"\"\",plain\n");
    }

    #[test]
    fn csv_fields_a_spreadsheet_would_run_are_made_text() {
        let mut out = String::new();
        let fields: Vec<String> = ["=HYPERLINK(\"http://x\",\"y\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "a=b", "12"]
            .map(String::from)
            .into();
        push_csv_row(&mut out, &fields);
        assert_eq!(
            out,
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",\"'+1\",\"'-2\",\"'@SUM(A1)\",\"'\tx\",\"'\rx\",a=b,12\n"
        );
    }

    #[test]
    fn buckets_follow_the_tags() {
        let facts = GameFacts { result: "0-1", eco: Some('C'), mean_elo: Some(1999), year: Some(1987) };
        let values = buckets(&facts, 1, "b.pgn");
        let labels: Vec<&str> = values.iter().map(|(_, b)| b.label.as_str()).collect();
        assert_eq!(labels, ["0-1", "C", "1800-1999", "1980s", "b.pgn"]);
    }
}
