//! Answering from an index: the games a query cannot be proved to miss, read back from
//! their sources through their locations, as a [`GameFeed`] for the scan, and the games
//! the index decides alone, accounted for unread ([`Decided`]).
//!
//! Takes in: an opened [`Index`], a compiled query and the run's [`ScanConfig`].
//! Gives out: `Some(feed)` when the index can rule games out for this query, `None`
//! when the run should simply scan the sources (nothing can be pruned, or the index
//! holds a game too large to keep, whose warning only a scan gives exactly).
//! Must never: hand out bytes that differ from the source as indexed (every block read
//! is checked against its checksum, and a difference is an input error naming the
//! file), number a game differently from a scan, or decide a game the scan would
//! report (unreadable, read in part, too large for this run's limits).

use std::io::Read;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::facts::TERMINATIONS;
use super::format::{self, GameMaterial, Location, MaterialWalk, TagColumn, TagTable, TagValues};
use super::prune::{self, TagsRead};
use super::{Error, Index, SourceInfo};
use crate::eval::Query;
use crate::input::RawGame;
use crate::output::Format;
use crate::pgn::{Game, Tag};
use crate::scan::{Decided, GameFeed, ScanConfig};

/// How many games an index answer reads and passes over (for `--explain`-like notes and
/// the benchmark).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Games in the index.
    pub games: u64,
    /// Games that will be read.
    pub candidates: u64,
    /// Games decided to match without being read (`--numbers`, `--count`).
    pub decided_matches: u64,
}

/// One step of an answer, in game order.
#[derive(Clone, Copy, Debug)]
enum Item {
    /// Read the game of this index (from 0) and let the scan decide it.
    Read(u32),
    /// Games accounted for unread.
    Decided(Decided),
}

/// The games of an index a query is to read, and those it decided.
pub struct Feed {
    /// The locations of the games to read, in order.
    locations: Vec<Location>,
    /// How many of them were read.
    read: usize,
    items: Vec<Item>,
    at: usize,
    files: Vec<Arc<str>>,
    readers: Vec<Option<SourceReader>>,
    sources: Vec<SourceInfo>,
    spare: Vec<Vec<u8>>,
    failed: bool,
}

/// Appends items, joining runs of games decided alike.
#[derive(Default)]
struct Items(Vec<Item>);

impl Items {
    fn read(&mut self, i: usize) {
        self.0.push(Item::Read(i as u32));
    }
    fn unmatched(&mut self) {
        match self.0.last_mut() {
            Some(Item::Decided(Decided::Unmatched(n))) => *n += 1,
            _ => self.0.push(Item::Decided(Decided::Unmatched(1))),
        }
    }
    fn outside(&mut self, n: u64) {
        if n > 0 {
            self.0.push(Item::Decided(Decided::Outside(n)));
        }
    }
    fn matched(&mut self, number: u64) {
        self.0.push(Item::Decided(Decided::Matched(number)));
    }
}

