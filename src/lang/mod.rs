//! The three query front-ends and their shared diagnostics.
//!
//! Takes in: query source text (a `.cql` script, a legacy `(match …)` script, a YACPDB
//! query). Gives out: an [`crate::ir::Ir`] or a list of [`crate::diag::Diagnostic`]s.
//! Must never: look at a game or evaluate anything.

pub mod cql6;
pub mod legacy;
pub mod yacpdb;

use crate::diag::Error;
use crate::ir::Ir;

/// Which query language a source text is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// CQL 6.x, Unicode or ASCII.
    Cql6,
    /// The S-expression language of CQL 1–3 and CQL-S: `(match …)`.
    Legacy,
    /// The YACPDB query language: `ClosedWalk(wR, 4, *) AND NOT Twins > 1`.
    Yacpdb,
}

impl Syntax {
    /// Guess the syntax of a script: legacy when the first item after comments is
    /// `(match`, CQL 6 otherwise.
    pub fn detect(source: &str) -> Syntax {
        let mut rest = source.trim_start_matches('\u{feff}');
        loop {
            rest = rest.trim_start();
            if rest.starts_with(';') || rest.starts_with("//") {
                rest = rest.find('\n').map_or("", |i| &rest[i..]);
            } else if let Some(r) = rest.strip_prefix("/*") {
                rest = r.find("*/").map_or("", |i| &r[i + 2..]);
            } else {
                break;
            }
        }
        if let Some(r) = rest.strip_prefix('(') {
            if r.trim_start().starts_with("match") {
                return Syntax::Legacy;
            }
        }
        Syntax::Cql6
    }
}

/// Parse a query in the given syntax into IR.
pub fn parse(source: &str, syntax: Syntax) -> Result<Ir, Error> {
    match syntax {
        Syntax::Cql6 => cql6::parse(source),
        Syntax::Legacy => legacy::parse(source),
        Syntax::Yacpdb => yacpdb::parse(source),
    }
}

/// The nearest of `candidates` to `word` by edit distance, if it is close enough to be
/// a likely typo (used for "did you mean" hints).
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    // No candidate is accepted further away than the largest threshold, and only a
    // candidate nearer than the best so far can replace it; the distance is at least the
    // difference in length, so most keywords are passed over without comparing letters
    // (this is called for every unknown word, against the whole keyword list).
    let limit = candidates.iter().map(|c| (c.len() / 3).max(1)).max().unwrap_or(0);
    let word: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
    let word_letters = letter_mask(&word);
    let mut candidate: Vec<char> = Vec::new();
    let mut rows = Rows::default();
    // The best so far: its distance and how many first letters it shares with the word.
    // Of two candidates equally near, the one that begins like the word is the likelier
    // intent (`fin` is `find` cut short rather than `fen` mistyped).
    let mut best: Option<(usize, usize, &str)> = None;
    for &c in candidates {
        // A candidate as near as the best is still looked at, for the tie.
        let bound = best.map_or(limit + 1, |(d, _, _)| d + 1);
        candidate.clear();
        let letters = if c.is_ascii() {
            // Keywords: one letter per byte, so the length and the letters are known
            // before copying, and most keywords are passed over without a copy.
            if word.len().abs_diff(c.len()) >= bound {
                continue;
            }
            c.bytes().fold(0u128, |mask, b| mask | 1 << b.to_ascii_lowercase())
        } else {
            candidate.extend(c.chars().flat_map(char::to_lowercase));
            if word.len().abs_diff(candidate.len()) >= bound {
                continue;
            }
            letter_mask(&candidate)
        };
        // Every letter of one word missing from the other costs at least one edit.
        if ((word_letters & !letters).count_ones() as usize).max((letters & !word_letters).count_ones() as usize)
            >= bound
        {
            continue;
        }
        if c.is_ascii() {
            candidate.extend(c.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        }
        let d = rows.distance(&word, &candidate, bound);
        if d < bound {
            let shared = word.iter().zip(&candidate).take_while(|(a, b)| a == b).count();
            if best.is_none_or(|(best_d, best_shared, _)| d < best_d || shared > best_shared) {
                best = Some((d, shared, c));
            }
        }
    }
    best.filter(|&(d, _, c)| d <= (c.len() / 3).max(1)).map(|(_, _, c)| c)
}

/// The set of letters of a word, one bit per ASCII character and one bit shared by all
/// others (sharing a bit can only make two words look closer, never further apart).
fn letter_mask(word: &[char]) -> u128 {
    word.iter().fold(0, |mask, &c| mask | 1 << u32::from(c).min(127))
}

/// The edit distance between two words, with the table rows kept between calls.
#[derive(Default)]
struct Rows {
    before: Vec<usize>,
    previous: Vec<usize>,
    current: Vec<usize>,
}

