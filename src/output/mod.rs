//! Writing results.
//!
//! Takes in: matching games with their [`GameMatch`] (from the scan workers), final
//! tallies (from the scan writer).
//! Gives out: bytes in one of the output [`Format`]s — CQL-style PGN, game numbers,
//! a count, JSON lines — written to one [`Sink`] (a file or stdout), and the summary
//! line for stderr.
//! Must never: evaluate anything, or let two games' bytes interleave (each game is
//! rendered into its own buffer first, then written in one call).

mod pgn;

pub use pgn::{write_game as write_pgn_game, PgnStyle};

use std::io::Write;

use crate::eval::GameMatch;
use crate::pgn::Game;

/// What is written for each matching game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// CQL-style PGN of the game, with marks at matching positions.
    Pgn(PgnStyle),
    /// The game number, one per line (`--numbers`; the conformance contract).
    Numbers,
    /// Nothing per game; the number of matching games at the end (`--count`).
    Count,
    /// One JSON object per line (`--json`).
    Json,
}

impl Format {
    /// Does rendering this format need the game's moves (its position tree)?
    pub fn needs_moves(&self) -> bool {
        matches!(self, Format::Pgn(_))
    }
}

/// Append what `format` writes for one matching game to `out`.
/// `file` is the input file the game came from (for `--json`).
pub fn render_game(format: &Format, game: &Game, m: &GameMatch, file: &str, out: &mut Vec<u8>) {
    match format {
        Format::Pgn(style) => pgn::write_game(style, game, m, out),
        Format::Numbers => out.extend_from_slice(format!("{}\n", game.number).as_bytes()),
        Format::Count => {}
        Format::Json => {
            out.extend_from_slice(json_line(game, m, file).as_bytes());
            out.push(b'\n');
        }
    }
}

/// The `--json` object of one matching game: number, file, tags, matched plies, sort
/// values and YACPDB predicate counts.
pub fn json_line(game: &Game, m: &GameMatch, file: &str) -> String {
    use serde_json::{json, Map, Value};
    let mut tags = Map::new();
    for t in &game.tags {
        tags.entry(t.name.clone()).or_insert_with(|| Value::String(t.text().into_owned()));
    }
    for (name, value) in &m.set_tags {
        tags.insert(name.clone(), Value::String(value.clone()));
    }
    let plies: Vec<u32> = m.positions.iter().filter_map(|id| game.nodes.get(id.index())).map(|n| n.ply).collect();
    let sort: Vec<Value> = m.sort.iter().map(|(doc, v)| json!({"doc": doc, "value": v})).collect();
    let predicates: Vec<Value> =
        m.predicates.iter().map(|(name, count)| json!({"predicate": name, "count": count})).collect();
    json!({
        "number": game.number,
        "file": file,
        "tags": tags,
        "plies": plies,
        "sort": sort,
        "predicates": predicates,
    })
    .to_string()
}

/// Where the output goes: a file or standard output.
pub struct Sink {
    writer: Box<dyn Write + Send>,
    /// The file name, `None` for stdout.
    pub path: Option<String>,
}

impl Sink {
    /// Standard output (buffered).
    pub fn stdout() -> Sink {
        Sink { writer: Box::new(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout())), path: None }
    }

    /// A file (created or truncated); `-` means standard output.
    pub fn create(path: &str) -> std::io::Result<Sink> {
        if path == "-" {
            return Ok(Sink::stdout());
        }
        let file = std::fs::File::create(path)?;
        Ok(Sink { writer: Box::new(std::io::BufWriter::with_capacity(1 << 16, file)), path: Some(path.to_string()) })
    }

    /// Any writer (used by tests and benchmarks).
    pub fn from_writer(writer: Box<dyn Write + Send>) -> Sink {
        Sink { writer, path: None }
    }

    /// Write the bytes of one or more games.
    pub fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(bytes)
    }

    /// Flush everything written.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

/// Write text to standard output (`--dump-ir`, `--to-ascii`); a closed pipe is not
/// an error.
pub fn print_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// The tallies of a finished scan, for the summary line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Games that matched.
    pub matched: u64,
    /// Games read (matched + unmatched + skipped).
    pub read: u64,
    /// Games read and evaluated that did not match (or matched beyond a sorted `--limit`).
    pub unmatched: u64,
    /// Malformed games skipped.
    pub skipped: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// The output file, if not stdout.
    pub output: Option<String>,
}

