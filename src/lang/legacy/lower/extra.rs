//! The CQL-S and CQL 3 keywords added on top of the core legacy language: header fields
//! read from PGN tags, `:xor`/`:cond`, position and game facts, accumulators, the
//! controlling keywords (`:cut`, `:exclude`, `:skip`), `:line`, `:matchconsecutive`,
//! `:repetitioncount`, the diagonal transforms and the CQL 3 shift edge rule.
//!
//! Takes in: one keyword and the cursor after it. Gives out: IR built from the shared
//! filters, and [`LegacyFact`] leaves where no shared filter can say it.
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use shakmaty::{Bitboard, Color, Role};

use super::{err, from_problem, Cursor, ListState, Lowerer};
use crate::ir::legacy::{marker, time_mode};
use crate::ir::{
    Builtin, CmpOp, Filter, FilterId, FindDirection, HeaderField, LegacyFact, LineParams, MoveFilter, MoveKind,
    MoveSource, PawnShare, PieceMask, ShiftAxes, Span, TransformKind, TreeStep,
};
use crate::lang::legacy::designator::{parse_designator, parse_range, starts_range, Designator, PieceKinds, Range};
use crate::lang::legacy::syntax::Item;
use crate::lang::Diagnostic;

/// What a CQL-S position keyword produced.
pub(super) enum Handled {
    /// A conjunct of the list.
    Conjunct(FilterId),
    /// Recorded in the list state; nothing to add here.
    Done,
    /// Not one of these keywords.
    No,
}

/// Keywords refused on purpose, with the reason given in the error.
pub const REFUSED: &[(&str, &str)] = &[
    (":evaluation", "it needs a chess engine's evaluation of the position"),
    (":moveevaluation", "it needs a chess engine's evaluation of the moves"),
    (":endgameevaluation", "it needs endgame tablebases"),
];

/// The error for a keyword refused on purpose.
fn refused(kw: &str, span: Span) -> Option<Diagnostic> {
    REFUSED.iter().find(|(k, _)| *k == kw).map(|(_, why)| {
        err(format!("`{kw}` is not supported by this engine: {why}"), span)
            .with_hint("see docs/compat.md (Legacy) for the keywords cqlrs refuses")
    })
}

/// A PGN tag's value as a header filter.
fn tag(name: &str) -> Filter {
    Filter::Header(HeaderField::Tag(name.to_string()))
}

/// A case-insensitive alternation of literal words, anchored on the whole value.
fn whole_words(words: &[String]) -> String {
    let alts: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    format!("(?i)^\\s*(?:{})\\s*$", alts.join("|"))
}

impl Lowerer {
    /// The tag is missing, empty or a placeholder (`?`, `-`).
    fn tag_absent(&mut self, name: &str, span: Span) -> FilterId {
        let h = self.add(tag(name), span);
        let filled = self.add(Filter::RegexMatch { subject: h, pattern: r"[^\s?\-]".to_string() }, span);
        self.add(Filter::Not(filled), span)
    }

    /// The tag's value is one of `values` (case-insensitive); the words in `unknown` stand
    /// for "the tag is absent". `aliases` widens a value to several spellings.
    fn tag_in(
        &mut self,
        name: &str,
        values: &[&str],
        unknown: &[&str],
        aliases: &dyn Fn(&str) -> Vec<String>,
        span: Span,
    ) -> FilterId {
        let mut words = Vec::new();
        let mut want_absent = false;
        for v in values {
            if unknown.iter().any(|u| u.eq_ignore_ascii_case(v)) {
                want_absent = true;
            } else {
                words.extend(aliases(v));
            }
        }
        let mut alternatives = Vec::new();
        if !words.is_empty() {
            let h = self.add(tag(name), span);
            alternatives.push(self.add(Filter::RegexMatch { subject: h, pattern: whole_words(&words) }, span));
        }
        if want_absent {
            alternatives.push(self.tag_absent(name, span));
        }
        match alternatives.len() {
            0 => self.add(Filter::False, span),
            1 => alternatives[0],
            _ => self.add(Filter::Or(alternatives), span),
        }
    }

    /// A per-player tag test for `:white…`, `:black…` and the either-player form.
    fn player_tag(
        &mut self,
        kw: &str,
        suffix: &str,
        values: &[&str],
        unknown: &[&str],
        aliases: &dyn Fn(&str) -> Vec<String>,
        span: Span,
    ) -> FilterId {
        let colours: &[&str] = if kw.starts_with(":white") {
            &["White"]
        } else if kw.starts_with(":black") {
            &["Black"]
        } else {
            &["White", "Black"]
        };
        let mut alternatives = Vec::new();
        for c in colours {
            alternatives.push(self.tag_in(&format!("{c}{suffix}"), values, unknown, aliases, span));
        }
        if alternatives.len() == 1 {
            alternatives[0]
        } else {
            self.add(Filter::Or(alternatives), span)
        }
    }

    /// A player's rating in a rating system: `ELO` reads `WhiteElo`, any other system
    /// `S` reads the tag `WhiteS` (`WhiteDWZ`, `WhiteECF`, `WhiteUSCF`, `WhiteICCF` …).
    fn rating(&mut self, system: &str, color: Color, span: Span) -> FilterId {
        if system.eq_ignore_ascii_case("elo") {
            return self.add(Filter::Header(HeaderField::Elo(color)), span);
        }
        let side = if color.is_white() { "White" } else { "Black" };
        let suffix = match system.to_ascii_lowercase().as_str() {
            "rapid" => "Rapid".to_string(),
            "blitz" => "Blitz".to_string(),
            "edo" => "Edo".to_string(),
            "bcf" => "ECF".to_string(),
            _ => system.to_ascii_uppercase(),
        };
        let h = self.add(tag(&format!("{side}{suffix}")), span);
        self.add(Filter::Call(Builtin::Int, vec![h]), span)
    }

    /// A rating compared with a range, or (for `-`/`–`) the rating is missing.
    fn rating_test(&mut self, value: FilterId, range: Option<(Range, Span)>, span: Span) -> FilterId {
        match range {
            Some((r, rs)) => self.compare(value, r, rs),
            None => self.add(Filter::Not(value), span),
        }
    }

