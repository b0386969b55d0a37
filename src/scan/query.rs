//! The single query's job on the pipeline: what a worker does with each game of a
//! `cqlrs` run, and the record ([`Outcome`]) it hands to the accounting
//! ([`super::account`]).
//!
//! Takes in: a raw game, the evaluator, the scan's settings and the output format
//! (matching games are rendered on the worker).
//! Gives out: the game's verdict (matched with its rendered bytes and sort key,
//! unmatched, skipped, abandoned, passed over), its query messages and whether it was
//! read only in part.
//! Must never: let a malformed game stop the scan, or write a game cut short.

use super::pipeline::{abandoned_warning, partly_read_warning, printable, Control, Job};
use super::{sort_key, Decided, Evaluator, ScanConfig, SortOrder};
use crate::eval::SortValue;
use crate::input::RawGame;
use crate::output::{render_game, Format};
use crate::pgn::{Game, GameParser};

/// The verdict on one game (or one run of games the feed passed over).
pub(crate) enum Verdict {
    /// Read and evaluated; no match.
    Unmatched,
    /// Outside the `gamenumber` range: read, not evaluated.
    PassedOver,
    /// This many games passed over by the feed (proved not to match): read, unmatched.
    Passed(u64),
    /// This many games outside the `gamenumber` range, decided by the feed: read, not
    /// evaluated.
    PassedOverRun(u64),
    /// Not read: the message, and the game's raw bytes when rejects are kept.
    Skipped(String, Vec<u8>),
    /// The evaluator gave up: the message.
    Abandoned(String),
    /// The game matched: the bytes written for it and its sort key.
    Matched { bytes: Vec<u8>, sort: Vec<(SortValue, bool)> },
}

/// The record of one game of a single query's scan.
pub(crate) struct Outcome {
    /// The game's number (0 for games passed over).
    pub number: u64,
    /// What became of it.
    pub verdict: Verdict,
    /// Lines the query printed (`message`) on the game.
    pub messages: Vec<String>,
    /// The game was read only up to a move that cannot be played: the warning, and the
    /// game's raw bytes when rejects are kept.
    pub partly_read: Option<(String, Vec<u8>)>,
}

/// One query over the games: the evaluator, the scan's settings (with the query's own
/// sort order and thread count), and the format its matches are rendered in.
pub(crate) struct QueryJob<'a, E> {
    /// The compiled query.
    pub evaluator: &'a E,
    /// The scan's settings.
    pub config: &'a ScanConfig,
    /// What is rendered for each match.
    pub format: &'a Format,
    /// The order of the matches, when they are sorted (their sort keys are kept).
    pub sort: Option<&'a SortOrder>,
}

/// A worker's reused state: its parser, its game and the evaluator's scratch.
pub(crate) struct QueryWorker<S> {
    parser: GameParser,
    game: Game,
    /// The evaluator's scratch (its persistent variables are read after the scan).
    pub scratch: S,
}

impl<E: Evaluator> Job for QueryJob<'_, E> {
    type Worker = QueryWorker<E::Scratch>;
    type Record = Outcome;

    fn worker(&self) -> Self::Worker {
        let mut parser = GameParser::new();
        parser.set_max_positions(self.config.max_game_positions);
        QueryWorker { parser, game: Game::default(), scratch: E::Scratch::default() }
    }

    fn decided(&self, decided: Decided) -> Option<Outcome> {
        let (number, verdict) = match decided {
            Decided::Unmatched(n) => (0, Verdict::Passed(n)),
            Decided::Outside(n) => (0, Verdict::PassedOverRun(n)),
            Decided::Matched(number) => {
                // Only with numbers or a count written (see `Decided::Matched`).
                debug_assert!(matches!(self.format, Format::Numbers | Format::Count));
                let bytes = match self.format {
                    Format::Numbers => format!("{number}\n").into_bytes(),
                    _ => Vec::new(),
                };
                (number, Verdict::Matched { bytes, sort: Vec::new() })
            }
        };
        Some(Outcome { number, verdict, messages: Vec::new(), partly_read: None })
    }

    fn game(&self, worker: &mut Self::Worker, raw: &RawGame, cut: Option<&str>, control: &Control) -> Outcome {
        let mut outcome =
            Outcome { number: raw.number, verdict: Verdict::Unmatched, messages: Vec::new(), partly_read: None };
        outcome.verdict = self.verdict(worker, raw, cut, control, &mut outcome);
        outcome
    }
}