impl Rows {
    /// Optimal string alignment distance: a swap of two neighbouring letters is one edit.
    /// Three rows of the table suffice: the current one and the two before it. A distance
    /// of `bound` or more is given as `bound`: the search stops once every later row must
    /// reach it (a row never drops below the smaller of the row before it and one more
    /// than the row before that).
    fn distance(&mut self, a: &[char], b: &[char], bound: usize) -> usize {
        let m = b.len();
        let Rows { before, previous, current } = self;
        before.clear();
        before.resize(m + 1, 0);
        previous.clear();
        previous.extend(0..=m);
        current.clear();
        current.resize(m + 1, 0);
        let mut previous_min = 0;
        for i in 1..=a.len() {
            current[0] = i;
            for j in 1..=m {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (previous[j] + 1).min(current[j - 1] + 1).min(previous[j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(before[j - 2] + 1);
                }
                current[j] = v;
            }
            let current_min = current.iter().copied().min().unwrap_or(0);
            if current_min >= bound && previous_min + 1 >= bound {
                return bound;
            }
            previous_min = current_min;
            std::mem::swap(before, previous);
            std::mem::swap(previous, current);
        }
        previous[m].min(bound)
    }
}

#[cfg(test)]
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    Rows::default().distance(&a, &b, usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostic, Span};

    #[test]
    fn detect_legacy_after_comments() {
        assert_eq!(Syntax::detect("; old script\n(match (position))"), Syntax::Legacy);
        assert_eq!(Syntax::detect("cql() mate"), Syntax::Cql6);
    }

    #[test]
    fn render_has_caret_under_offending_text() {
        let e = Error {
            diagnostics: vec![
                Diagnostic::new("unknown filter `mtae`", Span::new(6, 10)).with_hint("did you mean `mate`?")
            ],
        };
        let r = e.render("q.cql", "cql() mtae");
        assert!(r.starts_with("q.cql:1:7: error: unknown filter `mtae`"), "{r}");
        assert!(r.contains("  |       ^^^^"), "{r}");
        assert!(r.contains("hint: did you mean `mate`?"));
    }

    #[test]
    fn nearest_keyword() {
        assert_eq!(nearest("mtae", &["mate", "stalemate", "check"]), Some("mate"));
        assert_eq!(nearest("zzzzzz", &["mate"]), None);
        // Equally near: the one that begins like the word (`fin` is `find` cut short).
        assert_eq!(nearest("fin", &["fen", "find", "in", "min", "pin"]), Some("find"));
        assert_eq!(nearest("fin", crate::lang::cql6::parser::KEYWORDS), Some("find"));
        assert_eq!(nearest("MTAE", &["mate", "stalemate", "check"]), Some("mate"));
        // A long word is compared by length first; still no hint and no quadratic cost.
        let long = "x".repeat(100_000);
        let start = std::time::Instant::now();
        assert_eq!(nearest(&long, &["mate", "stalemate", "check"]), None);
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }

    /// The pruned search gives the answer of comparing `word` with every keyword.
    #[test]
    fn nearest_agrees_with_the_exhaustive_search() {
        fn exhaustive<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
            let (word, mut best) = (word.to_lowercase(), None::<(usize, usize, &str)>);
            for &c in candidates {
                let d = edit_distance(&word, &c.to_lowercase());
                let shared = word.chars().zip(c.to_lowercase().chars()).take_while(|(a, b)| a == b).count();
                if best.map_or(true, |(bd, bs, _)| d < bd || (d == bd && shared > bs)) {
                    best = Some((d, shared, c));
                }
            }
            best.filter(|&(d, _, c)| d <= (c.len() / 3).max(1)).map(|(_, _, c)| c)
        }
        let keywords = crate::lang::cql6::parser::KEYWORDS;
        let mut words: Vec<String> = vec!["".into(), "x".into(), "Xy".into(), "zzzzzzzzzzzzzzzzzzzzzzzz".into()];
        for k in keywords {
            let chars: Vec<char> = k.chars().collect();
            for i in 0..chars.len() {
                let mut dropped = chars.clone();
                dropped.remove(i);
                words.push(dropped.iter().collect());
                let mut doubled = chars.clone();
                doubled.insert(i, 'q');
                words.push(doubled.iter().collect::<String>().to_uppercase());
                if i + 1 < chars.len() {
                    let mut swapped = chars.clone();
                    swapped.swap(i, i + 1);
                    words.push(swapped.iter().collect());
                }
            }
        }
        for w in &words {
            assert_eq!(nearest(w, keywords), exhaustive(w, keywords), "{w:?}");
        }
    }

    #[test]
    fn edit_distance_counts_edits_and_swaps() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("mtae", "mate"), 1);
        assert_eq!(edit_distance("", "check"), 5);
        assert_eq!(edit_distance("check", ""), 5);
        assert_eq!(edit_distance("mate", "mate"), 0);
    }
}
