//! A persistent index of PGN archives (`.cqlx`): where each game is, its tags and the
//! facts of its replay, so that a query reads only the games it cannot rule out.
//!
//! Takes in: PGN files (plain, gzip, zstd, bzip2) to build from; a compiled query to
//! answer.
//! Gives out: the index file ([`build`], [`update`]); for a query, a [`GameFeed`] of the
//! games it could match, read back through their locations, with the games it passed
//! over counted ([`Index::feed`]). The scan ([`crate::scan::run_feed`]) does the rest,
//! exactly as over the sources.
//! Must never: give an answer that differs from a scan of the sources. A game is passed
//! over only when the facts prove the query false on it ([`prune`]); a source that has
//! changed since the build is refused ([`Error::Changed`]); a damaged index is refused
//! ([`Error::Damaged`]), never read half.
//!
//! See docs/index.md for the design and the numbers.
//!
//! [`GameFeed`]: crate::scan::GameFeed

use std::sync::Arc;

pub mod facts;
pub mod feed;
pub mod format;
pub mod prune;

use crate::input::{RawGame, Source};
use crate::pgn::Game;
use crate::scan::{Evaluator, ScanConfig, ScanEvents};
use facts::GameRecord;

/// Bytes of a source covered by one block checksum.
pub const BLOCK_BYTES: u64 = 16 << 10;