impl Index {
    /// The feed of the games `query` may match, or `None` when the run should scan the
    /// sources instead. The sources are checked unchanged first either way. `format` is
    /// what the run writes of each match: with numbers or a count, a match the tags
    /// decide is answered without reading its text.
    pub fn feed(
        &self,
        query: &Query,
        config: &ScanConfig,
        format: &Format,
    ) -> Result<Option<(Feed, Selection)>, Error> {
        self.check_sources()?;
        let Some(plan) = prune::plan(query) else {
            return Ok(None);
        };
        if self.sources.iter().any(|s| s.largest_game > config.max_game_bytes as u64) {
            return Ok(None);
        }
        let games = usize::try_from(self.games).map_err(|_| Error::Damaged("its game count".into()))?;
        let status = format::decode_status(self.file.get(format::STATUS, 0)?, games)?;
        if status.iter().any(|s| s & format::STATUS_TOO_LARGE != 0) {
            return Ok(None);
        }
        // Games the scan reports are always read again, so that their warnings and
        // `--rejects` bytes are the scan's: unreadable ones, ones read in part, and (when
        // this run's memory budget is smaller than the build's) ones with a large tree.
        let mut unsure = format::STATUS_SKIPPED | format::STATUS_PARTLY_READ;
        let built_with = crate::scan::positions_for_memory(crate::eval::Limits::DEFAULT_MEMORY);
        if config.max_game_positions.is_some_and(|m| m < built_with) {
            unsure |= format::STATUS_LARGE_TREE;
        }
        let (lo, hi) = config.gamenumber.unwrap_or((1, u64::MAX));
        let last = usize::try_from(hi.min(games as u64)).unwrap_or(games);
        let first = usize::try_from(lo.saturating_sub(1)).unwrap_or(usize::MAX).min(last);
        // A header-only query is decided by its tags alone: the scan tests them and, on a
        // match, reads the moves only to report a game it cannot read (known here) and
        // to write them. So its verdict is final, and a match whose output is its number
        // needs nothing of its text.
        let exact = !query.needs_positions()
            && matches!(plan.tags, TagsRead::Names(..))
            && plan.cond.is_true()
            && config.sort.is_none()
            && crate::scan::SortOrder::of_query(query.ir()).is_none();
        let numbers_only = matches!(format, Format::Numbers | Format::Count);
        // A conjunction of header tests is tested part by part, each once per distinct
        // value of its own tags; the parts reading one tag first.
        let mut parts = if exact { prune::header_parts(query) } else { None }.unwrap_or_default();
        parts.sort_by_key(|(_, tags)| match tags {
            TagsRead::Names(names, _) => names.len(),
            TagsRead::All => usize::MAX,
        });
        let mut tests = Vec::new();
        if parts.is_empty() {
            tests.push(HeaderTest::new(self, query, &plan.tags, &status, exact, first..last)?);
        } else {
            for (part, tags) in &parts {
                tests.push(HeaderTest::new(self, part, tags, &status, exact, first..last)?);
            }
        }
        let material_bytes =
            if plan.cond.needs_material() && !exact { self.file.get(format::MATERIAL, 0)? } else { Vec::new() };
        let flags = if plan.cond.needs_flags() && !exact {
            format::decode_flags(&self.file.get(format::FLAGS, 0)?, games)?
        } else {
            Vec::new()
        };
        let mut walk = MaterialWalk::new(&material_bytes);
        let mut m = GameMaterial::default();
        let all_materials = plan.cond.needs_all_materials();
        let mut items = Items::default();
        // Below `-gamenumber`: the scan passes them over unread, as here.
        items.outside(first as u64);
        let (mut candidates, mut decided_matches) = (0u64, 0u64);
        // Each game's header verdict: 0 no match, 1 a match (without `exact`: may match),
        // 2 the test could not say (it went past a limit: the scan decides).
        let mut verdicts = vec![1u8; last - first];
        for test in tests.iter_mut() {
            test.apply(first, &mut verdicts);
        }
        for (i, &s) in status.iter().enumerate().take(last) {
            if !material_bytes.is_empty() {
                walk.next_lazy(&mut m, all_materials)?;
            }
            if i < first {
                continue;
            }
            if s & unsure != 0 {
                // A header-only query reads no moves of a game its tags do not match: when
                // the tags are known, such a game is unmatched whatever its moves.
                let tags_known = s & format::STATUS_SKIPPED == 0 || s & format::STATUS_TAGS_READ != 0;
                if exact && tags_known && verdicts[i - first] == 0 {
                    items.unmatched();
                } else {
                    items.read(i);
                    candidates += 1;
                }
                continue;
            }
            match verdicts[i - first] {
                // The query's header test fails: no match, in every mode.
                0 => items.unmatched(),
                1 if exact && numbers_only => {
                    items.matched(i as u64 + 1);
                    decided_matches += 1;
                }
                1 if exact || plan.cond.holds(flags.get(i).map_or(0, |f| f.bits), &m) => {
                    items.read(i);
                    candidates += 1;
                }
                1 => items.unmatched(),
                _ => {
                    items.read(i);
                    candidates += 1;
                }
            }
        }
        drop(tests);
        let wanted: Vec<u32> =
            items.0.iter().filter_map(|item| if let Item::Read(c) = item { Some(*c) } else { None }).collect();
        let locations = format::decode_locations(&self.file, &self.sources, &wanted)?;
        if locations.len() != wanted.len() {
            return Err(Error::Damaged("the locations do not hold one entry per game".into()));
        }
        let selection = Selection { games: games as u64, candidates, decided_matches };
        let feed = Feed {
            locations,
            read: 0,
            items: items.0,
            at: 0,
            files: self.sources.iter().map(|s| Arc::from(s.path.as_str())).collect(),
            readers: self.sources.iter().map(|_| None).collect(),
            sources: self.sources.clone(),
            spare: Vec::new(),
            failed: false,
        };
        Ok(Some((feed, selection)))
    }
}

