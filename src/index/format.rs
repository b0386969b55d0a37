//! The `.cqlx` file: a versioned, checksummed, sectioned binary file.
//!
//! Takes in: the source descriptions and game records of a build.
//! Gives out: the file's bytes, and back from bytes the sections a query needs.
//! Must never: panic on a cut, damaged or foreign file (every read is bounds-checked
//! and reports [`Error::Damaged`]), or trust a length it has not checked.
//!
//! Layout (all integers little-endian):
//!
//! ```text
//! "CQLRSIDX"  magic, 8 bytes
//! u32         format version (FORMAT_VERSION)
//! u64         payload length
//! u32         CRC-32 of the payload
//! payload     sections, each: u8 id, u64 stored length, u64 decoded length, bytes
//! ```
//!
//! Sections other than the sources are zstd-compressed streams of variable-length
//! integers, one entry per game in game order:
//! * locations: per source its game count, then per game the gap from the previous
//!   game's end, the length and the line step;
//! * flags: the fact bits of [`super::facts`], then main-line plies, checks, captures;
//! * tags: the tag names, then per name its distinct values, then per game its tags as
//!   (name, value) pairs of those tables, in game order;
//! * tag columns (stored as they are): per tag name, compressed on its own, its value
//!   table and each game's first value of it;
//! * material: per game its mate and stalemate positions, the final main-line material,
//!   then (with its length, so it can be passed over) its distinct materials: the first
//!   whole or "standard start", each later one as unit changes from the one before.

use super::facts::{Ending, GameRecord, Material, START_MATERIAL};
use super::{Error, SourceInfo};

/// The first bytes of every index file.
pub const MAGIC: &[u8; 8] = b"CQLRSIDX";
/// The version of the layout this build writes and reads.
pub const FORMAT_VERSION: u32 = 2;
/// Bytes of the fixed header before the payload.
const HEADER: usize = 8 + 4 + 8 + 4;

/// Section ids.
pub(crate) const SOURCES: u8 = 1;
pub(crate) const LOCATIONS: u8 = 2;
pub(crate) const FLAGS: u8 = 3;
pub(crate) const TAGS: u8 = 4;
pub(crate) const MATERIAL: u8 = 5;
/// Stored as it is: the tag names, then per name (each compressed on its own) its value
/// table and, for every game, which value its first tag of that name has (0: none,
/// else value + 1), so that a query reads only the tags it asks about.
pub(crate) const TAG_COLUMNS: u8 = 6;

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
    pub fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
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

/// The sections of an index file, checked and still compressed.
pub struct Sections {
    /// `(id, decoded length, stored bytes)`.
    parts: Vec<(u8, u64, Vec<u8>)>,
}

impl Sections {
    /// The decoded bytes of a section (empty when the file has none of that id).
    pub(crate) fn get(&self, id: u8) -> Result<Vec<u8>, Error> {
        let Some((_, len, stored)) = self.parts.iter().find(|(i, _, _)| *i == id) else {
            return Ok(Vec::new());
        };
        if id == SOURCES || id == TAG_COLUMNS {
            return Ok(stored.clone());
        }
        let out = zstd::bulk::decompress(stored, *len as usize)
            .map_err(|e| Error::Damaged(format!("a section cannot be decompressed: {e}")))?;
        if out.len() as u64 != *len {
            return Err(Error::Damaged("a section decompresses to another length than recorded".into()));
        }
        Ok(out)
    }
}

