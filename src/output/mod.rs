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
pub mod positions;

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
    /// One JSON object per matching position (`--positions`).
    Positions,
    /// One EPD line per matching position (`--epd`).
    Epd,
}

impl Format {
    /// Does rendering this format need the game's moves (its position tree)?
    pub fn needs_moves(&self) -> bool {
        matches!(self, Format::Pgn(_) | Format::JsonPgn(_) | Format::Positions | Format::Epd)
    }

    /// Is this one of the JSON-lines formats?
    pub fn is_json(&self) -> bool {
        matches!(self, Format::Json | Format::JsonPgn(_) | Format::Positions)
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
    sort_key: &[(crate::eval::SortValue, bool)],
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
        Format::Positions => positions::write_positions(game, m, raw, out),
        Format::Epd => positions::write_epd(game, m, raw, out),
    }
}

/// The `--json` object of one matching game (`"record": "match"`, see
/// docs/output.md and docs/schema/record.schema.json): its number in the run, its
/// locator (file, byte offset, length, ordinal within the file), the encoding its bytes
/// were read in (`utf-8` or `windows-1252`), tags, matched plies,
/// sort values and sort key, YACPDB predicate counts, and with `pgn` the game as the
/// PGN format writes it (field `pgn` when it is UTF-8, else `pgn_base64`).
pub fn json_line(
    game: &Game,
    m: &GameMatch,
    raw: &RawGame,
    sort_key: &[(crate::eval::SortValue, bool)],
    pgn: Option<&[u8]>,
) -> String {
    use serde_json::{json, Map, Value};
    let mut tags = Map::new();
    for t in &game.tags {
        tags.entry(t.name.clone()).or_insert_with(|| Value::String(t.text().into_owned()));
    }
    for (name, value) in &m.set_tags {
        tags.insert(name.clone(), Value::String(value.clone()));
    }
    let plies: Vec<u32> = m.positions.iter().filter_map(|id| game.nodes.get(id.index())).map(|n| n.ply).collect();
    let sort: Vec<Value> = m.sort.iter().map(|(doc, v)| json!({"doc": if crate::eval::is_unnamed_sort(doc) { "" } else { doc.as_str() }, "value": v.to_json()})).collect();
    let predicates: Vec<Value> =
        m.predicates.iter().map(|(name, count)| json!({"predicate": name, "count": count})).collect();
    let key: Vec<Value> = sort_key.iter().map(|(v, ascending)| json!([v.to_json(), ascending])).collect();
    let mut record = json!({
        "record": "match",
        "number": game.number,
        "file": &*raw.file,
        "offset": raw.offset,
        "length": raw.bytes.len(),
        "file_number": raw.file_number,
        "encoding": game.encoding.name(),
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
        "abandoned": summary.abandoned,
        "partly_read": summary.partly_read,
        "input_errors": input_errors,
        "bytes": bytes,
        "seconds": summary.seconds,
        "threads": summary.threads,
    });
    if let Some((start, end)) = range {
        record["range"] = json!([start, end]);
    }
    if summary.passed_over > 0 {
        // Only when `-gamenumber` left games out, so that other records keep their shape.
        record["passed_over"] = json!(summary.passed_over);
    }
    record.to_string()
}

/// The character encoding of everything written (`--output-encoding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputEncoding {
    /// UTF-8 (the default): every character fits.
    #[default]
    Utf8,
    /// ISO-8859-1: one byte per character; a character above U+00FF is an error.
    Latin1,
}

impl OutputEncoding {
    /// The encoding named on the command line (`utf8`, `utf-8`, `latin1`, `iso-8859-1`).
    pub fn from_name(name: &str) -> Option<OutputEncoding> {
        match name.to_ascii_lowercase().as_str() {
            "utf8" | "utf-8" => Some(OutputEncoding::Utf8),
            "latin1" | "latin-1" | "iso-8859-1" | "iso8859-1" => Some(OutputEncoding::Latin1),
            _ => None,
        }
    }
}

