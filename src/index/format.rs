//! The `.cqlx` file: a versioned, sectioned binary file whose sections are read one by
//! one, each only when a query needs it, and each checked as it is read.
//!
//! Takes in: the source descriptions and game records of a build.
//! Gives out: the file's bytes, and back from the file the sections a query needs
//! ([`IndexFile`]), read with positioned reads.
//! Must never: panic on a cut, damaged or foreign file (every read is bounds-checked
//! and reports [`Error::Damaged`]), use a byte of a section whose checksum it has not
//! checked, or trust a length it has not checked.
//!
//! Layout (all fixed-size integers little-endian):
//!
//! ```text
//! "CQLRSIDX"  magic, 8 bytes
//! u32         format version (FORMAT_VERSION)
//! u64         length of the whole file
//! u32         number of sections
//! u32         CRC-32 of the table of sections
//! table       per section (34 bytes): u8 kind, u32 sub-id, u64 offset, u64 stored length,
//!             u64 decoded length, u32 CRC-32 of the stored bytes, u8 codec (0 as is, 1 zstd)
//! sections    at their offsets
//! ```
//!
//! Sections (zstd-compressed streams of variable-length integers unless said otherwise,
//! one entry per game in game order):
//! * sources (as is): path, absolute path, size, time, block checksums, game count;
//! * locations, one per chunk of 4,096 games: per game the gap from the previous game's
//!   end, the length, the line step (from 0 at the start of each chunk and source);
//! * flags: the fact bits of [`super::facts`], then main-line plies, checks, captures and
//!   positions of the game tree;
//! * status: one byte per game, what a header-only answer needs besides the tags: the
//!   termination code (3 bits), unreadable, read in part, too large, large tree, tags read;
//! * tags: the tag names, then per name its distinct values, then per game its tags as
//!   (name, value) pairs of those tables (for queries that read every tag, and updates);
//! * tag names (as is): the names that have a column;
//! * tag values, one per name: the count of distinct values, their lengths, their bytes;
//! * tag column, one per name: the byte width w (1, 2 or 4), then per game w bytes: 0 when
//!   the game has no tag of that name, else 1 + the value of its first one;
//! * material: per game its mate and stalemate positions, the final main-line material,
//!   then (with its length, so it can be passed over) its distinct materials: the first
//!   whole or "standard start", each later one as unit changes from the one before.

use std::os::unix::fs::FileExt;

use super::facts::{Ending, GameRecord, Material, START_MATERIAL};
use super::{Error, SourceInfo};

/// The first bytes of every index file.
pub const MAGIC: &[u8; 8] = b"CQLRSIDX";
/// The version of the layout this build writes and reads.
pub const FORMAT_VERSION: u32 = 3;
/// Bytes of the fixed header before the table of sections.
const HEADER: usize = 8 + 4 + 8 + 4 + 4;
/// Bytes of one entry of the table of sections.
const ENTRY: usize = 1 + 4 + 8 + 8 + 8 + 4 + 1;

/// Section kinds.
pub(crate) const SOURCES: u8 = 1;
pub(crate) const LOCATIONS: u8 = 2;
pub(crate) const FLAGS: u8 = 3;
pub(crate) const TAGS: u8 = 4;
pub(crate) const MATERIAL: u8 = 5;
pub(crate) const STATUS: u8 = 6;
pub(crate) const TAG_NAMES: u8 = 7;
pub(crate) const TAG_VALUES: u8 = 8;
pub(crate) const TAG_COLUMN: u8 = 9;

/// Bits of the status section besides the termination code (bits 0–2).
pub(crate) const STATUS_SKIPPED: u8 = 1 << 3;
/// Read only in part.
pub(crate) const STATUS_PARTLY_READ: u8 = 1 << 4;
/// Too large to keep.
pub(crate) const STATUS_TOO_LARGE: u8 = 1 << 5;
/// Its tree has more positions than the smallest limit a search may set
/// ([`LARGE_TREE`]).
pub(crate) const STATUS_LARGE_TREE: u8 = 1 << 6;
/// An unreadable game whose tags could be read ([`super::facts::TAGS_READ`]).
pub(crate) const STATUS_TAGS_READ: u8 = 1 << 7;
/// Positions of a game tree above which a game is marked [`STATUS_LARGE_TREE`]: below the
/// least `max_game_positions` a search can have (1,000, `scan::positions_for_memory`).
pub(crate) const LARGE_TREE: u32 = 900;

