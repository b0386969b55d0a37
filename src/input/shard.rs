//! Cutting a list of input files into byte-range shards that own whole games.
//!
//! Takes in: input paths, and either `K/N` (shard K of N near-equal byte ranges) or an
//! explicit byte range `START-END`; both count bytes over the concatenation of the files
//! in the order given (the first byte of the second file comes right after the last byte
//! of the first).
//! Gives out: a [`Plan`]: the [`Source`]s (file byte ranges) to read, and the number of
//! the first game, so that the shards of one split read every game of the input exactly
//! once, with the same game numbers a single run gives.
//! Must never: read a file whole to plan (only small windows around the cut points are
//! read), or cut a game in two.
//!
//! # Which shard owns a game
//! A *sync point* is the start of a line that looks exactly like a tag pair
//! (`[Name "value"]`), comes right after a blank line, and whose nearest earlier
//! non-blank line is movetext (its first non-blank byte is not `[`, and it is not a `%`
//! escape line) — or there is no earlier non-blank line at all. The game splitter in
//! [`super`] starts a new game at every sync point, whatever state it is in: after
//! movetext a tag line always starts a game, and inside an unterminated `{` comment a
//! blank line followed by a tag pair does too. So a sync point can be found by looking
//! only at the bytes around it, and a splitter started there sees the same games as one
//! that read the file from its first byte.
//!
//! A byte range `[s, e)` of a plain file owns the games that begin in
//! `[sync(s), sync(e))`, where `sync(x)` is the first sync point at or after `x` (byte 0
//! for `x = 0`, the file's length when there is none). Consecutive ranges meet at the same
//! sync point, so every game belongs to exactly one of them; a game that begins between a
//! cut and the next sync point (a header-only game, a game whose tags follow the previous
//! movetext without a blank line, damage) belongs to the range before the cut.
//!
//! A compressed file (gzip, zstd, bzip2) cannot be entered in the middle: it is owned
//! whole by the range that holds its first byte, and the other shards skip it. A
//! warning says so.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use super::{is_blank, looks_like_tag_pair, Compression, Error, Games, Source};

/// How far back from a candidate line the bytes are examined to decide whether it is a
/// sync point; a candidate whose earlier context needs more is not one.
const LOOK_BACK_LIMIT: u64 = 1 << 20;
/// A candidate tag line longer than this is not a sync point.
const TAG_LINE_LIMIT: usize = 64 * 1024;

/// A half-open byte range `[start, end)` over the concatenation of the input files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteRange {
    /// First byte of the range.
    pub start: u64,
    /// One past the last byte (`u64::MAX` = to the end of the input).
    pub end: u64,
}

impl ByteRange {
    /// Shard `k` (1-based) of `n` near-equal ranges of `total` bytes.
    pub fn shard(k: u64, n: u64, total: u64) -> ByteRange {
        let cut = |i: u64| ((total as u128 * i as u128) / n.max(1) as u128) as u64;
        ByteRange { start: cut(k - 1), end: cut(k) }
    }
}

/// Parse `K/N` (1 ≤ K ≤ N).
pub fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("expected K/N with 1 <= K <= N, found `{text}`");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let k: u64 = k.trim().parse().map_err(|_| bad())?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Parse `START-END` (bytes, END exclusive; `START-` runs to the end of the input).
pub fn parse_byte_range(text: &str) -> Result<ByteRange, String> {
    let bad = || format!("expected START-END byte offsets with START <= END, found `{text}`");
    let (a, b) = text.split_once('-').ok_or_else(bad)?;
    let start: u64 = a.trim().parse().map_err(|_| bad())?;
    let end: u64 = if b.trim().is_empty() { u64::MAX } else { b.trim().parse().map_err(|_| bad())? };
    if start > end {
        return Err(bad());
    }
    Ok(ByteRange { start, end })
}

/// An input file as the planner sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    /// The path.
    pub path: String,
    /// Its size in bytes, as stored.
    pub len: u64,
    /// Compressed (cannot be split).
    pub compressed: bool,
}