/// The query's header test run on the indexed tags it reads, once per distinct
/// combination of their values. With `exact` (a header-only query) it is the query's
/// whole verdict, as the scan computes it on a game whose moves it has not read; else
/// the header conjuncts, which a match must pass.
struct HeaderTest<'a> {
    query: &'a Query,
    how: How<'a>,
    status: &'a [u8],
    exact: bool,
    game: Game,
    scratch: crate::eval::Scratch,
}

/// What the test reads.
enum How<'a> {
    /// Every tag of every game, in order (queries whose tag reads cannot be listed).
    All(Vec<Option<bool>>),
    /// Some tags, by name, through their columns; whether the game number and the
    /// termination marker are read; the verdicts known so far.
    Columns {
        names: &'a [String],
        columns: Vec<(TagValues, TagColumn)>,
        by_number: bool,
        result_read: bool,
        memo: Memo,
    },
}

/// Verdicts by combination of values.
enum Memo {
    /// One column, no marker: by its entry.
    One(Vec<u8>),
    /// Up to three columns and the marker, packed.
    Packed(FxHashMap<u128, bool>),
    /// Two columns of fewer than 2^30 values and the marker, packed.
    Two(FxHashMap<u64, bool>),
    /// More.
    Wide(FxHashMap<Vec<u32>, bool>),
    /// Nothing remembered (the game number is read).
    None,
}

fn termination(status: u8) -> Option<String> {
    let code = status & 7;
    TERMINATIONS.get((code as usize).wrapping_sub(1)).map(|t| t.to_string())
}