/// Games per locations section.
pub(crate) const LOCATION_CHUNK: usize = 4096;

/// Largest decoded section accepted (a damaged length must not make us allocate wildly).
const MAX_SECTION: u64 = 4 << 30;

/// A growing byte buffer with variable-length integers.
#[derive(Default)]
pub(crate) struct Out(pub Vec<u8>);

impl Out {
    pub fn u(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    pub fn i(&mut self, v: i64) {
        self.u(((v << 1) ^ (v >> 63)) as u64);
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.u(b.len() as u64);
        self.0.extend_from_slice(b);
    }
}

/// A cursor over bytes that reports running off the end as damage.
pub(crate) struct In<'a> {
    bytes: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> In<'a> {
    pub fn new(bytes: &'a [u8], what: &'static str) -> In<'a> {
        In { bytes, pos: 0, what }
    }
    fn damaged(&self) -> Error {
        Error::Damaged(format!("the {} section ends early or holds a bad value", self.what))
    }
    pub fn byte(&mut self) -> Result<u8, Error> {
        let b = *self.bytes.get(self.pos).ok_or_else(|| self.damaged())?;
        self.pos += 1;
        Ok(b)
    }
    pub fn u(&mut self) -> Result<u64, Error> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(self.damaged())
    }
    /// A count that must be at most `max` (so that a damaged count cannot make a reader
    /// allocate more than the data can hold).
    pub fn count(&mut self, max: usize) -> Result<usize, Error> {
        let n = self.u()?;
        if n > max as u64 {
            return Err(self.damaged());
        }
        Ok(n as usize)
    }
    pub fn u32(&mut self) -> Result<u32, Error> {
        u32::try_from(self.u()?).map_err(|_| self.damaged())
    }
    pub fn i(&mut self) -> Result<i64, Error> {
        let v = self.u()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
    pub fn bytes(&mut self) -> Result<&'a [u8], Error> {
        let n = self.count(self.bytes.len())?;
        let end = self.pos.checked_add(n).filter(|e| *e <= self.bytes.len()).ok_or_else(|| self.damaged())?;
        let b = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(b)
    }
    pub fn fixed(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.bytes.len()).ok_or_else(|| self.damaged())?;
        let b = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(b)
    }
    pub fn string(&mut self) -> Result<String, Error> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| self.damaged())
    }
}

/// One entry of the table of sections.
#[derive(Clone, Copy, Debug)]
struct Entry {
    kind: u8,
    sub: u32,
    offset: u64,
    stored: u64,
    decoded: u64,
    crc: u32,
    zstd: bool,
}

/// An index file opened for reading: its header and table of sections checked, each
/// section read (with a positioned read), checked and decoded when asked for.
pub struct IndexFile {
    file: std::fs::File,
    entries: Vec<Entry>,
}

fn io_damage(e: std::io::Error) -> Error {
    Error::Damaged(format!("it cannot be read: {e}"))
}

