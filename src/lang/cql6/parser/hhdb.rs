//! CQL 6.2 `hhdb`: filters over the fields of Harold van der Heijden's endgame study database
//! (HHdb) as its PGN export writes them.
//!
//! Takes in: the tokens after the word `hhdb`. Gives out: IR built from filters the engine
//! already has (tags, comments at the initial position, regular expressions) plus two
//! game-level facts ([`HeaderFilter::GameTextContains`](crate::ir::HeaderFilter::GameTextContains), [`HeaderFilter::HhdbAward`](crate::ir::HeaderFilter::HhdbAward)).
//! Must never: panic on any input.
//!
//! Where HHdb keeps each field (CQL 6.2 manual, page `hhdb`; reference source
//! `hhdbkeyword-vars.cpp`, `hhdb-cql.cpp`, `hhdbawardnode.cpp`):
//! - the `[Black]` tag holds the GBR code `(+0016.32d4g7)` and status marks: `(c)`
//!   correction, `(m)` modification, `(s)` corrected solution, `(v)` version, `AN`
//!   anticipated, `CR` colours reversed, `MC` too many composers, `PH` posthumous, `TE`
//!   theoretical ending, `TT` theme tourney, `TW` twin, `U1`…`U5` kinds of unsoundness;
//! - the `[White]` tag holds the composers (with a trailing ` NN` when unnamed), unless `MC`
//!   is marked: then the first comment does, up to its first full stop;
//! - the `[Event]` tag starts with the distinction (`3.p`, `1/2.hm`, `sp.c`) and ends with
//!   the diagram number after `#`;
//! - the comment before the first move holds `EG#n` and `stipulation: …`;
//! - comments in the moves mark `<eg>`, `<main>`, `<or>`, `<cook…>`, `<minor_dual…>`.

use super::*;
use crate::ir::{GameTreeFilter, HeaderFilter, LogicFilter, NumberFilter, OutputFilter};

/// Status marks of the `[Black]` tag, each a filter of its own (`hhdb TT`, `hhdb "(c)"`).
const BLACK_MARKS: &[&str] =
    &["(c)", "(m)", "(s)", "(v)", "AN", "CR", "MC", "PH", "TE", "TT", "TW", "U1", "U2", "U3", "U4", "U5"];

/// Long names of the status marks.
const LONG_NAMES: &[(&str, &str)] = &[
    ("anticipation", "AN"),
    ("colors_reversed", "CR"),
    ("corrected_solution", "(s)"),
    ("correction", "(c)"),
    ("dual_after_move_1", "U2"),
    ("dual_at_move_1", "U1"),
    ("modification", "(m)"),
    ("posthumous", "PH"),
    ("theme_tournament", "TT"),
    ("theme_tourney", "TT"),
    ("theoretical_ending", "TE"),
    ("too_many_composers", "MC"),
    ("twin", "TW"),
    ("unreachable", "U5"),
    ("version", "(v)"),
    ("white_fails", "U3"),
    ("white_wins_in_draw", "U4"),
];

/// The other fields.
const FIELDS: &[&str] = &[
    "<cook>",
    "<eg>",
    "<main>",
    "<minor_dual>",
    "<or>",
    "composer",
    "cooked",
    "diagram",
    "dual",
    "egdiagram",
    "firstcomment",
    "gbr",
    "mainline",
    "search",
    "sound",
    "stipulation",
    "unsound",
    "variation",
];

/// Words of the distinction filters (`hhdb special prize max`).
const AWARD_WORDS: &[&str] = &["award", "commendation", "hm", "max", "prize", "sort", "special"];

/// Parts of the GBR code (`hhdb gbr material`).
const GBR_PARTS: &[&str] = &["kings", "material", "pawns", "pieces"];