impl<'a> HeaderTest<'a> {
    fn new(
        index: &'a Index,
        query: &'a Query,
        tags: &'a TagsRead,
        status: &'a [u8],
        exact: bool,
        range: std::ops::Range<usize>,
    ) -> Result<HeaderTest<'a>, Error> {
        let games = status.len();
        let how = match tags {
            TagsRead::All => {
                // Every game's tags are read in one sweep, the test run on each.
                let table = TagTable::new(index.file.get(format::TAGS, 0)?)?;
                let mut out = vec![Some(true); games];
                let mut game = Game::default();
                let mut scratch = crate::eval::Scratch::default();
                table.each_game(games, |g, pairs| {
                    if !range.contains(&g) {
                        return;
                    }
                    game.tags.clear();
                    for &(n, v) in pairs {
                        game.tags.push(Tag {
                            name: table.names[n as usize].clone(),
                            value: table.values[n as usize][v as usize].clone(),
                        });
                    }
                    game.number = g as u64 + 1;
                    game.termination = termination(status[g]);
                    out[g] = run_test(query, exact, &mut game, &mut scratch);
                })?;
                How::All(out)
            }
            TagsRead::Names(names, by_number) => {
                let result_read = names.iter().any(|n| n == "Result");
                let stored = format::tag_column_names(&index.file)?;
                let mut columns = Vec::with_capacity(names.len());
                for name in names {
                    match stored.iter().position(|x| x == name) {
                        Some(k) => {
                            let values = format::tag_values(&index.file, k as u32)?;
                            let column = format::tag_column(&index.file, k as u32, games, values.len())?;
                            columns.push((values, column));
                        }
                        // No game has this tag.
                        None => columns.push((format::tag_values_empty(), TagColumn::empty(games))),
                    }
                }
                let memo = if *by_number {
                    Memo::None
                } else if columns.len() == 1 {
                    Memo::One(vec![2; (columns[0].0.len() + 1) * if result_read { 8 } else { 1 }])
                } else if columns.len() == 2 && columns.iter().all(|(values, _)| values.len() < (1 << 30) - 1) {
                    Memo::Two(FxHashMap::default())
                } else if columns.len() <= 3 {
                    Memo::Packed(FxHashMap::default())
                } else {
                    Memo::Wide(FxHashMap::default())
                };
                How::Columns { names, columns, by_number: *by_number, result_read, memo }
            }
        };
        Ok(HeaderTest { query, how, status, exact, game: Game::default(), scratch: crate::eval::Scratch::default() })
    }

    /// Narrow `out` (the verdicts of the games from index `first` on, see
    /// [`Index::feed`]) by this test: each game still a match gets its verdict.
    fn apply(&mut self, first: usize, out: &mut [u8]) {
        let code = |v: Option<bool>| match v {
            Some(false) => 0,
            Some(true) => 1,
            None => 2,
        };
        let HeaderTest { query, how, status, exact, game, scratch } = self;
        if let How::Columns { names, columns, result_read, memo: Memo::One(known), .. } = how {
            // One tag: a look into the verdicts by value; the test runs on a value
            // not seen yet.
            let column = &columns[0].1;
            for (j, o) in out.iter_mut().enumerate() {
                if *o == 1 {
                    let g = first + j;
                    let mut v = column.get(g) as usize;
                    if *result_read {
                        v = v * 8 + usize::from(status[g] & 7);
                    }
                    *o = match known[v] {
                        2 => {
                            let answer =
                                test_columns(query, *exact, game, scratch, names, columns, status, *result_read, g);
                            if let Some(a) = answer {
                                known[v] = u8::from(a);
                            }
                            code(answer)
                        }
                        k => k,
                    };
                }
            }
            return;
        }
        for (j, o) in out.iter_mut().enumerate() {
            if *o == 1 {
                *o = code(self.verdict(first + j));
            }
        }
    }

    /// The verdict of game `g` (an index from 0): `Some(false)` when the query cannot
    /// match it (with `exact`: does not), `Some(true)` when it may (with `exact`: does),
    /// `None` when the test could not say (it ran past a limit).
    fn verdict(&mut self, g: usize) -> Option<bool> {
        let HeaderTest { query, how, status, exact, game, scratch } = self;
        let query: &Query = query;
        match how {
            How::All(out) => out[g],
            How::Columns { names, columns, by_number, result_read, memo } => {
                let fresh = |game: &mut Game, scratch: &mut crate::eval::Scratch| {
                    test_columns(query, *exact, game, scratch, names, columns, status, *result_read, g)
                };
                let _ = by_number;
                match memo {
                    Memo::None => fresh(game, scratch),
                    Memo::One(known) => {
                        let mut v = columns[0].1.get(g) as usize;
                        if *result_read {
                            v = v * 8 + usize::from(status[g] & 7);
                        }
                        match known[v] {
                            0 => Some(false),
                            1 => Some(true),
                            _ => {
                                let answer = fresh(game, scratch);
                                if let Some(a) = answer {
                                    known[v] = u8::from(a);
                                }
                                answer
                            }
                        }
                    }
                    Memo::Packed(known) => {
                        let mut key = if *result_read { u128::from(status[g] & 7) } else { 0 };
                        for (_, column) in columns.iter() {
                            key = (key << 32) | u128::from(column.get(g));
                        }
                        if let Some(&a) = known.get(&key) {
                            return Some(a);
                        }
                        let answer = fresh(game, scratch);
                        if let Some(a) = answer {
                            known.insert(key, a);
                        }
                        answer
                    }
                    Memo::Two(known) => {
                        let mut key = u64::from(columns[0].1.get(g)) << 31 | u64::from(columns[1].1.get(g));
                        if *result_read {
                            key = key << 3 | u64::from(status[g] & 7);
                        }
                        if let Some(&a) = known.get(&key) {
                            return Some(a);
                        }
                        let answer = fresh(game, scratch);
                        if let Some(a) = answer {
                            known.insert(key, a);
                        }
                        answer
                    }
                    Memo::Wide(known) => {
                        let mut key: Vec<u32> = columns.iter().map(|(_, column)| column.get(g)).collect();
                        if *result_read {
                            key.push(u32::from(status[g] & 7));
                        }
                        if let Some(&a) = known.get(&key) {
                            return Some(a);
                        }
                        let answer = fresh(game, scratch);
                        if let Some(a) = answer {
                            known.insert(key, a);
                        }
                        answer
                    }
                }
            }
        }
    }
}