impl IndexFile {
    /// Open `path` and check its magic, version, length and table of sections. Nothing
    /// else is read.
    pub fn open(path: &str) -> Result<IndexFile, Error> {
        let file = std::fs::File::open(path).map_err(|e| Error::Io(path.to_string(), e))?;
        let len = file.metadata().map_err(|e| Error::Io(path.to_string(), e))?.len();
        let mut head = [0u8; HEADER];
        let got = read_at_most(&file, &mut head, 0).map_err(|e| Error::Io(path.to_string(), e))?;
        if got < 8 || &head[..8] != MAGIC {
            return Err(Error::NotAnIndex);
        }
        if got < 12 {
            return Err(Error::Damaged("the file is cut short inside its header".into()));
        }
        let version = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Err(Error::Version(version));
        }
        if got < HEADER {
            return Err(Error::Damaged("the file is cut short inside its header".into()));
        }
        let total = u64::from_le_bytes(head[12..20].try_into().expect("8 bytes"));
        let count = u32::from_le_bytes(head[20..24].try_into().expect("4 bytes")) as u64;
        let crc = u32::from_le_bytes(head[24..28].try_into().expect("4 bytes"));
        if len < total {
            return Err(Error::Damaged(format!("the file is cut short: {len} of {total} bytes")));
        }
        if len > total {
            return Err(Error::Damaged("the file has bytes after its end".into()));
        }
        let table_end = (HEADER as u64).saturating_add(count.saturating_mul(ENTRY as u64));
        if table_end > total {
            return Err(Error::Damaged("its table of sections runs past its end".into()));
        }
        let mut table = vec![0u8; (count as usize) * ENTRY];
        file.read_exact_at(&mut table, HEADER as u64).map_err(io_damage)?;
        if crc32fast::hash(&table) != crc {
            return Err(Error::Damaged("the checksum of its table of sections does not match".into()));
        }
        let mut entries = Vec::with_capacity(count as usize);
        for e in table.chunks_exact(ENTRY) {
            let u64_at = |k: usize| u64::from_le_bytes(e[k..k + 8].try_into().expect("8 bytes"));
            let entry = Entry {
                kind: e[0],
                sub: u32::from_le_bytes(e[1..5].try_into().expect("4 bytes")),
                offset: u64_at(5),
                stored: u64_at(13),
                decoded: u64_at(21),
                crc: u32::from_le_bytes(e[29..33].try_into().expect("4 bytes")),
                zstd: e[33] != 0,
            };
            let end = entry.offset.checked_add(entry.stored);
            if entry.offset < table_end || end.is_none_or(|end| end > total) {
                return Err(Error::Damaged("a section lies outside the file".into()));
            }
            if entry.decoded > MAX_SECTION || (!entry.zstd && entry.decoded != entry.stored) {
                return Err(Error::Damaged("a section has an impossible length".into()));
            }
            entries.push(entry);
        }
        Ok(IndexFile { file, entries })
    }

    /// The decoded bytes of a section (empty when the file has none of that kind), read
    /// now and checked against its checksum.
    pub(crate) fn get(&self, kind: u8, sub: u32) -> Result<Vec<u8>, Error> {
        let Some(e) = self.entries.iter().find(|e| e.kind == kind && e.sub == sub) else {
            return Ok(Vec::new());
        };
        let size = usize::try_from(e.stored).map_err(|_| Error::Damaged("a section length".into()))?;
        let mut stored = vec![0u8; size];
        self.file.read_exact_at(&mut stored, e.offset).map_err(io_damage)?;
        if crc32fast::hash(&stored) != e.crc {
            return Err(Error::Damaged("the checksum of a section does not match its contents".into()));
        }
        if !e.zstd {
            return Ok(stored);
        }
        let out = zstd::bulk::decompress(&stored, e.decoded as usize)
            .map_err(|e| Error::Damaged(format!("a section cannot be decompressed: {e}")))?;
        if out.len() as u64 != e.decoded {
            return Err(Error::Damaged("a section decompresses to another length than recorded".into()));
        }
        Ok(out)
    }
}

/// Read up to `buf.len()` bytes at `at` (fewer only at the end of the file).
fn read_at_most(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// One section to write: kind, sub-id, its bytes, whether to compress them.
struct Part {
    kind: u8,
    sub: u32,
    raw: Vec<u8>,
    zstd: bool,
}

/// Put the sections together into a file's bytes.
fn assemble(parts: Vec<Part>) -> Result<Vec<u8>, Error> {
    let stored: Vec<Vec<u8>> = parts
        .iter()
        .map(|p| {
            if p.zstd {
                zstd::bulk::compress(&p.raw, 3).map_err(|e| Error::Build(format!("compressing the index: {e}")))
            } else {
                Ok(p.raw.clone())
            }
        })
        .collect::<Result<_, _>>()?;
    let mut table = Vec::with_capacity(parts.len() * ENTRY);
    let mut offset = (HEADER + parts.len() * ENTRY) as u64;
    for (p, s) in parts.iter().zip(&stored) {
        table.push(p.kind);
        table.extend_from_slice(&p.sub.to_le_bytes());
        table.extend_from_slice(&offset.to_le_bytes());
        table.extend_from_slice(&(s.len() as u64).to_le_bytes());
        table.extend_from_slice(&(p.raw.len() as u64).to_le_bytes());
        table.extend_from_slice(&crc32fast::hash(s).to_le_bytes());
        table.push(u8::from(p.zstd));
        offset += s.len() as u64;
    }
    let mut file = Vec::with_capacity(offset as usize);
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    file.extend_from_slice(&offset.to_le_bytes());
    file.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    file.extend_from_slice(&crc32fast::hash(&table).to_le_bytes());
    file.extend_from_slice(&table);
    for s in &stored {
        file.extend_from_slice(s);
    }
    Ok(file)
}

/// Encode the sources section.
fn encode_sources(sources: &[SourceInfo]) -> Vec<u8> {
    let mut o = Out::default();
    o.u(sources.len() as u64);
    for s in sources {
        o.bytes(s.path.as_bytes());
        o.bytes(s.absolute.as_bytes());
        o.u(s.size);
        o.i(s.mtime_secs);
        o.u(u64::from(s.mtime_nanos));
        o.u(u64::from(s.compressed));
        o.u(s.block);
        o.u(s.games);
        o.u(s.largest_game);
        o.u(s.blocks.len() as u64);
        for c in &s.blocks {
            o.0.extend_from_slice(&c.to_le_bytes());
        }
    }
    o.0
}

/// Decode the sources section.
pub(crate) fn decode_sources(bytes: &[u8]) -> Result<Vec<SourceInfo>, Error> {
    let mut c = In::new(bytes, "sources");
    let n = c.count(bytes.len())?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let path = c.string()?;
        let absolute = c.string()?;
        let size = c.u()?;
        let mtime_secs = c.i()?;
        let mtime_nanos = c.u32()?;
        let compressed = c.u()? != 0;
        let block = c.u()?;
        let games = c.u()?;
        let largest_game = c.u()?;
        let nb = c.count(bytes.len() / 4)?;
        let raw = c.fixed(nb * 4)?;
        let blocks = raw.chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))).collect();
        if block == 0 {
            return Err(Error::Damaged("a source has a block size of 0".into()));
        }
        out.push(SourceInfo {
            path,
            absolute,
            size,
            mtime_secs,
            mtime_nanos,
            compressed,
            block,
            games,
            largest_game,
            blocks,
        });
    }
    Ok(out)
}

