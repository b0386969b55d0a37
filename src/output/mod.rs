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
use crate::input::RawGame;
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
    /// One JSON object per line that also holds, as `pgn`, the bytes the PGN format
    /// would write for the game (`--json-pgn`; what a merge of shards concatenates).
    JsonPgn(PgnStyle),
}

impl Format {
    /// Does rendering this format need the game's moves (its position tree)?
    pub fn needs_moves(&self) -> bool {
        matches!(self, Format::Pgn(_) | Format::JsonPgn(_))
    }

    /// Is this one of the JSON-lines formats?
    pub fn is_json(&self) -> bool {
        matches!(self, Format::Json | Format::JsonPgn(_))
    }
}

/// Append what `format` writes for one matching game to `out`. `raw` is the game as
/// cut from its input (file and byte position, for the JSON locator); `sort_key` is the
/// game's sort key as the scan orders it (value, ascending?) — empty when the query does
/// not sort.
pub fn render_game(
    format: &Format,
    game: &Game,
    m: &GameMatch,
    raw: &RawGame,
    sort_key: &[(i64, bool)],
    out: &mut Vec<u8>,
) {
    match format {
        Format::Pgn(style) => pgn::write_game(style, game, m, out),
        Format::Numbers => out.extend_from_slice(format!("{}\n", game.number).as_bytes()),
        Format::Count => {}
        Format::Json => {
            out.extend_from_slice(json_line(game, m, raw, sort_key, None).as_bytes());
            out.push(b'\n');
        }
        Format::JsonPgn(style) => {
            let mut pgn = Vec::new();
            pgn::write_game(style, game, m, &mut pgn);
            out.extend_from_slice(json_line(game, m, raw, sort_key, Some(&pgn)).as_bytes());
            out.push(b'\n');
        }
    }
}

/// The `--json` object of one matching game (`"record": "match"`, see
/// docs/output.md and docs/schema/record.schema.json): its number in the run, its
/// locator (file, byte offset, length, ordinal within the file), tags, matched plies,
/// sort values and sort key, YACPDB predicate counts, and with `pgn` the game as the
/// PGN format writes it (field `pgn` when it is UTF-8, else `pgn_base64`).
pub fn json_line(game: &Game, m: &GameMatch, raw: &RawGame, sort_key: &[(i64, bool)], pgn: Option<&[u8]>) -> String {
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
    let key: Vec<Value> = sort_key.iter().map(|(v, ascending)| json!([v, ascending])).collect();
    let mut record = json!({
        "record": "match",
        "number": game.number,
        "file": &*raw.file,
        "offset": raw.offset,
        "length": raw.bytes.len(),
        "file_number": raw.file_number,
        "tags": tags,
        "plies": plies,
        "sort": sort,
        "sort_key": key,
        "predicates": predicates,
    });
    match pgn.map(std::str::from_utf8) {
        Some(Ok(text)) => record["pgn"] = Value::String(text.to_string()),
        Some(Err(_)) => record["pgn_base64"] = Value::String(base64(pgn.unwrap_or_default())),
        None => {}
    }
    record.to_string()
}

/// Standard base64 (RFC 4648, with padding): carries PGN bytes that are not UTF-8
/// (Latin-1 names in old files) through JSON unchanged.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The `--summary-json` record (`"record": "summary"`, see docs/output.md): the tallies
/// of `summary`, the input bytes read (`None` for standard input), the inputs that could
/// not be read, and for a shard its byte range over the concatenated inputs.
pub fn summary_json(summary: &Summary, bytes: Option<u64>, input_errors: u64, range: Option<(u64, u64)>) -> String {
    use serde_json::json;
    let mut record = json!({
        "record": "summary",
        "games": summary.read,
        "matched": summary.matched,
        "unmatched": summary.unmatched,
        "skipped": summary.skipped,
        // Games given up part-way (a resource limit); this build never gives up on one.
        "abandoned": 0,
        "input_errors": input_errors,
        "bytes": bytes,
        "seconds": summary.seconds,
        "threads": summary.threads,
    });
    if let Some((start, end)) = range {
        record["range"] = json!([start, end]);
    }
    record.to_string()
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
    use crate::pgn::{GameParser, NodeId};
    use std::sync::Arc;

    fn game(text: &str) -> Game {
        let raw = RawGame {
            number: 3,
            file: Arc::from("t.pgn"),
            line: 1,
            bytes: text.as_bytes().to_vec(),
            ..RawGame::default()
        };
        let mut g = Game::default();
        GameParser::new().parse(&raw, &mut g, &|_| true).unwrap();
        g
    }

    fn render(style: &PgnStyle, g: &Game, m: &GameMatch) -> String {
        let mut out = Vec::new();
        render_game(&Format::Pgn(style.clone()), g, m, &RawGame::default(), &[], &mut out);
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
        let raw = RawGame {
            file: Arc::from("t.pgn"),
            offset: 40,
            file_number: 2,
            bytes: vec![b' '; 9],
            ..RawGame::default()
        };
        let line = json_line(&g, &m, &raw, &[(5, true)], Some(b"pgn text"));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["number"], 3);
        assert_eq!(
            (v["file"].as_str(), v["offset"].as_u64(), v["length"].as_u64()),
            (Some("t.pgn"), Some(40), Some(9))
        );
        assert_eq!(v["file_number"], 2);
        assert_eq!(v["sort_key"], serde_json::json!([[5, true]]));
        assert_eq!(v["pgn"], "pgn text");
        assert_eq!(v["record"], "match");
        assert_eq!(v["tags"]["White"], "A");
        assert_eq!(v["plies"][0], 2);
        assert_eq!(v["predicates"][0]["count"], 2);
        let mut out = Vec::new();
        render_game(&Format::Numbers, &g, &m, &raw, &[], &mut out);
        assert_eq!(out, b"3\n");
    }

    #[test]
    fn base64_carries_bytes_that_are_not_utf8() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob\xe9"), "Zm9vYuk=");
        let g = game("[White \"A\"]\n\n1. e4 *\n");
        let m = GameMatch { matched: true, ..Default::default() };
        let v: serde_json::Value =
            serde_json::from_str(&json_line(&g, &m, &RawGame::default(), &[], Some(b"M\xfcller"))).unwrap();
        assert_eq!(v["pgn_base64"], "TfxsbGVy");
        assert!(v.get("pgn").is_none());
    }

    #[test]
    fn summary_record() {
        let s = Summary { matched: 2, read: 10, unmatched: 7, skipped: 1, seconds: 0.5, threads: 2, output: None };
        let v: serde_json::Value = serde_json::from_str(&summary_json(&s, Some(1234), 1, Some((5, 99)))).unwrap();
        assert_eq!(v["record"], "summary");
        assert_eq!((v["games"].as_u64(), v["matched"].as_u64(), v["unmatched"].as_u64()), (Some(10), Some(2), Some(7)));
        assert_eq!(
            (v["skipped"].as_u64(), v["abandoned"].as_u64(), v["bytes"].as_u64()),
            (Some(1), Some(0), Some(1234))
        );
        assert_eq!(v["input_errors"], 1);
        assert_eq!(v["range"], serde_json::json!([5, 99]));
        let stdin: serde_json::Value = serde_json::from_str(&summary_json(&s, None, 0, None)).unwrap();
        assert!(stdin["bytes"].is_null() && stdin.get("range").is_none());
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