/// Check the header and checksum of an index file's bytes and cut it into sections.
pub fn parse(bytes: Vec<u8>) -> Result<Sections, Error> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(Error::NotAnIndex);
    }
    if bytes.len() < HEADER {
        return Err(Error::Damaged("the file is cut short inside its header".into()));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(Error::Version(version));
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
    let payload = &bytes[HEADER..];
    if (payload.len() as u64) < len {
        return Err(Error::Damaged(format!("the file is cut short: {} of {} payload bytes", payload.len(), len)));
    }
    if payload.len() as u64 > len {
        return Err(Error::Damaged("the file has bytes after its end".into()));
    }
    if crc32fast::hash(payload) != crc {
        return Err(Error::Damaged("its checksum does not match its contents".into()));
    }
    let mut cur = In::new(payload, "file");
    let mut parts = Vec::new();
    while !cur.at_end() {
        let id = cur.byte()?;
        let stored = cur.u()?;
        let decoded = cur.u()?;
        if decoded > MAX_SECTION {
            return Err(Error::Damaged("a section is larger than any index holds".into()));
        }
        let b = cur.fixed(usize::try_from(stored).map_err(|_| Error::Damaged("a section length".into()))?)?;
        parts.push((id, decoded, b.to_vec()));
    }
    Ok(Sections { parts })
}

/// Put the sections together into a file's bytes.
fn assemble(sections: Vec<(u8, Vec<u8>)>) -> Result<Vec<u8>, Error> {
    let mut payload = Out::default();
    for (id, raw) in sections {
        let stored = if id == SOURCES || id == TAG_COLUMNS {
            raw.clone()
        } else {
            zstd::bulk::compress(&raw, 3).map_err(|e| Error::Build(format!("compressing the index: {e}")))?
        };
        payload.0.push(id);
        payload.u(stored.len() as u64);
        payload.u(raw.len() as u64);
        payload.0.extend_from_slice(&stored);
    }
    let mut file = Vec::with_capacity(HEADER + payload.0.len());
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    file.extend_from_slice(&(payload.0.len() as u64).to_le_bytes());
    file.extend_from_slice(&crc32fast::hash(&payload.0).to_le_bytes());
    file.extend_from_slice(&payload.0);
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
        let nb = c.count(bytes.len() / 4)?;
        let raw = c.fixed(nb * 4)?;
        let blocks = raw.chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))).collect();
        if block == 0 {
            return Err(Error::Damaged("a source has a block size of 0".into()));
        }
        out.push(SourceInfo { path, absolute, size, mtime_secs, mtime_nanos, compressed, block, games, blocks });
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

