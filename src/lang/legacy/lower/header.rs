//! Header keywords: conditions on the game's PGN tags (year, result, players, Elo, event
//! fields) and the CQL-S fields read from further tags (titles, countries, ratings, event
//! type and mode, time mode, birth and death years, `:tag`).
//!
//! Takes in: one keyword and the cursor after it. Gives out: header filters
//! (`Header`, `Contains`, `RegexMatch`, comparisons), and [`LegacyFact`] leaves where no
//! shared filter can say it.
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use crate::ir::{GameTreeFilter, HeaderFilter, LogicFilter, NumberFilter, PositionStateFilter};
use shakmaty::Color;

use super::{err, from_problem, parse_result, Cursor, Lowerer};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::legacy::time_mode;
use crate::ir::{ArithOp, Builtin, Filter, FilterId, GameResult, HeaderField, LegacyFact, TreeStep};
use crate::lang::legacy::designator::{parse_range, Range};
use crate::lang::legacy::syntax::Item;

/// A PGN tag's value as a header filter.
pub(super) fn tag(name: &str) -> Filter {
    Filter::Header(HeaderFilter::Field(HeaderField::Tag(name.to_string())))
}

/// A case-insensitive alternation of literal words, anchored on the whole value.
fn whole_words(words: &[String]) -> String {
    let alts: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    format!("(?i)^\\s*(?:{})\\s*$", alts.join("|"))
}

/// The tag prefixes a `:white…` / `:black…` / either-player keyword reads.
fn colours_of(kw: &str) -> &'static [&'static str] {
    if kw.starts_with(":white") {
        &["White"]
    } else if kw.starts_with(":black") {
        &["Black"]
    } else {
        &["White", "Black"]
    }
}

/// The colours a `:white…` / `:black…` / either-player keyword names.
fn colors_of(kw: &str) -> &'static [Color] {
    if kw.starts_with(":white") {
        &[Color::White]
    } else if kw.starts_with(":black") {
        &[Color::Black]
    } else {
        &[Color::White, Color::Black]
    }
}

impl Lowerer {
    /// `:year r`: the year of the `[Date]` tag.
    pub(super) fn year(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let y = self.add(Filter::Header(HeaderFilter::Year), span);
        Ok(self.compare(y, r, rs))
    }

    /// `:gamenumber r`: the game's place in the input.
    pub(super) fn game_number(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let g = self.add(Filter::Header(HeaderFilter::GameNumber), span);
        Ok(self.compare(g, r, rs))
    }

    /// `:result 1-0` in a match list: the game's result (flipped by `:eithercolor`).
    pub(super) fn game_result(&mut self, kw: &str, _span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (text, rspan) = c.atom(kw, "a result")?;
        self.result_filter(text, rspan)
    }

    /// `:result 1-0` in a position list: as in a match list, except in CQL 1.0 scripts.
    pub(super) fn position_result(&mut self, kw: &str, _span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (text, rspan) = c.atom(kw, "a result")?;
        if self.cql1 {
            // CQL 1.0 (Scidb's note): `:flipcolor` leaves a position list's result alone,
            // so it is read from the tag text, which colour flips do not touch.
            self.result_text(text, rspan)
        } else {
            self.result_filter(text, rspan)
        }
    }