/// Look at the input files: sizes and compression. Standard input cannot be split.
pub fn inspect(paths: &[String]) -> Result<Vec<InputFile>, Error> {
    paths
        .iter()
        .map(|path| {
            if path == "-" {
                return Err(Error::new(
                    path,
                    io::Error::new(io::ErrorKind::InvalidInput, "standard input cannot be split into shards"),
                ));
            }
            let mut file = File::open(path).map_err(|e| Error::new(path, e))?;
            let len = file.metadata().map_err(|e| Error::new(path, e))?.len();
            let mut head = [0u8; 4];
            let mut have = 0;
            while have < head.len() {
                match file.read(&mut head[have..]) {
                    Ok(0) => break,
                    Ok(n) => have += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(Error::new(path, e)),
                }
            }
            let compressed = Compression::sniff(&head[..have]) != Compression::Plain;
            Ok(InputFile { path: path.clone(), len, compressed })
        })
        .collect()
}

/// One file's share of a byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Position of the file in the input list, from 0.
    pub index: usize,
    /// What to read: a byte range of a plain file (from sync point to sync point) or a
    /// whole compressed file.
    pub source: Source,
}

/// What one shard reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The range over the concatenated inputs.
    pub range: ByteRange,
    /// Total size of the inputs in bytes.
    pub total: u64,
    /// The file parts that may hold games of this range, in input order.
    pub parts: Vec<Part>,
    /// Bytes of input this shard reads (file bytes as stored).
    pub bytes: u64,
    /// Warnings for the user (compressed files that are not split).
    pub warnings: Vec<String>,
}

/// Plan the reading of `range` over `files`.
pub fn plan(files: &[InputFile], range: ByteRange) -> Result<Plan, Error> {
    let total: u64 = files.iter().map(|f| f.len).sum();
    let mut parts = Vec::new();
    let mut warnings = Vec::new();
    let mut bytes = 0;
    let mut at = 0u64;
    for (index, f) in files.iter().enumerate() {
        let (file_start, file_end) = (at, at + f.len);
        at = file_end;
        if f.compressed {
            let owned = f.len > 0 && range.start <= file_start && file_start < range.end;
            let whole_run = range.start == 0 && range.end >= total;
            if !whole_run {
                warnings.push(format!(
                    "{}: compressed input cannot be split; it is read whole by the shard holding its first byte ({})",
                    f.path,
                    if owned { "this one" } else { "not this one" }
                ));
            }
            if owned {
                bytes += f.len;
                parts.push(Part { index, source: Source::whole(f.path.clone()) });
            }
            continue;
        }
        let lo = range.start.max(file_start);
        let hi = range.end.min(file_end);
        if lo >= hi {
            continue;
        }
        let (p, q) = sync_pair(&f.path, f.len, lo - file_start, hi - file_start)?;
        if p < q {
            bytes += q - p;
            parts.push(Part {
                index,
                source: Source { path: f.path.clone(), range: Some((p, q)), games_before: 0, lines_before: 0 },
            });
        }
    }
    Ok(Plan { range, total, parts, bytes, warnings })
}

fn sync_pair(path: &str, len: u64, lo: u64, hi: u64) -> Result<(u64, u64), Error> {
    let p = sync_point(path, len, lo).map_err(|e| Error::new(path, e))?;
    let q = sync_point(path, len, hi).map_err(|e| Error::new(path, e))?;
    Ok((p, q.max(p)))
}

/// The first sync point (see the module docs) at or after byte `x` of the plain file
/// `path` of length `len`: 0 for `x = 0`, `len` when there is none.
pub fn sync_point(path: &str, len: u64, x: u64) -> io::Result<u64> {
    if x == 0 {
        return Ok(0);
    }
    if x >= len {
        return Ok(len);
    }
    let mut back = File::open(path)?;
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(x - 1))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    // Find the first line start at or after x.
    let mut pos = x - 1;
    let mut line = Vec::new();
    let (n, _) = read_line_capped(&mut reader, 0, &mut line)?;
    pos += n;
    while pos < len {
        line.clear();
        let (n, whole) = read_line_capped(&mut reader, TAG_LINE_LIMIT, &mut line)?;
        if n == 0 {
            break;
        }
        if whole {
            if let Some(first) = line.iter().position(|&b| !is_blank(b)) {
                if line[first] == b'[' && looks_like_tag_pair(&line[first..]) && certain_start(&mut back, pos)? {
                    return Ok(pos);
                }
            }
        }
        pos += n;
    }
    Ok(len)
}

