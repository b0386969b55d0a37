//! The survey scan: many compiled queries over the same games in one pass.
//!
//! Takes in: input sources, a list of [`Theme`]s (a compiled query each, with the PGN
//! style its own run would write), a [`ScanConfig`] (threads, in-flight bound) and the
//! [`ScanEvents`] that show progress.
//! Gives out: for every game read, in input order, one [`SurveyGame`] handed to the
//! caller's callback: the game's locator and facts, and for each theme that matched it
//! the bytes its own run writes for the game, its sort key and an example position.
//!
//! Each game is cut out, parsed and replayed once, by the worker that took its batch,
//! and every theme's query is evaluated on that one replay. The survey is a job and a
//! consumer of the scan's pipeline ([`crate::scan::pipeline`]): the input side (batches,
//! tokens, the reorder by batch sequence) is the single scan's, so memory is bounded by
//! the batches in flight: games in flight times the themes' rendered matches, not the
//! archive.
//!
//! The answers are those of separate runs: each theme decides on a game exactly as the
//! single scan's worker does (a header-only query decides on the tags alone, and the
//! positions it marks are found on the replayed game; a position query is not evaluated
//! on a game whose tags it excludes), and the bytes come from the same
//! [`render_game`].
//!
//! Must never: let one theme's failure (abandoned evaluation, an unreadable game) hide
//! another theme's answer for the same game, or lose count of a game.

use std::sync::Arc;
use std::time::Instant;

use super::{Example, GameFacts};
use crate::eval::{Query, Scratch, SortValue};
use crate::input::{Games, RawGame, Source};
use crate::output::{render_game, Format};
use crate::pgn::{Game, GameParser};
use crate::scan::pipeline::{self, abandoned_warning, partly_read_warning, printable, Consumer, Control, Job};
use crate::scan::{compare_sorted, sort_key, Evaluator, ScanConfig, ScanEvents, SortOrder};

/// One theme of a survey: a compiled query and how its matches are written.
pub struct Theme {
    /// The theme's name (the script's file stem): names its PGN file and its rows.
    pub name: String,
    /// The compiled query.
    pub query: Query,
    /// What its own run writes for a matching game (the PGN format with the query's
    /// style).
    pub format: Format,
    /// How its matches are ordered when the query sorts them (`None`: input order).
    pub sort: Option<SortOrder>,
}

impl Theme {
    /// A theme writing `format` for each match, ordered as the query's `sort` filters say.
    pub fn new(name: String, query: Query, format: Format) -> Theme {
        let sort = SortOrder::of_query(query.ir());
        Theme { name, query, format, sort }
    }
}

/// What one theme found in one game.
#[derive(Debug)]
pub struct ThemeMatch {
    /// Index of the theme in the survey's list.
    pub theme: usize,
    /// The bytes the theme's own run writes for this game.
    pub bytes: Vec<u8>,
    /// The game's sort key (value, ascending?) when the theme sorts; empty otherwise.
    pub sort: Vec<(SortValue, bool)>,
    /// The positions the query marked.
    pub positions: u64,
    /// The first marked position, as a board to draw.
    pub example: Option<Example>,
}

/// One game of the survey, as the workers saw it.
#[derive(Debug)]
pub struct SurveyGame {
    /// The game's number in the run (from 1 across all inputs).
    pub number: u64,
    /// Its input file.
    pub file: Arc<str>,
    /// Byte offset of its first byte in that file (decompressed text).
    pub offset: u64,
    /// Its ordinal within its file.
    pub file_number: u64,
    /// Its tags as the breakdowns count them; `None` when the game could not be read.
    pub facts: Option<GameFacts>,
    /// Set when the game could not be read (for every theme): the message.
    pub skipped: Option<String>,
    /// Set when the game was read only up to a move that cannot be played: the warning
    /// (the themes saw the moves before it, as a single run does).
    pub partly_read: Option<String>,
    /// Themes that gave up on the game (runaway work) or could not reread it: theme
    /// index and message.
    pub warnings: Vec<(usize, String)>,
    /// Lines the queries printed (`message`) on this game.
    pub messages: Vec<String>,
    /// The themes that matched the game, in theme order.
    pub matches: Vec<ThemeMatch>,
}

