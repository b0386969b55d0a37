//! The game's PGN headers: tags, result, year, game number.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/header.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;
use std::borrow::Cow;

impl<'a> Ctx<'a> {
    /// A fact from the game's headers: a tag, the result, the year, the game number.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_header(&mut self, filter: &'a HeaderFilter, at: Loc) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            HeaderFilter::Field(field) => self.header(field),
            HeaderFilter::Result(r) => found(game_result(self.game) == Some(*r)),
            HeaderFilter::Year => {
                let raw = self.game.tag("Date").map(|t| t.text());
                let (year, _, _) = pgn_date(raw.as_deref().unwrap_or(""));
                (year > 0).then_some(Value::Number(i64::from(year)))
            }
            HeaderFilter::GameNumber => Some(Value::Number(self.game.number as i64)),
            HeaderFilter::GameTextContains(text) => found(crate::eval::hhdb::game_text_contains(self.game, text)),
            HeaderFilter::HhdbAward { kind, special, max } => {
                crate::eval::hhdb::award(self.game, *kind, *special, *max)
            }
            HeaderFilter::CurrentFen => match at {
                Loc::Node(n) => Some(Value::Str(crate::eval::hhdb::current_fen(self.game, n))),
                _ => None,
            },
        })
    }
}

/// The text of a tag as CQL 6.2 reads it (`MarkBoard::getPlayer`, `getEvent`, `getSite`,
/// `getDate`, `getEventDate`, `getECO`, which read the values the PGN reader stored):
///
/// - `White`, `Black`: the name as CQL's PGN reader standardises it
///   ([`standard_player_name`]: `Anand,V` and `Anand, V.` are `Anand, V`), then without a
///   trailing rating ` (2850)`; `?` when the tag is missing, nothing when the name is empty;
/// - `Event`, `Site`: as written, `?` when missing, nothing when empty;
/// - `Date`, `EventDate`: always a date `yyyy.mm.dd`, `?` for each unknown digit
///   ([`pgn_date`]); a missing or unreadable date is `????.??.??`;
/// - `ECO`: a code `A00`–`E99` with an optional extension (`B12a`, `C41b3`), read from
///   its start as far as it is one ([`eco_text`]); nothing when it does not start with one;
/// - any other tag: as written, nothing when missing.
pub(super) fn tag_text<'g>(game: &'g crate::pgn::Game, name: &str) -> Option<Cow<'g, str>> {
    let raw = game.tag(name).map(|t| t.text());
    match name {
        "White" | "Black" => {
            let written = raw.unwrap_or(Cow::Borrowed("?"));
            let player = match standard_player_name(&written) {
                Cow::Borrowed(_) => match written {
                    Cow::Borrowed(text) => Cow::Borrowed(without_rating(text).0),
                    Cow::Owned(text) => Cow::Owned(without_rating(&text).0.to_string()),
                },
                Cow::Owned(text) => Cow::Owned(without_rating(&text).0.to_string()),
            };
            (!player.is_empty()).then_some(player)
        }
        "Event" | "Site" => {
            let written = raw.unwrap_or(Cow::Borrowed("?"));
            (!written.is_empty()).then_some(written)
        }
        "Date" | "EventDate" => Some(Cow::Owned(date_text(pgn_date(raw.as_deref().unwrap_or(""))))),
        "ECO" => eco_text(raw.as_deref()?).map(Cow::Owned),
        _ => raw,
    }
}

/// A player's rating as CQL 6.2 reads it: the number a player's name ends with as in
/// `Carlsen, M (2850)`, else the start of the `WhiteElo`/`BlackElo` tag (`2700`, `2700?`);
/// none when neither gives a rating above 0. Ratings above 4000 count as 4000.
pub(super) fn elo(game: &crate::pgn::Game, white: bool) -> Option<i64> {
    let (player, elo_tag) = if white { ("White", "WhiteElo") } else { ("Black", "BlackElo") };
    let from_name = game.tag(player).and_then(|t| without_rating(&standard_player_name(&t.text())).1);
    let rating = from_name.or_else(|| game.tag(elo_tag).map(|t| leading_number(&t.text())))?;
    (rating > 0).then_some(rating.min(4000) as i64)
}