/// The header test of game `g` (an index from 0) on a game holding its values of the
/// columns (and its termination marker when `result_read`); see [`run_test`].
#[allow(clippy::too_many_arguments)]
fn test_columns(
    query: &Query,
    exact: bool,
    game: &mut Game,
    scratch: &mut crate::eval::Scratch,
    names: &[String],
    columns: &[(TagValues, TagColumn)],
    status: &[u8],
    result_read: bool,
    g: usize,
) -> Option<bool> {
    // The tags are written over the last game's, keeping their buffers.
    let mut n = 0;
    for (k, (values, column)) in columns.iter().enumerate() {
        if let Some(v) = column.get(g).checked_sub(1) {
            if n == game.tags.len() {
                game.tags.push(Tag { name: String::new(), value: Vec::new() });
            }
            let tag = &mut game.tags[n];
            tag.name.clone_from(&names[k]);
            tag.value.clear();
            tag.value.extend_from_slice(values.get(v as usize));
            n += 1;
        }
    }
    game.tags.truncate(n);
    game.number = g as u64 + 1;
    game.termination = if result_read { termination(status[g]) } else { None };
    run_test(query, exact, game, scratch)
}

/// The header test on a game holding the indexed tags: with `exact` the query's verdict
/// on it as the scan gives it before reading moves (`None`: the evaluation failed, as it
/// would be abandoned), else whether its header conjuncts pass.
fn run_test(query: &Query, exact: bool, game: &mut Game, scratch: &mut crate::eval::Scratch) -> Option<bool> {
    if exact {
        let found = query.eval_game(scratch, game);
        if found.error.is_some() {
            return None;
        }
        Some(found.matched)
    } else {
        Some(query.may_match_tags(scratch, game))
    }
}

/// Reads byte ranges of one source in increasing order, checking each block of the
/// stored file against the index's checksum as it passes.
enum SourceReader {
    /// A plain file: blocks are read where they lie, with positioned reads.
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
                        file.read_exact_at(block, start).map_err(|_| changed("the file ends early".into()))?;
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

impl Feed {
    /// The game of index `c` (from 0), read back from its source.
    fn read_game(&mut self, c: u32) -> Result<RawGame, crate::input::Error> {
        let l = self.locations[self.read];
        self.read += 1;
        let k = l.source as usize;
        let s = &self.sources[k];
        let fail = |e: std::io::Error| crate::input::Error {
            path: Arc::from(s.path.as_str()),
            source: e,
            offset: None,
            partial: None,
        };
        if self.readers[k].is_none() {
            self.readers[k] = Some(SourceReader::open(s).map_err(fail)?);
        }
        let mut bytes = self.spare.pop().unwrap_or_default();
        self.readers[k].as_mut().expect("opened").read(s, l.offset, l.len, &mut bytes).map_err(fail)?;
        Ok(RawGame {
            number: u64::from(c) + 1,
            file: self.files[k].clone(),
            line: l.line,
            bytes,
            offset: l.offset,
            file_number: l.file_number,
        })
    }
}

/// Decided items handed to the scan at a time.
const DECIDED_AT_ONCE: usize = 64;

impl GameFeed for Feed {
    fn next_game(&mut self) -> Option<Result<RawGame, crate::input::Error>> {
        if self.failed {
            return None;
        }
        // The scan takes the decided items first; any left are passed over here only
        // if it did not (never, as the scan is written).
        while let Some(item) = self.items.get(self.at) {
            self.at += 1;
            if let Item::Read(c) = *item {
                let game = self.read_game(c);
                if game.is_err() {
                    self.failed = true;
                }
                return Some(game);
            }
            debug_assert!(false, "a decided item was not taken");
        }
        None
    }

    fn give_back(&mut self, bytes: Vec<u8>) {
        if self.spare.len() < 512 && bytes.capacity() <= 16 << 10 {
            self.spare.push(bytes);
        }
    }

    fn take_decided(&mut self, out: &mut Vec<Decided>) {
        if self.failed {
            return;
        }
        while let Some(Item::Decided(d)) = self.items.get(self.at) {
            out.push(*d);
            self.at += 1;
            if out.len() >= DECIDED_AT_ONCE {
                break;
            }
        }
    }
}