impl Summary {
    /// `N matches of M games (U unmatched, K skipped) in S s using T threads[ to FILE]`:
    /// all three tallies are printed so that a reader can check M = N + U + K.
    pub fn line(&self) -> String {
        let mut s = format!(
            "{} {} of {} {} ({} unmatched, {} skipped) in {:.2} s using {} {}",
            self.matched,
            if self.matched == 1 { "match" } else { "matches" },
            self.read,
            if self.read == 1 { "game" } else { "games" },
            self.unmatched,
            self.skipped,
            self.seconds,
            self.threads,
            if self.threads == 1 { "thread" } else { "threads" },
        );
        if let Some(path) = &self.output {
            s.push_str(" to ");
            s.push_str(path);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::RawGame;
    use crate::pgn::{GameParser, NodeId};
    use std::sync::Arc;

    fn game(text: &str) -> Game {
        let raw = RawGame { number: 3, file: Arc::from("t.pgn"), line: 1, bytes: text.as_bytes().to_vec() };
        let mut g = Game::default();
        GameParser::new().parse(&raw, &mut g, &|_| true).unwrap();
        g
    }

    fn render(style: &PgnStyle, g: &Game, m: &GameMatch) -> String {
        let mut out = Vec::new();
        render_game(&Format::Pgn(style.clone()), g, m, "t.pgn", &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn pgn_marks_positions_and_keeps_annotations() {
        let g = game("[White \"A\"]\n[Result \"1-0\"]\n\n1. e4 $1 {best} (1. d4 d5 (1... Nf6)) 1... e5 2. Qh5 1-0\n");
        let e5 = g.mainline().nth(2).unwrap();
        let m = GameMatch {
            matched: true,
            positions: vec![e5],
            comments: vec![(e5, "hello".into())],
            sort: vec![("score".into(), 12)],
            ..Default::default()
        };
        let text = render(&PgnStyle::default(), &g, &m);
        assert!(text.lines().all(|l| l.len() <= 79), "{text}");
        let (tags, movetext) = text.split_once("\n\n").unwrap();
        let text = format!("{tags}\n\n{}", movetext.replacen('\n', " ", 1));
        assert_eq!(
            text,
            "[White \"A\"]\n[Result \"1-0\"]\n\n{Game number 3 score: 12} 1. e4 $1 {best} (1. d4 d5 (1... Nf6)) 1... e5 {hello} {CQL} 2. Qh5 1-0\n\n"
        );
        let quiet = PgnStyle { silent: true, quiet: true, ..PgnStyle::default() };
        let text = render(&quiet, &g, &m);
        assert!(!text.contains("{CQL}") && !text.contains("hello"), "{text}");
    }

    #[test]
    fn pgn_wraps_long_movetext() {
        let mut moves = String::new();
        for i in 1..=30 {
            let (w, b) = if i % 2 == 1 { ("Nf3", "Nf6") } else { ("Ng1", "Ng8") };
            moves.push_str(&format!("{i}. {w} {b} "));
        }
        let g = game(&format!("[White \"A\"]\n\n{moves}*\n"));
        let text = render(&PgnStyle::default(), &g, &GameMatch { matched: true, ..Default::default() });
        assert!(text.lines().all(|l| l.len() <= 79), "{text}");
        assert!(text.lines().count() > 4);
        assert!(text.trim_end().ends_with('*'));
    }

    #[test]
    fn settag_replaces_and_adds_tags() {
        let g = game("[White \"A\"]\n\n1. e4 *\n");
        let m = GameMatch {
            matched: true,
            set_tags: vec![("White".into(), "B \"x\"".into()), ("Note".into(), "n".into())],
            ..Default::default()
        };
        let text = render(&PgnStyle::default(), &g, &m);
        assert!(text.starts_with("[White \"B \\\"x\\\"\"]\n[Note \"n\"]\n\n{Game number 3} 1. e4 *"), "{text}");
    }

    #[test]
    fn json_and_numbers() {
        let g = game("[White \"A\"]\n\n1. e4 e5 *\n");
        let m = GameMatch {
            matched: true,
            positions: vec![NodeId(2)],
            predicates: vec![("Twins".into(), 2)],
            ..Default::default()
        };
        let line = json_line(&g, &m, "t.pgn");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["number"], 3);
        assert_eq!(v["tags"]["White"], "A");
        assert_eq!(v["plies"][0], 2);
        assert_eq!(v["predicates"][0]["count"], 2);
        let mut out = Vec::new();
        render_game(&Format::Numbers, &g, &m, "t.pgn", &mut out);
        assert_eq!(out, b"3\n");
    }

    #[test]
    fn summary_line() {
        let s = Summary {
            matched: 2,
            read: 10,
            unmatched: 7,
            skipped: 1,
            seconds: 0.5,
            threads: 2,
            output: Some("o.pgn".into()),
        };
        assert_eq!(s.line(), "2 matches of 10 games (7 unmatched, 1 skipped) in 0.50 s using 2 threads to o.pgn");
        let one = Summary { matched: 1, read: 1, threads: 1, ..Summary::default() };
        assert_eq!(one.line(), "1 match of 1 game (0 unmatched, 0 skipped) in 0.00 s using 1 thread");
    }
}
