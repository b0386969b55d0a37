//! YACPDB metadata predicates over PGN tags and the diagram (`Author`, `Stip`, `Matrix`, …).
//!
//! Takes in: a validated predicate, the game's tags and number, and the diagram units.
//! Gives out: true/false (the caller turns it into a 0/1 count).
//! Must never: look at the solution tree, or fail on odd tag values (they just don't match).

use std::collections::HashMap;

use regex::Regex;
use shakmaty::{Color, Role, Square};

use super::atoms::{color_letter, parse_piece, popeye_code};
use crate::ir::YacpdbPredicate;
use crate::pgn::Game;

/// The play type of a stipulation, as far as Zilahi needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Play {
    /// Help play (`h#2`, `ser-h#5`, `reci-h#3`).
    Help,
    /// Self play (`s#3`).
    Self_,
    /// Reflex play (`r#2`).
    Reflex,
    /// Help-self play (`hs#2`).
    HelpSelf,
    /// Direct play, studies, games, unknown or missing stipulations.
    Other,
}

/// The value of the first of these tags that is present and neither empty nor `?`.
fn first_tag(game: &Game, names: &[&str]) -> Option<String> {
    names.iter().find_map(|name| {
        let value = game.tag(name)?.text().trim().to_string();
        (!value.is_empty() && value != "?").then_some(value)
    })
}

/// The stipulation: `[Stipulation]`, else the sign of an HHdb GBR code in `[Black]`.
pub(crate) fn stipulation(game: &Game) -> Option<String> {
    if let Some(tag) = game.tag("Stipulation") {
        let value = tag.text().trim().to_string();
        if !value.is_empty() {
            return Some(value);
        }
    }
    let black = game.tag("Black")?.text().into_owned();
    let bytes = black.as_bytes();
    bytes.windows(3).find_map(|w| {
        (w[0] == b'(' && (w[1] == b'+' || w[1] == b'=') && w[2].is_ascii_digit()).then(|| (w[1] as char).to_string())
    })
}

/// Read the play type from a Popeye-style stipulation.
pub(crate) fn stipulation_play(stip: &str) -> Play {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"^(?:exact-)?(?:reci-)?(?:[0-9]+->)?(?:ser-|pser-|phser-)?(?P<play>semi-r|hs|hr|h|s|r)?(?:##!|##|#=|#|==|=|~|\+|00|%|ct|ep|x|!=|<>|c81|dia|atob|z[a-h][1-8]|k[a-h][1-8]|a)(?:[0-9]+(?:\.[05])?)$",
        )
        .ok()
    });
    let Some(caps) = re.as_ref().and_then(|re| re.captures(stip.trim())) else { return Play::Other };
    match caps.name("play").map(|m| m.as_str()) {
        Some("h") => Play::Help,
        Some("s") => Play::Self_,
        Some("r") => Play::Reflex,
        Some("hs") => Play::HelpSelf,
        _ => Play::Other,
    }
}

/// Does the metadata predicate hold for this game?
/// `stip` is the predicate's compiled pattern when it is `Stip(pattern)` ([`stip_regex`]).
pub(crate) fn holds(
    pred: &YacpdbPredicate,
    stip: Option<&Regex>,
    game: &Game,
    diagram: &[(Color, Role, Square)],
) -> bool {
    let arg = |i: usize| pred.args.get(i).and_then(|a| a.as_deref());
    match pred.name.as_str() {
        "Author" => matches_any(&authors(game), arg(0)),
        "Source" => matches_any(&sources(game), arg(0)),
        "Keyword" => matches_any(&keywords(game), arg(0)),
        "Entity" => match arg(0) {
            Some("author") => matches_any(&authors(game), arg(1)),
            Some("source") => matches_any(&sources(game), arg(1)),
            Some("keyword") => matches_any(&keywords(game), arg(1)),
            Some(_) => false,
            None => [authors(game), sources(game), keywords(game)].iter().any(|names| matches_any(names, arg(1))),
        },
        "Stip" => match (stipulation(game), arg(0)) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(text), Some(_)) => stip.is_some_and(|re| re.is_match(&text)),
        },
        "PublishedAfter" => match game_date(game) {
            None => false,
            Some(date) => arg(0).is_none_or(|a| parse_query_date(a).is_some_and(|bound| date > bound)),
        },
        "Id" => arg(0).is_none_or(|a| a.parse::<u64>().is_ok_and(|n| n == game.number)),
        "With" => arg(0).is_none_or(|list| with(list, diagram)),
        "Matrix" => arg(0).is_none_or(|list| matrix(list, diagram, true, true, Symmetries::All)),
        "MatrixExtended" => {
            let flag = |i: usize| arg(i).is_none_or(|a| a == "true");
            let symmetries = match arg(3) {
                Some("None") => Symmetries::None,
                Some("Mirror") => Symmetries::Mirror,
                _ => Symmetries::All,
            };
            arg(0).is_none_or(|list| matrix(list, diagram, flag(1), flag(2), symmetries))
        }
        // Orthodox PGN has no fairy pieces, conditions, options, reprints, source ids,
        // issue ids or YAML text; the helpmate analyser's themes are never produced.
        _ => false,
    }
}