/// The tallies of a finished survey scan.
#[derive(Debug, Default)]
pub struct SurveyOutcome {
    /// Games read.
    pub read: u64,
    /// Games skipped as unreadable (for every theme).
    pub skipped: u64,
    /// Games read only up to a move that cannot be played.
    pub partly_read: u64,
    /// Input files that could not be read, or not to their end.
    pub input_errors: u64,
    /// Worker threads used.
    pub threads: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Run every theme over `sources` in one pass; `on_game` sees each game in input order
/// and returns `false` to stop the survey (a failed write).
pub fn run(
    themes: &[Theme],
    sources: Vec<Source>,
    config: &ScanConfig,
    events: &dyn ScanEvents,
    on_game: impl FnMut(SurveyGame) -> bool,
) -> SurveyOutcome {
    let started = Instant::now();
    // A query whose dictionaries run from game to game sees the games in input order
    // only on one worker; the survey then runs on one, as that query's own run would.
    let sequential = themes.iter().any(|t| t.query.sequential());
    let threads = if sequential { 1 } else { config.threads.max(1) };
    let settings = pipeline::Settings {
        threads,
        in_flight: config.in_flight,
        last: u64::MAX,
        interrupt: None,
        stop_runaway: false,
        thread_name: "cqlrs-survey",
    };
    let mut delivery = Delivery { out: SurveyOutcome::default(), matched: 0, events, on_game };
    let feed = Box::new(Games::from_sources(sources, 1));
    let finished = pipeline::run(&SurveyJob { themes }, feed, &settings, events, &mut delivery);
    let mut outcome = delivery.out;
    outcome.threads = threads;
    outcome.input_errors = finished.input_errors;
    outcome.seconds = started.elapsed().as_secs_f64();
    outcome
}

/// The survey's work on each game: every theme's answer.
struct SurveyJob<'a> {
    themes: &'a [Theme],
}

impl Job for SurveyJob<'_> {
    type Worker = Worker;
    type Record = SurveyGame;

    fn worker(&self) -> Worker {
        Worker {
            parser: GameParser::new(),
            game: Game::default(),
            tags: Game::default(),
            scratches: self.themes.iter().map(|_| Scratch::default()).collect(),
        }
    }

    fn game(&self, worker: &mut Worker, raw: &RawGame, cut: Option<&str>, _control: &Control) -> SurveyGame {
        worker.survey_game(self.themes, raw, cut.map(str::to_string))
    }

    /// A survey reads its files whole: its feed passes over no game.
    fn decided(&self, _decided: crate::scan::Decided) -> Option<SurveyGame> {
        None
    }
}

/// One worker's reused state: the parser, the game (replayed when some theme wants its
/// moves), a tags-only copy for header-only themes, and each theme's scratch.
struct Worker {
    parser: GameParser,
    game: Game,
    tags: Game,
    scratches: Vec<Scratch>,
}