/// Where a game's text is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// Source index.
    pub source: u32,
    /// First byte in the decompressed source.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// First line.
    pub line: u64,
    /// Ordinal within its source, from 1.
    pub file_number: u64,
}

/// The locations of the games `wanted` (indices from 0, increasing), in that order, read
/// from the chunks that hold them.
pub(crate) fn decode_locations(
    file: &IndexFile,
    sources: &[SourceInfo],
    wanted: &[u32],
) -> Result<Vec<Location>, Error> {
    // Where each source's games start in the game order.
    let mut starts = Vec::with_capacity(sources.len() + 1);
    let mut total = 0u64;
    for s in sources {
        starts.push(total);
        total = total.saturating_add(s.games);
    }
    let mut out = Vec::with_capacity(wanted.len());
    let mut w = 0;
    while w < wanted.len() {
        let chunk = wanted[w] as usize / LOCATION_CHUNK;
        let first = (chunk * LOCATION_CHUNK) as u64;
        if first >= total {
            return Err(Error::Damaged("a game lies past the indexed ones".into()));
        }
        let bytes = file.get(LOCATIONS, chunk as u32)?;
        let mut c = In::new(&bytes, "locations");
        let mut source = starts.partition_point(|&s| s <= first) - 1;
        let (mut end, mut line) = (0u64, 0u64);
        let last = (first + LOCATION_CHUNK as u64).min(total);
        for g in first..last {
            if g > first && source + 1 < starts.len() && g == starts[source + 1] {
                // Skip sources without games.
                while source + 1 < starts.len() && g >= starts[source + 1] {
                    source += 1;
                }
                (end, line) = (0, 0);
            }
            let offset = end.checked_add_signed(c.i()?).ok_or_else(|| Error::Damaged("a game offset".into()))?;
            let len = c.u()?;
            line = line.checked_add_signed(c.i()?).ok_or_else(|| Error::Damaged("a game line".into()))?;
            end = offset.saturating_add(len);
            if wanted.get(w) == Some(&(g as u32)) {
                let file_number = g - starts[source] + 1;
                out.push(Location { source: source as u32, offset, len, line, file_number });
                w += 1;
            }
        }
        if wanted.get(w).is_some_and(|&next| (next as u64) < last) {
            return Err(Error::Damaged("the wanted games are not in order".into()));
        }
    }
    Ok(out)
}

/// The per-game facts of the flags section.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// The bits of [`super::facts`].
    pub bits: u32,
    /// Main-line plies.
    pub plies: u32,
    /// Positions in check.
    pub checks: u32,
    /// Captures.
    pub captures: u32,
    /// Positions of the game tree (main line and variations).
    pub nodes: u32,
}

