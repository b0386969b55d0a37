//! Answering from an index: the games a query cannot be proved to miss, read back from
//! their sources through their locations, as a [`GameFeed`] for the scan.
//!
//! Takes in: an opened [`Index`], a compiled query and the run's [`ScanConfig`].
//! Gives out: `Some(feed)` when the index can rule games out for this query, `None`
//! when the run should simply scan the sources (nothing can be pruned, or the index
//! holds a game too large to keep, whose warning only a scan gives exactly).
//! Must never: hand out bytes that differ from the source as indexed (every block read
//! is checked against its checksum, and a difference is an input error naming the
//! file), or number a game differently from a scan.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::facts::{self, TERMINATIONS};
use super::format::{self, Flags, GameMaterial, Location, MaterialWalk, TagTable};
use super::prune::{self, TagsRead};
use super::{Error, Index, SourceInfo};
use crate::eval::Query;
use crate::input::RawGame;
use crate::pgn::{Game, Tag};
use crate::scan::{GameFeed, ScanConfig};

/// How many games an index answer reads and passes over (for `--explain`-like notes and
/// the benchmark).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Games in the index.
    pub games: u64,
    /// Games that will be read.
    pub candidates: u64,
}

/// The games of an index a query is to read.
pub struct Feed {
    locations: Vec<Location>,
    candidates: Vec<u32>,
    at: usize,
    /// Index of the first game not yet handed out or passed over.
    next: u64,
    /// Games up to this count are accounted for (`gamenumber`'s upper bound).
    last: u64,
    passed: u64,
    files: Vec<Arc<str>>,
    readers: Vec<Option<SourceReader>>,
    sources: Vec<SourceInfo>,
    spare: Vec<Vec<u8>>,
    failed: bool,
}

impl Index {
    /// The feed of the games `query` may match, or `None` when the run should scan the
    /// sources instead. The sources are checked unchanged first either way.
    pub fn feed(&self, query: &Query, config: &ScanConfig) -> Result<Option<(Feed, Selection)>, Error> {
        self.check_sources()?;
        let Some(plan) = prune::plan(query) else {
            return Ok(None);
        };
        let locations = format::decode_locations(&self.sections.get(format::LOCATIONS)?, &self.sources)?;
        let games = locations.len();
        let flags = format::decode_flags(&self.sections.get(format::FLAGS)?, games)?;
        if flags.iter().any(|f| f.bits & facts::TOO_LARGE != 0)
            || locations.iter().any(|l| l.len > config.max_game_bytes as u64)
        {
            return Ok(None);
        }
        let (lo, hi) = config.gamenumber.unwrap_or((1, u64::MAX));
        let last = hi.min(games as u64);
        let keep = self.tag_verdicts(query, &plan.tags, &flags, games)?;
        let material_bytes = if plan.cond.needs_material() { self.sections.get(format::MATERIAL)? } else { Vec::new() };
        let mut walk = MaterialWalk::new(&material_bytes);
        let mut m = GameMaterial::default();
        let all_materials = plan.cond.needs_all_materials();
        let mut candidates = Vec::new();
        for (i, f) in flags.iter().enumerate() {
            if plan.cond.needs_material() {
                walk.next_lazy(&mut m, all_materials)?;
            }
            let number = i as u64 + 1;
            if number > last {
                break;
            }
            if number < lo {
                // Read and passed over by the scan's own `gamenumber` test, so that the
                // summary counts it as the scan does ("outside -gamenumber").
                candidates.push(i as u32);
                continue;
            }
            let unsure = f.bits & (facts::SKIPPED | facts::PARTLY_READ) != 0;
            if unsure || (keep[i] && plan.cond.holds(f.bits, &m)) {
                candidates.push(i as u32);
            }
        }
        let selection = Selection { games: games as u64, candidates: candidates.len() as u64 };
        let feed = Feed {
            locations,
            candidates,
            at: 0,
            next: 0,
            last,
            passed: 0,
            files: self.sources.iter().map(|s| Arc::from(s.path.as_str())).collect(),
            readers: self.sources.iter().map(|_| None).collect(),
            sources: self.sources.clone(),
            spare: Vec::new(),
            failed: false,
        };
        Ok(Some((feed, selection)))
    }