/// What went wrong with an index: one error type for this layer.
#[derive(Debug)]
pub enum Error {
    /// The file could not be read or written.
    Io(String, std::io::Error),
    /// The file does not begin with the index magic.
    NotAnIndex,
    /// The file is an index of another format version.
    Version(u32),
    /// The file is cut short or damaged: what is wrong.
    Damaged(String),
    /// A source has changed (or gone) since the index was built: its path and how.
    Changed(String, String),
    /// The build could not be finished: why.
    Build(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const HINT: &str = "build it again with `cqlrs index -o NAME.cqlx INPUT...`";
        match self {
            Error::Io(path, e) => write!(f, "{path}: {e}"),
            Error::NotAnIndex => write!(f, "this is not a cqlrs index (no `CQLRSIDX` at its start); {HINT}"),
            Error::Version(v) => write!(
                f,
                "the index has format version {v}, this cqlrs reads version {}; {HINT}",
                format::FORMAT_VERSION
            ),
            Error::Damaged(what) => write!(f, "the index is damaged: {what}; {HINT}"),
            Error::Changed(path, how) => {
                write!(f, "the indexed source `{path}` has changed since the index was built ({how}); {HINT}")
            }
            Error::Build(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for Error {}

/// One indexed source file as it was when the index was built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceInfo {
    /// The path as it was given (games read from it name it so in messages and JSON).
    pub path: String,
    /// The absolute path it was opened at.
    pub absolute: String,
    /// Its size in bytes (as stored: compressed bytes for a compressed file).
    pub size: u64,
    /// Its modification time: seconds since 1970 and nanoseconds.
    pub mtime_secs: i64,
    /// The nanoseconds of the modification time.
    pub mtime_nanos: u32,
    /// Is it gzip, zstd or bzip2 compressed?
    pub compressed: bool,
    /// Bytes per checksum block ([`BLOCK_BYTES`]).
    pub block: u64,
    /// CRC-32 of each block of the file as stored.
    pub blocks: Vec<u32>,
    /// Games it holds.
    pub games: u64,
    /// Bytes of its largest game (a search with a smaller `--max-game-bytes` scans).
    pub largest_game: u64,
}

fn mtime(meta: &std::fs::Metadata) -> (i64, u32) {
    match meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()) {
        Some(d) => (d.as_secs() as i64, d.subsec_nanos()),
        None => (0, 0),
    }
}

impl SourceInfo {
    /// Describe a source file now: size, time, block checksums.
    fn describe(path: &str) -> Result<SourceInfo, Error> {
        use std::io::Read;
        let io = |e| Error::Io(path.to_string(), e);
        let absolute = std::fs::canonicalize(path).map_err(io)?;
        let mut file = std::fs::File::open(&absolute).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(Error::Build(format!("{path}: only regular files can be indexed")));
        }
        let (mtime_secs, mtime_nanos) = mtime(&meta);
        let mut blocks = Vec::new();
        let mut buf = vec![0u8; BLOCK_BYTES as usize];
        let mut head = Vec::new();
        loop {
            let mut got = 0;
            while got < buf.len() {
                let n = file.read(&mut buf[got..]).map_err(io)?;
                if n == 0 {
                    break;
                }
                got += n;
            }
            if got == 0 {
                break;
            }
            if head.is_empty() {
                head = buf[..got.min(8)].to_vec();
            }
            blocks.push(crc32fast::hash(&buf[..got]));
            if got < buf.len() {
                break;
            }
        }
        let compressed = crate::input::Compression::sniff(&head) != crate::input::Compression::Plain;
        Ok(SourceInfo {
            path: path.to_string(),
            absolute: absolute.to_string_lossy().into_owned(),
            size: meta.len(),
            mtime_secs,
            mtime_nanos,
            compressed,
            block: BLOCK_BYTES,
            blocks,
            games: 0,
            largest_game: 0,
        })
    }

    /// Is the file still as it was? Size and time are compared (the block checksums are
    /// compared as blocks are read, see [`feed`]).
    pub fn check(&self) -> Result<(), Error> {
        let meta = std::fs::metadata(&self.absolute)
            .map_err(|e| Error::Changed(self.path.clone(), format!("it cannot be opened: {e}")))?;
        if meta.len() != self.size {
            return Err(Error::Changed(
                self.path.clone(),
                format!("its size is {} bytes, it was {}", meta.len(), self.size),
            ));
        }
        if mtime(&meta) != (self.mtime_secs, self.mtime_nanos) {
            return Err(Error::Changed(self.path.clone(), "its modification time differs".into()));
        }
        Ok(())
    }
}

/// The index builder as the scan sees it: every game is replayed (no query), and its
/// facts are recorded in the worker's scratch as the scan accounts for it.
struct Builder {
    /// Source index by path.
    sources: rustc_hash::FxHashMap<Arc<str>, u32>,
    /// The largest game the scan keeps.
    max_game_bytes: usize,
}

/// A build worker's records, and the parser it reads headers with.
#[derive(Default)]
struct BuildScratch {
    records: Vec<GameRecord>,
    parser: crate::pgn::GameParser,
    header: Game,
}

impl Evaluator for Builder {
    type Scratch = BuildScratch;
    fn wants_moves(&self, _scratch: &Self::Scratch, _game: &Game) -> bool {
        true
    }
    fn eval_game(&self, _scratch: &mut Self::Scratch, _game: &Game) -> crate::eval::GameMatch {
        crate::eval::GameMatch::default()
    }
    fn observe(&self, scratch: &mut Self::Scratch, raw: &RawGame, game: Option<&Game>) {
        let source = self.sources.get(&raw.file).copied().unwrap_or(u32::MAX);
        let record = match game {
            Some(game) => {
                let mut r = facts::of_game(raw, source, game);
                // The termination marker as a search reads it before the moves (the last
                // token of the game), which is what its header tests see; reading the
                // moves can find another marker among them. When the game ends with the
                // marker the moves gave, standing alone, it is that one.
                let marker = game.termination.as_deref();
                if !marker.is_some_and(|t| ends_with_token(&raw.bytes, t))
                    && scratch.parser.parse_with(raw, &mut scratch.header, &|_| false, false).is_ok()
                {
                    facts::set_termination(&mut r, scratch.header.termination.as_deref());
                }
                r
            }
            None => {
                let mut r = facts::unread(raw, source, raw.bytes.is_empty() && self.max_game_bytes < usize::MAX);
                // What a search that reads no moves sees of it: its tags, when they can be read.
                if !raw.bytes.is_empty()
                    && scratch.parser.parse_with(raw, &mut scratch.header, &|_| false, false).is_ok()
                {
                    r.tags = scratch.header.tags.iter().map(|t| (t.name.clone(), t.value.clone())).collect();
                    facts::set_termination(&mut r, scratch.header.termination.as_deref());
                    r.flags |= facts::TAGS_READ;
                }
                r
            }
        };
        scratch.records.push(record);
    }
}

/// Do `bytes` end with the token `token` (after blanks), a blank before it?
fn ends_with_token(bytes: &[u8], token: &str) -> bool {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let end = bytes.iter().rposition(|b| !blank(b)).map_or(0, |k| k + 1);
    let body = &bytes[..end];
    body.len() > token.len() && body.ends_with(token.as_bytes()) && blank(&body[body.len() - token.len() - 1])
}

/// Files to index: the files given, and the PGN files (`.pgn`, `.gz`, `.zst`, `.bz2`)
/// inside folders given, in name order.
pub fn expand_inputs(inputs: &[String]) -> Result<Vec<String>, Error> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) -> Result<(), Error> {
        let shown = dir.to_string_lossy().into_owned();
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| Error::Io(shown.clone(), e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else {
                let name = p.to_string_lossy().to_ascii_lowercase();
                if [".pgn", ".gz", ".zst", ".bz2"].iter().any(|x| name.ends_with(x)) {
                    out.push(p.to_string_lossy().into_owned());
                }
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for i in inputs {
        let p = std::path::Path::new(i);
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(i.clone());
        }
    }
    Ok(out)
}

/// What a build found: games, how many were skipped, and the file's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Built {
    /// Games indexed.
    pub games: u64,
    /// Games the scan would skip (unreadable), as it counts them.
    pub skipped: u64,
    /// Games read only in part.
    pub partly_read: u64,
    /// Bytes of the index file.
    pub bytes: u64,
}