/// Decode the flags section.
pub(crate) fn decode_flags(bytes: &[u8], games: usize) -> Result<Vec<Flags>, Error> {
    let mut c = In::new(bytes, "flags");
    let mut out = Vec::with_capacity(games.min(bytes.len()));
    for _ in 0..games {
        out.push(Flags { bits: c.u32()?, plies: c.u32()?, checks: c.u32()?, captures: c.u32()?, nodes: c.u32()? });
    }
    Ok(out)
}

/// The tag section read back: names, value tables and each game's pairs.
pub struct TagTable {
    /// Tag names by id.
    pub names: Vec<String>,
    /// For each name id, its distinct values by id.
    pub values: Vec<Vec<Vec<u8>>>,
    bytes: Vec<u8>,
    /// Where the per-game part begins in `bytes`.
    games_at: usize,
}

impl TagTable {
    /// Read the tables; the per-game pairs are read as they are walked.
    pub(crate) fn new(bytes: Vec<u8>) -> Result<TagTable, Error> {
        let mut c = In::new(&bytes, "tags");
        let n = c.count(bytes.len())?;
        let mut names = Vec::with_capacity(n);
        for _ in 0..n {
            names.push(c.string()?);
        }
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            let k = c.count(bytes.len())?;
            let mut v = Vec::with_capacity(k);
            for _ in 0..k {
                v.push(c.bytes()?.to_vec());
            }
            values.push(v);
        }
        let games_at = c.pos;
        Ok(TagTable { names, values, bytes, games_at })
    }

    /// Walk the games' tags in order: `f` gets each game's (name id, value id) pairs.
    pub fn each_game(&self, games: usize, mut f: impl FnMut(usize, &[(u32, u32)])) -> Result<(), Error> {
        let mut c = In::new(&self.bytes[self.games_at..], "tags");
        let mut pairs = Vec::new();
        for g in 0..games {
            pairs.clear();
            let n = c.count(self.bytes.len())?;
            for _ in 0..n {
                let name = c.u32()?;
                let value = c.u32()?;
                let ok = self.values.get(name as usize).is_some_and(|v| (value as usize) < v.len());
                if !ok {
                    return Err(Error::Damaged("a tag refers to no name or value".into()));
                }
                pairs.push((name, value));
            }
            f(g, &pairs);
        }
        Ok(())
    }
}

/// The status section read back: one byte per game (see the module's layout).
pub(crate) fn decode_status(bytes: Vec<u8>, games: usize) -> Result<Vec<u8>, Error> {
    if bytes.len() != games {
        return Err(Error::Damaged("the status section does not hold one entry per game".into()));
    }
    Ok(bytes)
}

/// The names that have a tag column, in the order of their sub-ids.
pub(crate) fn tag_column_names(file: &IndexFile) -> Result<Vec<String>, Error> {
    let bytes = file.get(TAG_NAMES, 0)?;
    let mut c = In::new(&bytes, "tag names");
    let n = c.count(bytes.len())?;
    (0..n).map(|_| c.string()).collect()
}

/// The distinct values of one tag name, by value number.
pub struct TagValues {
    ends: Vec<usize>,
    blob: Vec<u8>,
}

impl TagValues {
    /// How many distinct values.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Are there none?
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of value `v` (`v < len()`).
    pub fn get(&self, v: usize) -> &[u8] {
        let start = if v == 0 { 0 } else { self.ends[v - 1] };
        &self.blob[start..self.ends[v]]
    }
}

/// The value table of a name no game has.
pub(crate) fn tag_values_empty() -> TagValues {
    TagValues { ends: Vec::new(), blob: Vec::new() }
}

/// The value table of the tag column `k`.
pub(crate) fn tag_values(file: &IndexFile, k: u32) -> Result<TagValues, Error> {
    let bytes = file.get(TAG_VALUES, k)?;
    let mut c = In::new(&bytes, "tag values");
    let n = c.count(bytes.len())?;
    let mut ends = Vec::with_capacity(n);
    let mut end = 0usize;
    for _ in 0..n {
        end = end.checked_add(c.count(bytes.len())?).ok_or_else(|| Error::Damaged("a tag value".into()))?;
        ends.push(end);
    }
    let blob = c.fixed(end)?.to_vec();
    Ok(TagValues { ends, blob })
}

