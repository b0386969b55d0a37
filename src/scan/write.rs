//! The output side of a single query's scan: what is written for each matching game
//! (PGN, JSON, numbers, or nothing but the count at the end) and where.
//!
//! Takes in: the matching games in input order, each with the bytes the workers rendered
//! for it in the [`Output`]'s format and its sort key.
//! Gives out: the bytes on the output [`Sink`]: in input order, or, for a sorting query,
//! held until the end and written best first (`--limit N`: the best N); the count line
//! of `--count` at the end.
//! Must never: write after the output failed, or write the held or counted output of a
//! scan that was stopped early.

use std::cmp::Ordering;

use crate::eval::SortValue;
use crate::output::{Format, Sink};

/// Where a scan's matching games go: the format rendered for each (by the workers) and
/// the sink the bytes are written to.
pub struct Output<'a> {
    /// What is written for each matching game.
    pub format: Format,
    /// Where it is written.
    pub sink: &'a mut Sink,
}

impl<'a> Output<'a> {
    /// Write `format` to `sink`.
    pub fn new(format: Format, sink: &'a mut Sink) -> Output<'a> {
        Output { format, sink }
    }
}

/// A held match of a sorting query: (sort key, game number) and the bytes to write.
pub type SortedMatch = ((Vec<(SortValue, bool)>, u64), Vec<u8>);

/// Writes the matches of a scan as they come (in input order) or holds them for a
/// sorting query; records how writing failed.
pub(crate) struct MatchWriter<'a> {
    sink: &'a mut Sink,
    /// The held matches of a sorting query (`None`: written as they come).
    sorted: Option<Vec<SortedMatch>>,
    /// `--limit N`: only the best N of a sorting query are kept.
    limit: Option<u64>,
    /// Write the count of matches at the end (`--count`).
    count: bool,
    /// The output was closed by its reader.
    pub broken_pipe: bool,
    /// Writing failed for another reason; with the game being written.
    pub write_error: Option<(Option<u64>, std::io::Error)>,
}

impl<'a> MatchWriter<'a> {
    /// A writer of `format` to `sink`, holding the matches when `sorted`.
    pub fn new(format: &Format, sink: &'a mut Sink, sorted: bool, limit: Option<u64>) -> MatchWriter<'a> {
        MatchWriter {
            sink,
            sorted: sorted.then(Vec::new),
            limit,
            count: *format == Format::Count,
            broken_pipe: false,
            write_error: None,
        }
    }

    /// Has writing failed (no more is written)?
    pub fn failed(&self) -> bool {
        self.broken_pipe || self.write_error.is_some()
    }

    /// Write `bytes` for game `game` (`None`: not a game's output); false when it failed.
    fn write(&mut self, bytes: &[u8], game: Option<u64>) -> bool {
        match self.sink.write(bytes) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.broken_pipe = true;
                false
            }
            Err(e) => {
                self.write_error = Some((game, e));
                false
            }
        }
    }

    /// Game `number` matched: write its bytes, or hold them (a sorting query); false when
    /// writing failed.
    pub fn matched(&mut self, number: u64, bytes: Vec<u8>, sort: Vec<(SortValue, bool)>) -> bool {
        match &mut self.sorted {
            Some(held) => {
                held.push(((sort, number), bytes));
                if let Some(limit) = self.limit {
                    if held.len() as u64 >= limit.saturating_mul(2).max(64) {
                        held.sort_by(|a, b| compare_sorted(&a.0, &b.0));
                        held.truncate(limit as usize);
                    }
                }
                true
            }
            None => self.write(&bytes, Some(number)),
        }
    }

    /// Every game has been accounted for (`stopped`: the scan was stopped early): write
    /// the held matches best first and the count line, and finish the sink. A sorting
    /// query's matches beyond the limit are found but not reported: `matched` and
    /// `unmatched` are corrected.
    pub fn finish(&mut self, stopped: bool, matched: &mut u64, unmatched: &mut u64) {
        if let Some(mut held) = self.sorted.take() {
            if !self.failed() && !stopped {
                held.sort_by(|a, b| compare_sorted(&a.0, &b.0));
                let keep = self.limit.map_or(held.len(), |l| (l as usize).min(held.len()));
                for ((_, number), bytes) in &held[..keep] {
                    if !self.write(bytes, Some(*number)) {
                        break;
                    }
                }
                if let Some(limit) = self.limit {
                    *unmatched += matched.saturating_sub(limit);
                    *matched = (*matched).min(limit);
                }
            }
        }
        if self.count && !self.failed() && !stopped {
            let line = format!("{matched}\n");
            self.write(line.as_bytes(), None);
        }
        if !self.failed() {
            if let Err(e) = self.sink.finish() {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    self.broken_pipe = true;
                } else {
                    self.write_error = Some((None, e));
                }
            }
        }
    }
}

/// Order of two matches of a sorting query: better first; ties by game number.
pub fn compare_sorted(a: &(Vec<(SortValue, bool)>, u64), b: &(Vec<(SortValue, bool)>, u64)) -> Ordering {
    for i in 0..a.0.len().max(b.0.len()) {
        let ord = match (a.0.get(i), b.0.get(i)) {
            // Strings greatest first always, as CQL 6.2 orders them (`sort min event` too).
            (Some((x @ SortValue::Text(_), _)), Some((y, _))) => y.cmp(x),
            (Some((x, ascending)), Some((y, _))) => {
                if *ascending {
                    x.cmp(y)
                } else {
                    y.cmp(x)
                }
            }
            // A game without this sort value comes after those with one.
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    a.1.cmp(&b.1)
}