/// Decode the locations section: one entry per game.
pub(crate) fn decode_locations(bytes: &[u8], sources: &[SourceInfo]) -> Result<Vec<Location>, Error> {
    let mut c = In::new(bytes, "locations");
    let total: u64 = sources.iter().map(|s| s.games).sum();
    let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0).min(bytes.len()));
    for (k, s) in sources.iter().enumerate() {
        let (mut end, mut line) = (0u64, 0u64);
        for n in 0..s.games {
            let offset = end.checked_add_signed(c.i()?).ok_or_else(|| Error::Damaged("a game offset".into()))?;
            let len = c.u()?;
            line = line.checked_add_signed(c.i()?).ok_or_else(|| Error::Damaged("a game line".into()))?;
            end = offset.saturating_add(len);
            out.push(Location { source: k as u32, offset, len, line, file_number: n + 1 });
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
}

/// Decode the flags section.
pub(crate) fn decode_flags(bytes: &[u8], games: usize) -> Result<Vec<Flags>, Error> {
    let mut c = In::new(bytes, "flags");
    let mut out = Vec::with_capacity(games.min(bytes.len()));
    for _ in 0..games {
        out.push(Flags { bits: c.u32()?, plies: c.u32()?, checks: c.u32()?, captures: c.u32()? });
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

/// The tag columns read back for some names: for each name asked, the value of every
/// game's first tag of that name (`None`: the game has no such tag).
pub(crate) fn tag_columns(
    sections: &Sections,
    wanted: &[String],
    games: usize,
) -> Result<Vec<(Vec<Vec<u8>>, Vec<u32>)>, Error> {
    let bytes = sections.get(TAG_COLUMNS)?;
    let mut c = In::new(&bytes, "tag columns");
    let n = c.count(bytes.len())?;
    let mut names = Vec::with_capacity(n);
    for _ in 0..n {
        names.push(c.string()?);
    }
    let mut blobs = Vec::with_capacity(n);
    for _ in 0..n {
        let raw = c.u()?;
        blobs.push((raw, c.bytes()?));
    }
    let mut out = Vec::new();
    for w in wanted {
        let Some(k) = names.iter().position(|x| x == w) else {
            // No game has this tag.
            out.push((Vec::new(), vec![0; games]));
            continue;
        };
        let (raw, packed) = blobs[k];
        if raw > MAX_SECTION {
            return Err(Error::Damaged("a tag column is larger than any index holds".into()));
        }
        let part = zstd::bulk::decompress(packed, raw as usize)
            .map_err(|e| Error::Damaged(format!("a tag column cannot be decompressed: {e}")))?;
        let mut p = In::new(&part, "tag columns");
        let k = p.count(part.len())?;
        let mut values = Vec::with_capacity(k);
        for _ in 0..k {
            values.push(p.bytes()?.to_vec());
        }
        let mut column = Vec::with_capacity(games);
        for _ in 0..games {
            let v = p.u32()?;
            if v as usize > values.len() {
                return Err(Error::Damaged("a tag column refers to no value".into()));
            }
            column.push(v);
        }
        out.push((values, column));
    }
    Ok(out)
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
    let mut mat = Out::default();
    let mut names: Vec<String> = Vec::new();
    let mut name_ids: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
    let mut values: Vec<Vec<&[u8]>> = Vec::new();
    let mut value_ids: Vec<rustc_hash::FxHashMap<&[u8], u32>> = Vec::new();
    let mut tag_games = Out::default();
    let mut at = 0usize;
    for (k, s) in sources.iter().enumerate() {
        let mine = &games[at..at + s.games as usize];
        at += s.games as usize;
        let (mut end, mut line) = (0u64, 0u64);
        for g in mine {
            debug_assert_eq!(g.source as usize, k);
            loc.i(g.offset as i64 - end as i64);
            loc.u(g.len);
            loc.i(g.line as i64 - line as i64);
            end = g.offset + g.len;
            line = g.line;
        }
    }
    // For each name, the games that have it and the value of their first tag of it.
    let mut firsts: Vec<Vec<(u32, u32)>> = Vec::new();
    for (gi, g) in games.iter().enumerate() {
        flags.u(u64::from(g.flags));
        flags.u(u64::from(g.plies));
        flags.u(u64::from(g.checks));
        flags.u(u64::from(g.captures));
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
    // One column per name: the value of each game's first tag of that name.
    let mut columns = Out::default();
    columns.u(names.len() as u64);
    for n in &names {
        columns.bytes(n.as_bytes());
    }
    for (k, name) in names.iter().enumerate() {
        let mut part = Out::default();
        part.u(values[k].len() as u64);
        for x in &values[k] {
            part.bytes(x);
        }
        let _ = name;
        let mut set = firsts.get(k).map(|v| v.iter()).into_iter().flatten().peekable();
        for gi in 0..games.len() as u32 {
            match set.next_if(|(g, _)| *g == gi) {
                Some((_, v)) => part.u(u64::from(*v) + 1),
                None => part.u(0),
            }
        }
        let packed =
            zstd::bulk::compress(&part.0, 3).map_err(|e| Error::Build(format!("compressing the index: {e}")))?;
        columns.u(part.0.len() as u64);
        columns.bytes(&packed);
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
    assemble(vec![
        (SOURCES, encode_sources(sources)),
        (LOCATIONS, loc.0),
        (FLAGS, flags.0),
        (TAGS, tags.0),
        (TAG_COLUMNS, columns.0),
        (MATERIAL, mat.0),
    ])
}

/// Every game record of an index read back (for `--update`, which writes the index
/// again with more games, and for tests).
pub fn decode_all(sections: &Sections, sources: &[SourceInfo]) -> Result<Vec<GameRecord>, Error> {
    let locations = decode_locations(&sections.get(LOCATIONS)?, sources)?;
    let games = locations.len();
    let flags = decode_flags(&sections.get(FLAGS)?, games)?;
    let tags = TagTable::new(sections.get(TAGS)?)?;
    let mat_bytes = sections.get(MATERIAL)?;
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