    /// For each game, may its tags pass the query's header test? The query's own test
    /// is run on a game holding the indexed tags it reads, once per distinct set of
    /// their values.
    fn tag_verdicts(&self, query: &Query, tags: &TagsRead, flags: &[Flags], games: usize) -> Result<Vec<bool>, Error> {
        let mut out = vec![true; games];
        let mut game = Game::default();
        let scratch = crate::eval::Scratch::default();
        let termination = |bits: u32| {
            let code = (bits >> facts::TERMINATION_SHIFT) & 7;
            TERMINATIONS.get((code as usize).wrapping_sub(1)).map(|t| t.to_string())
        };
        match tags {
            TagsRead::All => {
                let table = TagTable::new(self.sections.get(format::TAGS)?)?;
                table.each_game(games, |g, pairs| {
                    game.tags.clear();
                    for &(n, v) in pairs {
                        game.tags.push(Tag {
                            name: table.names[n as usize].clone(),
                            value: table.values[n as usize][v as usize].clone(),
                        });
                    }
                    game.number = g as u64 + 1;
                    game.termination = termination(flags[g].bits);
                    out[g] = query.may_match_tags(&scratch, &game);
                })?;
            }
            TagsRead::Names(names, by_number) => {
                // The termination marker counts only where the result is read.
                let result_read = names.iter().any(|n| n == "Result");
                let columns = format::tag_columns(&self.sections, names, games)?;
                let verdict = |g: usize, game: &mut Game| -> bool {
                    game.tags.clear();
                    for (k, (values, column)) in columns.iter().enumerate() {
                        if let Some(v) = column[g].checked_sub(1) {
                            game.tags.push(Tag { name: names[k].clone(), value: values[v as usize].clone() });
                        }
                    }
                    game.number = g as u64 + 1;
                    game.termination = if result_read { termination(flags[g].bits) } else { None };
                    query.may_match_tags(&scratch, game)
                };
                if columns.is_empty() && !*by_number {
                    // Nothing of the game is read: one answer for all.
                    let v = if games > 0 { verdict(0, &mut game) } else { true };
                    out.iter_mut().for_each(|x| *x = v);
                } else if columns.len() == 1 && !*by_number && !result_read {
                    // One tag: one answer per distinct value.
                    let mut memo: Vec<Option<bool>> = vec![None; columns[0].0.len() + 1];
                    for (g, x) in out.iter_mut().enumerate() {
                        let v = columns[0].1[g] as usize;
                        *x = match memo[v] {
                            Some(known) => known,
                            None => {
                                let known = verdict(g, &mut game);
                                memo[v] = Some(known);
                                known
                            }
                        };
                    }
                } else {
                    let mut memo: FxHashMap<Vec<u32>, bool> = FxHashMap::default();
                    let mut key = Vec::new();
                    for (g, x) in out.iter_mut().enumerate() {
                        key.clear();
                        key.extend(columns.iter().map(|(_, column)| column[g]));
                        if result_read {
                            key.push((flags[g].bits >> facts::TERMINATION_SHIFT) & 7);
                        }
                        if *by_number {
                            key.push(g as u32);
                            key.push((g as u64 >> 32) as u32);
                        }
                        *x = match memo.get(&key) {
                            Some(&known) => known,
                            None => {
                                let known = verdict(g, &mut game);
                                if !*by_number {
                                    memo.insert(key.clone(), known);
                                }
                                known
                            }
                        };
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Reads byte ranges of one source in increasing order, checking each block of the
/// stored file against the index's checksum as it passes.
enum SourceReader {
    /// A plain file: blocks are read where they lie.
    Plain { file: std::fs::File, block: Vec<u8>, block_no: Option<u64> },
    /// A compressed file: decompressed as a stream, skipping what is not wanted.
    Compressed { stream: Box<dyn std::io::BufRead + Send>, pos: u64 },
}

/// Checks the blocks of a stored file as a decoder reads it.
struct Checked {
    file: std::fs::File,
    sums: Vec<u32>,
    block: u64,
    hasher: crc32fast::Hasher,
    in_block: u64,
    block_no: usize,
}

fn changed(how: String) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{how}: the file has changed since the index was built; build it again with `cqlrs index -o NAME.cqlx INPUT...`"
        ),
    )
}

impl Checked {
    fn close_block(&mut self) -> std::io::Result<()> {
        let sum = std::mem::take(&mut self.hasher).finalize();
        if self.sums.get(self.block_no) != Some(&sum) {
            return Err(changed(format!("block {} differs", self.block_no)));
        }
        self.block_no += 1;
        self.in_block = 0;
        Ok(())
    }
}

impl Read for Checked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = (self.block - self.in_block) as usize;
        let want = buf.len().min(room);
        let n = self.file.read(&mut buf[..want])?;
        if n == 0 {
            if self.in_block > 0 {
                self.close_block()?;
            }
            if self.block_no != self.sums.len() {
                return Err(changed("the file ends early".into()));
            }
            return Ok(0);
        }
        self.hasher.update(&buf[..n]);
        self.in_block += n as u64;
        if self.in_block == self.block {
            self.close_block()?;
        }
        Ok(n)
    }
}

impl SourceReader {
    fn open(s: &SourceInfo) -> std::io::Result<SourceReader> {
        let file = std::fs::File::open(&s.absolute)?;
        if s.compressed {
            let checked = Checked {
                file,
                sums: s.blocks.clone(),
                block: s.block,
                hasher: Default::default(),
                in_block: 0,
                block_no: 0,
            };
            let stream = crate::input::wrap_decoder(Box::new(checked))?;
            Ok(SourceReader::Compressed { stream, pos: 0 })
        } else {
            Ok(SourceReader::Plain { file, block: Vec::new(), block_no: None })
        }
    }