/// A player's name as CQL 6.2's PGN reader stores it (`standardPlayerName` and
/// `standardDutchName`, orig/pgnparse.cpp), which is what `player` reads: blanks at the
/// start are dropped; the blanks after a comma become exactly one (`Praggnanandhaa,R` is
/// `Praggnanandhaa, R`; a comma at the end gets none); blanks, tabs and dots at the end are
/// dropped; a name starting `van ` gets a capital `V`, and one starting `Van Der `,
/// `Van Den ` or `Van De ` a small `d`. Other blanks inside the name stay as written.
/// Borrowed when the name is already in that form.
pub(super) fn standard_player_name(name: &str) -> Cow<'_, str> {
    let mut out = String::with_capacity(name.len() + 2);
    let mut after_comma = false;
    let mut at_start = true;
    for c in name.chars() {
        match c {
            ',' => {
                out.push(',');
                after_comma = true;
                at_start = false;
            }
            ' ' => {
                if !after_comma && !at_start {
                    out.push(' ');
                }
            }
            _ => {
                at_start = false;
                if after_comma {
                    out.push(' ');
                }
                out.push(c);
                after_comma = false;
            }
        }
    }
    let kept = out.trim_end_matches(['.', ' ', '\t']).len();
    out.truncate(kept);
    if out.starts_with("van ") {
        out.replace_range(0..1, "V");
    }
    if ["Van Der ", "Van Den ", "Van De "].iter().any(|p| out.starts_with(p)) {
        out.replace_range(4..5, "d");
    }
    if out == name {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(out)
    }
}

/// A player name and the rating written after it as ` (dddd)` (exactly four digits in
/// brackets after a blank, the name being at least one character).
fn without_rating(name: &str) -> (&str, Option<u64>) {
    let b = name.as_bytes();
    let n = b.len();
    if n > 7
        && b[n - 1] == b')'
        && b[n - 6] == b'('
        && b[n - 7] == b' '
        && b[n - 5..n - 1].iter().all(u8::is_ascii_digit)
    {
        (&name[..n - 7], Some(leading_number(&name[n - 5..n - 1])))
    } else {
        (name, None)
    }
}

/// The number at the start of `text` as C's `strtoul` reads it: blanks skipped, an optional
/// sign, then digits; 0 when there are none; a minus sign before digits gives a number too
/// large to be a date part or a rating.
fn leading_number(text: &str) -> u64 {
    let t = text.trim_start();
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = t.bytes().take_while(u8::is_ascii_digit);
    let value = digits.fold(0u64, |v, d| v.saturating_mul(10).saturating_add(u64::from(d - b'0')));
    if negative && value > 0 {
        u64::MAX
    } else {
        value
    }
}

/// A PGN date read as CQL 6.2 reads it (`date_EncodeFromString`): year, month and day,
/// each the number at the start of its dot-separated part, 0 for unknown. A year above
/// 2047 is unknown; a month above 12 leaves month and day unknown, a day above 31 the day.
pub(super) fn pgn_date(text: &str) -> (u32, u32, u32) {
    let mut parts = text.splitn(3, '.');
    let mut next = || parts.next().map_or(0, leading_number);
    let year = next();
    let year = if year > 2047 { 0 } else { year as u32 };
    let month = next();
    if month > 12 {
        return (year, 0, 0);
    }
    let day = next();
    if day > 31 {
        return (year, month as u32, 0);
    }
    (year, month as u32, day as u32)
}

/// A date as `yyyy.mm.dd`, `????`/`??` for an unknown part.
fn date_text((year, month, day): (u32, u32, u32)) -> String {
    let part = |v: u32, width: usize| if v == 0 { "?".repeat(width) } else { format!("{v:0width$}") };
    format!("{}.{}.{}", part(year, 4), part(month, 2), part(day, 2))
}