/// Read `paths` in one pass of the scan (`threads` workers) and give their records,
/// numbered from `first_number`.
fn read_sources(
    paths: &[String],
    first_number: u64,
    threads: usize,
    events: &dyn ScanEvents,
) -> Result<(Vec<SourceInfo>, Vec<GameRecord>), Error> {
    let mut infos = Vec::new();
    for p in paths {
        if p == "-" {
            return Err(Error::Build("standard input cannot be indexed: its games cannot be read again".into()));
        }
        infos.push(SourceInfo::describe(p)?);
    }
    let builder = Builder {
        sources: paths.iter().enumerate().map(|(i, p)| (Arc::from(p.as_str()), i as u32)).collect(),
        max_game_bytes: crate::scan::MAX_GAME_BYTES,
    };
    let mut config = ScanConfig::new();
    config.threads = threads.max(1);
    config.in_flight = 4 * config.threads + 4;
    let mut sink = crate::output::Sink::from_writer(Box::new(std::io::sink()));
    let outcome = crate::scan::run_sources(
        &builder,
        paths.iter().map(Source::whole).collect(),
        first_number,
        &config,
        crate::scan::Output::new(crate::output::Format::Count, &mut sink),
        None,
        events,
    );
    if outcome.input_errors > 0 {
        return Err(Error::Build(format!(
            "{} input file(s) could not be read to their end (see above); nothing was written",
            outcome.input_errors
        )));
    }
    if outcome.interrupted != 0 {
        return Err(Error::Build("interrupted; nothing was written".into()));
    }
    let mut records: Vec<GameRecord> = outcome.scratches.into_iter().flat_map(|s| s.records).collect();
    records.sort_unstable_by_key(|r| r.number);
    if records.len() as u64 != outcome.read || records.iter().any(|r| r.source == u32::MAX) {
        return Err(Error::Build("the build lost count of games; nothing was written".into()));
    }
    for r in &records {
        let info = &mut infos[r.source as usize];
        info.games += 1;
        info.largest_game = info.largest_game.max(r.len);
    }
    Ok((infos, records))
}

