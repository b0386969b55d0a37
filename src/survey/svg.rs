//! The pictures of the survey report, as inline SVG text: a chess board with marked
//! squares, horizontal bar charts and the co-occurrence heat map.
//!
//! Every picture scales with its container (a `viewBox` and no fixed size), uses no
//! font or image from elsewhere (pieces are Unicode chess symbols in the reader's own
//! fonts) and carries `<title>` tooltips with the exact numbers.

use std::fmt::Write as _;

use shakmaty::{Color, Role};

use super::Example;

/// Text made safe for HTML and SVG (element content and attribute values).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' => {}
            c => out.push(c),
        }
    }
    out
}

/// The chess symbol of a piece kind (the solid set; colour comes from fill and outline).
fn glyph(role: Role) -> char {
    match role {
        Role::King => '\u{265A}',
        Role::Queen => '\u{265B}',
        Role::Rook => '\u{265C}',
        Role::Bishop => '\u{265D}',
        Role::Knight => '\u{265E}',
        Role::Pawn => '\u{265F}',
    }
}

/// The board of an example position, White at the bottom: 64 squares (`rect.sq`), the
/// last move's squares tinted, the squares the query's comments name outlined, pieces
/// as symbols, files and ranks along the edges.
pub fn board(example: &Example, label: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="board" viewBox="-0.4 0 8.4 8.4" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg">"#,
        escape(label)
    );
    for index in 0..64usize {
        let (file, rank) = (index % 8, index / 8);
        let (x, y) = (file, 7 - rank);
        let shade = if (file + rank) % 2 == 0 { "dark" } else { "light" };
        let _ = write!(out, r#"<rect class="sq {shade}" x="{x}" y="{y}" width="1" height="1"/>"#);
        if example.move_squares.contains(&(index as u8)) {
            let _ = write!(out, r#"<rect class="moved" x="{x}" y="{y}" width="1" height="1"/>"#);
        }
    }
    for &index in &example.marked {
        let (x, y) = (index % 8, 7 - index / 8);
        let _ = write!(out, r#"<rect class="marked" x="{}.06" y="{}.06" width="0.88" height="0.88" rx="0.08"/>"#, x, y);
    }
    for index in 0..64usize {
        if let Some((color, role)) = example.piece(index) {
            let (x, y) = (index % 8, 7 - index / 8);
            let class = if color == Color::White { "pw" } else { "pb" };
            let _ = write!(out, r#"<text class="{class}" x="{}.5" y="{}.55">{}&#xFE0E;</text>"#, x, y, glyph(role));
        }
    }
    for i in 0..8 {
        let _ = write!(out, r#"<text class="coord" x="{i}.5" y="8.3">{}</text>"#, (b'a' + i) as char);
        let _ = write!(out, r#"<text class="coord" x="-0.2" y="{}.6">{}</text>"#, 7 - i, i + 1);
    }
    out.push_str("</svg>");
    out
}

/// A horizontal bar chart 100 units wide: one bar per (label, value), `row_height` units
/// a row, the longest bar for the largest value, the value written after each bar and,
/// when given, a link per label.
pub fn bars(rows: &[(String, u64, Option<String>)], class: &str, caption: &str, row_height: f64) -> String {
    let max = rows.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    let label_width = 40.0;
    let bar_width = 48.0;
    let height = row_height * rows.len().max(1) as f64 + 1.0;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="{class}" viewBox="0 0 100 {height:.1}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg">"#,
        escape(caption)
    );
    for (i, (label, value, link)) in rows.iter().enumerate() {
        let y = 0.5 + i as f64 * row_height;
        let width = bar_width * *value as f64 / max as f64;
        let label = escape(label);
        let text = format!(
            r#"<text class="label" x="{:.1}" y="{:.2}">{label}</text>"#,
            label_width - 1.0,
            y + row_height * 0.62
        );
        match link {
            Some(href) => {
                let _ = write!(out, r##"<a href="#{}">{text}</a>"##, escape(href));
            }
            None => out.push_str(&text),
        }
        let _ = write!(
            out,
            r#"<rect class="bar" x="{label_width}" y="{:.2}" width="{width:.2}" height="{:.2}"><title>{label}: {value}</title></rect>"#,
            y + 0.4,
            row_height - 0.8
        );
        let _ = write!(
            out,
            r#"<text class="value" x="{:.2}" y="{:.2}">{value}</text>"#,
            label_width + width + 1.0,
            y + row_height * 0.62
        );
    }
    out.push_str("</svg>");
    out
}

/// The co-occurrence heat map: a cell per pair of themes, darker the larger the share of
/// the rarer theme's games the pair shares; the diagonal (a theme with itself) is grey.
pub fn heat_map(names: &[String], shared: impl Fn(usize, usize) -> u64, games: impl Fn(usize) -> u64) -> String {
    let n = names.len();
    let cell = 10.0;
    let margin = 120.0;
    let size = margin + cell * n as f64;
    // Room on the right for the slanted names of the last columns.
    let width = size + margin * 0.5;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="heat" viewBox="0 0 {width:.0} {size:.0}" role="img" aria-label="Games matched by both themes" xmlns="http://www.w3.org/2000/svg">"#
    );
    for (i, name) in names.iter().enumerate() {
        let pos = margin + cell * i as f64 + cell * 0.7;
        let name = escape(name);
        let _ = write!(out, r#"<text class="row" x="{:.1}" y="{pos:.1}">{name}</text>"#, margin - 3.0);
        let _ = write!(
            out,
            r#"<text class="col" transform="translate({:.1} {:.1}) rotate(-60)">{name}</text>"#,
            pos - cell * 0.2,
            margin - 3.0
        );
    }
    for a in 0..n {
        for b in 0..n {
            let (x, y) = (margin + cell * b as f64, margin + cell * a as f64);
            let both = shared(a, b);
            let rarer = games(a).min(games(b));
            let (fill, note) = if a == b {
                ("#d9d9d9".to_string(), format!("{}: {} games", names[a], both))
            } else {
                let share = if rarer == 0 { 0.0 } else { both as f64 / rarer as f64 };
                // White through to deep blue as the share grows.
                let light = 97.0 - 62.0 * share.sqrt();
                (
                    format!("hsl(215, 70%, {light:.0}%)"),
                    format!("{} and {}: {} games ({:.0}% of the rarer)", names[a], names[b], both, share * 100.0),
                )
            };
            let _ = write!(
                out,
                r#"<rect class="cell" x="{x:.0}" y="{y:.0}" width="{cell}" height="{cell}" fill="{fill}"><title>{}</title></rect>"#,
                escape(&note)
            );
        }
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_has_sixty_four_squares_and_its_pieces() {
        let mut squares = [None; 64];
        squares[4] = Some('K'); // e1
        squares[60] = Some('k'); // e8
        let example = Example {
            board: squares,
            last_move: String::new(),
            move_squares: vec![],
            marked: vec![60],
            comments: vec![],
            players: ("?".into(), "?".into()),
            event: "?".into(),
            date: String::new(),
        };
        let svg = board(&example, "kings");
        assert_eq!(svg.matches(r#"class="sq "#).count(), 64);
        assert_eq!(svg.matches('\u{265A}').count(), 2);
        assert_eq!(svg.matches(r#"class="marked""#).count(), 1);
    }

    #[test]
    fn escape_makes_markup_inert() {
        assert_eq!(escape(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }
}