/// The GBR code in the `[Black]` tag: sign, four digits of piece counts, `.`, two digits of
/// pawn counts, the squares of the two kings. Groups: material, pieces, pawns, kings.
const GBR_PATTERN: &str = r"[+-=]((\d{4})\.(\d{2}))([a-h][1-8][a-h][1-8])";

/// Is `key` written the way CQL 6.2 wants it: quoted exactly when it has a character other
/// than a letter, a digit or `_`?
fn needs_quotes(key: &str) -> bool {
    !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Is `key` a word of `hhdb` (a field, a status mark, an award word or a GBR part)?
pub(crate) fn is_key(key: &str) -> bool {
    BLACK_MARKS.contains(&key)
        || FIELDS.contains(&key)
        || AWARD_WORDS.contains(&key)
        || GBR_PARTS.contains(&key)
        || LONG_NAMES.iter().any(|(long, _)| *long == key)
}

impl Parser<'_> {
    /// The next token as an hhdb key, if it is one written the right way (quoted or not).
    fn peek_hhdb_key(&self) -> Option<String> {
        let (text, quoted) = match &self.peek().tok {
            Tok::Word(w) => (w.clone(), false),
            Tok::Str(s) => (s.clone(), true),
            _ => return None,
        };
        (is_key(&text) && needs_quotes(&text) == quoted).then_some(text)
    }

    /// `hhdb KEY` / `hhdb gbr PART` / `hhdb [special] [KIND] [max|sort]` (the keyword is
    /// already read; `sp` is its span).
    pub(super) fn parse_hhdb(&mut self, sp: Span) -> PResult<FilterId> {
        let mut awards: Vec<(String, Span)> = Vec::new();
        while let Some(k) = self.peek_hhdb_key() {
            if !AWARD_WORDS.contains(&k.as_str()) {
                break;
            }
            awards.push((k, self.span_here()));
            self.bump();
        }
        if !awards.is_empty() {
            return self.hhdb_award(&awards, sp);
        }
        let Some(mut key) = self.peek_hhdb_key() else {
            let here = self.span_here();
            self.error_hint(
                "expected an hhdb field after `hhdb`",
                here,
                Some("e.g. `hhdb composer`, `hhdb \"(c)\"`, `hhdb gbr material`, `hhdb prize max`".to_string()),
            );
            return Err(());
        };
        let mut end = self.bump().span;
        if let Some((_, short)) = LONG_NAMES.iter().find(|(long, _)| *long == key) {
            key = (*short).to_string();
        }
        let mut part = None;
        if key == "gbr" {
            if let Some(p) = self.peek_hhdb_key().filter(|p| GBR_PARTS.contains(&p.as_str())) {
                end = self.bump().span;
                part = Some(p);
            }
        }
        let span = Self::join(sp, end);
        let (id, string) = self.hhdb_field(&key, part.as_deref(), span)?;
        // A string field takes a text to look for: `hhdb composer "Kasparyan"`.
        Ok(if string { self.maybe_contains(id, span) } else { id })
    }

    /// The IR of one field and whether its value is a string.
    fn hhdb_field(&mut self, key: &str, gbr_part: Option<&str>, sp: Span) -> PResult<(FilterId, bool)> {
        let [black, white, event] = ["Black", "White", "Event"]
            .map(|tag| self.add(Filter::Header(HeaderFilter::Field(HeaderField::Tag(tag.into()))), sp));
        let comment = self.add(Filter::Output(OutputFilter::OriginalComment), sp);
        let start = self.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Initial)), sp);
        let t = |p: &mut Self, f: Filter| p.add(f, sp);
        let group = |p: &mut Self, subject: FilterId, pattern: &str, n: u8| {
            let m = p.add(Filter::Numbers(NumberFilter::RegexMatch { subject, pattern: pattern.to_string() }), sp);
            let g = p.add(Filter::Numbers(NumberFilter::RegexGroup(n)), sp);
            p.add(Filter::Logic(LogicFilter::And(vec![m, g])), sp)
        };
        let at_start = |p: &mut Self, body| p.add(Filter::GameTree(GameTreeFilter::AtPosition { at: start, body }), sp);
        let black_matches = |p: &mut Self, pattern: &str| {
            let m = p.add(Filter::Numbers(NumberFilter::RegexMatch { subject: black, pattern: pattern.into() }), sp);
            let f = p.add(Filter::False, sp);
            p.add(Filter::Logic(LogicFilter::Or(vec![m, f])), sp)
        };
        let comment_has = |p: &mut Self, text: &str| {
            let needle = p.add(Filter::Numbers(NumberFilter::Str(text.to_string())), sp);
            p.add(Filter::Numbers(NumberFilter::Contains { haystack: comment, needle, ignore_case: false }), sp)
        };
        if BLACK_MARKS.contains(&key) {
            let needle = t(self, Filter::Numbers(NumberFilter::Str(key.to_string())));
            let contains = Filter::Numbers(NumberFilter::Contains { haystack: black, needle, ignore_case: false });
            return Ok((t(self, contains), false));
        }
        let id = match key {
            "<cook>" | "<minor_dual>" => {
                let has = comment_has(self, key.trim_end_matches('>'));
                let f = t(self, Filter::False);
                t(self, Filter::Logic(LogicFilter::Or(vec![has, f])))
            }
            "<eg>" => comment_has(self, key),
            "<main>" | "<or>" | "mainline" | "variation" => {
                if !self.ir.settings.variations {
                    self.error_hint(
                        format!("`hhdb {key}` looks at variations, and this query does not search them"),
                        sp,
                        Some("put `variations` in the `cql( … )` header".to_string()),
                    );
                    return Err(());
                }
                match key {
                    "<main>" | "<or>" => comment_has(self, key),
                    _ => {
                        // Some position on the way here was reached by a move other than the
                        // main one, without a `<main>` mark on it: then this is a variation.
                        let mut m = MoveFilter::any(MoveSource::Previous);
                        m.line = LineChoice::Secondary;
                        let secondary = t(self, Filter::Move(Box::new(m)));
                        let main_mark = comment_has(self, "<main>");
                        let unmarked = t(self, Filter::Logic(LogicFilter::Not(main_mark)));
                        let body = t(self, Filter::Logic(LogicFilter::And(vec![secondary, unmarked])));
                        let found = t(
                            self,
                            Filter::GameTree(GameTreeFilter::Find {
                                direction: FindDirection::Backward,
                                all: false,
                                range: None,
                                quiet: true,
                                body,
                            }),
                        );
                        if key == "mainline" {
                            t(self, Filter::Logic(LogicFilter::Not(found)))
                        } else {
                            found
                        }
                    }
                }
            }
            "composer" => {
                // With `MC` in `[Black]` the composers open the first comment, up to its first
                // full stop; otherwise they are `[White]` without a trailing ` NN`.
                let mc = t(self, Filter::Numbers(NumberFilter::Str("MC".into())));
                let contains =
                    Filter::Numbers(NumberFilter::Contains { haystack: black, needle: mc, ignore_case: false });
                let many = t(self, contains);
                let from_comment = group(self, comment, r"^([^.]+)\.", 1);
                let from_comment = at_start(self, from_comment);
                let stripped = group(self, white, r"(?s)^(.*) NN$", 1);
                let from_white = t(self, Filter::Logic(LogicFilter::Or(vec![stripped, white])));
                t(self, Filter::Logic(LogicFilter::If { cond: many, then: from_comment, otherwise: Some(from_white) }))
            }
            "cooked" => t(self, Filter::Header(HeaderFilter::GameTextContains("<cook".into()))),
            "diagram" => group(self, event, "#([^ ]+)", 1),
            "dual" => black_matches(self, "U[12]"),
            "egdiagram" => {
                let digits = group(self, comment, r"EG#(\d+)", 1);
                let n = t(self, Filter::Numbers(NumberFilter::Call(Builtin::Int, vec![digits])));
                at_start(self, n)
            }
            "firstcomment" => at_start(self, comment),
            "gbr" => {
                let n = match gbr_part {
                    None => 0,
                    Some("material") => 1,
                    Some("pieces") => 2,
                    Some("pawns") => 3,
                    _ => 4,
                };
                if n == 0 {
                    t(self, Filter::Numbers(NumberFilter::RegexMatch { subject: black, pattern: GBR_PATTERN.into() }))
                } else {
                    group(self, black, GBR_PATTERN, n)
                }
            }
            "search" => {
                // Event, White, Black and the first comment, one a line: the text a search
                // over the whole record looks in.
                let nl = t(self, Filter::Numbers(NumberFilter::Str("\n".into())));
                let first = at_start(self, comment);
                let tail = t(self, Filter::Numbers(NumberFilter::Arith(ArithOp::Add, nl, first)));
                let empty = t(self, Filter::Numbers(NumberFilter::Str(String::new())));
                let tail = t(self, Filter::Logic(LogicFilter::Or(vec![tail, empty])));
                let mut acc = event;
                for part in [nl, white, nl, black, tail] {
                    acc = t(self, Filter::Numbers(NumberFilter::Arith(ArithOp::Add, acc, part)));
                }
                acc
            }
            "sound" => {
                let cooked = t(self, Filter::Header(HeaderFilter::GameTextContains("<cook".into())));
                let dual = black_matches(self, "U[12]");
                let both = t(self, Filter::Logic(LogicFilter::And(vec![cooked, dual])));
                let bad = black_matches(self, "U[345]");
                let unsound = t(self, Filter::Logic(LogicFilter::Or(vec![both, bad])));
                t(self, Filter::Logic(LogicFilter::Not(unsound)))
            }
            "unsound" => {
                let cooked = t(self, Filter::Header(HeaderFilter::GameTextContains("<cook".into())));
                let marked = black_matches(self, "U[1-5]");
                t(self, Filter::Logic(LogicFilter::Or(vec![cooked, marked])))
            }
            "stipulation" => {
                let s = group(self, comment, r"stipulation: ([^.]+)\.", 1);
                at_start(self, s)
            }
            other => {
                self.error_hint(
                    format!("`{other}` cannot follow `hhdb` here"),
                    sp,
                    Some("e.g. `hhdb gbr material`, or `hhdb prize` for distinctions".to_string()),
                );
                return Err(());
            }
        };
        let string = matches!(key, "composer" | "diagram" | "firstcomment" | "gbr" | "search" | "stipulation");
        Ok((id, string))
    }

    /// `hhdb [special] [award|prize|hm|commendation] [max]`, or with `sort` (not last): rank
    /// the games by the distinction, best first (CQL 6.2 `hhdbaward-parse.cpp`,
    /// `hhdbaward-sort.cpp`).
    fn hhdb_award(&mut self, words: &[(String, Span)], sp: Span) -> PResult<FilterId> {
        let (mut max, mut special, mut sort) = (false, false, false);
        let mut kind: Option<HhdbAwardKind> = None;
        let span = Self::join(sp, words.last().map_or(sp, |w| w.1));
        for (w, at) in words {
            let repeated = match w.as_str() {
                "max" => std::mem::replace(&mut max, true),
                "special" => std::mem::replace(&mut special, true),
                "sort" => std::mem::replace(&mut sort, true),
                _ => {
                    let k = match w.as_str() {
                        "prize" => HhdbAwardKind::Prize,
                        "hm" => HhdbAwardKind::HonourableMention,
                        "commendation" => HhdbAwardKind::Commendation,
                        _ => HhdbAwardKind::Any,
                    };
                    kind.replace(k).is_some()
                }
            };
            if repeated {
                self.error(format!("`hhdb` takes one kind of distinction and each of `special`, `max`, `sort` once; `{w}` is one too many"), *at);
                return Err(());
            }
        }
        if sort {
            let hint = Some("write `hhdb sort prize`, `hhdb sort special hm`, …".to_string());
            if words.last().is_some_and(|w| w.0 == "sort") {
                self.error_hint(
                    "`sort` cannot be the last word of `hhdb`: a `sort` filter after it would be ambiguous",
                    span,
                    hint,
                );
                return Err(());
            }
            if kind.is_none() && !special {
                self.error_hint("`hhdb sort` needs the distinction to rank by", span, hint);
                return Err(());
            }
            if max {
                self.error_hint("`hhdb` takes `sort` or `max`, not both", span, hint);
                return Err(());
            }
        }
        let kind = kind.unwrap_or(HhdbAwardKind::Any);
        if !sort {
            return Ok(self.add(Filter::Header(HeaderFilter::HhdbAward { kind, special, max }), span));
        }
        Ok(self.hhdb_sort(kind, special, span))
    }

    /// Rank games by a distinction: category first (prizes, then special prizes, honourable
    /// mentions, special ones, commendations, special ones), then the best rank, then the
    /// worst; all ascending.
    fn hhdb_sort(&mut self, kind: HhdbAwardKind, special: bool, sp: Span) -> FilterId {
        let t = |p: &mut Self, f: Filter| p.add(f, sp);
        if special {
            let only = t(
                self,
                Filter::Header(HeaderFilter::HhdbAward { kind: HhdbAwardKind::Any, special: true, max: false }),
            );
            let ranked = self.hhdb_sort(kind, false, sp);
            return t(self, Filter::Logic(LogicFilter::And(vec![only, ranked])));
        }
        if kind == HhdbAwardKind::Any {
            let alternatives: Vec<FilterId> =
                [HhdbAwardKind::Prize, HhdbAwardKind::HonourableMention, HhdbAwardKind::Commendation]
                    .into_iter()
                    .map(|k| self.hhdb_sort(k, false, sp))
                    .collect();
            return t(self, Filter::Logic(LogicFilter::Or(alternatives)));
        }
        let category = match kind {
            HhdbAwardKind::Prize => 1,
            HhdbAwardKind::HonourableMention => 3,
            _ => 5,
        };
        let present = t(self, Filter::Header(HeaderFilter::HhdbAward { kind, special: false, max: false }));
        let is_special =
            t(self, Filter::Header(HeaderFilter::HhdbAward { kind: HhdbAwardKind::Any, special: true, max: false }));
        let pick = |p: &mut Self, a: Filter, b: Filter| {
            let a = p.add(a, sp);
            let b = p.add(b, sp);
            p.add(Filter::Logic(LogicFilter::If { cond: is_special, then: a, otherwise: Some(b) }), sp)
        };
        let cat = pick(
            self,
            Filter::Numbers(NumberFilter::Number(category + 1)),
            Filter::Numbers(NumberFilter::Number(category)),
        );
        let best = pick(
            self,
            Filter::Header(HeaderFilter::HhdbAward { kind, special: true, max: false }),
            Filter::Header(HeaderFilter::HhdbAward { kind, special: false, max: false }),
        );
        let worst = pick(
            self,
            Filter::Header(HeaderFilter::HhdbAward { kind, special: true, max: true }),
            Filter::Header(HeaderFilter::HhdbAward { kind, special: false, max: true }),
        );
        let mut items = vec![present];
        for (doc, value) in [("hhdb category", cat), ("hhdb rank", best), ("hhdb worst rank", worst)] {
            items.push(t(
                self,
                Filter::Output(OutputFilter::Sort { doc: doc.to_string(), min: true, quiet: false, value }),
            ));
        }
        items.push(t(self, Filter::True));
        t(self, Filter::Logic(LogicFilter::And(items)))
    }
}