/// Read one line (through `\n` or to the end of the input), keeping at most `cap` bytes
/// of it in `out`; return its length and whether it was kept whole.
fn read_line_capped(reader: &mut impl BufRead, cap: usize, out: &mut Vec<u8>) -> io::Result<(u64, bool)> {
    let mut total = 0u64;
    let mut whole = true;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((total, whole));
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if whole && out.len() + take <= cap {
            out.extend_from_slice(&buf[..take]);
        } else {
            whole = false;
        }
        reader.consume(take);
        total += take as u64;
        if done {
            return Ok((total, whole));
        }
    }
}

/// Is the line starting at `p` (which looks like a tag pair) a sync point? Its previous
/// line must be blank and the nearest non-blank line before that must be movetext, or
/// absent.
fn certain_start(file: &mut File, p: u64) -> io::Result<bool> {
    if p == 0 {
        return Ok(true);
    }
    let mut window = 8 * 1024u64;
    loop {
        let from = p.saturating_sub(window);
        let mut bytes = vec![0u8; (p - from) as usize];
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(&mut bytes)?;
        match judge_context(&bytes, from == 0) {
            Some(verdict) => return Ok(verdict),
            None if window >= LOOK_BACK_LIMIT || from == 0 => return Ok(false),
            None => window = (window * 8).min(LOOK_BACK_LIMIT),
        }
    }
}

/// Decide from the bytes just before a candidate line (`bytes` ends with the `\n` that
/// ends the previous line; `at_file_start`: they begin at byte 0). `None`: not enough
/// bytes to tell.
fn judge_context(bytes: &[u8], at_file_start: bool) -> Option<bool> {
    let mut end = bytes.len();
    if end == 0 || bytes[end - 1] != b'\n' {
        return Some(false);
    }
    end -= 1;
    let mut lines_seen = 0;
    loop {
        // The line is bytes[start..end] (without its `\n`).
        let start = match memchr::memrchr(b'\n', &bytes[..end]) {
            Some(i) => i + 1,
            None if at_file_start => 0,
            None => return None,
        };
        let line = &bytes[start..end];
        match line.iter().position(|&b| !is_blank(b)) {
            None => {
                if start == 0 {
                    // Nothing but blank lines before the candidate (only possible at the
                    // file's start): it begins the file's first game.
                    return Some(true);
                }
                lines_seen += 1;
                end = start - 1;
            }
            Some(first) => {
                if lines_seen == 0 {
                    // The line right before the candidate is not blank.
                    return Some(false);
                }
                let escape = first == 0 && line[0] == b'%';
                return Some(line[first] != b'[' && !escape);
            }
        }
    }
}

/// Count the games that come before the first part of `plan` over `files`, and the
/// lines of that part's file before it: what `--games-before` would be told. Reads
/// everything before the range (the cost of not being told).
pub fn count_before(files: &[InputFile], plan: &Plan) -> Result<(u64, u64, u64), Error> {
    let Some(first) = plan.parts.first() else { return Ok((0, 0, 0)) };
    let mut sources: Vec<Source> = files[..first.index].iter().map(|f| Source::whole(f.path.clone())).collect();
    let before = match first.source.range {
        Some((p, _)) if p > 0 => Some(p),
        _ => None,
    };
    let mut total = 0;
    for item in Games::from_sources(std::mem::take(&mut sources), 1) {
        item?;
        total += 1;
    }
    let (mut in_file, mut lines) = (0, 0);
    if let Some(p) = before {
        let reader = open_range(&first.source.path, 0, p)?;
        let mut splitter = super::Splitter::new(reader, first.source.path.as_str().into(), 1);
        for item in &mut splitter {
            item?;
            in_file += 1;
        }
        lines = splitter.lines_read;
    }
    Ok((total + in_file, in_file, lines))
}

/// A reader over bytes `[start, end)` of a plain file.
pub fn open_range(path: &str, start: u64, end: u64) -> Result<Box<dyn BufRead + Send>, Error> {
    let mut file = File::open(path).map_err(|e| Error::new(path, e))?;
    file.seek(SeekFrom::Start(start)).map_err(|e| Error::new(path, e))?;
    Ok(Box::new(BufReader::with_capacity(256 * 1024, file.take(end.saturating_sub(start)))))
}