/// Write `bytes` to `path` through a temporary file beside it, so that a reader never
/// sees half an index.
fn write_file(path: &str, bytes: &[u8]) -> Result<(), Error> {
    let tmp = format!("{path}.tmp-{}", std::process::id());
    std::fs::write(&tmp, bytes).map_err(|e| Error::Io(tmp.clone(), e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::Io(path.to_string(), e)
    })
}

fn built_of(records: &[GameRecord], bytes: usize) -> Built {
    Built {
        games: records.len() as u64,
        skipped: records.iter().filter(|r| r.flags & facts::SKIPPED != 0).count() as u64,
        partly_read: records.iter().filter(|r| r.flags & facts::PARTLY_READ != 0).count() as u64,
        bytes: bytes as u64,
    }
}

/// Build the index of `inputs` (files, or folders of PGN files) into `output`.
pub fn build(output: &str, inputs: &[String], threads: usize, events: &dyn ScanEvents) -> Result<Built, Error> {
    let paths = expand_inputs(inputs)?;
    if paths.is_empty() {
        return Err(Error::Build("no input files to index".into()));
    }
    let (infos, records) = read_sources(&paths, 1, threads, events)?;
    let bytes = format::encode(&infos, &records)?;
    write_file(output, &bytes)?;
    Ok(built_of(&records, bytes.len()))
}

/// Add the games of `inputs` to the index `path` (a new monthly file, say): the indexed
/// sources are checked unchanged, the new ones read, and the index written again. The
/// new games are numbered after the indexed ones.
pub fn update(path: &str, inputs: &[String], threads: usize, events: &dyn ScanEvents) -> Result<Built, Error> {
    let index = Index::open(path)?;
    index.check_sources()?;
    let mut records = format::decode_all(&index.file, &index.sources)?;
    let paths = expand_inputs(inputs)?;
    for p in &paths {
        if index.sources.iter().any(|s| &s.path == p) {
            return Err(Error::Build(format!("{p}: this file is already in the index")));
        }
    }
    let (new_infos, mut new_records) = read_sources(&paths, records.len() as u64 + 1, threads, events)?;
    let base = index.sources.len() as u32;
    for r in &mut new_records {
        r.source += base;
    }
    let mut infos = index.sources.clone();
    infos.extend(new_infos);
    records.append(&mut new_records);
    let bytes = format::encode(&infos, &records)?;
    write_file(path, &bytes)?;
    Ok(built_of(&records, bytes.len()))
}

/// An index file opened for answering: its sources; every other section is read when a
/// query needs it.
pub struct Index {
    /// The file's path.
    pub path: String,
    /// The indexed sources, in order.
    pub sources: Vec<SourceInfo>,
    /// Games in all.
    pub games: u64,
    file: format::IndexFile,
}

impl Index {
    /// Open and check an index file (magic, version, length, table of sections, the
    /// sources section).
    pub fn open(path: &str) -> Result<Index, Error> {
        let file = format::IndexFile::open(path)?;
        let sources = format::decode_sources(&file.get(format::SOURCES, 0)?)?;
        if sources.is_empty() {
            return Err(Error::Damaged("it names no source".into()));
        }
        let games = sources.iter().map(|s| s.games).sum();
        Ok(Index { path: path.to_string(), sources, games, file })
    }

    /// Check every source unchanged (size and modification time).
    pub fn check_sources(&self) -> Result<(), Error> {
        self.sources.iter().try_for_each(SourceInfo::check)
    }

    /// The paths of the sources, as they were given to the build.
    pub fn source_paths(&self) -> Vec<String> {
        self.sources.iter().map(|s| s.path.clone()).collect()
    }

    /// Every game record (tests, `--update`).
    pub fn records(&self) -> Result<Vec<GameRecord>, Error> {
        format::decode_all(&self.file, &self.sources)
    }
}