/// Re-encode UTF-8 output bytes as Latin-1. Fails on the first character that has no
/// Latin-1 byte, naming it (the text is UTF-8 because every game is decoded to UTF-8).
pub fn to_latin1(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::with_capacity(bytes.len());
    for (line, l) in text.split('\n').enumerate() {
        if line > 0 {
            out.push(b'\n');
        }
        for c in l.chars() {
            match u8::try_from(u32::from(c)) {
                Ok(b) => out.push(b),
                Err(_) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!(
                            "character `{c}` (U+{:04X}) cannot be written in Latin-1 (use --output-encoding utf8); \
                             on the line `{}`",
                            u32::from(c),
                            l.chars().take(60).collect::<String>()
                        ),
                    ))
                }
            }
        }
    }
    Ok(out)
}

/// Where the bytes of a [`Sink`] go.
enum Target {
    /// Standard output.
    Stdout(std::io::BufWriter<std::io::Stdout>),
    /// A temporary file beside the destination, renamed onto it by [`Sink::commit`].
    File { writer: std::io::BufWriter<std::fs::File>, temp: std::path::PathBuf, dest: std::path::PathBuf },
    /// Anything else (tests, benchmarks).
    Writer(Box<dyn Write + Send>),
    /// A committed or discarded file: nothing more may be written.
    Closed,
}

/// Where the output goes: a file or standard output.
///
/// A file is never written in place: the bytes go to a temporary file in the same
/// directory, which [`Sink::commit`] renames onto the destination once the run has
/// succeeded. Until then (and for ever, if the run fails or is interrupted) a file that
/// already had the destination's name is left exactly as it was.
pub struct Sink {
    target: Target,
    encoding: OutputEncoding,
    /// The file name, `None` for stdout.
    pub path: Option<String>,
}