/// The bytes of the game that begins at byte `offset` of `path` (of the decompressed
/// stream for a compressed file), as the game splitter cuts it; `None` when no game
/// begins there. The offset is trusted to be one a locator gave: only offsets that are
/// not at the start of a line, or hold no game, are refused.
pub fn extract(path: &str, offset: u64) -> Result<Option<Vec<u8>>, Error> {
    let files = inspect(&[path.to_string()])?;
    // Read from the byte before the offset, to see that the offset starts a line.
    let from = offset.saturating_sub(1);
    let mut reader: Box<dyn BufRead + Send> = if files[0].compressed {
        let mut reader = super::open(path)?;
        let skipped = io::copy(&mut (&mut reader).take(from), &mut io::sink()).map_err(|e| Error::new(path, e))?;
        if skipped < from {
            return Ok(None);
        }
        reader
    } else {
        if offset >= files[0].len {
            return Ok(None);
        }
        open_range(path, from, files[0].len)?
    };
    if offset > 0 {
        let mut before = [0u8; 1];
        if reader.read_exact(&mut before).is_err() || before[0] != b'\n' {
            return Ok(None);
        }
    }
    let mut splitter = super::Splitter::new(reader, path.into(), 1).starting_at(offset, 0, 0);
    match splitter.next() {
        Some(Ok(game)) if game.offset == offset => Ok(Some(game.bytes)),
        Some(Err(e)) => Err(e),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Splitter;
    use std::sync::Arc;

    fn temp(name: &str, text: &[u8]) -> String {
        let dir = std::env::temp_dir().join(format!("cqlrs-shard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    fn all_games(text: &[u8]) -> Vec<(u64, Vec<u8>)> {
        Splitter::new(io::Cursor::new(text.to_vec()), Arc::from("t"), 1)
            .map(|g| g.unwrap())
            .map(|g| (g.offset, g.bytes))
            .collect()
    }

    #[test]
    fn parses_shard_and_range_arguments() {
        assert_eq!(parse_shard("2/5"), Ok((2, 5)));
        assert!(parse_shard("0/5").is_err() && parse_shard("6/5").is_err() && parse_shard("x").is_err());
        assert_eq!(parse_byte_range("10-20"), Ok(ByteRange { start: 10, end: 20 }));
        assert_eq!(parse_byte_range("10-"), Ok(ByteRange { start: 10, end: u64::MAX }));
        assert!(parse_byte_range("20-10").is_err());
    }

    #[test]
    fn shard_ranges_tile_the_input() {
        for n in 1..9 {
            let ranges: Vec<ByteRange> = (1..=n).map(|k| ByteRange::shard(k, n, 1000)).collect();
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges[n as usize - 1].end, 1000);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
        }
    }

    #[test]
    fn judges_the_context_of_a_candidate() {
        assert_eq!(judge_context(b"1. e4 e5 *\n\n", true), Some(true));
        assert_eq!(judge_context(b"1. e4 e5 *\n", true), Some(false), "no blank line");
        assert_eq!(judge_context(b"[Event \"x\"]\n\n", true), Some(false), "blank line inside a tag section");
        assert_eq!(judge_context(b"%escape\n\n", true), Some(false));
        assert_eq!(judge_context(b"\n\n", true), Some(true));
        assert_eq!(judge_context(b"e4 *\n\n", false), None, "start of the line not seen");
    }

    #[test]
    fn sync_points_are_game_starts() {
        let text =
            b"[Event \"a\"]\n\n1. e4 {open\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n[Site \"x\"]\n1. c4 *\n";
        let path = temp("sync.pgn", text);
        let starts: Vec<u64> = all_games(text).iter().map(|g| g.0).collect();
        for x in 0..=text.len() as u64 {
            let s = sync_point(&path, text.len() as u64, x).unwrap();
            assert!(s >= x);
            assert!(s == text.len() as u64 || starts.contains(&s), "x={x} s={s}");
        }
    }

    #[test]
    fn extract_returns_the_game_at_an_offset() {
        let text = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n";
        let path = temp("extract.pgn", text);
        let games = all_games(text);
        for (offset, bytes) in &games {
            assert_eq!(extract(&path, *offset).unwrap().as_ref(), Some(bytes));
        }
        assert_eq!(extract(&path, 3).unwrap(), None);
        assert_eq!(extract(&path, 10_000).unwrap(), None);
    }
}