/// An ECO code as CQL 6.2 reads it (`eco_FromString`, `eco_ToString`): a letter `A`–`E`
/// (either case), up to two digits (missing ones read as 0), then an optional extension, a
/// lower-case letter and a digit 1–4; anything after that is ignored. Nothing when the text
/// does not start with a letter `A`–`E` or a digit place holds something else.
pub(super) fn eco_text(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let letter = b.first()?.to_ascii_uppercase();
    if !(b'A'..=b'E').contains(&letter) {
        return None;
    }
    let mut code = String::with_capacity(5);
    code.push(char::from(letter));
    for k in 1..3 {
        match b.get(k) {
            None => {
                code.push_str(&"0".repeat(3 - k));
                return Some(code);
            }
            Some(d) if d.is_ascii_digit() => code.push(char::from(*d)),
            Some(_) => return None,
        }
    }
    if let Some(&x) = b.get(3).filter(|x| x.is_ascii_lowercase()) {
        code.push(char::from(x));
        if let Some(&d) = b.get(4).filter(|d| (b'1'..=b'4').contains(*d)) {
            code.push(char::from(d));
        }
    }
    Some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Each expected value is what CQL 6.2 (build 9.493) wrote for the same tag value.
    #[test]
    fn dates_read_as_cql_reads_them() {
        let text = |t: &str| date_text(pgn_date(t));
        assert_eq!(text("2020.5.4"), "2020.05.04");
        assert_eq!(text("2020-05-04"), "2020.??.??");
        assert_eq!(text("20"), "0020.??.??");
        assert_eq!(text("3000.01.01"), "????.01.01");
        assert_eq!(text("2020.13.01"), "2020.??.??");
        assert_eq!(text("2020.01.32"), "2020.01.??");
        assert_eq!(text("1999.??.05"), "1999.??.05");
        assert_eq!(text("0999.1.1"), "0999.01.01");
        assert_eq!(text(""), "????.??.??");
    }

    #[test]
    fn eco_codes_read_as_cql_reads_them() {
        assert_eq!(eco_text("b12").as_deref(), Some("B12"));
        assert_eq!(eco_text("B12a").as_deref(), Some("B12a"));
        assert_eq!(eco_text("C41b3x").as_deref(), Some("C41b3"));
        assert_eq!(eco_text("E100").as_deref(), Some("E10"));
        assert_eq!(eco_text("A0").as_deref(), Some("A00"));
        assert_eq!(eco_text("A").as_deref(), Some("A00"));
        assert_eq!(eco_text(" B12"), None);
        assert_eq!(eco_text("F00"), None);
        assert_eq!(eco_text("zz"), None);
        assert_eq!(eco_text(""), None);
    }

    #[test]
    fn a_rating_after_a_name_is_split_off() {
        assert_eq!(without_rating("Carlsen, M (2850)"), ("Carlsen, M", Some(2850)));
        assert_eq!(without_rating("Carlsen (285)"), ("Carlsen (285)", None));
        assert_eq!(without_rating("(2850)"), ("(2850)", None));
        assert_eq!(leading_number(" 2700?"), 2700);
        assert_eq!(leading_number("-5"), u64::MAX);
        assert_eq!(leading_number("x"), 0);
    }

    #[test]
    fn player_names_are_standardised_as_cql_reads_them() {
        assert_eq!(standard_player_name("Praggnanandhaa,R"), "Praggnanandhaa, R");
        assert_eq!(standard_player_name("Anand,   V."), "Anand, V");
        assert_eq!(standard_player_name("  Carlsen, Magnus  "), "Carlsen, Magnus");
        assert_eq!(standard_player_name("van der Wiel,J"), "Van der Wiel, J");
        assert_eq!(standard_player_name("Van Den Doel, E"), "Van den Doel, E");
        assert_eq!(standard_player_name("Kasparov,"), "Kasparov,");
        assert_eq!(standard_player_name("A  B"), "A  B");
        assert!(matches!(standard_player_name("Carlsen, Magnus"), Cow::Borrowed(_)));
        // The rating is taken off after the name is standardised.
        let mut game = crate::pgn::Game::default();
        game.tags.push(crate::pgn::Tag { name: "White".into(), value: b"Carlsen,M (2850)".to_vec() });
        assert_eq!(tag_text(&game, "White").as_deref(), Some("Carlsen, M"));
        assert_eq!(elo(&game, true), Some(2850));
    }
}