fn matches_any(names: &[String], pattern: Option<&str>) -> bool {
    match pattern {
        None => !names.is_empty(),
        Some(p) => names.iter().any(|n| like(n, p)),
    }
}

/// Author names: first of `[Composer]`, `[Author]`, `[White]`; split on `;`, and HHdb
/// `Surname=Initials` runs split into one name each.
fn authors(game: &Game) -> Vec<String> {
    let Some(value) = first_tag(game, &["Composer", "Author", "White"]) else { return Vec::new() };
    let mut names = Vec::new();
    for part in value.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        if !part.contains('=') {
            names.push(part.to_string());
            continue;
        }
        let mut current: Vec<&str> = Vec::new();
        for word in part.split_whitespace() {
            current.push(word);
            if word.contains('=') {
                names.push(current.join(" "));
                current.clear();
            }
        }
        if !current.is_empty() {
            names.push(current.join(" "));
        }
    }
    names
}

fn sources(game: &Game) -> Vec<String> {
    first_tag(game, &["Source", "Event"]).into_iter().collect()
}

fn keywords(game: &Game) -> Vec<String> {
    first_tag(game, &["Keywords", "Keyword"])
        .map(|v| v.split([';', ',']).map(str::trim).filter(|k| !k.is_empty()).map(String::from).collect())
        .unwrap_or_default()
}

/// SQL `LIKE`, case-insensitive, whole string: `%` any run, `_` one character, `\` escapes.
pub(crate) fn like(text: &str, pattern: &str) -> bool {
    let text: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
    let mut tokens: Vec<(char, bool)> = Vec::new(); // (char, is_literal)
    let mut chars = pattern.chars().flat_map(char::to_lowercase);
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                tokens.push((n, true));
            }
        } else {
            tokens.push((c, false));
        }
    }
    // Iterative wildcard matching with backtracking to the last `%`.
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < tokens.len() && tokens[p] == ('%', false) {
            star = Some((p, t));
            p += 1;
        } else if p < tokens.len() && (tokens[p] == ('_', false) || tokens[p].0 == text[t]) {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    tokens[p..].iter().all(|&tok| tok == ('%', false))
}

/// The compiled pattern of a `Stip(pattern)` predicate, `^pattern$` (as
/// `re.search('^' + pattern + '$', stipulation)`, case-sensitive): compiled once, when
/// the query is ([`crate::eval::Query::new`]). `None` for another predicate, a `Stip`
/// without a pattern, or a pattern that does not compile (which matches nothing).
pub(crate) fn stip_regex(pred: &YacpdbPredicate) -> Option<Regex> {
    if pred.name != "Stip" {
        return None;
    }
    let pattern = pred.args.first().and_then(|a| a.as_deref())?;
    crate::ir::compile_pattern(&format!("^{pattern}$")).ok()
}

/// `[Date]` as (year, month, day), unknown month/day as 1; `None` if the year is unknown.
fn game_date(game: &Game) -> Option<(u32, u32, u32)> {
    let text = game.tag("Date")?.text().into_owned();
    let mut parts = text.trim().split('.');
    let year: u32 = parts.next()?.parse().ok()?;
    let mut next = || parts.next().and_then(|p| p.parse::<u32>().ok()).filter(|&n| n > 0).unwrap_or(1);
    let month = next();
    let day = next();
    Some((year, month, day))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// The bound a game date must exceed: `YYYY` → the last day of the previous year,
/// `YYYY-MM` → the last day of the previous month, `YYYY-MM-DD` as is.
fn parse_query_date(text: &str) -> Option<(u32, u32, u32)> {
    let parts: Vec<u32> = text.split('-').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    match parts.as_slice() {
        [y] => Some((y.checked_sub(1)?, 12, 31)),
        [y, 1] => Some((y.checked_sub(1)?, 12, 31)),
        [y, m] => Some((*y, m - 1, days_in_month(*y, m - 1))),
        [y, m, d] => Some((*y, *m, *d)),
        _ => None,
    }
}

/// The diagram has at least as many units of each listed code as the list names.
fn with(list: &str, diagram: &[(Color, Role, Square)]) -> bool {
    let mut wanted: HashMap<String, usize> = HashMap::new();
    for code in list.split_whitespace() {
        *wanted.entry(code.to_uppercase()).or_insert(0) += 1;
    }
    wanted.iter().all(|(code, &n)| {
        let have = diagram
            .iter()
            .filter(|(c, r, _)| format!("{}{}", color_letter(*c), popeye_code(*r)).to_uppercase() == *code)
            .count();
        have >= n
    })
}

/// Which symmetries a matrix search may apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Symmetries {
    /// The 8 rotations and reflections.
    All,
    /// Identity and the left-right mirror.
    Mirror,
    /// Identity only.
    None,
}

