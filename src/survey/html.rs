//! `report.html`: the survey as one page people read in a browser.
//!
//! Takes in: a finished [`Tally`].
//! Gives out: one self-contained HTML file (styles inline, pictures as inline SVG, no
//! script, no font or image from another host) that reads on a laptop and on a phone:
//! the themes ranked by incidence (a table and a bar chart), the co-occurrence heat map,
//! and per theme its breakdowns as small bar charts and one example position on a board.

use std::fmt::Write as _;

use super::svg::{self, escape};
use super::{Dimension, Tally};

/// The page's styles: a single column that widens into a grid on larger screens.
const STYLE: &str = r#"
:root { color-scheme: light; --ink: #1d2330; --muted: #5b6474; --line: #d8dde6; --accent: #2f6fbd; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--ink); background: #f5f7fa; }
header, section { max-width: 1180px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 24px; }
h1 { font-size: 1.7rem; margin: 0 0 4px; }
h2 { font-size: 1.3rem; margin: 32px 0 12px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 1.1rem; margin: 0 0 8px; }
p.lead { color: var(--muted); margin: 0 0 8px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px; }
.ranking { display: grid; gap: 16px; grid-template-columns: 1fr; }
@media (min-width: 1000px) { .ranking { grid-template-columns: minmax(0, 1.1fr) minmax(0, 1fr); } }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; width: 100%; font-size: 0.92rem; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
td.name { white-space: normal; overflow-wrap: anywhere; }
nav.toc { columns: 14em; column-gap: 24px; font-size: 0.92rem; }
nav.toc a { display: block; padding: 1px 0; }
details.more > summary { cursor: pointer; color: var(--accent); margin: 0 0 8px; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #f8fafc; }
@media (max-width: 520px) { .wide { display: none; } th, td { padding: 5px 5px; } }
a { color: var(--accent); }
svg text { font-family: system-ui, "DejaVu Sans", sans-serif; }
svg.ranking-chart, svg.small { width: 100%; height: auto; display: block; }
svg.ranking-chart text { font-size: 2.6px; }
svg.small text { font-size: 4.6px; }
svg .label { text-anchor: end; fill: var(--ink); }
svg .value { fill: var(--muted); }
svg .bar { fill: var(--accent); }
svg.heat { width: 100%; min-width: 560px; height: auto; display: block; }
svg.heat text { font-size: 7px; fill: var(--ink); }
svg.heat .row { text-anchor: end; }
svg.heat .cell { stroke: #fff; stroke-width: 0.5; }
.themes { display: grid; gap: 16px; grid-template-columns: 1fr; }
@media (min-width: 760px) { .themes { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
.theme .facts { color: var(--muted); font-size: 0.9rem; margin: 0 0 10px; }
.theme .body { display: grid; gap: 12px; grid-template-columns: 1fr; }
@media (min-width: 480px) { .theme .body { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
figure { margin: 0; }
figcaption { font-size: 0.88rem; color: var(--muted); margin-top: 6px; }
figcaption strong { color: var(--ink); }
svg.board { width: 100%; max-width: 340px; height: auto; display: block; }
svg.board .light { fill: #eef0d2; }
svg.board .dark { fill: #7d9a5a; }
svg.board .moved { fill: #f2d24b; opacity: 0.55; }
svg.board .marked { fill: none; stroke: #d9342b; stroke-width: 0.09; }
svg.board .pw, svg.board .pb { font-size: 0.86px; text-anchor: middle; dominant-baseline: central;
       font-family: "DejaVu Sans", "Segoe UI Symbol", "Noto Sans Symbols 2", "Apple Symbols", serif; }
svg.board .pw { fill: #fff; stroke: #111; stroke-width: 0.035; paint-order: stroke; }
svg.board .pb { fill: #111; }
svg.board .coord { font-size: 0.28px; fill: var(--muted); text-anchor: middle; }
.charts { display: grid; gap: 6px; grid-template-columns: 1fr; }
.charts h4 { font-size: 0.8rem; margin: 4px 0 0; color: var(--muted); font-weight: 600; }
.failed { border-left: 4px solid #d9342b; }
pre { white-space: pre-wrap; font-size: 0.82rem; margin: 4px 0 0; }
footer { max-width: 1180px; margin: 32px auto; padding: 0 16px; color: var(--muted); font-size: 0.85rem; }
"#;

/// A name usable as an HTML `id`: letters, digits and `-` kept, anything else `-`.
fn anchor(name: &str) -> String {
    let id: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    format!("theme-{id}")
}

/// The whole page.
pub fn report(tally: &Tally) -> String {
    let mut out = String::with_capacity(64 << 10);
    let ranked = tally.ranked();
    let files: Vec<String> = tally.inputs.iter().map(|f| escape(&file_name(f))).collect();
    let _ = write!(
        out,
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Theme survey: {themes} themes over {read} games</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>Theme survey</h1>
<p class="lead">{themes} over {read} from {files}; {any} ({any_share}) show at least one theme{skipped}{partly}.</p>
</header>
"#,
        themes = count(tally.themes.len() as u64, "theme", "themes"),
        read = count(tally.read, "game", "games"),
        files = files.join(", "),
        any = count(tally.matched_any, "game", "games"),
        any_share = percent(tally.matched_any, tally.read),
        skipped = if tally.skipped > 0 {
            format!("; {} could not be read", count(tally.skipped, "game", "games"))
        } else {
            String::new()
        },
        partly = if tally.partly_read > 0 {
            format!(
                "; {} read only up to a move that cannot be played (the themes saw the moves before it)",
                count(tally.partly_read, "game was", "games were")
            )
        } else {
            String::new()
        },
    );

    // The ranking: a table and a bar chart.
    out.push_str("<section id=\"ranking\">\n<h2>Themes by incidence</h2>\n<div class=\"ranking\">\n");
    out.push_str("<div class=\"card scroll\"><table id=\"theme-table\">\n<thead><tr><th class=\"n\">#</th><th>Theme</th><th class=\"n\">Games</th><th class=\"n\">Share</th><th class=\"n wide\">Positions</th><th class=\"wide\">First match</th></tr></thead>\n<tbody>\n");
    for (rank, &t) in ranked.iter().enumerate() {
        let theme = &tally.themes[t];
        let first = theme.first.as_ref().map_or("–".to_string(), |f| {
            let place = format!("{}, game {} of the file, byte {}", file_name(&f.file), f.file_game, f.offset);
            format!("<span title=\"{}\">game {}</span>", escape(&place), f.game)
        });
        let _ = writeln!(
            out,
            r##"<tr><td class="n">{}</td><td class="name"><a href="#{}">{}</a></td><td class="n">{}</td><td class="n">{}</td><td class="n wide">{}</td><td class="wide">{}</td></tr>"##,
            rank + 1,
            anchor(&theme.name),
            escape(&theme.name),
            theme.games,
            percent(theme.games, tally.read),
            theme.positions,
            first
        );
    }
    out.push_str("</tbody></table></div>\n");
    let rows: Vec<(String, u64, Option<String>)> = ranked
        .iter()
        .map(|&t| (tally.themes[t].name.clone(), tally.themes[t].games, Some(anchor(&tally.themes[t].name))))
        .collect();
    let _ = writeln!(
        out,
        "<div class=\"card\">{}</div>",
        svg::bars(&rows, "ranking-chart", "Games matched per theme", 4.2)
    );
    out.push_str("</div>\n</section>\n");

    // Co-occurrence.
    if tally.themes.len() > 1 {
        let names: Vec<String> = ranked.iter().map(|&t| tally.themes[t].name.clone()).collect();
        let map = svg::heat_map(&names, |a, b| tally.shared(ranked[a], ranked[b]), |a| tally.themes[ranked[a]].games);
        let _ = write!(
            out,
            "<section id=\"cooccurrence\">\n<h2>Themes found in the same games</h2>\n<p class=\"lead\">Each cell counts the games both themes matched; the darker, the larger the share of the rarer theme's games. Hover or tap a cell for the numbers.</p>\n<div class=\"card scroll\">{map}</div>\n</section>\n"
        );
    }

    // Per theme: breakdowns and an example; a list of the themes first, and each theme's
    // charts folded away, so that a survey of many themes stays a page one can scan.
    out.push_str("<section id=\"details\">\n<h2>Each theme</h2>\n<nav class=\"toc card\" aria-label=\"Themes\">\n");
    for &t in &ranked {
        let theme = &tally.themes[t];
        let _ = writeln!(out, "<a href=\"#{}\">{}</a>", anchor(&theme.name), escape(&theme.name));
    }
    out.push_str("</nav>\n<div class=\"themes\">\n");
    for &t in &ranked {
        theme_card(&mut out, tally, t);
    }
    out.push_str("</div>\n</section>\n");

    if !tally.failed.is_empty() {
        out.push_str("<section id=\"failed\">\n<h2>Scripts left out</h2>\n");
        for f in &tally.failed {
            let _ = writeln!(
                out,
                "<div class=\"card failed\"><strong>{}</strong> did not compile:<pre>{}</pre></div>",
                escape(&f.script),
                escape(&f.error)
            );
        }
        out.push_str("</section>\n");
    }
    let _ = write!(
        out,
        "<footer>Made by cqlrs {} (survey). Percentages are of the {} read.</footer>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        count(tally.read, "game", "games")
    );
    out
}

/// One theme's card: counts, the breakdown charts and the example board.
fn theme_card(out: &mut String, tally: &Tally, t: usize) {
    let theme = &tally.themes[t];
    let _ = write!(
        out,
        "<article class=\"card theme\" id=\"{}\">\n<h3>{}</h3>\n<p class=\"facts\">{} ({}), {} · <code>{}</code> ({})</p>\n<details class=\"more\"><summary>{}</summary>\n<div class=\"body\">\n",
        anchor(&theme.name),
        escape(&theme.name),
        count(theme.games, "game", "games"),
        percent(theme.games, tally.read),
        count(theme.positions, "position", "positions"),
        escape(&file_name(&theme.script)),
        theme.language,
        if theme.games > 0 { "Example and breakdowns by result, opening, rating, decade and file" } else { "Details" },
    );
    match &theme.example {
        Some(example) => {
            let (white, black) = &example.players;
            let mut caption = String::new();
            if !example.last_move.is_empty() {
                let _ = write!(caption, "After <strong>{}</strong>. ", escape(&example.last_move));
            }
            let _ = write!(caption, "{} – {}", escape(white), escape(black));
            if example.event != "?" {
                let _ = write!(caption, ", {}", escape(&example.event));
            }
            if !example.date.is_empty() {
                let _ = write!(caption, ", {}", escape(&example.date));
            }
            if let Some(first) = &theme.first {
                let _ = write!(caption, " (game {})", first.game);
            }
            // The query's own comments here; the markers CQL writes at the start of each
            // `path` and `line` ("Start path that ends at move 20(wtm)") say nothing to a
            // reader of the report and are left out.
            let said: Vec<&str> = example
                .comments
                .iter()
                .map(String::as_str)
                .filter(|c| !c.starts_with("Start path that ends at ") && !c.starts_with("Start line that ends at "))
                .collect();
            if !said.is_empty() {
                let _ = write!(caption, ". The script's comment here: “{}”", escape(&said.join("; ")));
            }
            let label = format!("{} example: {}", theme.name, example.last_move);
            let _ = writeln!(out, "<figure>{}<figcaption>{caption}</figcaption></figure>", svg::board(example, &label));
        }
        None => out.push_str("<p class=\"facts\">No game matched.</p>\n"),
    }
    out.push_str("<div class=\"charts\">\n");
    if theme.games > 0 {
        for dimension in Dimension::ALL {
            let rows: Vec<(String, u64, Option<String>)> = theme
                .breakdown
                .iter()
                .filter(|((d, _), _)| *d == dimension)
                .map(|((_, bucket), games)| {
                    let label = if dimension == Dimension::File {
                        short(&file_name(&bucket.label))
                    } else {
                        bucket.label.clone()
                    };
                    (label, *games, None)
                })
                .collect();
            if rows.len() == 1 && rows[0].0 == "unknown" {
                continue;
            }
            let caption = format!("{}: games by {}", theme.name, dimension.title());
            let _ = writeln!(out, "<h4>{}</h4>{}", dimension.title(), svg::bars(&rows, "small", &caption, 6.5));
        }
    }
    out.push_str("</div>\n</div>\n</details>\n</article>\n");
}

/// `part` of `whole` as a percentage (`–` when `whole` is 0): one decimal, or two
/// significant digits below 1 %, so that a share that is not zero never reads `0.0%`
/// (below 0.01 % it reads `<0.01%`).
fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "–".into();
    }
    let share = 100.0 * part as f64 / whole as f64;
    match share {
        s if part == 0 || s >= 1.0 => format!("{s:.1}%"),
        s if s >= 0.1 => format!("{s:.2}%"),
        s if s >= 0.01 => format!("{s:.3}%"),
        _ => "<0.01%".into(),
    }
}

/// `n` with the word in the singular or the plural (`1 game`, `2 games`).
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A file's label in the small charts: without `.pgn` (and a compression suffix) and
/// at most 13 characters, a longer name keeping its start and end around `…`, so that
/// it fits the label column whole.
fn short(label: &str) -> String {
    let mut name = label;
    for suffix in [".gz", ".zst", ".bz2"] {
        name = name.strip_suffix(suffix).unwrap_or(name);
    }
    let name = name.strip_suffix(".pgn").or_else(|| name.strip_suffix(".PGN")).unwrap_or(name);
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= 13 {
        return name.to_string();
    }
    let head: String = chars[..5].iter().collect();
    let tail: String = chars[chars.len() - 7..].iter().collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_that_are_not_zero_never_read_zero() {
        assert_eq!(percent(0, 10), "0.0%");
        assert_eq!(percent(1, 3), "33.3%");
        assert_eq!(percent(1, 500), "0.20%");
        assert_eq!(percent(1, 5000), "0.020%");
        assert_eq!(percent(1, 1_000_000), "<0.01%");
        assert_eq!(percent(1, 0), "–");
    }

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(count(1, "game", "games"), "1 game");
        assert_eq!(count(0, "game", "games"), "0 games");
        assert_eq!(count(2, "theme", "themes"), "2 themes");
    }

    #[test]
    fn file_labels_fit_their_column_and_keep_both_ends() {
        assert_eq!(short("lichess-2017-05-sample.pgn"), "liche…-sample");
        assert_eq!(short("twic1599.pgn.gz"), "twic1599");
        assert!(short("a-very-long-name-of-an-archive.pgn").chars().count() <= 13);
    }
}

/// The last component of a path (the whole text when it has none).
fn file_name(path: &str) -> String {
    std::path::Path::new(path).file_name().map_or(path.to_string(), |n| n.to_string_lossy().into_owned())
}