impl Sink {
    /// Standard output (buffered).
    pub fn stdout() -> Sink {
        Sink {
            target: Target::Stdout(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout())),
            encoding: OutputEncoding::Utf8,
            path: None,
        }
    }

    /// A file, written through a temporary file beside it (see [`Sink`]); `-` means
    /// standard output. The destination is not touched until [`Sink::commit`]. A
    /// device or pipe (`/dev/null`) is written directly.
    pub fn create(path: &str) -> std::io::Result<Sink> {
        if path == "-" {
            return Ok(Sink::stdout());
        }
        let dest = std::path::PathBuf::from(path);
        if std::fs::metadata(&dest).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            // A device or a pipe (`/dev/null`, a FIFO): nothing to replace, write to it.
            let file = std::fs::OpenOptions::new().write(true).open(&dest)?;
            return Ok(Sink {
                target: Target::Writer(Box::new(std::io::BufWriter::with_capacity(1 << 16, file))),
                encoding: OutputEncoding::Utf8,
                path: Some(path.to_string()),
            });
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        let name = dest.file_name().map_or("out".into(), |n| n.to_string_lossy().into_owned());
        let mut attempt = 0u32;
        let (file, temp) = loop {
            let temp = dir.join(format!(".{name}.cqlrs-{}-{attempt}.tmp", std::process::id()));
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(f) => break (f, temp),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
                Err(e) => return Err(e),
            }
        };
        // A replaced file keeps its permissions.
        if let Ok(meta) = std::fs::metadata(&dest) {
            let _ = file.set_permissions(meta.permissions());
        }
        Ok(Sink {
            target: Target::File { writer: std::io::BufWriter::with_capacity(1 << 16, file), temp, dest },
            encoding: OutputEncoding::Utf8,
            path: Some(path.to_string()),
        })
    }

    /// A file whose existing bytes are kept, the new ones written after them
    /// (`--append`). Like [`Sink::create`], the bytes go to a temporary file (a copy of
    /// the existing one) that [`Sink::commit`] renames onto the destination, so a failed
    /// run leaves the file as it was.
    pub fn append(path: &str) -> std::io::Result<Sink> {
        let mut sink = Sink::create(path)?;
        if let Target::File { writer, .. } = &mut sink.target {
            match std::fs::File::open(path) {
                Ok(mut existing) => {
                    std::io::copy(&mut existing, writer)?;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(sink)
    }

    /// Any writer (used by tests and benchmarks).
    pub fn from_writer(writer: Box<dyn Write + Send>) -> Sink {
        Sink { target: Target::Writer(writer), encoding: OutputEncoding::Utf8, path: None }
    }

    /// Write in this encoding from now on (UTF-8 unless changed).
    pub fn set_encoding(&mut self, encoding: OutputEncoding) {
        self.encoding = encoding;
    }

    fn writer(&mut self) -> std::io::Result<&mut dyn Write> {
        Ok(match &mut self.target {
            Target::Stdout(w) => w,
            Target::File { writer, .. } => writer,
            Target::Writer(w) => w,
            Target::Closed => {
                return Err(std::io::Error::new(std::io::ErrorKind::Other, "output already closed"));
            }
        })
    }

    /// Write the bytes of one or more games (UTF-8 text, re-encoded if asked).
    pub fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self.encoding {
            OutputEncoding::Utf8 => self.writer()?.write_all(bytes),
            OutputEncoding::Latin1 => {
                let bytes = to_latin1(bytes)?;
                self.writer()?.write_all(&bytes)
            }
        }
    }

    /// Flush everything written (a file stays at its temporary name).
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.writer()?.flush()
    }

    /// The run succeeded: flush, and put a file in place under its name (replacing
    /// any file that had it). Standard output is only flushed.
    pub fn commit(&mut self) -> std::io::Result<()> {
        match std::mem::replace(&mut self.target, Target::Closed) {
            Target::File { writer, temp, dest } => {
                let done = writer
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .and_then(|file| file.sync_all())
                    .and_then(|()| std::fs::rename(&temp, &dest));
                if done.is_err() {
                    let _ = std::fs::remove_file(&temp);
                }
                done
            }
            mut other => {
                let flushed = match &mut other {
                    Target::Stdout(w) => w.flush(),
                    Target::Writer(w) => w.flush(),
                    _ => Ok(()),
                };
                self.target = other;
                flushed
            }
        }
    }

    /// The run failed: remove a file's temporary copy, leaving the destination as it
    /// was. Standard output cannot be taken back.
    pub fn discard(&mut self) {
        if let Target::File { temp, .. } = std::mem::replace(&mut self.target, Target::Closed) {
            let _ = std::fs::remove_file(&temp);
        }
    }
}