    /// The bytes `offset..offset + len` of the (decompressed) source, into `out`.
    fn read(&mut self, s: &SourceInfo, offset: u64, len: u64, out: &mut Vec<u8>) -> std::io::Result<()> {
        out.clear();
        match self {
            SourceReader::Plain { file, block, block_no } => {
                let end = offset + len;
                let mut at = offset;
                while at < end {
                    let b = at / s.block;
                    if *block_no != Some(b) {
                        let start = b * s.block;
                        let size = s.block.min(s.size.saturating_sub(start)) as usize;
                        block.resize(size, 0);
                        file.seek(SeekFrom::Start(start))?;
                        file.read_exact(block).map_err(|_| changed("the file ends early".into()))?;
                        if s.blocks.get(b as usize) != Some(&crc32fast::hash(block)) {
                            *block_no = None;
                            return Err(changed(format!("block {b} differs")));
                        }
                        *block_no = Some(b);
                    }
                    let from = (at - b * s.block) as usize;
                    let to = ((end - b * s.block).min(block.len() as u64)) as usize;
                    if from >= to {
                        return Err(changed("a game lies past the end of the file".into()));
                    }
                    out.extend_from_slice(&block[from..to]);
                    at += (to - from) as u64;
                }
                Ok(())
            }
            SourceReader::Compressed { stream, pos } => {
                if offset < *pos {
                    return Err(std::io::Error::other("games asked out of order"));
                }
                let mut skip = offset - *pos;
                while skip > 0 {
                    let buf = stream.fill_buf()?;
                    if buf.is_empty() {
                        return Err(changed("the file ends early".into()));
                    }
                    let n = (buf.len() as u64).min(skip) as usize;
                    stream.consume(n);
                    skip -= n as u64;
                }
                out.resize(len as usize, 0);
                stream.read_exact(out).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::UnexpectedEof {
                        changed("the file ends early".into())
                    } else {
                        e
                    }
                })?;
                *pos = offset + len;
                Ok(())
            }
        }
    }
}

impl GameFeed for Feed {
    fn next_game(&mut self) -> Option<Result<RawGame, crate::input::Error>> {
        if self.failed {
            return None;
        }
        let Some(&c) = self.candidates.get(self.at) else {
            self.passed += self.last.saturating_sub(self.next);
            self.next = self.last;
            return None;
        };
        self.at += 1;
        let c = u64::from(c);
        self.passed += c - self.next;
        self.next = c + 1;
        let l = self.locations[c as usize];
        let k = l.source as usize;
        let s = &self.sources[k];
        let fail = |e: std::io::Error| crate::input::Error {
            path: Arc::from(s.path.as_str()),
            source: e,
            offset: None,
            partial: None,
        };
        if self.readers[k].is_none() {
            match SourceReader::open(s) {
                Ok(r) => self.readers[k] = Some(r),
                Err(e) => {
                    self.failed = true;
                    return Some(Err(fail(e)));
                }
            }
        }
        let mut bytes = self.spare.pop().unwrap_or_default();
        if let Err(e) = self.readers[k].as_mut().expect("opened").read(s, l.offset, l.len, &mut bytes) {
            self.failed = true;
            return Some(Err(fail(e)));
        }
        Some(Ok(RawGame {
            number: c + 1,
            file: self.files[k].clone(),
            line: l.line,
            bytes,
            offset: l.offset,
            file_number: l.file_number,
        }))
    }

    fn give_back(&mut self, bytes: Vec<u8>) {
        if self.spare.len() < 512 && bytes.capacity() <= 16 << 10 {
            self.spare.push(bytes);
        }
    }

    fn take_passed(&mut self) -> u64 {
        std::mem::take(&mut self.passed)
    }
}