impl Worker {
    /// Every theme's answer on one game.
    fn survey_game(&mut self, themes: &[Theme], raw: &RawGame, cut: Option<String>) -> SurveyGame {
        let mut out = SurveyGame {
            number: raw.number,
            file: raw.file.clone(),
            offset: raw.offset,
            file_number: raw.file_number,
            facts: None,
            skipped: cut,
            partly_read: None,
            warnings: Vec::new(),
            messages: Vec::new(),
            matches: Vec::new(),
        };
        if out.skipped.is_some() {
            return out;
        }
        let unreadable = |e: &dyn std::fmt::Display| {
            printable(&format!("cqlrs: {}: game {} (line {}): {}", raw.file, raw.number, raw.line, e))
        };
        // One reading: the moves are replayed when any theme wants them.
        let scratches = &self.scratches;
        let any_wants_moves = |g: &Game| themes.iter().zip(scratches).any(|(t, s)| t.query.wants_moves(s, g));
        if let Err(e) = self.parser.parse_with(raw, &mut self.game, &any_wants_moves, true) {
            out.skipped = Some(unreadable(&e));
            return out;
        }
        out.facts = Some(GameFacts::of(&self.game));
        out.partly_read = self.game.unplayable.as_ref().map(|e| partly_read_warning(raw, e, false).0);
        // Header-only themes decide on the tags alone, as their own runs do; when the
        // game was replayed for others, they read a tags-only copy (parsed once).
        let mut tags_read = false;
        for (index, theme) in themes.iter().enumerate() {
            let query = &theme.query;
            let scratch = &mut self.scratches[index];
            let mut found = if query.needs_positions() {
                if self.game.nodes.is_empty() || !query.may_match_tags(scratch, &self.game) {
                    continue;
                }
                query.eval_game(scratch, &self.game)
            } else {
                let view = if self.game.nodes.is_empty() {
                    &self.game
                } else {
                    if !tags_read {
                        if let Err(e) = self.parser.parse(raw, &mut self.tags, &|_| false) {
                            out.warnings.push((index, unreadable(&e)));
                            continue;
                        }
                        tags_read = true;
                    }
                    &self.tags
                };
                query.eval_game(scratch, view)
            };
            out.messages.append(&mut found.messages);
            if let Some(e) = &found.error {
                out.warnings.push((index, printable(&abandoned_warning(raw, &e.to_string()))));
                continue;
            }
            if !found.matched {
                continue;
            }
            if theme.format.needs_moves() && !query.needs_positions() {
                // A header-only match, decided on the tags alone: the output needs the
                // moves and the positions the query marks on them (every searched one),
                // found on the replayed game, as in the single scan.
                if self.game.nodes.is_empty() {
                    // The tags-only reading is kept for the header-only themes after this one.
                    std::mem::swap(&mut self.tags, &mut self.game);
                    tags_read = true;
                    if let Err(e) = self.parser.parse(raw, &mut self.game, &|_| true) {
                        out.warnings.push((index, unreadable(&e)));
                        continue;
                    }
                }
                let replayed = query.eval_game(scratch, &self.game);
                if replayed.matched && replayed.error.is_none() {
                    found.positions = replayed.positions;
                    found.marked_after = replayed.marked_after;
                }
            }
            let sort = sort_key(theme.sort.as_ref(), &found);
            let mut bytes = Vec::new();
            render_game(&theme.format, &self.game, &found, raw, &sort, &mut bytes);
            out.matches.push(ThemeMatch {
                theme: index,
                bytes,
                sort,
                positions: found.positions.len() as u64,
                example: Example::of(&self.game, &found),
            });
        }
        out
    }
}

/// The survey's side of the delivery: counts the games, reports their warnings and
/// messages, and hands each to the caller's callback, in input order.
struct Delivery<'a, F> {
    out: SurveyOutcome,
    /// Games some theme matched.
    matched: u64,
    events: &'a dyn ScanEvents,
    on_game: F,
}

impl<F: FnMut(SurveyGame) -> bool> Consumer<SurveyGame> for Delivery<'_, F> {
    fn take(&mut self, game: SurveyGame) -> bool {
        let (out, events) = (&mut self.out, self.events);
        out.read += 1;
        if let Some(message) = &game.skipped {
            out.skipped += 1;
            events.warning(message);
        }
        if let Some(message) = &game.partly_read {
            out.partly_read += 1;
            events.warning(message);
        }
        for (_, message) in &game.warnings {
            events.warning(message);
        }
        for line in &game.messages {
            events.query_message(line);
        }
        if !game.matches.is_empty() {
            self.matched += 1;
        }
        let go_on = (self.on_game)(game);
        events.game_finished(out.read, self.matched);
        go_on
    }
}

pub use crate::scan::SortedMatch;

/// Put a sorting theme's held matches in the order its own run writes them: best
/// first, ties by game number.
pub fn order_sorted(matches: &mut [SortedMatch]) {
    matches.sort_by(|a, b| compare_sorted(&a.0, &b.0));
}