impl Drop for Sink {
    /// A sink dropped without [`Sink::commit`] (an error path, a panic) leaves no
    /// temporary file behind and the destination untouched.
    fn drop(&mut self) {
        self.discard();
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
    /// Games read (matched + unmatched + skipped + abandoned + passed over).
    pub read: u64,
    /// Games read and evaluated that did not match (or matched beyond a sorted `--limit`).
    pub unmatched: u64,
    /// Games read but left out by `-gamenumber` (neither matched nor unmatched).
    pub passed_over: u64,
    /// Malformed games skipped.
    pub skipped: u64,
    /// Games the evaluator gave up on (runaway work or nesting).
    pub abandoned: u64,
    /// Games read only up to a move that cannot be played (also counted as matched or
    /// unmatched).
    pub partly_read: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// The output file, if not stdout.
    pub output: Option<String>,
}

impl Summary {
    /// `N matches of M games (U unmatched, K skipped[, A abandoned][, P outside
    /// -gamenumber]) in S s using T
    /// threads[ to FILE][; P games read only up to an unplayable move]`: every tally is
    /// printed (abandoned and partly read ones when there are any) so that a reader can
    /// check M = N + U + K + A + P.
    pub fn line(&self) -> String {
        let mut abandoned = if self.abandoned > 0 { format!(", {} abandoned", self.abandoned) } else { String::new() };
        if self.passed_over > 0 {
            abandoned.push_str(&format!(", {} outside -gamenumber", self.passed_over));
        }
        let mut s = format!(
            "{} {} of {} {} ({} unmatched, {} skipped{abandoned}) in {:.2} s using {} {}",
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
        if self.partly_read > 0 {
            let games = if self.partly_read == 1 { "game" } else { "games" };
            s.push_str(&format!("; {} {games} read only up to an unplayable move", self.partly_read));
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
            sort: vec![("score".into(), crate::eval::SortValue::Number(12))],
            ..Default::default()
        };
        let text = render(&PgnStyle::default(), &g, &m);
        assert!(text.lines().all(|l| l.len() <= 79), "{text}");
        let (tags, movetext) = text.split_once("\n\n").unwrap();
        let text = format!("{tags}\n\n{}", movetext.replacen('\n', " ", 1));
        assert_eq!(
            text,
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"A\"]\n[Black \"?\"]\n[Result \"1-0\"]\n\n{Game number 3} {score: 12} 1. e4 $1 {best} (1. d4 d5 (1... Nf6)) 1... e5 {hello} {CQL} 2. Qh5 1-0\n\n"
        );
        // `quiet` (CQL 6.2): the query's comments stay, the marks go.
        let quiet = PgnStyle { quiet: true, ..PgnStyle::default() };
        let text = render(&quiet, &g, &m);
        assert!(!text.contains("{CQL}") && text.contains("{hello}") && text.contains("Game number"), "{text}");
        // `silent`: none of the run's comments, the game's own ones kept.
        let silent = PgnStyle { silent: true, ..PgnStyle::default() };
        let text = render(&silent, &g, &m);
        assert!(!text.contains("{CQL}") && !text.contains("hello") && !text.contains("Game number"), "{text}");
        assert!(text.contains("{best}"), "{text}");
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
        assert!(
            text.starts_with(
                "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"B \\\"x\\\"\"]\n[Black \"?\"]\n[Result \"*\"]\n[Note \"n\"]\n\n{Game number 3} 1. e4 *"
            ),
            "{text}"
        );
    }

    /// Text that cannot break the PGN it is written into (issue 43): a tag name with a
    /// bracket, a quote or a space, and a rest-of-line comment that holds `}`.
    #[test]
    fn names_and_comments_cannot_break_the_pgn() {
        let g = game("[White \"A\"]\n\n1. e4 ; } d5 2. exd5 {\ne5 *\n");
        let m = GameMatch {
            matched: true,
            set_tags: vec![("Bad\"] [X".into(), "v".into()), (String::new(), "w".into())],
            ..Default::default()
        };
        let text = render(&PgnStyle::default(), &g, &m);
        assert!(text.contains("[Bad____X \"v\"]\n[_ \"w\"]\n"), "{text}");
        assert!(text.contains("1. e4 ;} d5 2. exd5 {\n1... e5 *"), "{text}");
    }

    /// The tag order CQL 6.2 writes (checked on the reference binary): the Seven Tag
    /// Roster, the first rating of White and of Black, ECO, EventDate, the other tags in
    /// the game's order, FEN last; the Result tag is the result the movetext ends with.
    #[test]
    fn tags_are_written_in_the_export_order() {
        let g = game(
            "[FEN \"7k/8/6KQ/8/8/8/8/8 w - - 0 1\"]\n[Black \"B\"]\n[Foo \"bar\"]\n[ECO \"C20\"]\n[BlackElo \"1500\"]\n\
             [WhiteUSCF \"1900\"]\n[WhiteElo \"2000\"]\n[Result \"0-1\"]\n[EventDate \"2001.02.03\"]\n[Site \"\"]\n[SetUp \"1\"]\n\n1. Qg7# 1-0\n",
        );
        let text = render(&PgnStyle::default(), &g, &GameMatch { matched: true, ..Default::default() });
        let (tags, _) = text.split_once("\n\n").unwrap();
        assert_eq!(
            tags,
            "[Event \"?\"]\n[Site \"\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\
             [WhiteUSCF \"1900\"]\n[BlackElo \"1500\"]\n[ECO \"C20\"]\n[EventDate \"2001.02.03\"]\n[Foo \"bar\"]\n[WhiteElo \"2000\"]\n\
             [SetUp \"1\"]\n[FEN \"7k/8/6KQ/8/8/8/8/8 w - - 0 1\"]"
        );
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
        let line = json_line(&g, &m, &raw, &[(crate::eval::SortValue::Number(5), true)], Some(b"pgn text"));
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
        let s = Summary {
            matched: 2,
            read: 10,
            unmatched: 7,
            skipped: 1,
            seconds: 0.5,
            threads: 2,
            output: None,
            abandoned: 0,
            partly_read: 0,
            passed_over: 0,
        };
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
            abandoned: 0,
            partly_read: 0,
            passed_over: 0,
            seconds: 0.5,
            threads: 2,
            output: Some("o.pgn".into()),
        };
        assert_eq!(s.line(), "2 matches of 10 games (7 unmatched, 1 skipped) in 0.50 s using 2 threads to o.pgn");
        // Games `-gamenumber` leaves out are counted apart from the unmatched ones.
        let ranged = Summary { read: 14, passed_over: 4, ..s.clone() };
        assert!(ranged.line().contains("(7 unmatched, 1 skipped, 4 outside -gamenumber)"), "{}", ranged.line());
        let partly = Summary { partly_read: 2, ..s.clone() };
        assert_eq!(
            partly.line(),
            "2 matches of 10 games (7 unmatched, 1 skipped) in 0.50 s using 2 threads to o.pgn; \
             2 games read only up to an unplayable move"
        );
        let one = Summary { matched: 1, read: 1, threads: 1, ..Summary::default() };
        let lost = Summary { read: 3, unmatched: 1, skipped: 1, abandoned: 1, threads: 1, ..Summary::default() };
        assert!(lost.line().starts_with("0 matches of 3 games (1 unmatched, 1 skipped, 1 abandoned) in"));
        assert_eq!(one.line(), "1 match of 1 game (0 unmatched, 0 skipped) in 0.00 s using 1 thread");
    }