    /// `:player s`, `:whiteplayer s`, `:blackplayer s`: the name contains s, any case.
    pub(super) fn player(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (name, nspan) = c.atom(kw, "a player name")?;
        let needle = self.add(Filter::Numbers(NumberFilter::Str(name.to_string())), nspan);
        let mut alternatives = Vec::new();
        for &color in colors_of(kw) {
            let h = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Player(color))), span);
            alternatives.push(
                self.add(Filter::Numbers(NumberFilter::Contains { haystack: h, needle, ignore_case: true }), span),
            );
        }
        Ok(self.any_of(alternatives, span))
    }

    /// `:event s`, `:site s`, `:round s`, `:eco s`, `:annotator s`, `:date s`,
    /// `:termination s`, `:variant s`: the tag contains s, ignoring case.
    pub(super) fn tag_text(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (text, tspan) = c.atom(kw, "a text")?;
        let field = match kw {
            ":event" => HeaderField::Event,
            ":site" => HeaderField::Site,
            ":eco" => HeaderField::Eco,
            ":date" => HeaderField::Date,
            ":round" => HeaderField::Tag("Round".into()),
            ":termination" => HeaderField::Tag("Termination".into()),
            ":variant" => HeaderField::Tag("Variant".into()),
            _ => HeaderField::Tag("Annotator".into()),
        };
        let h = self.add(Filter::Header(HeaderFilter::Field(field)), span);
        let needle = self.add(Filter::Numbers(NumberFilter::Str(text.to_string())), tspan);
        Ok(self.add(Filter::Numbers(NumberFilter::Contains { haystack: h, needle, ignore_case: true }), span))
    }

    /// `:plycount r`: the real number of plies of the main line (the last main-line
    /// position's distance from the start), not the optional `[PlyCount]` tag.
    pub(super) fn ply_count(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let last = self.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Last)), span);
        let ply = self.add(Filter::PositionState(PositionStateFilter::Ply), span);
        let count = self.add(Filter::GameTree(GameTreeFilter::AtPosition { at: last, body: ply }), span);
        Ok(self.compare(count, r, rs))
    }

    /// The `[Result]` tag's text is one of the results of a comma list (not flipped by
    /// `:flipcolor`).
    fn result_text(&mut self, text: &str, span: Span) -> Result<FilterId, Diagnostic> {
        let mut words = Vec::new();
        for part in text.split(',') {
            let r = parse_result(part).ok_or_else(|| {
                err(format!("`{part}` is not a game result"), span).with_hint("write `1-0`, `0-1`, `1/2-1/2` or `1/2`")
            })?;
            words.push(match r {
                GameResult::WhiteWins => "1-0",
                GameResult::BlackWins => "0-1",
                GameResult::Draw => "1/2-1/2",
            });
        }
        let h = self.add(Filter::Header(HeaderFilter::Field(HeaderField::ResultText)), span);
        let pattern = format!("^\\s*(?:{})\\s*$", words.join("|"));
        Ok(self.add(Filter::Numbers(NumberFilter::RegexMatch { subject: h, pattern }), span))
    }

    /// The game's result is one of a comma list.
    fn result_filter(&mut self, text: &str, span: Span) -> Result<FilterId, Diagnostic> {
        let mut alternatives = Vec::new();
        for part in text.split(',') {
            let r = parse_result(part).ok_or_else(|| {
                err(format!("`{part}` is not a game result"), span).with_hint("write `1-0`, `0-1`, `1/2-1/2` or `1/2`")
            })?;
            alternatives.push(self.add(Filter::Header(HeaderFilter::Result(r)), span));
        }
        Ok(self.any_of(alternatives, span))
    }

    /// `:elo r` (either player; `0` = a player without Elo), `:whiteelo r`, `:blackelo r`.
    pub(super) fn elo(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let mut alternatives = Vec::new();
        for &color in colors_of(&kw.replace("elo", "")) {
            let h = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Elo(color))), span);
            let f = if r == Range::Between(0, 0) && kw == ":elo" {
                self.add(Filter::Logic(LogicFilter::Not(h)), span)
            } else {
                self.compare(h, r, rs)
            };
            alternatives.push(f);
        }
        Ok(self.any_of(alternatives, span))
    }

    /// One filter for a list of alternatives: itself when there is one, else `Or`.
    pub(super) fn any_of(&mut self, mut alternatives: Vec<FilterId>, span: Span) -> FilterId {
        if alternatives.len() == 1 {
            alternatives.remove(0)
        } else {
            self.add(Filter::Logic(LogicFilter::Or(alternatives)), span)
        }
    }

    /// The tag is missing, empty or a placeholder (`?`, `-`).
    fn tag_absent(&mut self, name: &str, span: Span) -> FilterId {
        let h = self.add(tag(name), span);
        let filled =
            self.add(Filter::Numbers(NumberFilter::RegexMatch { subject: h, pattern: r"[^\s?\-]".to_string() }), span);
        self.add(Filter::Logic(LogicFilter::Not(filled)), span)
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
            alternatives.push(
                self.add(Filter::Numbers(NumberFilter::RegexMatch { subject: h, pattern: whole_words(&words) }), span),
            );
        }
        if want_absent {
            alternatives.push(self.tag_absent(name, span));
        }
        match alternatives.len() {
            0 => self.add(Filter::False, span),
            1 => alternatives[0],
            _ => self.add(Filter::Logic(LogicFilter::Or(alternatives)), span),
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
        let mut alternatives = Vec::new();
        for c in colours_of(kw) {
            alternatives.push(self.tag_in(&format!("{c}{suffix}"), values, unknown, aliases, span));
        }
        self.any_of(alternatives, span)
    }

    /// A player's rating in a rating system: `ELO` reads `WhiteElo`, any other system
    /// `S` reads the tag `WhiteS` (`WhiteDWZ`, `WhiteECF`, `WhiteUSCF`, `WhiteICCF` …).
    fn rating(&mut self, system: &str, color: Color, span: Span) -> FilterId {
        if system.eq_ignore_ascii_case("elo") {
            return self.add(Filter::Header(HeaderFilter::Field(HeaderField::Elo(color))), span);
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
        self.add(Filter::Numbers(NumberFilter::Call(Builtin::Int, vec![h])), span)
    }

    /// A rating compared with a range, or (for `-`/`–`) the rating is missing.
    fn rating_test(&mut self, value: FilterId, range: Option<(Range, Span)>, span: Span) -> FilterId {
        match range {
            Some((r, rs)) => self.compare(value, r, rs),
            None => self.add(Filter::Logic(LogicFilter::Not(value)), span),
        }
    }

    /// Read a comma list parameter.
    pub(super) fn comma_list<'a>(
        &mut self,
        kw: &str,
        c: &mut Cursor<'a>,
        what: &str,
    ) -> Result<(Vec<&'a str>, Span), Diagnostic> {
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

    /// `:eventdate r`: the year of the `[EventDate]` tag.
    pub(super) fn event_date(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let h = self.add(tag("EventDate"), span);
        let zero = self.number(0, span);
        let four = self.number(4, span);
        let year = self.add(Filter::Numbers(NumberFilter::Call(Builtin::Substring, vec![h, zero, four])), span);
        let n = self.add(Filter::Numbers(NumberFilter::Call(Builtin::Int, vec![year])), span);
        Ok(self.compare(n, r, rs))
    }

    /// `:eventtype list`: the `[EventType]` tag is one of the types.
    pub(super) fn event_type(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (vals, _) = self.comma_list(kw, c, "event types such as `tourn,swiss`")?;
        let aliases = |v: &str| match v.to_ascii_lowercase().as_str() {
            "knockout" | "k.o." | "ko" => vec!["k.o.".into(), "knockout".into(), "ko".into()],
            "game" | "casual" => vec!["game".into(), "casual".into()],
            "tourn" | "tournament" => vec!["tourn".into(), "tournament".into()],
            _ => vec![v.to_string()],
        };
        Ok(self.tag_in("EventType", &vals, &["unknown"], &aliases, span))
    }

    /// `:eventmode list`: the `[Mode]` tag is one of the modes.
    pub(super) fn event_mode(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (vals, _) = self.comma_list(kw, c, "event modes such as `otb,corr`")?;
        let aliases = |v: &str| match v.to_ascii_lowercase().as_str() {
            "otb" => vec!["otb".into(), "over the board".into()],
            "corr" => vec!["pm".into(), "corr".into()],
            "email" => vec!["em".into(), "email".into()],
            "internet" => vec!["ics".into(), "internet".into()],
            "tele" => vec!["tc".into(), "tele".into()],
            _ => vec![v.to_string()],
        };
        Ok(self.tag_in("Mode", &vals, &["unknown"], &aliases, span))
    }

    /// `:eventcountry list`: the `[EventCountry]` tag is one of the codes.
    pub(super) fn event_country(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (vals, _) = self.comma_list(kw, c, "country codes")?;
        let same = |v: &str| vec![v.to_string()];
        Ok(self.tag_in("EventCountry", &vals, &["UNK", "xx", "0"], &same, span))
    }

    /// `:eventcategory r`: the event's category, in digits or Roman numerals.
    pub(super) fn event_category(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (text, ts) = c.atom(kw, "a range")?;
        let (r, rs) = roman_range(text, ts, c)?;
        let v = self.add(Filter::LegacyFact(LegacyFact::EventCategory), span);
        Ok(self.compare(v, r, rs))
    }

    /// `:timemode list`: the game's time mode (from `[TimeMode]` or `[TimeControl]`).
    pub(super) fn time_mode(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
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
        Ok(self.add(Filter::LegacyFact(LegacyFact::TimeMode(mask)), span))
    }

    /// `:subround r`: the `S` of a `[Round "R.S"]` tag.
    pub(super) fn sub_round(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let v = self.add(Filter::LegacyFact(LegacyFact::Round { sub: true }), span);
        Ok(self.compare(v, r, rs))
    }

    /// `:title list` and its one-colour forms: the player's title tag.
    pub(super) fn title(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (vals, _) = self.comma_list(kw, c, "titles such as `GM,IM`")?;
        let same = |v: &str| vec![v.to_string()];
        Ok(self.player_tag(kw, "Title", &vals, &["None"], &same, span))
    }

    /// `:country list` and its one-colour forms: the player's country tag.
    pub(super) fn country(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (vals, _) = self.comma_list(kw, c, "country codes such as `GER`")?;
        let same = |v: &str| vec![v.to_string()];
        Ok(self.player_tag(kw, "Country", &vals, &["UNK", "xx", "0"], &same, span))
    }

    /// `:gender g` and its one-colour forms: the player's `Sex` tag.
    pub(super) fn gender(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (vals, _) = self.comma_list(kw, c, "a gender: f, w, m or x")?;
        let aliases = |v: &str| match v.to_ascii_lowercase().as_str() {
            "f" | "w" => vec!["f".into(), "w".into(), "female".into(), "woman".into()],
            "m" => vec!["m".into(), "male".into(), "man".into()],
            _ => vec![v.to_string()],
        };
        Ok(self.player_tag(kw, "Sex", &vals, &["x"], &aliases, span))
    }

    /// `:iscomputer` and its one-colour forms: the player's `Type` tag names a program.
    pub(super) fn is_computer(&mut self, kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let computer = |_: &str| vec!["program".to_string(), "computer".to_string(), "engine".to_string()];
        Ok(self.player_tag(kw.replace("iscomputer", "").as_str(), "Type", &["program"], &[], &computer, span))
    }

    /// `:ishuman` and its one-colour forms: the player's `Type` tag says human.
    pub(super) fn is_human(&mut self, kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let same = |v: &str| vec![v.to_string()];
        Ok(self.player_tag(kw.replace("ishuman", "").as_str(), "Type", &["human"], &[], &same, span))
    }

    /// `:rating SYS r` and its one-colour forms.
    pub(super) fn rating_keyword(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (system, _) = c.atom(kw, "a rating system such as `ELO`")?;
        let range = self.range_or_absent(kw, c)?;
        let mut alternatives = Vec::new();
        for &color in colors_of(&kw.replace("rating", "")) {
            let v = self.rating(system, color, span);
            alternatives.push(self.rating_test(v, range, span));
        }
        Ok(self.any_of(alternatives, span))
    }

    /// `:averagerating SYS r` (one rating is the average) and `:averagerating*` (both
    /// ratings needed).
    pub(super) fn average_rating(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (system, _) = c.atom(kw, "a rating system such as `ELO`")?;
        let range = self.range_or_absent(kw, c)?;
        let w = self.rating(system, Color::White, span);
        let b = self.rating(system, Color::Black, span);
        let Some((r, rs)) = range else {
            // No average: neither player has a rating.
            let nw = self.add(Filter::Logic(LogicFilter::Not(w)), span);
            let nb = self.add(Filter::Logic(LogicFilter::Not(b)), span);
            return Ok(self.add(Filter::Logic(LogicFilter::And(vec![nw, nb])), span));
        };
        let sum = self.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Add, w, b)), span);
        let two = self.number(2, span);
        let avg = self.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Div, sum, two)), span);
        let both = self.compare(avg, r, rs);
        if kw == ":averagerating*" {
            return Ok(both);
        }
        // With one rating, that rating is the average.
        let nb = self.add(Filter::Logic(LogicFilter::Not(b)), span);
        let only_w = self.compare(w, r, rs);
        let white_alone = self.add(Filter::Logic(LogicFilter::And(vec![nb, only_w])), span);
        let nw = self.add(Filter::Logic(LogicFilter::Not(w)), span);
        let only_b = self.compare(b, r, rs);
        let black_alone = self.add(Filter::Logic(LogicFilter::And(vec![nw, only_b])), span);
        Ok(self.add(Filter::Logic(LogicFilter::Or(vec![both, white_alone, black_alone])), span))
    }

    /// `:ratingdifference SYS r`: the absolute difference of the two ratings.
    pub(super) fn rating_difference(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (system, _) = c.atom(kw, "a rating system such as `ELO`")?;
        let (r, rs) = c.range(kw)?;
        let w = self.rating(system, Color::White, span);
        let b = self.rating(system, Color::Black, span);
        let d = self.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Sub, w, b)), span);
        let abs = self.add(Filter::Numbers(NumberFilter::Call(Builtin::Abs, vec![d])), span);
        Ok(self.compare(abs, r, rs))
    }

    /// `:tag Name [text]`: the tag exists (and contains the text); `:tag * [text]`: some
    /// tag, whatever its name, does.
    pub(super) fn tag_keyword(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (name, ns) = c.atom(kw, "a tag name")?;
        let value = match c.peek() {
            Some(Item::Atom { text, quoted: true, .. }) => Some(text.as_str()),
            Some(Item::Atom { text, quoted: false, .. })
                if !text.starts_with(':')
                    && !text.starts_with('!')
                    && !crate::lang::legacy::designator::starts_range(text) =>
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
            return Ok(self.add(Filter::LegacyFact(fact), span));
        }
        let h = self.add(tag(name), ns);
        Ok(match value {
            None => h,
            Some(v) => {
                let vs = c.take().map(Item::span).unwrap_or(ns);
                let needle = self.add(Filter::Numbers(NumberFilter::Str(v.to_string())), vs);
                self.add(Filter::Numbers(NumberFilter::Contains { haystack: h, needle, ignore_case: true }), span)
            }
        })
    }

    /// `:birthyear r` and its one-colour forms.
    pub(super) fn birth_year(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        Ok(self.player_year(kw, &["BirthDate", "BirthYear"], r, rs, span))
    }

    /// `:deathyear r` and its one-colour forms.
    pub(super) fn death_year(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        Ok(self.player_year(kw, &["DeathDate", "DeathYear"], r, rs, span))
    }

    /// A player's birth or death year: the year of the first of the tags `White<suffix>`
    /// (`Black<suffix>`) that is present (a PGN date `1950.03.09`, `1950.??.??` or a bare
    /// year), compared with the range; a game without such a tag does not match.
    fn player_year(&mut self, kw: &str, suffixes: &[&str], r: Range, rs: Span, span: Span) -> FilterId {
        let mut alternatives = Vec::new();
        for colour in colours_of(kw) {
            // `BirthDate` wins over `BirthYear` when both are there.
            let mut chosen: Option<FilterId> = None;
            for suffix in suffixes.iter().rev() {
                let h = self.add(tag(&format!("{colour}{suffix}")), span);
                let zero = self.number(0, span);
                let four = self.number(4, span);
                let text = self.add(Filter::Numbers(NumberFilter::Call(Builtin::Substring, vec![h, zero, four])), span);
                let year = self.add(Filter::Numbers(NumberFilter::Call(Builtin::Int, vec![text])), span);
                let test = self.compare(year, r, rs);
                chosen = Some(match chosen {
                    None => test,
                    Some(later) => {
                        let present = self.add(tag(&format!("{colour}{suffix}")), span);
                        self.add(
                            Filter::Logic(LogicFilter::If { cond: present, then: test, otherwise: Some(later) }),
                            span,
                        )
                    }
                });
            }
            if let Some(f) = chosen {
                alternatives.push(f);
            }
        }
        match alternatives.len() {
            1 => alternatives[0],
            _ => self.add(Filter::Logic(LogicFilter::Or(alternatives)), span),
        }
    }
}

/// A range whose numbers may be Roman numerals (`:eventcategory >=XX`).
fn roman_range(text: &str, span: Span, c: &mut Cursor) -> Result<(Range, Span), Diagnostic> {
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
    Ok((r, span))
}