impl<E: Evaluator> QueryJob<'_, E> {
    /// The verdict on one game; its messages and partly-read warning go to `outcome`.
    fn verdict(
        &self,
        worker: &mut QueryWorker<E::Scratch>,
        raw: &RawGame,
        cut: Option<&str>,
        control: &Control,
        outcome: &mut Outcome,
    ) -> Verdict {
        let (config, evaluator) = (self.config, self.evaluator);
        let QueryWorker { parser, game, scratch } = worker;
        if let Some((lo, hi)) = config.gamenumber {
            if raw.number < lo || raw.number > hi {
                return Verdict::PassedOver;
            }
        }
        let rejected = |message: String| {
            Verdict::Skipped(printable(&message), if config.keep_rejects { raw.bytes.clone() } else { Vec::new() })
        };
        if let Some(message) = cut {
            evaluator.observe(scratch, raw, None);
            return rejected(message.to_string());
        }
        // Only the JSON formats write a game's encoding, and only of a match: a match
        // whose moves were not read is read again below, whole (which sets it), and
        // one whose moves were read had its bytes checked as UTF-8 or decoded. So no
        // format needs the encoding of a game that the quick way reads header-only;
        // the JSON ones ask for it anyway, as a safeguard that costs them little.
        let need_encoding = matches!(self.format, Format::Json | Format::JsonPgn(_));
        let parsed = {
            let scratch = &*scratch;
            parser.parse_with(raw, game, &|g: &Game| evaluator.wants_moves(scratch, g), need_encoding)
        };
        if let Err(e) = parsed {
            evaluator.observe(scratch, raw, None);
            return rejected(format!("cqlrs: {}: game {} (line {}): {}", raw.file, raw.number, raw.line, e));
        }
        outcome.partly_read = game.unplayable.as_ref().map(|e| partly_read_warning(raw, e, config.keep_rejects));
        let mut found = evaluator.eval_game(scratch, game);
        evaluator.observe(scratch, raw, Some(game));
        outcome.messages = std::mem::take(&mut found.messages);
        if let Some(e) = &found.error {
            let message = abandoned_warning(raw, &e.to_string());
            control.count_evaluated(Some(&message));
            return Verdict::Abandoned(message);
        }
        control.count_evaluated(None);
        if !found.matched {
            return Verdict::Unmatched;
        }
        // A header-only match has no moves yet. They are read in every output
        // format, so that a game whose moves cannot be read is skipped and
        // reported whatever is written (one count for `-o`, `--count`,
        // `--numbers` and `--json`); it is never written cut short. The PGN output
        // also needs the positions it marks: every searched one, as CQL 6.2
        // evaluates the query at each (the query has no effects, so evaluating it
        // again changes nothing).
        let header_only = game.nodes.is_empty();
        if header_only {
            if let Err(e) = parser.parse(raw, game, &|_| true) {
                return rejected(format!("cqlrs: {}: game {} (line {}): {}", raw.file, raw.number, raw.line, e));
            }
            if outcome.partly_read.is_none() {
                outcome.partly_read =
                    game.unplayable.as_ref().map(|e| partly_read_warning(raw, e, config.keep_rejects));
            }
        }
        // The JSON line lists the matched positions too (`plies`).
        if header_only && (self.format.needs_moves() || self.format.is_json()) {
            let replayed = evaluator.eval_game(scratch, game);
            if replayed.matched && replayed.error.is_none() {
                found.positions = replayed.positions;
                found.marked_after = replayed.marked_after;
            }
        }
        let sort = sort_key(self.sort, &found);
        let mut bytes = Vec::new();
        render_game(self.format, game, &found, raw, &sort, &mut bytes);
        Verdict::Matched { bytes, sort }
    }
}