/// One tag name's column: for every game, 0 when it has no tag of that name, else 1 +
/// the value number of its first one.
pub struct TagColumn {
    width: usize,
    /// The width byte, then the entries.
    data: Vec<u8>,
}

impl TagColumn {
    /// The entry of game `g` (an index from 0, below the game count it was read for).
    #[inline]
    pub fn get(&self, g: usize) -> u32 {
        let at = 1 + g * self.width;
        match self.width {
            1 => u32::from(self.data[at]),
            2 => u32::from(u16::from_le_bytes([self.data[at], self.data[at + 1]])),
            _ => u32::from_le_bytes(self.data[at..at + 4].try_into().expect("4 bytes")),
        }
    }

    /// A column for a name no game has.
    pub(crate) fn empty(games: usize) -> TagColumn {
        TagColumn { width: 1, data: vec![0; games + 1] }
    }
}

/// The column `k` for `games` games whose values lie below `values` + 1.
pub(crate) fn tag_column(file: &IndexFile, k: u32, games: usize, values: usize) -> Result<TagColumn, Error> {
    let bytes = file.get(TAG_COLUMN, k)?;
    let width = usize::from(*bytes.first().ok_or_else(|| Error::Damaged("a tag column is empty".into()))?);
    if !matches!(width, 1 | 2 | 4) || bytes.len() != 1 + width * games {
        return Err(Error::Damaged("a tag column does not hold one entry per game".into()));
    }
    let column = TagColumn { width, data: bytes };
    if values < (1usize << (8 * width)) - 1 && (0..games).any(|g| column.get(g) as usize > values) {
        return Err(Error::Damaged("a tag column refers to no value".into()));
    }
    Ok(column)
}

/// The material section read back one game at a time.
pub struct MaterialWalk<'a> {
    c: In<'a>,
}

/// One game's material facts.
#[derive(Default)]
pub struct GameMaterial {
    /// Distinct materials reached.
    pub materials: Vec<Material>,
    /// Which one the final main-line position has.
    pub final_material: u32,
    /// Mate and stalemate positions.
    pub endings: Vec<Ending>,
}