    /// Read a comma list parameter.
    fn comma_list<'a>(&mut self, kw: &str, c: &mut Cursor<'a>, what: &str) -> Result<(Vec<&'a str>, Span), Diagnostic> {
        let (text, span) = c.atom(kw, what)?;
        let parts: Vec<&str> = text.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
        if parts.is_empty() {
            return Err(err(format!("`{kw}` needs {what}"), span));
        }
        Ok((parts, span))
    }

    /// A range, or `-` / `–` for "no value" (`None`).
    fn range_or_absent(&mut self, kw: &str, c: &mut Cursor) -> Result<Option<(Range, Span)>, Diagnostic> {
        if let Some(t) = c.peek().and_then(Item::atom) {
            if t == "-" || t == "–" {
                c.take();
                return Ok(None);
            }
        }
        Ok(Some(c.range(kw)?))
    }

    /// Match-list keywords of CQL-S: `Some(filter)` when `kw` is one of them.
    pub(super) fn cql_s_header(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
    ) -> Result<Option<FilterId>, Diagnostic> {
        if let Some(d) = refused(kw, span) {
            return Err(d);
        }
        let same = |v: &str| vec![v.to_string()];
        let f = match kw {
            ":xor" => {
                let (subs, _) = c.list(kw, "a list of `(match …)` lists")?;
                let mut parts = Vec::new();
                for sub in subs {
                    parts.push(self.sub_match(sub)?);
                }
                self.exactly_one(parts, span)
            }
            ":cond" => {
                let clauses = cond_items(kw, c, "match")?;
                let mut lowered = Vec::new();
                for item in clauses {
                    lowered.push(self.sub_match(item)?);
                }
                self.cond(lowered, span)
            }
            ":eventdate" => {
                let (r, rs) = c.range(kw)?;
                let h = self.add(tag("EventDate"), span);
                let zero = self.number(0, span);
                let four = self.number(4, span);
                let year = self.add(Filter::Call(Builtin::Substring, vec![h, zero, four]), span);
                let n = self.add(Filter::Call(Builtin::Int, vec![year]), span);
                self.compare(n, r, rs)
            }
            ":eventtype" => {
                let (vals, _) = self.comma_list(kw, c, "event types such as `tourn,swiss`")?;
                let aliases = |v: &str| match v.to_ascii_lowercase().as_str() {
                    "knockout" | "k.o." | "ko" => vec!["k.o.".into(), "knockout".into(), "ko".into()],
                    "game" | "casual" => vec!["game".into(), "casual".into()],
                    "tourn" | "tournament" => vec!["tourn".into(), "tournament".into()],
                    _ => vec![v.to_string()],
                };
                self.tag_in("EventType", &vals, &["unknown"], &aliases, span)
            }
            ":eventmode" => {
                let (vals, _) = self.comma_list(kw, c, "event modes such as `otb,corr`")?;
                let aliases = |v: &str| match v.to_ascii_lowercase().as_str() {
                    "otb" => vec!["otb".into(), "over the board".into()],
                    "corr" => vec!["pm".into(), "corr".into()],
                    "email" => vec!["em".into(), "email".into()],
                    "internet" => vec!["ics".into(), "internet".into()],
                    "tele" => vec!["tc".into(), "tele".into()],
                    _ => vec![v.to_string()],
                };
                self.tag_in("Mode", &vals, &["unknown"], &aliases, span)
            }
            ":eventcountry" => {
                let (vals, _) = self.comma_list(kw, c, "country codes")?;
                self.tag_in("EventCountry", &vals, &["UNK", "xx", "0"], &same, span)
            }
            ":eventcategory" => {
                let (text, ts) = c.atom(kw, "a range")?;
                let (r, rs) = self.roman_range(kw, text, ts, c)?;
                let v = self.add(Filter::LegacyFact(LegacyFact::EventCategory), span);
                self.compare(v, r, rs)
            }
            ":timemode" => {
                let (vals, vs) = self.comma_list(kw, c, "time modes such as `blitz,bullet`")?;
                let mut mask = 0;
                for v in vals {
                    mask |= match v.to_ascii_lowercase().as_str() {
                        "unknown" => time_mode::UNKNOWN,
                        "normal" => time_mode::NORMAL,
                        "rapid" => time_mode::RAPID,
                        "blitz" => time_mode::BLITZ,
                        "bullet" => time_mode::BULLET,
                        "corr" => time_mode::CORR,
                        _ => {
                            return Err(err(format!("`{v}` is not a time mode of `{kw}`"), vs)
                                .with_hint("time modes: unknown, normal, rapid, blitz, bullet, corr"))
                        }
                    };
                }
                self.add(Filter::LegacyFact(LegacyFact::TimeMode(mask)), span)
            }
            ":subround" => {
                let (r, rs) = c.range(kw)?;
                let v = self.add(Filter::LegacyFact(LegacyFact::Round { sub: true }), span);
                self.compare(v, r, rs)
            }
            ":title" | ":whitetitle" | ":blacktitle" => {
                let (vals, _) = self.comma_list(kw, c, "titles such as `GM,IM`")?;
                self.player_tag(kw, "Title", &vals, &["None"], &same, span)
            }
            ":country" | ":whitecountry" | ":blackcountry" => {
                let (vals, _) = self.comma_list(kw, c, "country codes such as `GER`")?;
                self.player_tag(kw, "Country", &vals, &["UNK", "xx", "0"], &same, span)
            }
            ":gender" | ":whitegender" | ":blackgender" => {
                let (vals, _) = self.comma_list(kw, c, "a gender: f, w, m or x")?;
                let aliases = |v: &str| match v.to_ascii_lowercase().as_str() {
                    "f" | "w" => vec!["f".into(), "w".into(), "female".into(), "woman".into()],
                    "m" => vec!["m".into(), "male".into(), "man".into()],
                    _ => vec![v.to_string()],
                };
                self.player_tag(kw, "Sex", &vals, &["x"], &aliases, span)
            }
            ":iscomputer" | ":whiteiscomputer" | ":blackiscomputer" => {
                let computer = |_: &str| vec!["program".to_string(), "computer".to_string(), "engine".to_string()];
                self.player_tag(kw.replace("iscomputer", "").as_str(), "Type", &["program"], &[], &computer, span)
            }
            ":ishuman" | ":whiteishuman" | ":blackishuman" => {
                self.player_tag(kw.replace("ishuman", "").as_str(), "Type", &["human"], &[], &same, span)
            }
            ":rating" | ":whiterating" | ":blackrating" => {
                let (system, _) = c.atom(kw, "a rating system such as `ELO`")?;
                let range = self.range_or_absent(kw, c)?;
                let colours: &[Color] = match kw {
                    ":whiterating" => &[Color::White],
                    ":blackrating" => &[Color::Black],
                    _ => &[Color::White, Color::Black],
                };
                let mut alternatives = Vec::new();
                for &color in colours {
                    let v = self.rating(system, color, span);
                    alternatives.push(self.rating_test(v, range, span));
                }
                if alternatives.len() == 1 {
                    alternatives[0]
                } else {
                    self.add(Filter::Or(alternatives), span)
                }
            }
            ":averagerating" | ":averagerating*" => {
                let (system, _) = c.atom(kw, "a rating system such as `ELO`")?;
                let range = self.range_or_absent(kw, c)?;
                let w = self.rating(system, Color::White, span);
                let b = self.rating(system, Color::Black, span);
                let Some((r, rs)) = range else {
                    // No average: neither player has a rating.
                    let nw = self.add(Filter::Not(w), span);
                    let nb = self.add(Filter::Not(b), span);
                    return Ok(Some(self.add(Filter::And(vec![nw, nb]), span)));
                };
                let sum = self.add(Filter::Arith(crate::ir::ArithOp::Add, w, b), span);
                let two = self.number(2, span);
                let avg = self.add(Filter::Arith(crate::ir::ArithOp::Div, sum, two), span);
                let both = self.compare(avg, r, rs);
                if kw == ":averagerating*" {
                    both
                } else {
                    // With one rating, that rating is the average.
                    let nb = self.add(Filter::Not(b), span);
                    let only_w = self.compare(w, r, rs);
                    let white_alone = self.add(Filter::And(vec![nb, only_w]), span);
                    let nw = self.add(Filter::Not(w), span);
                    let only_b = self.compare(b, r, rs);
                    let black_alone = self.add(Filter::And(vec![nw, only_b]), span);
                    self.add(Filter::Or(vec![both, white_alone, black_alone]), span)
                }
            }
            ":ratingdifference" => {
                let (system, _) = c.atom(kw, "a rating system such as `ELO`")?;
                let (r, rs) = c.range(kw)?;
                let w = self.rating(system, Color::White, span);
                let b = self.rating(system, Color::Black, span);
                let d = self.add(Filter::Arith(crate::ir::ArithOp::Sub, w, b), span);
                let abs = self.add(Filter::Call(Builtin::Abs, vec![d]), span);
                self.compare(abs, r, rs)
            }
            ":tag" => {
                let (name, ns) = c.atom(kw, "a tag name")?;
                let value = match c.peek() {
                    Some(Item::Atom { text, quoted: true, .. }) => Some(text.as_str()),
                    Some(Item::Atom { text, quoted: false, .. })
                        if !text.starts_with(':') && !text.starts_with('!') && !starts_range(text) =>
                    {
                        Some(text.as_str())
                    }
                    _ => None,
                };
                if name == "*" {
                    // Any tag name: some tag holds the value (or the game has some tag).
                    if value.is_some() {
                        c.take();
                    }
                    let fact = LegacyFact::AnyTag(value.map(str::to_string));
                    return Ok(Some(self.add(Filter::LegacyFact(fact), span)));
                }
                let h = self.add(tag(name), ns);
                match value {
                    None => h,
                    Some(v) => {
                        let vs = c.take().map(Item::span).unwrap_or(ns);
                        let needle = self.add(Filter::Str(v.to_string()), vs);
                        self.add(Filter::Contains { haystack: h, needle, ignore_case: true }, span)
                    }
                }
            }
            ":comment" => {
                let (text, ts) = c.atom(kw, "a text in double quotes")?;
                let comment = self.add(Filter::OriginalComment, span);
                let needle = self.add(Filter::Str(text.to_string()), ts);
                let has = self.add(Filter::Contains { haystack: comment, needle, ignore_case: true }, span);
                self.whole_game(has, span)
            }
            ":hascomments" => {
                // An optional list of language codes: PGN comments carry no language, so
                // every comment counts.
                if let Some(Item::Atom { text, quoted: false, .. }) = c.peek() {
                    if !text.is_empty()
                        && text
                            .split(',')
                            .all(|p| (2..=3).contains(&p.len()) && p.chars().all(|ch| ch.is_ascii_alphabetic()))
                    {
                        c.take();
                    }
                }
                let has = self.add(Filter::HasComment, span);
                self.whole_game(has, span)
            }
            ":hasvariations" => {
                let v = self.add(Filter::Variation, span);
                self.whole_game(v, span)
            }
            ":hasannotation" => {
                let v = self.add(Filter::LegacyFact(LegacyFact::HasNag), span);
                self.whole_game(v, span)
            }
            ":ischess960" | ":isshufflechess" => {
                self.add(Filter::LegacyFact(LegacyFact::ShuffleStart { chess960: kw == ":ischess960" }), span)
            }
            ":startposition" => {
                let (vals, vs) = self.comma_list(kw, c, "start position numbers such as `518`")?;
                let mut alternatives = Vec::new();
                for v in vals {
                    let n: i64 = v.parse().map_err(|_| {
                        err(format!("`{v}` is not a start position number"), vs).with_hint(
                            "write Chess960 numbers (1–960, standard 518; +2880 without castling rights) or 0",
                        )
                    })?;
                    if n == 0 {
                        let shuffle = self.add(Filter::LegacyFact(LegacyFact::ShuffleStart { chess960: false }), vs);
                        alternatives.push(self.add(Filter::Not(shuffle), vs));
                    } else {
                        let number = self.add(Filter::LegacyFact(LegacyFact::Chess960Number), vs);
                        alternatives.push(self.compare(number, Range::Between(n, n), vs));
                    }
                }
                if alternatives.len() == 1 {
                    alternatives[0]
                } else {
                    self.add(Filter::Or(alternatives), span)
                }
            }
            ":goodgame" => self.good_game(span)?,
            ":birthyear" | ":whitebirthyear" | ":blackbirthyear" => {
                let (r, rs) = c.range(kw)?;
                self.player_year(kw, &["BirthDate", "BirthYear"], r, rs, span)
            }
            ":deathyear" | ":whitedeathyear" | ":blackdeathyear" => {
                let (r, rs) = c.range(kw)?;
                self.player_year(kw, &["DeathDate", "DeathYear"], r, rs, span)
            }
            ":hasmarker" => {
                let bits = self.marker_list(kw, c, &[marker::USER, marker::AUTOMATIC])?;
                self.has_marker(bits, span)
            }
            ":hasspecialmarker" => {
                let bits = self.marker_list(kw, c, &[marker::SPECIAL])?;
                self.add(Filter::LegacyFact(LegacyFact::Markers(bits)), span)
            }
            ":error" => self.game_error(kw, c, span)?,
            _ => return Ok(None),
        };
        Ok(Some(f))
    }

    /// A player's birth or death year: the year of the first of the tags `White<suffix>`
    /// (`Black<suffix>`) that is present (a PGN date `1950.03.09`, `1950.??.??` or a bare
    /// year), compared with the range; a game without such a tag does not match.
    fn player_year(&mut self, kw: &str, suffixes: &[&str], r: Range, rs: Span, span: Span) -> FilterId {
        let colours: &[&str] = if kw.starts_with(":white") {
            &["White"]
        } else if kw.starts_with(":black") {
            &["Black"]
        } else {
            &["White", "Black"]
        };
        let mut alternatives = Vec::new();
        for colour in colours {
            // `BirthDate` wins over `BirthYear` when both are there.
            let mut chosen: Option<FilterId> = None;
            for suffix in suffixes.iter().rev() {
                let h = self.add(tag(&format!("{colour}{suffix}")), span);
                let zero = self.number(0, span);
                let four = self.number(4, span);
                let text = self.add(Filter::Call(Builtin::Substring, vec![h, zero, four]), span);
                let year = self.add(Filter::Call(Builtin::Int, vec![text]), span);
                let test = self.compare(year, r, rs);
                chosen = Some(match chosen {
                    None => test,
                    Some(later) => {
                        let present = self.add(tag(&format!("{colour}{suffix}")), span);
                        self.add(Filter::If { cond: present, then: test, otherwise: Some(later) }, span)
                    }
                });
            }
            if let Some(f) = chosen {
                alternatives.push(f);
            }
        }
        match alternatives.len() {
            1 => alternatives[0],
            _ => self.add(Filter::Or(alternatives), span),
        }
    }

    /// The optional comma list of markers after `:hasmarker` / `:hasspecialmarker`
    /// (names such as `novelty,bestgame` or Scid's symbols such as `N` or `!`); without
    /// a list every marker of the tables counts.
    fn marker_list(
        &mut self,
        kw: &str,
        c: &mut Cursor,
        tables: &[&[(u32, &str, Option<char>)]],
    ) -> Result<u32, Diagnostic> {
        let all: Vec<(u32, &str, Option<char>)> = tables.iter().flat_map(|t| t.iter().copied()).collect();
        let takes_list = match c.peek() {
            Some(Item::Atom { text, quoted, .. }) => *quoted || !(text.starts_with(':') || text.starts_with("!:")),
            _ => false,
        };
        if !takes_list {
            return Ok(all.iter().fold(0, |acc, (b, _, _)| acc | b));
        }
        let (vals, vs) = self.comma_list(kw, c, "marker names such as `novelty,bestgame`")?;
        let mut bits = 0;
        for v in vals {
            bits |= marker::lookup(v, &all).ok_or_else(|| {
                let names: Vec<&str> = all.iter().map(|(_, n, _)| *n).collect();
                err(format!("`{v}` is not a marker `{kw}` knows"), vs)
                    .with_hint(format!("markers: {}", names.join(", ")))
            })?;
        }
        Ok(bits)
    }

    /// `:hasmarker`: the game's `Markers` tag names one of the markers; the two automatic
    /// markers also hold when the main line has such a move (`:isillegal` / `:isinvalid`
    /// somewhere), as Scidb sets them by itself.
    fn has_marker(&mut self, bits: u32, span: Span) -> FilterId {
        let mut alternatives = vec![self.add(Filter::LegacyFact(LegacyFact::Markers(bits)), span)];
        for (bit, fact) in
            [(marker::ILLEGAL_MOVE, LegacyFact::BreaksSetupRules), (marker::INVALID_MOVE, LegacyFact::KingLeftInCheck)]
        {
            if bits & bit != 0 {
                alternatives.push(self.main_line_move_into(fact, span));
            }
        }
        match alternatives.len() {
            1 => alternatives[0],
            _ => self.add(Filter::Or(alternatives), span),
        }
    }

    /// Some position of the main line after the start holds the fact (a move led into it).
    fn main_line_move_into(&mut self, fact: LegacyFact, span: Span) -> FilterId {
        let f = self.add(Filter::LegacyFact(fact), span);
        let initial_test = self.ir_initial(span);
        let not_initial = self.add(Filter::Not(initial_test), span);
        let here = self.add(Filter::And(vec![not_initial, f]), span);
        let initial = self.add(Filter::Tree(TreeStep::Initial), span);
        let find = self.add(
            Filter::Find { direction: FindDirection::Forward, all: false, range: None, quiet: true, body: here },
            span,
        );
        self.add(Filter::AtPosition { at: initial, body: find }, span)
    }

    /// The `initial` test (the start position of the game).
    fn ir_initial(&mut self, span: Span) -> FilterId {
        self.add(Filter::Initial, span)
    }

    /// `:error [kinds]`: the game has one of these reading problems in its main line:
    /// `illegal` (a move into a position that breaks the rules of chess), `invalid` (a
    /// move that leaves the mover's king in check), or `none` (neither). Without a
    /// list: `illegal` or `invalid`.
    fn game_error(&mut self, kw: &str, c: &mut Cursor, span: Span) -> Result<FilterId, Diagnostic> {
        let takes_list =
            matches!(c.peek(), Some(Item::Atom { text, .. }) if !text.starts_with(':') && !text.starts_with("!:"));
        let (words, vs): (Vec<String>, Span) = if takes_list {
            let (vals, vs) = self.comma_list(kw, c, "error kinds such as `illegal,invalid` or `none`")?;
            (vals.iter().map(|v| marker::fold(v)).collect(), vs)
        } else {
            (vec!["illegal".into(), "invalid".into()], span)
        };
        let mut alternatives = Vec::new();
        for w in &words {
            let f = match w.as_str() {
                "illegal" | "illegalmove" => self.main_line_move_into(LegacyFact::BreaksSetupRules, span),
                "invalid" | "invalidmove" => self.main_line_move_into(LegacyFact::KingLeftInCheck, span),
                "none" => {
                    let any = self.main_line_move_into(LegacyFact::BreaksSetupRules, span);
                    self.add(Filter::Not(any), span)
                }
                _ => {
                    return Err(err(format!("`{w}` is not an error kind of `{kw}`"), vs)
                        .with_hint("error kinds: illegal, invalid, none"))
                }
            };
            alternatives.push(f);
        }
        Ok(match alternatives.len() {
            1 => alternatives[0],
            _ => self.add(Filter::Or(alternatives), span),
        })
    }

    /// `:goodgame`: the manual's own definition, written out in CQL-S and lowered.
    fn good_game(&mut self, span: Span) -> Result<FilterId, Diagnostic> {
        const DEFINITION: &str = "(match :timemode normal,corr :not (match :eventtype simul) :plycount 16 unlimited \
            :or ((match :not (match :result 1/2)) (match :plycount 40 unlimited)) \
            :or ((match :title IM,GM,WIM,WGM,CIM,CGM) (match :rating ELO >=2350) (match :rating DWZ >=2350) \
            (match :rating ACF >=2350) (match :rating ECF >=220) (match :rating ICCF >=2350) (match :rating USCF >=2375)))";
        let top = crate::lang::legacy::syntax::read(DEFINITION).map_err(|d| err(d.message, span))?;
        let item = top.first().ok_or_else(|| err("internal: empty `:goodgame` definition", span))?;
        self.sub_match(item)
    }

    /// `f` holds at some position of the game (variations included).
    fn whole_game(&mut self, f: FilterId, span: Span) -> FilterId {
        self.game_variations = true;
        let initial = self.add(Filter::Tree(TreeStep::Initial), span);
        let find = self.add(
            Filter::Find { direction: FindDirection::Forward, all: false, range: None, quiet: true, body: f },
            span,
        );
        self.add(Filter::AtPosition { at: initial, body: find }, span)
    }

    /// A range whose numbers may be Roman numerals (`:eventcategory >=XX`).
    fn roman_range(&mut self, kw: &str, text: &str, span: Span, c: &mut Cursor) -> Result<(Range, Span), Diagnostic> {
        let convert = |t: &str| -> String {
            let (prefix, body) = t.split_at(t.find(|ch: char| ch.is_ascii_alphanumeric()).unwrap_or(0));
            match crate::ir::legacy::roman(body) {
                Some(n) => format!("{prefix}{n}"),
                None => t.to_string(),
            }
        };
        let first = convert(text);
        let second = c.peek().and_then(Item::atom).map(convert);
        let (r, used) = parse_range(&first, second.as_deref()).map_err(|p| from_problem(p, span))?;
        if used {
            c.take();
        }
        let _ = kw;
        Ok((r, span))
    }

    /// Exactly one of the filters matches.
    fn exactly_one(&mut self, parts: Vec<FilterId>, span: Span) -> FilterId {
        let n = self.add(Filter::CountMatching(parts), span);
        self.compare(n, Range::Between(1, 1), span)
    }

    /// `:cond C1 E1 C2 E2 … [E]`: the expression of the first clause that holds; an odd
    /// last item is the expression taken when no clause holds.
    fn cond(&mut self, items: Vec<FilterId>, span: Span) -> FilterId {
        let mut otherwise = None;
        let mut pairs: Vec<(FilterId, FilterId)> =
            items.chunks(2).filter(|p| p.len() == 2).map(|p| (p[0], p[1])).collect();
        if items.len() % 2 == 1 {
            otherwise = items.last().copied();
        }
        let mut result = otherwise.unwrap_or_else(|| self.add(Filter::False, span));
        while let Some((c, e)) = pairs.pop() {
            result = self.add(Filter::If { cond: c, then: e, otherwise: Some(result) }, span);
        }
        result
    }

    /// Position-list keywords of CQL-S and CQL 3.
    pub(super) fn cql_s_position(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        top_level: bool,
    ) -> Result<Handled, Diagnostic> {
        if let Some(d) = refused(kw, span) {
            return Err(d);
        }
        let yes_no = |me: &mut Lowerer, fact: LegacyFact| me.add(Filter::LegacyFact(fact), span);
        let only_top = |what: &str| {
            err(format!("`{what}` is only allowed in a position list directly inside the match list"), span)
        };
        let f = match kw {
            ":flipdiagonal" => {
                st.transforms.push(TransformKind::FlipDiagonal);
                return Ok(Handled::Done);
            }
            ":flipoffdiagonal" => {
                st.transforms.push(TransformKind::FlipOffDiagonal);
                return Ok(Handled::Done);
            }
            ":shiftdiagonal" | ":shiftmaindiagonal" | ":shiftoffdiagonal" => {
                let axes = match kw {
                    ":shiftmaindiagonal" => ShiftAxes::MainDiagonal,
                    ":shiftoffdiagonal" => ShiftAxes::OffDiagonal,
                    _ => ShiftAxes::Diagonals,
                };
                st.transforms.push(TransformKind::LegacyShift(axes));
                return Ok(Handled::Done);
            }
            ":xor" | ":match" => {
                let (subs, lspan) = c.list(kw, "a list of `(position …)` lists")?;
                if subs.is_empty() {
                    return Err(err(format!("`{kw}` needs at least one position list"), lspan));
                }
                let mut parts = Vec::new();
                for sub in subs {
                    parts.push(self.nested_position_list(sub)?);
                }
                if kw == ":xor" {
                    self.exactly_one(parts, span)
                } else {
                    // Like a match list of its own: each list matches some position of the game.
                    let mut finds = Vec::new();
                    for p in parts {
                        let initial = self.add(Filter::Tree(TreeStep::Initial), span);
                        let find = self.add(
                            Filter::Find {
                                direction: FindDirection::Forward,
                                all: false,
                                range: None,
                                quiet: true,
                                body: p,
                            },
                            span,
                        );
                        finds.push(self.add(Filter::AtPosition { at: initial, body: find }, span));
                    }
                    self.and(finds, span)
                }
            }
            ":cond" => {
                let clauses = cond_items(kw, c, "position")?;
                let mut lowered = Vec::new();
                for item in clauses {
                    lowered.push(self.nested_position_list(item)?);
                }
                self.cond(lowered, span)
            }
            ":accumulate" | ":accumulate*" => {
                let (name, _) = c.atom(kw, "an accumulator name")?;
                st.accumulate = Some((name.to_string(), kw.ends_with('*')));
                return Ok(Handled::Done);
            }
            ":sumrange" => {
                let (name, ns) = c.atom(kw, "an accumulator name")?;
                let (r, rs) = c.range(kw)?;
                st.sumranges.push((name.to_string(), r, Span::new(ns.start as usize, rs.end as usize)));
                return Ok(Handled::Done);
            }
            ":reset" => {
                // Counts are taken afresh at every position and for every list, so there
                // is nothing left over to clear.
                c.atom(kw, "an accumulator name")?;
                return Ok(Handled::Done);
            }
            ":line" => self.line(kw, span, c)?,
            ":matchconsecutive" => {
                let (subs, lspan) = c.list(kw, "a list of `(position …)` lists")?;
                if subs.is_empty() || subs.len() > 6 {
                    return Err(err(format!("`{kw}` needs one to six position lists"), lspan));
                }
                let mut parts = Vec::new();
                for sub in subs {
                    parts.push(self.nested_position_list(sub)?);
                }
                let mut orders = Vec::new();
                permutations(&parts, &mut Vec::new(), &mut vec![false; parts.len()], &mut orders);
                let mut alternatives = Vec::new();
                for order in orders {
                    let body = self.add(Filter::SeqConcat(order), lspan);
                    alternatives.push(self.add(Filter::Line { params: LineParams::default(), body }, span));
                }
                if alternatives.len() == 1 {
                    alternatives[0]
                } else {
                    self.add(Filter::Or(alternatives), span)
                }
            }
            ":castling" => {
                let (d, ds) = c.designator(kw)?;
                let PieceKinds::Mask(m) = d.kinds else {
                    return Err(err("`:castling` needs K, Q, k or q", ds));
                };
                let mut rights = 0u8;
                for (bit, color, role) in [
                    (1, Color::White, Role::King),
                    (2, Color::White, Role::Queen),
                    (4, Color::Black, Role::King),
                    (8, Color::Black, Role::Queen),
                ] {
                    if m.contains_piece(color, role) {
                        rights |= bit;
                    }
                }
                if rights == 0 {
                    return Err(err("`:castling` needs K, Q, k or q", ds)
                        .with_hint("K/Q: White may castle king/queen side; k/q: Black"));
                }
                // One of the named rights (exactly one, as the manual's `[KQ]` example says).
                let n = self.add(Filter::LegacyFact(LegacyFact::CastlingRights(rights)), span);
                self.compare(n, Range::Between(1, 1), span)
            }
            ":checkcount" => {
                let (text, ts) = c.atom(kw, "a number or `+n+m`")?;
                if let Some(rest) = text.strip_prefix('+') {
                    let (a, b) = rest.split_once('+').unwrap_or((rest, ""));
                    let (Ok(w), Ok(b)) = (a.parse::<i64>(), b.parse::<i64>()) else {
                        return Err(err(format!("`{text}` is not a check count"), ts)
                            .with_hint("write `n` or `+n1+n2` (checks given by White and by Black)"));
                    };
                    let wc = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(Color::White)), span);
                    let bc = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(Color::Black)), span);
                    let wt = self.compare(wc, Range::Between(w, w), span);
                    let bt = self.compare(bc, Range::Between(b, b), span);
                    self.add(Filter::And(vec![wt, bt]), span)
                } else {
                    let n: i64 = text.parse().map_err(|_| {
                        err(format!("`{text}` is not a check count"), ts).with_hint("write `n` or `+n1+n2`")
                    })?;
                    // The last move gave the n-th check of its side.
                    let mut alternatives = Vec::new();
                    for color in [Color::White, Color::Black] {
                        let to_move = self.add(Filter::ToMove(color.other()), span);
                        let check = self.add(Filter::Check, span);
                        let given = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(color)), span);
                        let nth = self.compare(given, Range::Between(n, n), span);
                        alternatives.push(self.add(Filter::And(vec![to_move, check, nth]), span));
                    }
                    let either = self.add(Filter::Or(alternatives), span);
                    if n == 0 {
                        let wc = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(Color::White)), span);
                        let bc = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(Color::Black)), span);
                        let w0 = self.compare(wc, Range::Between(0, 0), span);
                        let b0 = self.compare(bc, Range::Between(0, 0), span);
                        self.add(Filter::And(vec![w0, b0]), span)
                    } else {
                        either
                    }
                }
            }
            ":contactcheck" => {
                let checkers = match c.peek().and_then(Item::atom) {
                    Some(t) if !t.starts_with(':') && !t.starts_with('!') && parse_designator(t).is_ok() => {
                        let (d, ds) = c.designator(kw)?;
                        Some(self.designator(&d, ds)?)
                    }
                    _ => None,
                };
                self.contact_check(checkers, span)
            }
            ":ischeck" | ":isdoublecheck" | ":ismate" | ":iscontactcheck" => {
                let after = match kw {
                    ":ischeck" => self.add(Filter::Check, span),
                    ":ismate" => self.add(Filter::Mate, span),
                    ":isdoublecheck" => self.double_check(span),
                    _ => self.contact_check(None, span),
                };
                let mut next = self.next_position(after, span);
                if kw == ":ischeck" {
                    if let Some(t) = c.peek().and_then(Item::atom) {
                        if starts_range(t) {
                            // The number of checks the side to move has given, this one included.
                            let (r, rs) = c.range(kw)?;
                            let mut alternatives = Vec::new();
                            for color in [Color::White, Color::Black] {
                                let tm = self.add(Filter::ToMove(color), span);
                                let given = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(color)), span);
                                let counted = self.compare(given, r, rs);
                                let later = self.next_position(counted, span);
                                alternatives.push(self.add(Filter::And(vec![tm, later]), span));
                            }
                            let count = self.add(Filter::Or(alternatives), span);
                            next = self.add(Filter::And(vec![next, count]), span);
                        }
                    }
                }
                next
            }
            ":iscastling" => {
                let mut kinds = Vec::new();
                if let Some(t) = c.peek().and_then(Item::atom) {
                    if !t.starts_with(':') && !t.starts_with('!') && parse_designator(t).is_ok() {
                        let (d, ds) = c.designator(kw)?;
                        let PieceKinds::Mask(m) = d.kinds else {
                            return Err(err("`:iscastling` takes K, Q, k or q", ds));
                        };
                        for (color, role, kind) in [
                            (Color::White, Role::King, MoveKind::CastleKingside),
                            (Color::White, Role::Queen, MoveKind::CastleQueenside),
                            (Color::Black, Role::King, MoveKind::CastleKingside),
                            (Color::Black, Role::Queen, MoveKind::CastleQueenside),
                        ] {
                            if m.contains_piece(color, role) {
                                kinds.push((Some(color), kind));
                            }
                        }
                        if kinds.is_empty() {
                            return Err(err("`:iscastling` takes K, Q, k or q", ds));
                        }
                    }
                }
                if kinds.is_empty() {
                    kinds.push((None, MoveKind::Castle));
                }
                let mut alternatives = Vec::new();
                for (color, kind) in kinds {
                    let m = self
                        .add(Filter::Move(Box::new(MoveFilter { kind, ..MoveFilter::any(MoveSource::Next) })), span);
                    alternatives.push(match color {
                        None => m,
                        Some(col) => {
                            let tm = self.add(Filter::ToMove(col), span);
                            self.add(Filter::And(vec![tm, m]), span)
                        }
                    });
                }
                if alternatives.len() == 1 {
                    alternatives[0]
                } else {
                    self.add(Filter::Or(alternatives), span)
                }
            }
            ":isillegal" => {
                let breaks = self.add(Filter::LegacyFact(LegacyFact::BreaksSetupRules), span);
                self.next_position(breaks, span)
            }
            ":isinvalid" => {
                let left = self.add(Filter::LegacyFact(LegacyFact::KingLeftInCheck), span);
                self.next_position(left, span)
            }
            ":isnull" => self.add(
                Filter::Move(Box::new(MoveFilter { kind: MoveKind::Null, ..MoveFilter::any(MoveSource::Next) })),
                span,
            ),
            ":forced" => {
                // The next move is the only legal one.
                let legal = self.add(
                    Filter::Move(Box::new(MoveFilter {
                        value: crate::ir::MoveValue::Count,
                        ..MoveFilter::any(MoveSource::Legal)
                    })),
                    span,
                );
                let only = self.compare(legal, Range::Between(1, 1), span);
                let next = self.add(Filter::Move(Box::new(MoveFilter::any(MoveSource::Next))), span);
                self.add(Filter::And(vec![only, next]), span)
            }
            ":halfmoveclock" => {
                let (r, rs) = c.range(kw)?;
                let v = self.add(Filter::LegacyFact(LegacyFact::HalfmoveClock), span);
                self.compare(v, r, rs)
            }
            ":threefoldrepetition" | ":fivefoldrepetition" => {
                let n = if kw == ":threefoldrepetition" { 3 } else { 5 };
                let main = self.add(Filter::Mainline, span);
                let v = self.add(Filter::LegacyFact(LegacyFact::RepetitionCount), span);
                let t = self.compare(v, Range::Between(n, n), span);
                self.add(Filter::And(vec![main, t]), span)
            }
            ":repetitioncount" | ":pretransformrepetitioncount" => {
                if !top_level {
                    return Err(only_top(kw));
                }
                let (r, _) = c.range(kw)?;
                st.repetition = Some((r, kw == ":pretransformrepetitioncount"));
                return Ok(Handled::Done);
            }
            ":matingmaterial" => {
                let w = self.cannot_win(Color::White, span);
                let b = self.cannot_win(Color::Black, span);
                let both = self.add(Filter::And(vec![w, b]), span);
                self.add(Filter::Not(both), span)
            }
            ":whitecannotwin" => self.cannot_win(Color::White, span),
            ":blackcannotwin" => self.cannot_win(Color::Black, span),
            ":gameisover" => {
                let mate = self.add(Filter::Mate, span);
                let stalemate = self.add(Filter::Stalemate, span);
                let w = self.cannot_win(Color::White, span);
                let b = self.cannot_win(Color::Black, span);
                let dead = self.add(Filter::And(vec![w, b]), span);
                self.add(Filter::Or(vec![mate, stalemate, dead]), span)
            }
            ":losing" => {
                // One side has no piece left (Antichess); never so in standard chess.
                let mut alternatives = Vec::new();
                for mask in [PieceMask::WHITE, PieceMask::BLACK] {
                    let p = self.add(Filter::Pieces { mask, squares: Bitboard::FULL }, span);
                    alternatives.push(self.add(Filter::Not(p), span));
                }
                self.add(Filter::Or(alternatives), span)
            }
            ":mustcapture" | ":captureforced" | ":takeslastpiece" => {
                // Antichess rules only; the manual says these never hold in other variants,
                // and cqlrs reads standard chess games.
                self.add(Filter::False, span)
            }
            ":opposition" => {
                let color = match c.peek().and_then(Item::atom) {
                    Some("K") => {
                        c.take();
                        Some(Color::White)
                    }
                    Some("k") => {
                        c.take();
                        Some(Color::Black)
                    }
                    _ => None,
                };
                match color {
                    Some(col) => yes_no(self, LegacyFact::Opposition(col)),
                    None => {
                        let mut alternatives = Vec::new();
                        for col in [Color::White, Color::Black] {
                            let tm = self.add(Filter::ToMove(col), span);
                            let o = self.add(Filter::LegacyFact(LegacyFact::Opposition(col)), span);
                            alternatives.push(self.add(Filter::And(vec![tm, o]), span));
                        }
                        self.add(Filter::Or(alternatives), span)
                    }
                }
            }
            ":goodbishop" => {
                let (d, ds) = c.designator(kw)?;
                let PieceKinds::Mask(mask) = d.kinds else {
                    return Err(err("`:goodbishop` needs bishops, not a tag", ds));
                };
                let enemy = share(kw, c)?;
                match c.take() {
                    Some(Item::Atom { text, .. }) if text == ":" => {}
                    Some(other) => {
                        return Err(err("`:goodbishop` needs `:` between its two ranges", other.span())
                            .with_hint("write e.g. `:goodbishop B >50% : >50%`"))
                    }
                    None => return Err(c.missing(kw, "`:` and a second range")),
                }
                let own = share(kw, c)?;
                yes_no(self, LegacyFact::GoodBishop { mask, squares: Bitboard(d.squares), enemy, own })
            }
            ":endgame" => self.endgame(span)?,
            ":maxswapevaluation" => {
                let (d1, s1) = c.designator(kw)?;
                let (d2, _) = c.designator(kw)?;
                let PieceKinds::Mask(mask) = d1.kinds else {
                    return Err(err("`:maxswapevaluation` needs piece types, not a tag", s1));
                };
                let (r, rs) = c.range(kw)?;
                let v = self.add(
                    Filter::LegacyFact(LegacyFact::MaxSwap {
                        mask,
                        from: Bitboard(d1.squares),
                        to: Bitboard(d2.squares),
                    }),
                    span,
                );
                self.compare(v, r, rs)
            }
            ":exchangeevaluation" => {
                let (r, rs) = c.range(kw)?;
                let v = self.add(Filter::LegacyFact(LegacyFact::ExchangeValue), span);
                self.compare(v, r, rs)
            }
            ":fen" => self.fen(kw, span, c)?,
            ":inside" => {
                let (d, ds) = c.designator(kw)?;
                let set = self.designator(&d, ds)?;
                let (text, ts) = c.atom(kw, "a square designator such as `[b2,c3]`")?;
                let region = parse_designator(&format!("?{text}")).map_err(|p| from_problem(p, ts))?;
                let fixed = self.add(Filter::LegacyFact(LegacyFact::Region(Bitboard(region.squares))), ts);
                self.add(Filter::Intersection(vec![set, fixed]), span)
            }
            ":insidevariation" => self.add(Filter::Variation, span),
            ":cut" | ":exclude" => {
                if !top_level {
                    return Err(only_top(kw));
                }
                let sub = if matches!(c.peek(), Some(Item::List { .. })) {
                    let item = c.take().ok_or_else(|| c.missing(kw, "a position list"))?;
                    Some(self.nested_position_list(item)?)
                } else {
                    None
                };
                if kw == ":cut" {
                    st.cut = Some(sub);
                } else {
                    st.exclude = Some(sub);
                }
                return Ok(Handled::Done);
            }
            ":skip" => {
                if matches!(c.peek(), Some(Item::List { .. })) {
                    let item = c.take().ok_or_else(|| c.missing(kw, "a position list"))?;
                    let f = self.nested_position_list(item)?;
                    self.add(Filter::Not(f), span)
                } else {
                    self.add(Filter::False, span)
                }
            }
            ":variant" => {
                let (text, ts) = c.atom(kw, "a variant")?;
                let h = self.add(tag("Variant"), span);
                let needle = self.add(Filter::Str(text.to_string()), ts);
                self.add(Filter::Contains { haystack: h, needle, ignore_case: true }, span)
            }
            ":pawncountdifference" => self.pawn_count_difference(kw, span, c)?,
            _ => return Ok(Handled::No),
        };
        Ok(Handled::Conjunct(f))
    }

    /// `f` holds at the position after the next move.
    fn next_position(&mut self, f: FilterId, span: Span) -> FilterId {
        let zero = self.number(0, span);
        let child = self.add(Filter::Child(zero), span);
        self.add(Filter::AtPosition { at: child, body: f }, span)
    }

    /// The side to move is attacked by two pieces or more.
    pub(super) fn double_check(&mut self, span: Span) -> FilterId {
        let mut alternatives = Vec::new();
        for color in [Color::White, Color::Black] {
            let tm = self.add(Filter::ToMove(color), span);
            let king =
                self.add(Filter::Pieces { mask: PieceMask::piece(color, Role::King), squares: Bitboard::FULL }, span);
            let enemy_mask = if color.is_white() { PieceMask::BLACK } else { PieceMask::WHITE };
            let enemies = self.add(Filter::Pieces { mask: enemy_mask, squares: Bitboard::FULL }, span);
            let checkers =
                self.add(Filter::Attacks { attackers: enemies, targets: king, value_is_targets: false }, span);
            let n = self.add(Filter::Count(checkers), span);
            let two = self.compare(n, Range::Compare(CmpOp::Ge, 2), span);
            alternatives.push(self.add(Filter::And(vec![tm, two]), span));
        }
        self.add(Filter::Or(alternatives), span)
    }

    /// A contact check: the side to move is in check from a piece next to its king or a
    /// knight (so nothing can be put between), or in double check. With `only`, a checker
    /// of that set gives it.
    fn contact_check(&mut self, only: Option<FilterId>, span: Span) -> FilterId {
        let check = self.add(Filter::Check, span);
        let mut alternatives = Vec::new();
        if only.is_none() {
            alternatives.push(self.double_check(span));
        }
        for color in [Color::White, Color::Black] {
            let tm = self.add(Filter::ToMove(color), span);
            let king =
                self.add(Filter::Pieces { mask: PieceMask::piece(color, Role::King), squares: Bitboard::FULL }, span);
            let enemy_mask = if color.is_white() { PieceMask::BLACK } else { PieceMask::WHITE };
            let enemies = self.add(Filter::Pieces { mask: enemy_mask, squares: Bitboard::FULL }, span);
            let enemies = match only {
                Some(set) => self.add(Filter::Intersection(vec![enemies, set]), span),
                None => enemies,
            };
            let checkers =
                self.add(Filter::Attacks { attackers: enemies, targets: king, value_is_targets: false }, span);
            let around = self.add(
                Filter::Direction {
                    dirs: crate::ir::Directions::ANY,
                    min: 1,
                    max: 1,
                    range_variables: (None, None),
                    arg: king,
                },
                span,
            );
            let knights = self.add(
                Filter::Pieces { mask: PieceMask::piece(color.other(), Role::Knight), squares: Bitboard::FULL },
                span,
            );
            let close = self.add(Filter::Union(vec![around, knights]), span);
            let contact = self.add(Filter::Intersection(vec![checkers, close]), span);
            alternatives.push(self.add(Filter::And(vec![tm, contact]), span));
        }
        let any = self.add(Filter::Or(alternatives), span);
        self.add(Filter::And(vec![check, any]), span)
    }

    /// The manual's "cannot win" test: a lone king, or king and one minor piece.
    fn cannot_win(&mut self, color: Color, span: Span) -> FilterId {
        let all = if color.is_white() { PieceMask::WHITE } else { PieceMask::BLACK };
        let minors = PieceMask::piece(color, Role::Bishop).with(PieceMask::piece(color, Role::Knight));
        let pieces = self.add(Filter::Pieces { mask: all, squares: Bitboard::FULL }, span);
        let n = self.add(Filter::Count(pieces), span);
        let lone = self.compare(n, Range::Between(1, 1), span);
        let two = self.compare(n, Range::Between(2, 2), span);
        let minor = self.add(Filter::Pieces { mask: minors, squares: Bitboard::FULL }, span);
        let m = self.add(Filter::Count(minor), span);
        let one_minor = self.compare(m, Range::Between(1, 1), span);
        let with_minor = self.add(Filter::And(vec![two, one_minor]), span);
        self.add(Filter::Or(vec![lone, with_minor]), span)
    }

    /// `:endgame`: the manual's definition, lowered from its own CQL-S text.
    fn endgame(&mut self, span: Span) -> Result<FilterId, Diagnostic> {
        const DEFINITION: &str = "(position :or (\
            (position :piececount [Qq] 0 :piececount [RBN] 0 3 :piececount [rbn] 0 3) \
            (position :piececount Q 1 :piececount q 1 :piececount [Rr] 0 :piececount I 0 1 :piececount i 0 1) \
            (position :piececount Q 1 :piececount R 0 :piececount I 0 1 :piececount q 0 :power [rbn] 0 16 :flipcolor)))";
        let top = crate::lang::legacy::syntax::read(DEFINITION).map_err(|d| err(d.message, span))?;
        let item = top.first().ok_or_else(|| err("internal: empty `:endgame` definition", span))?;
        self.nested_position_list(item)
    }

    /// `:fen "…"`: the board, side to move and castling rights equal the FEN's.
    fn fen(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        use shakmaty::fen::Fen;
        let (text, ts) = c.atom(kw, "a FEN in double quotes")?;
        let fen: Fen = text.parse().map_err(|e| {
            err(format!("`{text}` is not a valid FEN: {e}"), ts)
                .with_hint("write e.g. `:fen \"8/8/8/8/8/8/8/K6k w - - 0 1\"`")
        })?;
        let setup = fen.as_setup();
        let mut parts = Vec::new();
        for color in [Color::White, Color::Black] {
            for role in Role::ALL {
                let squares = setup.board.by_piece(shakmaty::Piece { color, role });
                let p = self.add(Filter::Pieces { mask: PieceMask::piece(color, role), squares: Bitboard::FULL }, ts);
                let n = self.add(Filter::Count(p), ts);
                parts.push(self.compare(n, Range::Between(squares.count() as i64, squares.count() as i64), ts));
                if squares.any() {
                    let on = self.add(Filter::Pieces { mask: PieceMask::piece(color, role), squares }, ts);
                    let k = self.add(Filter::Count(on), ts);
                    parts.push(self.compare(k, Range::Between(squares.count() as i64, squares.count() as i64), ts));
                }
            }
        }
        parts.push(self.add(Filter::ToMove(setup.turn), ts));
        // Castling rights: exactly the FEN's (the rook squares of its castling field).
        let mut wanted = 0u8;
        for (bit, sq) in [
            (1u8, shakmaty::Square::H1),
            (2, shakmaty::Square::A1),
            (4, shakmaty::Square::H8),
            (8, shakmaty::Square::A8),
        ] {
            if setup.castling_rights.contains(sq) {
                wanted |= bit;
            }
        }
        let have = i64::from(wanted.count_ones());
        let held = self.add(Filter::LegacyFact(LegacyFact::CastlingRights(wanted)), ts);
        parts.push(self.compare(held, Range::Between(have, have), ts));
        let all = self.add(Filter::LegacyFact(LegacyFact::CastlingRights(15)), ts);
        parts.push(self.compare(all, Range::Between(have, have), ts));
        Ok(self.and(parts, span))
    }

    /// `:pawncountdifference D1 [D2] attrs range`: pawns of D1 with the attributes minus
    /// pawns of D2 (default: D1 with colours swapped) with them.
    fn pawn_count_difference(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d1, s1) = c.designator(kw)?;
        let second = match c.peek().and_then(Item::atom) {
            Some(t) if parse_designator(t).is_ok() && !t.contains('(') && !is_pawn_attribute_word(t) => {
                Some(c.designator(kw)?)
            }
            _ => None,
        };
        let (d2, s2) = match second {
            Some(x) => x,
            None => {
                let PieceKinds::Mask(m) = d1.kinds else {
                    return Err(err(format!("`{kw}` needs pawns, not a tag"), s1));
                };
                (Designator { kinds: PieceKinds::Mask(m.swap_colors()), squares: d1.squares }, s1)
            }
        };
        let (attrs, aspan) = c.atom(kw, "pawn attributes")?;
        let a = self.pawn_set(&d1, s1, attrs, aspan)?;
        let b = self.pawn_set(&d2, s2, attrs, aspan)?;
        let na = self.add(Filter::Count(a), span);
        let nb = self.add(Filter::Count(b), span);
        let diff = self.add(Filter::Arith(crate::ir::ArithOp::Sub, na, nb), span);
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(diff, r, rs))
    }

    /// `:line "1.e2-e4 e7-e5 2.Ng1-f3"`: the moves are played from here on, in this order.
    fn line(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (text, ts) = c.atom(kw, "a line of moves in double quotes")?;
        let hint = "write moves in long algebraic notation, e.g. `\"1.e2-e4 e7-e5 2.Ng1-f3\"`";
        let mut steps: Vec<Vec<FilterId>> = vec![Vec::new()];
        for word in text.split_whitespace() {
            if word == "e.p." {
                continue;
            }
            if word == "*" {
                return Err(err("the transposition-invariant `:line` (ending in `*`) is not supported", ts)
                    .with_hint("drop the `*` to search the moves in the order written"));
            }
            // Optional move number: `12.` (White) or `12...` (Black).
            let (number, mv) = match word.find('.') {
                Some(i) if word[..i].bytes().all(|b| b.is_ascii_digit()) && i > 0 => {
                    let rest = word[i..].trim_start_matches('.');
                    let black = word[i..].starts_with("...");
                    (Some((word[..i].parse::<i64>().unwrap_or(0), black)), rest)
                }
                _ => (None, word),
            };
            if mv.is_empty() {
                continue;
            }
            let here = steps.last_mut().expect("a step");
            if let Some((n, black)) = number {
                let num = self.add(Filter::MoveNumber, ts);
                here.push(self.compare(num, Range::Between(n, n), ts));
                if black {
                    here.push(self.add(Filter::ToMove(Color::Black), ts));
                }
            }
            let (body, suffix) = match mv.find(['+', '#']) {
                Some(i) => (&mv[..i], &mv[i..]),
                None => (mv, ""),
            };
            let m = self.line_move(body, ts).map_err(|e| e.with_hint(hint))?;
            let here = steps.last_mut().expect("a step");
            here.push(m);
            let mut next = Vec::new();
            if suffix.starts_with('#') {
                next.push(self.add(Filter::Mate, ts));
            } else if suffix.starts_with('+') {
                next.push(self.add(Filter::Check, ts));
            }
            steps.push(next);
        }
        if steps.len() < 2 {
            return Err(err(format!("`{kw}` needs at least one move"), ts).with_hint(hint));
        }
        let mut seq = Vec::new();
        let last = steps.len() - 1;
        for (i, parts) in steps.into_iter().enumerate() {
            if i == last && parts.is_empty() {
                break;
            }
            seq.push(self.and(parts, ts));
        }
        let body = self.add(Filter::SeqConcat(seq), ts);
        Ok(self.add(Filter::Line { params: LineParams::default(), body }, span))
    }

    /// One long-algebraic move of `:line`: `[piece]from(-|x)to[=promotion]`, where from
    /// and to may be square designators (`Nb1-[ac]3`); no letter means a pawn.
    fn line_move(&mut self, text: &str, span: Span) -> Result<FilterId, Diagnostic> {
        let sep = text.find(['-', 'x']).ok_or_else(|| err(format!("`{text}` is not a move"), span))?;
        let (left, right) = (&text[..sep], &text[sep + 1..]);
        let capture = text.as_bytes()[sep] == b'x';
        let role_mask = |c: char| -> Option<PieceMask> {
            let role = Role::from_char(c.to_ascii_lowercase())?;
            if !c.is_ascii_uppercase() {
                return None;
            }
            Some(PieceMask::piece(Color::White, role).with(PieceMask::piece(Color::Black, role)))
        };
        let pawns = PieceMask::piece(Color::White, Role::Pawn).with(PieceMask::piece(Color::Black, Role::Pawn));
        let (mask, from_sq) = match left.chars().next() {
            Some(ch) if role_mask(ch).is_some() && ch != 'P' || ch == 'P' => {
                (role_mask(ch).unwrap_or(pawns), &left[1..])
            }
            _ => (pawns, left),
        };
        let (to_text, promo) = match right.split_once('=') {
            Some((t, p)) => (t, Some(p)),
            None => (right, None),
        };
        let to_sq = to_text.trim_start_matches(|ch: char| ch.is_ascii_uppercase());
        let squares = |t: &str| -> Result<u64, Diagnostic> {
            parse_designator(&format!("?{t}"))
                .map(|d| d.squares)
                .map_err(|_| err(format!("`{t}` in `{text}` is not a square"), span))
        };
        let from = self.add(Filter::Pieces { mask, squares: Bitboard(squares(from_sq)?) }, span);
        let to_bb = Bitboard(squares(to_sq)?);
        let to_mask = if capture { PieceMask::ANY_PIECE } else { PieceMask::EMPTY };
        let to = self.add(Filter::Pieces { mask: to_mask, squares: to_bb }, span);
        let mut promote = 0u8;
        if let Some(p) = promo {
            let role = p.chars().next().and_then(|ch| Role::from_char(ch.to_ascii_lowercase()));
            match role {
                Some(r) if r != Role::Pawn && r != Role::King => promote |= 1 << (r as u8),
                _ => return Err(err(format!("`{p}` is not a promotion piece in `{text}`"), span)),
            }
        }
        let kind = if text.contains("e.p.") { MoveKind::EnPassant } else { MoveKind::Any };
        let to = if capture && kind == MoveKind::Any && to_bb.count() > 0 {
            to
        } else if capture {
            self.add(Filter::Squares(to_bb), span)
        } else {
            to
        };
        Ok(self.add(
            Filter::Move(Box::new(MoveFilter {
                from: Some(from),
                to: Some(to),
                promote,
                kind,
                ..MoveFilter::any(MoveSource::Next)
            })),
            span,
        ))
    }

    /// Turn the legacy shifts of a list into the CQL 3 edge-rule shifts when the list
    /// names a square on the board's edge (elsewhere the two rules agree, and the CQL 6
    /// kinds keep the IR equal to the CQL 6 equivalent's).
    pub(super) fn edge_rule(&self, kind: TransformKind, body: FilterId) -> TransformKind {
        let axes = match kind {
            TransformKind::Shift => ShiftAxes::Both,
            TransformKind::ShiftHorizontal => ShiftAxes::Horizontal,
            TransformKind::ShiftVertical => ShiftAxes::Vertical,
            other => return other,
        };
        if touches_edge(&self.ir, body) {
            TransformKind::LegacyShift(axes)
        } else {
            kind
        }
    }

    /// Lower the list-level CQL-S options recorded in `st` around its body (before
    /// transforms): accumulators and `:sumrange`.
    /// The flag says the list's own transforms were used up by a count of its own
    /// accumulator (the list is then that count test).
    pub(super) fn accumulators(
        &mut self,
        st: &ListState,
        body: FilterId,
        span: Span,
    ) -> Result<(FilterId, bool), Diagnostic> {
        if let Some((name, star)) = &st.accumulate {
            let transforms: Vec<TransformKind> = st.transforms.iter().map(|&k| self.edge_rule(k, body)).collect();
            self.accumulator_defs.push((name.clone(), body, transforms, *star));
        }
        if st.sumranges.is_empty() {
            return Ok((body, false));
        }
        let mut parts = vec![];
        let own = st.accumulate.as_ref().map(|(n, _)| n.clone());
        for (name, r, rs) in &st.sumranges {
            let Some((_, acc_body, transforms, star)) =
                self.accumulator_defs.iter().rev().find(|(n, ..)| n == name).cloned()
            else {
                return Err(err(format!("unknown accumulator `{name}`"), *rs)
                    .with_hint("`:accumulate name` in this list or an earlier one defines it"));
            };
            // The number of transformed copies of the accumulating list that match here
            // (per colour with `:accumulate*`).
            let star_colour = star && transforms.contains(&TransformKind::FlipColor);
            let kept: Vec<TransformKind> =
                transforms.iter().copied().filter(|k| !(star_colour && *k == TransformKind::FlipColor)).collect();
            let counted = match kept.split_last() {
                None => {
                    let one = self.number(1, *rs);
                    let zero = self.number(0, *rs);
                    self.add(Filter::If { cond: acc_body, then: one, otherwise: Some(zero) }, *rs)
                }
                Some((&outer, inner)) => {
                    let mut b = acc_body;
                    for &k in inner {
                        b = self.add(Filter::Transform { kind: k, range: None, count: false, body: b }, *rs);
                    }
                    self.add(Filter::Transform { kind: outer, range: None, count: true, body: b }, *rs)
                }
            };
            let mut test = self.compare(counted, *r, *rs);
            if star_colour {
                let other = self.add(
                    Filter::Transform { kind: TransformKind::ReverseColor, range: None, count: false, body: test },
                    *rs,
                );
                test = self.add(Filter::Or(vec![test, other]), *rs);
            }
            parts.push((Some(name.clone()) == own, test));
        }
        // A list that sums its own accumulator is that count test; other sums are
        // conjuncts beside the list's body.
        let own_tests: Vec<FilterId> = parts.iter().filter(|(o, _)| *o).map(|(_, t)| *t).collect();
        let other_tests: Vec<FilterId> = parts.iter().filter(|(o, _)| !*o).map(|(_, t)| *t).collect();
        let mut all = Vec::new();
        if own_tests.is_empty() {
            all.push(body);
        }
        all.extend(other_tests);
        all.extend(own_tests);
        let counted = parts.iter().any(|(o, _)| *o);
        Ok((self.and(all, span), counted))
    }
}