/// One matrix spec (`wKa1`): unit type (None for fairy units) and square.
fn matrix_spec(spec: &str) -> Option<(Option<(Color, Role)>, i32, i32)> {
    let spec = spec.to_ascii_lowercase();
    if spec.len() < 4 || !spec.is_ascii() {
        return None;
    }
    let (piece, square) = spec.split_at(spec.len() - 2);
    let sq: Square = square.parse().ok()?;
    let piece = piece.to_ascii_uppercase();
    let unit = parse_piece(&format!("{}{}", piece[..1].to_ascii_lowercase(), &piece[1..]));
    Some((unit, sq.file() as i32, sq.rank() as i32))
}

/// Can the listed units be placed on the diagram by a symmetry and a translation?
fn matrix(list: &str, diagram: &[(Color, Role, Square)], xshift: bool, yshift: bool, symmetries: Symmetries) -> bool {
    let Some(specs) = list.split_whitespace().map(matrix_spec).collect::<Option<Vec<_>>>() else { return false };
    if specs.is_empty() || specs.iter().any(|s| s.0.is_none()) {
        return specs.is_empty();
    }
    let mut board = [None; 64];
    for &(c, r, sq) in diagram {
        board[sq as usize] = Some((c, r));
    }
    let transforms: &[fn(i32, i32) -> (i32, i32)] = match symmetries {
        Symmetries::None => &[|f, r| (f, r)],
        Symmetries::Mirror => &[|f, r| (f, r), |f, r| (7 - f, r)],
        Symmetries::All => &[
            |f, r| (f, r),
            |f, r| (7 - f, r),
            |f, r| (f, 7 - r),
            |f, r| (7 - f, 7 - r),
            |f, r| (r, f),
            |f, r| (7 - r, f),
            |f, r| (r, 7 - f),
            |f, r| (7 - r, 7 - f),
        ],
    };
    let xs: Vec<i32> = if xshift { (-7..=7).collect() } else { vec![0] };
    let ys: Vec<i32> = if yshift { (-7..=7).collect() } else { vec![0] };
    for transform in transforms {
        let moved: Vec<(Option<(Color, Role)>, i32, i32)> = specs
            .iter()
            .map(|&(u, f, r)| {
                let (f, r) = transform(f, r);
                (u, f, r)
            })
            .collect();
        for &dx in &xs {
            for &dy in &ys {
                let fits = moved.iter().all(|&(unit, f, r)| {
                    let (f, r) = (f + dx, r + dy);
                    (0..8).contains(&f) && (0..8).contains(&r) && board[(r * 8 + f) as usize] == unit
                });
                if fits {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_is_sql_like() {
        assert!(like("Kubbel, Leonid", "%kubbel%"));
        assert!(like("Smith=J", "Smith=_"));
        assert!(!like("Smith=JK", "Smith=_"));
        assert!(like("100%", "100\\%"));
        assert!(!like("1000", "100\\%"));
        assert!(like("", "%"));
    }

    #[test]
    fn stipulation_plays() {
        assert_eq!(stipulation_play("h#2"), Play::Help);
        assert_eq!(stipulation_play("ser-h#5"), Play::Help);
        assert_eq!(stipulation_play("hs#3"), Play::HelpSelf);
        assert_eq!(stipulation_play("s#4"), Play::Self_);
        assert_eq!(stipulation_play("#2"), Play::Other);
        assert_eq!(stipulation_play("+"), Play::Other);
    }

    #[test]
    fn query_dates() {
        assert_eq!(parse_query_date("2010"), Some((2009, 12, 31)));
        assert_eq!(parse_query_date("2013-03"), Some((2013, 2, 28)));
        assert_eq!(parse_query_date("2013-01"), Some((2012, 12, 31)));
        assert_eq!(parse_query_date("2013-06-05"), Some((2013, 6, 5)));
    }

    #[test]
    fn matrix_with_translation_and_symmetry() {
        let diagram = [(Color::White, Role::King, Square::B2), (Color::Black, Role::King, Square::B4)];
        assert!(matrix("wKa1 bKa3", &diagram, true, true, Symmetries::All));
        assert!(!matrix("wKa1 bKa3", &diagram, false, true, Symmetries::None));
        assert!(matrix("wKa3 bKa1", &diagram, true, true, Symmetries::All), "a reflection fits");
        assert!(!matrix("wKa3 bKa1", &diagram, true, true, Symmetries::None));
        assert!(with("wk", &diagram) && !with("wK wK", &diagram));
    }
}