impl<'a> MaterialWalk<'a> {
    /// A walk over the decoded material section.
    pub(crate) fn new(bytes: &'a [u8]) -> MaterialWalk<'a> {
        MaterialWalk { c: In::new(bytes, "material") }
    }

    /// Read the next game's material into `g` (its vectors are reused).
    pub fn next_into(&mut self, g: &mut GameMaterial) -> Result<(), Error> {
        self.next_lazy(g, true)
    }

    /// Read the next game's mates and stalemates into `g`, and its materials too when
    /// `always` is set or it has a mate or stalemate (else `g.materials` is left empty).
    pub fn next_lazy(&mut self, g: &mut GameMaterial, always: bool) -> Result<(), Error> {
        let c = &mut self.c;
        g.materials.clear();
        g.endings.clear();
        let e = c.count(1 << 24)?;
        for _ in 0..e {
            let material = c.u32()?;
            let b = c.byte()?;
            g.endings.push(Ending { material, mate: b & 1 != 0, white_to_move: b & 2 != 0 });
        }
        g.final_material = c.u32()?;
        let blob = c.bytes()?;
        if !always && g.endings.is_empty() {
            return Ok(());
        }
        let mut c = In::new(blob, "material");
        let n = c.count(1 << 24)?;
        let mut cur = START_MATERIAL;
        for k in 0..n {
            if k == 0 {
                if c.byte()? != 0 {
                    cur.copy_from_slice(c.fixed(12)?);
                }
            } else {
                loop {
                    let b = c.byte()?;
                    let kind = usize::from(b & 15);
                    if kind >= 12 {
                        return Err(Error::Damaged("a material change names no piece".into()));
                    }
                    cur[kind] = if b & 16 != 0 { cur[kind].wrapping_sub(1) } else { cur[kind].wrapping_add(1) };
                    if b & 32 == 0 {
                        break;
                    }
                }
            }
            g.materials.push(cur);
        }
        Ok(())
    }
}

fn encode_material(o: &mut Out, r: &GameRecord) {
    // Mates and stalemates first, then the materials with their length, so that a query
    // that asks only for a mate can pass over a game without one unread.
    o.u(r.endings.len() as u64);
    for e in &r.endings {
        o.u(u64::from(e.material));
        o.0.push(u8::from(e.mate) | (u8::from(e.white_to_move) << 1));
    }
    o.u(u64::from(r.final_material));
    let mut m = Out::default();
    m.u(r.materials.len() as u64);
    let mut prev = START_MATERIAL;
    for (k, x) in r.materials.iter().enumerate() {
        if k == 0 {
            if *x == START_MATERIAL {
                m.0.push(0);
            } else {
                m.0.push(1);
                m.0.extend_from_slice(x);
            }
        } else {
            let mut units = Vec::new();
            for kind in 0..12 {
                let (a, b) = (prev[kind], x[kind]);
                let sign = if b < a { 16u8 } else { 0 };
                for _ in 0..a.abs_diff(b) {
                    units.push(kind as u8 | sign);
                }
            }
            if units.is_empty() {
                // Distinct materials always differ; kept decodable all the same.
                units.push(0);
                units.push(16);
            }
            let last = units.len() - 1;
            for (i, u) in units.iter().enumerate() {
                m.0.push(if i < last { u | 32 } else { *u });
            }
        }
        prev = *x;
    }
    o.bytes(&m.0);
}

/// The bytes of an index file holding these sources and game records (in game order).
pub fn encode(sources: &[SourceInfo], games: &[GameRecord]) -> Result<Vec<u8>, Error> {
    let mut loc = Out::default();
    let mut flags = Out::default();
    let mut status = Vec::with_capacity(games.len());
    let mut mat = Out::default();
    let mut names: Vec<String> = Vec::new();
    let mut name_ids: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
    let mut values: Vec<Vec<&[u8]>> = Vec::new();
    let mut value_ids: Vec<rustc_hash::FxHashMap<&[u8], u32>> = Vec::new();
    let mut tag_games = Out::default();
    // Locations in chunks of LOCATION_CHUNK games, each a section: a query decodes only
    // the chunks of the games it reads.
    let mut chunks = Vec::new();
    let (mut end, mut line, mut source) = (0u64, 0u64, u32::MAX);
    for (gi, g) in games.iter().enumerate() {
        if gi % LOCATION_CHUNK == 0 && gi > 0 {
            chunks.push(std::mem::take(&mut loc.0));
        }
        if gi % LOCATION_CHUNK == 0 || g.source != source {
            // Each chunk, and each source, starts from offset 0 and line 0.
            (end, line, source) = (0, 0, g.source);
        }
        loc.i(g.offset as i64 - end as i64);
        loc.u(g.len);
        loc.i(g.line as i64 - line as i64);
        end = g.offset + g.len;
        line = g.line;
    }
    if !loc.0.is_empty() {
        chunks.push(std::mem::take(&mut loc.0));
    }
    // For each name, the games that have it and the value of their first tag of it.
    let mut firsts: Vec<Vec<(u32, u32)>> = Vec::new();
    for (gi, g) in games.iter().enumerate() {
        flags.u(u64::from(g.flags));
        flags.u(u64::from(g.plies));
        flags.u(u64::from(g.checks));
        flags.u(u64::from(g.captures));
        flags.u(u64::from(g.nodes));
        status.push(status_of(g));
        tag_games.u(g.tags.len() as u64);
        for (name, value) in &g.tags {
            let n = *name_ids.entry(name.as_str()).or_insert_with(|| {
                names.push(name.clone());
                values.push(Vec::new());
                value_ids.push(rustc_hash::FxHashMap::default());
                (names.len() - 1) as u32
            });
            let table = &mut values[n as usize];
            let v = *value_ids[n as usize].entry(value.as_slice()).or_insert_with(|| {
                table.push(value.as_slice());
                (table.len() - 1) as u32
            });
            tag_games.u(u64::from(n));
            tag_games.u(u64::from(v));
            if firsts.len() <= n as usize {
                firsts.resize(n as usize + 1, Vec::new());
            }
            let column = &mut firsts[n as usize];
            if column.last().is_none_or(|(g, _)| *g != gi as u32) {
                column.push((gi as u32, v));
            }
        }
        encode_material(&mut mat, g);
    }
    let mut tags = Out::default();
    tags.u(names.len() as u64);
    for n in &names {
        tags.bytes(n.as_bytes());
    }
    for v in &values {
        tags.u(v.len() as u64);
        for x in v {
            tags.bytes(x);
        }
    }
    tags.0.extend_from_slice(&tag_games.0);
    let mut column_names = Out::default();
    column_names.u(names.len() as u64);
    for n in &names {
        column_names.bytes(n.as_bytes());
    }
    let mut parts = vec![
        Part { kind: SOURCES, sub: 0, raw: encode_sources(sources), zstd: false },
        Part { kind: STATUS, sub: 0, raw: status, zstd: true },
        Part { kind: TAG_NAMES, sub: 0, raw: column_names.0, zstd: false },
    ];
    // One value table and one column per name: a query reads only those it asks about.
    for k in 0..names.len() {
        let mut table = Out::default();
        table.u(values[k].len() as u64);
        for x in &values[k] {
            table.u(x.len() as u64);
        }
        for x in &values[k] {
            table.0.extend_from_slice(x);
        }
        parts.push(Part { kind: TAG_VALUES, sub: k as u32, raw: table.0, zstd: true });
        let width: usize = match values[k].len() + 1 {
            n if n <= 0xff => 1,
            n if n <= 0xffff => 2,
            _ => 4,
        };
        let mut column = Vec::with_capacity(1 + width * games.len());
        column.push(width as u8);
        let mut set = firsts.get(k).map(|v| v.iter()).into_iter().flatten().peekable();
        for gi in 0..games.len() as u32 {
            let entry = set.next_if(|(g, _)| *g == gi).map_or(0, |(_, v)| v + 1);
            column.extend_from_slice(&entry.to_le_bytes()[..width]);
        }
        parts.push(Part { kind: TAG_COLUMN, sub: k as u32, raw: column, zstd: true });
    }
    for (k, chunk) in chunks.into_iter().enumerate() {
        parts.push(Part { kind: LOCATIONS, sub: k as u32, raw: chunk, zstd: true });
    }
    parts.push(Part { kind: FLAGS, sub: 0, raw: flags.0, zstd: true });
    parts.push(Part { kind: TAGS, sub: 0, raw: tags.0, zstd: true });
    parts.push(Part { kind: MATERIAL, sub: 0, raw: mat.0, zstd: true });
    assemble(parts)
}

/// A game's byte of the status section.
fn status_of(g: &GameRecord) -> u8 {
    use super::facts;
    let mut b = ((g.flags >> facts::TERMINATION_SHIFT) & 7) as u8;
    if g.flags & facts::SKIPPED != 0 {
        b |= STATUS_SKIPPED;
    }
    if g.flags & facts::PARTLY_READ != 0 {
        b |= STATUS_PARTLY_READ;
    }
    if g.flags & facts::TOO_LARGE != 0 {
        b |= STATUS_TOO_LARGE;
    }
    if g.nodes > LARGE_TREE {
        b |= STATUS_LARGE_TREE;
    }
    if g.flags & facts::TAGS_READ != 0 {
        b |= STATUS_TAGS_READ;
    }
    b
}

/// Every game record of an index read back (for `--update`, which writes the index
/// again with more games, and for tests).
pub fn decode_all(file: &IndexFile, sources: &[SourceInfo]) -> Result<Vec<GameRecord>, Error> {
    let games = usize::try_from(sources.iter().map(|s| s.games).sum::<u64>())
        .map_err(|_| Error::Damaged("its game count".into()))?;
    let all: Vec<u32> = (0..games as u32).collect();
    let locations = decode_locations(file, sources, &all)?;
    let flags = decode_flags(&file.get(FLAGS, 0)?, games)?;
    let tags = TagTable::new(file.get(TAGS, 0)?)?;
    let mat_bytes = file.get(MATERIAL, 0)?;
    let mut walk = MaterialWalk::new(&mat_bytes);
    let mut out: Vec<GameRecord> = Vec::with_capacity(games);
    let mut m = GameMaterial::default();
    for (i, (l, f)) in locations.iter().zip(&flags).enumerate() {
        walk.next_into(&mut m)?;
        out.push(GameRecord {
            number: i as u64 + 1,
            source: l.source,
            offset: l.offset,
            len: l.len,
            line: l.line,
            flags: f.bits,
            plies: f.plies,
            checks: f.checks,
            captures: f.captures,
            nodes: f.nodes,
            tags: Vec::new(),
            materials: m.materials.clone(),
            final_material: m.final_material,
            endings: m.endings.clone(),
        });
    }
    tags.each_game(games, |g, pairs| {
        out[g].tags = pairs
            .iter()
            .map(|&(n, v)| (tags.names[n as usize].clone(), tags.values[n as usize][v as usize].clone()))
            .collect();
    })?;
    Ok(out)
}