    #[test]
    fn a_file_sink_replaces_the_destination_only_on_commit() {
        let dir = std::env::temp_dir().join(format!("cqlrs-sink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dest = dir.join("out.pgn");
        std::fs::write(&dest, "old").unwrap();
        let path = dest.to_string_lossy().into_owned();
        let mut sink = Sink::create(&path).unwrap();
        sink.write(b"new").unwrap();
        sink.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "old");
        drop(sink);
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "old");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "a temporary file was left behind");
        let mut sink = Sink::create(&path).unwrap();
        sink.write(b"new").unwrap();
        sink.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
        let mut null = Sink::create("/dev/null").unwrap();
        null.write(b"x").unwrap();
        null.commit().unwrap();
    }

    #[test]
    fn latin1_output_fits_or_fails_naming_the_character() {
        assert_eq!(to_latin1("Réti café\n".as_bytes()).unwrap(), b"R\xe9ti caf\xe9\n");
        let e = to_latin1("a\n{5 €}".as_bytes()).unwrap_err();
        assert!(e.to_string().contains("U+20AC") && e.to_string().contains("{5 €}"), "{e}");
        assert_eq!(OutputEncoding::from_name("Latin-1"), Some(OutputEncoding::Latin1));
        assert_eq!(OutputEncoding::from_name("cp437"), None);
    }
}