/// The words `:pawncount` reads as attributes, so `:pawncountdifference P passed 1` is not
/// mistaken for two designators.
fn is_pawn_attribute_word(t: &str) -> bool {
    t.split('-').all(|a| matches!(a, "passed" | "isolated" | "connected" | "doubled") || a.starts_with("consecutive("))
}

/// The bound of one side of `:goodbishop`: a range, possibly in percent.
fn share(kw: &str, c: &mut Cursor) -> Result<PawnShare, Diagnostic> {
    let (first, fs) = c.atom(kw, "a range such as `>50%`")?;
    let percent = first.ends_with('%');
    let strip = |t: &str| t.trim_end_matches('%').to_string();
    let second = c.peek().and_then(Item::atom).filter(|t| t.trim_end_matches('%').parse::<i64>().is_ok()).map(strip);
    let (r, used) = parse_range(&strip(first), second.as_deref()).map_err(|p| from_problem(p, fs))?;
    if used {
        c.take();
    }
    let (lo, hi) = r.interval();
    Ok(PawnShare { lo, hi, percent })
}

/// The clause items of `:cond`: either one list holding them, or the `(head …)` lists that
/// follow the keyword.
fn cond_items<'a>(kw: &str, c: &mut Cursor<'a>, head: &str) -> Result<Vec<&'a Item>, Diagnostic> {
    let mut out = Vec::new();
    if let Some(Item::List { items, .. }) = c.peek() {
        if c.peek().and_then(Item::head) != Some(head) {
            c.take();
            out.extend(items.iter());
            return Ok(out);
        }
    }
    while let Some(item) = c.peek() {
        if item.head() != Some(head) {
            break;
        }
        out.push(item);
        c.take();
    }
    if out.is_empty() {
        return Err(c.missing(kw, &format!("`({head} …)` clauses")));
    }
    Ok(out)
}

/// Every ordering of `items`.
fn permutations(items: &[FilterId], current: &mut Vec<FilterId>, used: &mut Vec<bool>, out: &mut Vec<Vec<FilterId>>) {
    if current.len() == items.len() {
        out.push(current.clone());
        return;
    }
    for i in 0..items.len() {
        if !used[i] {
            used[i] = true;
            current.push(items[i]);
            permutations(items, current, used, out);
            current.pop();
            used[i] = false;
        }
    }
}

/// Does the sub-tree name a square on the board's edge (a set other than the full board
/// that touches the a- or h-file or the first or last rank)?
fn touches_edge(ir: &crate::ir::Ir, root: FilterId) -> bool {
    const BORDER: u64 = 0xff81_8181_8181_81ff;
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = ir.get(id);
        let squares = match node {
            Filter::Squares(bb) => Some(*bb),
            Filter::Pieces { squares, .. } => Some(*squares),
            _ => None,
        };
        if let Some(bb) = squares {
            if bb != Bitboard::FULL && bb.0 & BORDER != 0 {
                return true;
            }
        }
        stack.extend(crate::ir::visit::children(node));
    }
    false
}
