//! The accounting of a single query's scan: every game's record, in input order, counted
//! once (matched, unmatched, skipped, abandoned, passed over), its warnings and messages
//! reported, its rejected bytes kept, its output handed to the [`MatchWriter`].
//!
//! Takes in: the [`Outcome`] of each game from the workers ([`super::query`]).
//! Gives out: the tallies ([`ScanOutcome`]) and the events of the run.
//! Must never: lose count: every game read is matched, unmatched or skipped.

use super::pipeline::Consumer;
use super::query::{Outcome, Verdict};
use super::write::MatchWriter;
use super::{ScanEvents, ScanOutcome};
use crate::output::Sink;

/// Counts the games of a scan as they come in input order and writes the matches.
pub(crate) struct Accounts<'a, S> {
    /// The tallies so far.
    pub out: ScanOutcome<S>,
    /// Where the matches are written.
    pub writer: MatchWriter<'a>,
    /// Where skipped and partly read games' bytes go (`--rejects`).
    pub rejects: Option<&'a mut Sink>,
    /// Stop after this many matches (when the matches are written as they come).
    pub limit: Option<u64>,
    /// Told of every game accounted for.
    pub events: &'a dyn ScanEvents,
}

impl<S> Accounts<'_, S> {
    /// Keep a rejected game's bytes, unless writing the rejects file failed already.
    fn reject(&mut self, bytes: &[u8]) {
        if let Some(r) = self.rejects.as_deref_mut() {
            if self.out.rejects_error.is_none() {
                if let Err(e) = r.write(bytes).and_then(|()| r.write(b"\n\n")) {
                    self.out.rejects_error = Some(e);
                }
            }
        }
    }
}

impl<S> Consumer<Outcome> for Accounts<'_, S> {
    fn take(&mut self, outcome: Outcome) -> bool {
        let events = self.events;
        let mut done = false;
        self.out.read += 1;
        if let Some((message, bytes)) = &outcome.partly_read {
            self.out.partly_read += 1;
            events.warning(message);
            self.reject(bytes);
        }
        for m in &outcome.messages {
            events.query_message(m);
        }
        match outcome.verdict {
            Verdict::Unmatched => self.out.unmatched += 1,
            Verdict::PassedOver => self.out.passed_over += 1,
            Verdict::Passed(n) => {
                // One outcome for `n` games: the `+= 1` above was the first.
                self.out.read += n - 1;
                self.out.unmatched += n;
            }
            Verdict::PassedOverRun(n) => {
                self.out.read += n - 1;
                self.out.passed_over += n;
            }
            Verdict::Skipped(message, bytes) => {
                self.out.skipped += 1;
                events.warning(&message);
                self.reject(&bytes);
            }
            Verdict::Abandoned(message) => {
                self.out.abandoned += 1;
                events.warning(&message);
            }
            Verdict::Matched { bytes, sort } => {
                self.out.matched += 1;
                events.matched(outcome.number);
                if !self.writer.matched(outcome.number, bytes, sort) {
                    done = true;
                }
                if self.limit.is_some_and(|l| self.out.matched >= l) {
                    done = true;
                }
            }
        }
        events.game_finished(self.out.read, self.out.matched);
        !done
    }
}
