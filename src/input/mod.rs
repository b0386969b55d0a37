//! Reading input files: opening paths or stdin, undoing compression, and cutting the
//! byte stream into one raw byte chunk per game.
//!
//! Takes in: file paths (or `-` for standard input), plain or gzip / zstd / bzip2
//! compressed, detected by their magic bytes.
//! Gives out: [`RawGame`]s — the bytes of one game with its number (1-based, continuous
//! across all inputs), the file it came from and the line it starts on — through
//! [`Splitter`] (one reader) or [`Games`] (several paths chained).
//! Must never: parse moves (that is `pgn`'s job, done in parallel workers), buffer a
//! whole file, or let damage in one game swallow the rest of a file.
//!
//! # Where a game ends
//! A game is an optional tag section (lines whose first non-blank byte is `[`) followed
//! by movetext; it ends where a new tag section begins after movetext has been seen, or
//! at the end of the input. Brace comments `{…}` may span lines and contain `[`; `;`
//! comments run to the end of their line; lines starting with `%` are escape lines and
//! are skipped. A leading byte-order mark, CR line ends, NUL bytes and other stray
//! control bytes count as blank. Input that holds nothing but blank lines is no game.
//!
//! An unterminated brace comment would swallow everything after it; to make such damage
//! cost only its own game, a line that looks exactly like a tag pair (`[Name "value"]`)
//! right after a blank line is taken as the start of the next game even inside a
//! comment. The damaged game is still handed out, and `pgn` reports the open comment.

use std::io::{self, BufRead};
use std::sync::Arc;

mod lines;
mod open;
#[cfg(test)]
mod reference;
pub mod shard;
pub mod sniff;

pub(crate) use lines::{find_byte_of, looks_like_tag_pair};
use lines::{
    last_line_is_blank, plain_movetext_lines, repeats_tag_name, scan_movetext, skip_tag_pairs, skip_tag_pairs_quick,
};
pub use open::{
    looks_binary, open, open_counted, read_open_file, read_regular_file, read_regular_text, refuse_reason, stop_flag,
    wrap_decoder, Compression, Opened, MAX_TEXT_FILE_BYTES, STOPPED,
};

/// Size of the read buffers around files and decoders.
const BUFFER_BYTES: usize = 256 * 1024;

/// The bytes of one game as cut out of an input file, not yet parsed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawGame {
    /// Ordinal of the game across all inputs, from 1.
    pub number: u64,
    /// The path the game came from (`-` for stdin), for messages.
    pub file: Arc<str>,
    /// The 1-based line of the input file on which the game starts.
    pub line: u64,
    /// The game's bytes: tag section and movetext, as they are in the file.
    pub bytes: Vec<u8>,
    /// Byte offset of the game's first byte in its file (in the decompressed stream for
    /// a compressed file): with `bytes.len()` it locates the game for `--extract` or `dd`.
    pub offset: u64,
    /// Ordinal of the game within its own file, from 1 (equal to `number` for the first
    /// input file).
    pub file_number: u64,
}

/// An input file that could not be opened, read or decompressed, or that is not PGN
/// text at all.
#[derive(Debug)]
pub struct Error {
    /// The path involved (`-` for stdin).
    pub path: Arc<str>,
    /// What went wrong.
    pub source: io::Error,
    /// Where reading stopped: bytes of the file itself (before decompression) and bytes
    /// of PGN text read, when the file was being read when it failed.
    pub offset: Option<Offset>,
    /// The game that was being read when the input failed, as far as it got: it is cut
    /// and must be counted as skipped.
    pub partial: Option<RawGame>,
}

/// How far into an input a failure happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offset {
    /// Bytes of the file read (compressed bytes for a compressed file).
    pub file_bytes: u64,
    /// Bytes of PGN text read (after decompression).
    pub text_bytes: u64,
    /// Lines of PGN text read.
    pub lines: u64,
    /// Was the file compressed?
    pub compressed: bool,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.offset {
            Some(o) if o.compressed && stream_ends_early(&self.source) => write!(
                f,
                "{}: the compressed stream ends early: the file is cut short at byte {} \
                 (after {} bytes, {} lines of text): {}",
                self.path, o.file_bytes, o.text_bytes, o.lines, self.source
            )?,
            Some(o) if o.compressed => write!(
                f,
                "{}: the compressed data is cut short or damaged near byte {} of the file \
                 (after {} bytes, {} lines of text): {}",
                self.path, o.file_bytes, o.text_bytes, o.lines, self.source
            )?,
            Some(o) => {
                write!(f, "{}: reading failed at byte {} (line {}): {}", self.path, o.text_bytes, o.lines, self.source)?
            }
            None => write!(f, "{}: {}", self.path, self.source)?,
        }
        if let Some(g) = &self.partial {
            write!(f, "; game {} (line {}) is cut off and skipped", g.number, g.line)?;
        }
        Ok(())
    }
}

/// Did a decoder stop because its compressed input ended before the stream did (the
/// words of flate2, zstd and bzip2 for it), rather than on damaged data?
fn stream_ends_early(e: &io::Error) -> bool {
    let text = e.to_string();
    e.kind() == io::ErrorKind::UnexpectedEof
        || ["incomplete deflate stream", "incomplete frame", "EOF reached"].iter().any(|w| text.contains(w))
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl Error {
    fn new(path: &str, source: io::Error) -> Error {
        Error { path: Arc::from(path), source, offset: None, partial: None }
    }

    /// Is this the report of one game too large to keep ([`GameTooLarge`]), after which
    /// the input goes on, rather than a failure of the input?
    pub fn game_too_large(&self) -> Option<GameTooLarge> {
        self.source.get_ref().and_then(|e| e.downcast_ref::<GameTooLarge>()).copied()
    }
}

/// Is this byte "blank" for deciding what a line holds? Spaces, tabs, CR/LF, NUL and
/// other control bytes, and the bytes of a UTF-8 byte-order mark (EF BB BF).
#[inline]
pub(crate) fn is_blank(b: u8) -> bool {
    b <= b' ' || b == 0xef || b == 0xbb || b == 0xbf || b == 0x7f
}

/// At most this many emptied game buffers are kept for reuse (see [`Splitter::give_back`]):
/// a batch of the scan (`scan::BATCH_SIZE` games at most) comes back whole.
const SPARE_GAMES: usize = 512;
/// A given-back buffer larger than this is dropped rather than kept.
const SPARE_CAPACITY: usize = 16 * 1024;

/// Cuts a stream of PGN bytes into games (see the module docs for the rules).
///
/// Works on one block buffer: bytes are copied from the reader in whole chunks, lines are
/// found with `memchr` and looked at where they lie, and each game is copied out once when
/// its end is known (no per-line copy).
pub struct Splitter<R: BufRead> {
    reader: R,
    file: Arc<str>,
    /// Number the next game will get.
    next_number: u64,
    /// Ordinal within the file the next game will get.
    next_file_number: u64,
    /// Offset in the file of `buf[0]`.
    base: u64,
    /// Lines read so far.
    lines_read: u64,
    /// Bytes read from the reader and not yet handed out: `store[..end]` (the rest of
    /// `store` is room for the next read).
    store: Vec<u8>,
    end: usize,
    /// Where the current game's bytes begin in `buf` (before its first content line: the
    /// start of the next line, everything before it having been dropped).
    start: usize,
    /// Start of the next line not yet looked at.
    scan: usize,
    /// No line feed lies in `buf[scan..searched]` (so a long line is searched once).
    searched: usize,
    /// Line on which the current game starts.
    line: u64,
    /// Has the current game any tag or movetext content?
    has_content: bool,
    /// Has the current game movetext (so a tag line starts a new game)?
    has_movetext: bool,
    /// Are we inside a `{…}` comment that began on an earlier line?
    in_comment: bool,
    /// Was the previous line blank?
    prev_blank: bool,
    /// Bytes of text read so far (whole lines looked at).
    bytes_read: u64,
    /// The reader has reported its end.
    eof: bool,
    done: bool,
    /// Emptied buffers of games handed out earlier, to hold the next games' bytes.
    spare: Vec<Vec<u8>>,
    /// A game holding more bytes than this is not kept in memory (see [`GameTooLarge`]).
    max_game_bytes: usize,
}

/// The error a [`Splitter`] gives for a game larger than its limit
/// ([`Splitter::with_max_game_bytes`]): the game was read past, not kept, and is handed
/// out as the [`Error::partial`] game (with no bytes) of an [`Error`] whose source holds
/// this. The input goes on after it; [`Error::game_too_large`] tells it from a failed read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameTooLarge {
    /// Bytes of the game read (at least; a huge line is counted as far as it was read).
    pub bytes: u64,
    /// The limit it went over.
    pub max: u64,
}

impl std::fmt::Display for GameTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the game is larger than {} bytes ({} bytes read); not read (see --max-game-bytes)",
            self.max, self.bytes
        )
    }
}

impl std::error::Error for GameTooLarge {}

impl<R: BufRead> Splitter<R> {
    /// A splitter over one input; `file` names it in messages, `first_number` is the
    /// number the first game gets.
    pub fn new(reader: R, file: Arc<str>, first_number: u64) -> Splitter<R> {
        Splitter {
            reader,
            file,
            next_number: first_number,
            next_file_number: 1,
            base: 0,
            lines_read: 0,
            store: Vec::new(),
            end: 0,
            start: 0,
            scan: 0,
            searched: 0,
            line: 0,
            has_content: false,
            has_movetext: false,
            in_comment: false,
            prev_blank: true,
            bytes_read: 0,
            eof: false,
            done: false,
            spare: Vec::new(),
            max_game_bytes: usize::MAX,
        }
    }

    /// Keep no game larger than `max` bytes: such a game is read past without being
    /// kept (its end is the next line that looks like a tag pair after a blank line, as
    /// for an unterminated comment) and handed out as a [`GameTooLarge`] error.
    pub fn with_max_game_bytes(mut self, max: usize) -> Splitter<R> {
        self.max_game_bytes = max.max(1);
        self
    }

    /// Read past the current game, which went over [`Self::with_max_game_bytes`] while its
    /// line at `scan` was not complete: nothing of it is kept. Ends where the next game
    /// begins (kept in the buffer, accounted as its first line) or at the end of the
    /// input; gives the game's place and size as an error holding [`GameTooLarge`].
    fn skip_oversized(&mut self) -> Error {
        let offset = self.base + self.start as u64;
        let line = if self.has_content { self.line } else { self.lines_read + 1 };
        let mut dropped = (self.end - self.start) as u64;
        self.bytes_read += (self.end - self.scan) as u64;
        self.scan = self.end;
        self.searched = self.end;
        self.start = self.end;
        // The line the limit was reached in is dropped up to its end.
        let mut mid_line = true;
        let mut prev_blank = false;
        let mut failure = None;
        loop {
            let from = self.searched.max(self.scan);
            match memchr::memchr(b'\n', &self.buf()[from..]) {
                Some(i) => {
                    let (ls, le) = (self.scan, from + i + 1);
                    self.scan = le;
                    self.searched = le;
                    self.bytes_read += (le - ls) as u64;
                    self.lines_read += 1;
                    if !std::mem::replace(&mut mid_line, false) {
                        let first = self.buf()[ls..le].iter().position(|&b| !is_blank(b));
                        match first {
                            None => prev_blank = true,
                            Some(f) if prev_blank && looks_like_tag_pair(&self.buf()[ls + f..le]) => {
                                // The next game starts on this line.
                                self.start = ls;
                                self.has_content = false;
                                self.has_movetext = false;
                                self.in_comment = false;
                                self.prev_blank = false;
                                self.start_line(ls, le, f, self.lines_read);
                                break;
                            }
                            Some(_) => prev_blank = false,
                        }
                    }
                    dropped += (le - ls) as u64;
                    self.start = le;
                }
                None if self.eof => {
                    dropped += (self.end - self.scan) as u64;
                    self.bytes_read += (self.end - self.scan) as u64;
                    self.scan = self.end;
                    self.start = self.end;
                    self.done = true;
                    break;
                }
                None => {
                    if self.end - self.scan > BUFFER_BYTES {
                        // A long line: no tag pair, dropped as it comes.
                        dropped += (self.end - self.scan) as u64;
                        self.bytes_read += (self.end - self.scan) as u64;
                        self.scan = self.end;
                        self.start = self.end;
                        mid_line = true;
                    }
                    self.searched = self.end;
                    if let Err(e) = self.fill() {
                        self.done = true;
                        failure = Some(e);
                        break;
                    }
                }
            }
        }
        if !self.done {
            // Only the next game's first line is kept; nothing else of this one is.
            self.has_content = true;
        }
        let game = RawGame {
            number: self.next_number,
            file: self.file.clone(),
            line,
            bytes: Vec::new(),
            offset,
            file_number: self.next_file_number,
        };
        self.next_number += 1;
        self.next_file_number += 1;
        let too_large = GameTooLarge { bytes: dropped, max: self.max_game_bytes as u64 };
        let source = match failure {
            // The input failed while the game was read past: that is the error to report.
            Some(e) => e,
            None => io::Error::new(io::ErrorKind::InvalidData, too_large),
        };
        Error { path: self.file.clone(), source, offset: None, partial: Some(game) }
    }

    /// Take back the bytes of a game handed out earlier that are no longer needed: a
    /// later game is copied into them, so that cutting games out allocates nothing once
    /// buffers come back. At most 256 buffers of up to 16 KB are kept.
    pub fn give_back(&mut self, bytes: Vec<u8>) {
        if self.spare.len() < SPARE_GAMES && bytes.capacity() <= SPARE_CAPACITY {
            self.spare.push(bytes);
        }
    }

    /// The bytes read and not yet handed out.
    #[inline]
    fn buf(&self) -> &[u8] {
        &self.store[..self.end]
    }

    /// Bytes of text read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Lines of text read so far.
    pub fn lines_read(&self) -> u64 {
        self.lines_read
    }

    /// The number the next game handed out will get.
    pub fn next_number(&self) -> u64 {
        self.next_number
    }

    /// Say where in its file the reader starts: at byte `offset`, after line `lines` and
    /// after `games` games of that file (a byte range of a file, see [`shard`]). Must be
    /// called before the first game is read.
    pub fn starting_at(mut self, offset: u64, lines: u64, games: u64) -> Splitter<R> {
        self.base = offset;
        self.lines_read = lines;
        self.next_file_number = games + 1;
        self
    }

    /// Read the next chunk of the input into `buf` (first dropping what was handed out);
    /// sets `eof` at the end of the input.
    fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.store.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.base += self.start as u64;
            self.scan -= self.start;
            self.searched -= self.start;
            self.start = 0;
        }
        if self.store.len() - self.end < BUFFER_BYTES {
            // Zeroed once; later reads overwrite it in place.
            self.store.resize((self.end + BUFFER_BYTES).max(2 * self.store.len()), 0);
        }
        loop {
            // A read as large as the reader's own buffer goes straight into ours.
            let room = &mut self.store[self.end..self.end + BUFFER_BYTES];
            match self.reader.read(room) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            return Ok(());
        }
    }

    /// Hand out the collected game (if it has content), ending before `buf[keep_from]`
    /// (where the next game's first line begins); the next game starts there.
    fn take_current(&mut self, keep_from: usize) -> Option<RawGame> {
        let from = std::mem::replace(&mut self.start, keep_from);
        if !self.has_content {
            return None;
        }
        // Trim trailing blank bytes so a game's bytes end at its last token.
        let mut end = keep_from;
        while end > from && is_blank(self.buf()[end - 1]) {
            end -= 1;
        }
        let game = RawGame {
            number: self.next_number,
            file: self.file.clone(),
            line: self.line,
            bytes: {
                let mut bytes = self.spare.pop().unwrap_or_default();
                bytes.clear();
                bytes.extend_from_slice(&self.buf()[from..end]);
                bytes
            },
            offset: self.base + from as u64,
            file_number: self.next_file_number,
        };
        self.next_number += 1;
        self.next_file_number += 1;
        self.has_content = false;
        self.has_movetext = false;
        self.in_comment = false;
        Some(game)
    }

    /// The two commonest lines, looked at without searching for their end first: a tag
    /// line in the middle of a tag section (`[Name "value"]` and blanks) and a movetext
    /// line without comments. Returns the end of the line (after its line feed) and the
    /// lines stepped over when the line at `scan` is one of them and holds nothing else
    /// (it then changes nothing but what [`Splitter::feed_line`] would change for it),
    /// `None` when the line must take the general way. Such a tag line changes nothing
    /// that decides how the next line is read, so the tag lines after it are stepped over
    /// in the same call while they are such lines too.
    #[inline]
    fn quick_line(&mut self) -> Option<(usize, u64)> {
        let ls = self.scan;
        let lead = *self.buf().get(ls)?;
        if self.in_comment || !self.has_content || self.prev_blank {
            return None;
        }
        if lead == b'[' && !self.has_movetext {
            let buf = self.buf();
            let (mut next, mut lines) = (ls, 0);
            while buf.get(next) == Some(&b'[') {
                // The tag pairs, then only blanks up to the line feed.
                let Some(mut i) = skip_tag_pairs_quick(buf, next) else { break };
                while i < buf.len() && buf[i] != b'\n' && is_blank(buf[i]) {
                    i += 1;
                }
                if buf.get(i) != Some(&b'\n') {
                    break;
                }
                next = i + 1;
                lines += 1;
            }
            return (lines > 0).then_some((next, lines));
        }
        if self.has_movetext && !is_blank(lead) && lead != b'[' && lead != b'%' {
            // Movetext up to the line feed with no comment in it.
            let i = find_byte_of(self.buf(), ls, [b'\n', b'{', b';', b'\n']);
            return (self.buf().get(i) == Some(&b'\n')).then_some((i + 1, 1));
        }
        None
    }

    /// Look at the line `buf[ls..le]` (its line feed included); if it starts a new game,
    /// return the finished one and keep the line for the new one.
    fn feed_line(&mut self, ls: usize, le: usize, line_no: u64) -> Option<RawGame> {
        let line = &self.store[ls..le];
        let first = if !is_blank(line[0]) { Some(0) } else { line.iter().position(|&b| !is_blank(b)) };
        let Some(first) = first else {
            // Blank line: only kept inside a game.
            if !self.has_content {
                self.start = le;
            }
            self.prev_blank = true;
            return None;
        };
        let prev_blank = std::mem::replace(&mut self.prev_blank, false);
        if self.in_comment {
            if prev_blank && looks_like_tag_pair(&line[first..]) {
                // An unterminated comment: close the damaged game here.
                self.in_comment = false;
                let finished = self.take_current(ls);
                self.start_line(ls, le, first, line_no);
                return finished;
            }
            self.in_comment = scan_movetext(line, 0, true);
            return None;
        }
        let lead = line[first];
        if lead == b'%' && first == 0 {
            // Escape line: kept inside a game (pgn skips it) but it is no content.
            if !self.has_content {
                self.start = le;
            }
            return None;
        }
        if lead == b'['
            && (self.has_movetext
                || (prev_blank
                    && self.has_content
                    && repeats_tag_name(&self.buf()[self.start..ls], &self.buf()[ls + first..le])))
        {
            let finished = self.take_current(ls);
            self.start_line(ls, le, first, line_no);
            return finished;
        }
        self.start_line(ls, le, first, line_no);
        None
    }

    /// Account for the non-blank line `buf[ls..le]` (first non-blank at `ls + first`),
    /// not inside a comment, that belongs to the current game.
    fn start_line(&mut self, ls: usize, le: usize, first: usize, line_no: u64) {
        if !self.has_content {
            // Only blank or escape bytes can come before the first content line.
            self.start = ls;
            self.has_content = true;
            self.line = line_no;
        }
        let line = &self.store[ls..le];
        let movetext_from = if line[first] == b'[' { skip_tag_pairs(line, first) } else { first };
        if movetext_from < line.len() && line[movetext_from..].iter().any(|&b| !is_blank(b)) {
            self.has_movetext = true;
            self.in_comment = scan_movetext(line, movetext_from, false);
        }
    }
}

impl<R: BufRead> Iterator for Splitter<R> {
    type Item = Result<RawGame, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            if self.has_movetext && !self.in_comment {
                // Whole lines of plain movetext change nothing but the counters and
                // whether the last of them was blank: step over all of them at once.
                let (end, lines) = plain_movetext_lines(self.buf(), self.scan);
                if lines > 0 {
                    self.prev_blank = last_line_is_blank(&self.buf()[self.scan..end]);
                    self.bytes_read += (end - self.scan) as u64;
                    self.lines_read += lines;
                    self.scan = end;
                }
            }
            if let Some((end, lines)) = self.quick_line() {
                let ls = self.scan;
                self.scan = end;
                self.bytes_read += (end - ls) as u64;
                self.lines_read += lines;
                continue;
            }
            let from = self.searched.max(self.scan);
            let end = match memchr::memchr(b'\n', &self.buf()[from..]) {
                Some(i) => from + i + 1,
                None if self.eof => {
                    if self.scan == self.end {
                        self.done = true;
                        let end = self.end;
                        return self.take_current(end).map(Ok);
                    }
                    // The last line, without a line feed.
                    self.end
                }
                None if self.end - self.start > self.max_game_bytes => {
                    return Some(Err(self.skip_oversized()));
                }
                None => {
                    self.searched = self.end;
                    match self.fill() {
                        Ok(()) => continue,
                        Err(e) => {
                            // A read or decompression error ends this input; the game
                            // being read (with the bytes of its last, cut line) is handed
                            // out with the error, to be counted as skipped.
                            self.done = true;
                            self.bytes_read += (self.end - self.scan) as u64;
                            self.scan = self.end;
                            let end = self.end;
                            let partial = self.take_current(end);
                            let offset = Offset {
                                file_bytes: 0,
                                text_bytes: self.bytes_read,
                                lines: self.lines_read,
                                compressed: false,
                            };
                            return Some(Err(Error {
                                path: self.file.clone(),
                                source: e,
                                offset: Some(offset),
                                partial,
                            }));
                        }
                    }
                }
            };
            let ls = self.scan;
            self.scan = end;
            self.bytes_read += (end - ls) as u64;
            self.lines_read += 1;
            if let Some(game) = self.feed_line(ls, end, self.lines_read) {
                return Some(Ok(game));
            }
        }
    }
}

/// One input to read: a whole file (or standard input), or the part of a plain file
/// that one shard owns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The path (`-` = standard input).
    pub path: String,
    /// `Some((start, end))`: read only the games that begin in these bytes of the file.
    /// The bounds must be game starts found by [`shard::sync_point`] (or 0 and the file's
    /// length), so that every game is read whole by exactly one shard.
    pub range: Option<(u64, u64)>,
    /// Games of this file that come before `range` (0 for a whole file): the first game
    /// read gets file ordinal `games_before + 1`.
    pub games_before: u64,
    /// Lines of this file before `range`, if known (line numbers in messages are counted
    /// from the range start otherwise).
    pub lines_before: u64,
}

impl Source {
    /// The whole of a file or of standard input.
    pub fn whole(path: impl Into<String>) -> Source {
        Source { path: path.into(), range: None, games_before: 0, lines_before: 0 }
    }
}

/// Every game of several inputs in order, numbered continuously from 1.
///
/// An input that cannot be opened or read yields one `Err` and the iteration goes on
/// with the next input.
pub struct Games {
    sources: std::vec::IntoIter<Source>,
    current: Option<Splitter<Box<dyn BufRead + Send>>>,
    /// File bytes read from the current input, and whether it is compressed.
    file_bytes: Option<(Arc<std::sync::atomic::AtomicU64>, bool)>,
    next_number: u64,
    /// Largest game kept (see [`Splitter::with_max_game_bytes`]).
    max_game_bytes: usize,
}

impl Games {
    /// Chain the given paths (`-` = stdin), in order.
    pub fn new(paths: Vec<String>) -> Games {
        Games::from_sources(paths.into_iter().map(Source::whole).collect(), 1)
    }

    /// Chain the given sources in order; the first game read gets number `first_number`
    /// (1 for a whole run; a shard starts after the games of the shards before it).
    pub fn from_sources(sources: Vec<Source>, first_number: u64) -> Games {
        Games {
            sources: sources.into_iter(),
            current: None,
            file_bytes: None,
            next_number: first_number,
            max_game_bytes: usize::MAX,
        }
    }

    /// Keep no game larger than `max` bytes (see [`Splitter::with_max_game_bytes`]).
    pub fn with_max_game_bytes(mut self, max: usize) -> Games {
        self.max_game_bytes = max;
        self
    }

    /// Give the bytes of a game handed out earlier back for reuse (see
    /// [`Splitter::give_back`]); dropped when the input they came from is done.
    pub fn give_back(&mut self, bytes: Vec<u8>) {
        if let Some(splitter) = &mut self.current {
            splitter.give_back(bytes);
        }
    }
}

impl Iterator for Games {
    type Item = Result<RawGame, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(splitter) = &mut self.current {
                match splitter.next() {
                    Some(mut item) => {
                        self.next_number = splitter.next_number();
                        if let (Err(e), Some((count, compressed))) = (&mut item, &self.file_bytes) {
                            if let Some(o) = &mut e.offset {
                                o.file_bytes = count.load(std::sync::atomic::Ordering::Relaxed);
                                o.compressed = *compressed;
                            }
                        }
                        return Some(item);
                    }
                    None => {
                        self.next_number = splitter.next_number();
                        self.current = None;
                    }
                }
            }
            let source = self.sources.next()?;
            let file: Arc<str> = Arc::from(source.path.as_str());
            let opened = match source.range {
                None => open_counted(&source.path).map(|o| {
                    self.file_bytes = Some((o.file_bytes, o.compression != Compression::Plain));
                    (o.reader, 0)
                }),
                Some((start, end)) => {
                    // A byte range is only ever taken of a plain file: its text offsets
                    // are its file offsets.
                    // The file is judged as a whole first (compressed, binary, not
                    // text): every range of a refused file is refused the same way.
                    self.file_bytes = None;
                    open_counted(&source.path)
                        .and_then(|_| shard::open_range(&source.path, start, end))
                        .map(|r| (r, start))
                }
            };
            match opened {
                Ok((reader, offset)) => {
                    self.current = Some(
                        Splitter::new(reader, file, self.next_number)
                            .starting_at(offset, source.lines_before, source.games_before)
                            .with_max_game_bytes(self.max_game_bytes),
                    );
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod limit_tests {
    use super::*;

    fn games_of(text: &[u8], max: usize) -> Vec<Result<RawGame, Error>> {
        let reader = wrap_decoder(Box::new(io::Cursor::new(text.to_vec()))).unwrap();
        Splitter::new(reader, Arc::from("t.pgn"), 1).with_max_game_bytes(max).collect()
    }

    #[test]
    fn a_game_over_the_limit_is_handed_out_empty_and_the_next_one_whole() {
        let small = "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 *\n\n";
        let long_line = "x".repeat(BUFFER_BYTES * 3);
        let big = format!("[Event \"big\"]\n\n1. e4 {{{long_line}\n[not a tag\n}} *\n\n");
        let text = format!("{small}{big}{small}");
        let got = games_of(text.as_bytes(), 4096);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].as_ref().unwrap().bytes, small.trim_end().as_bytes());
        let err = got[1].as_ref().unwrap_err();
        let too_large = err.game_too_large().expect("too large");
        assert_eq!(too_large.max, 4096);
        assert!(too_large.bytes >= (BUFFER_BYTES * 3) as u64);
        let partial = err.partial.as_ref().unwrap();
        assert_eq!((partial.number, partial.line, partial.bytes.len()), (2, 6, 0));
        let last = got[2].as_ref().unwrap();
        assert_eq!((last.number, last.line), (3, 6 + 6));
        assert_eq!(last.bytes, small.trim_end().as_bytes());
        // Without a limit the same input gives three whole games.
        assert!(games_of(text.as_bytes(), usize::MAX).iter().all(|g| g.is_ok()));
    }

    #[test]
    fn a_last_game_over_the_limit_ends_the_input() {
        let text = format!("[Event \"a\"]\n\n1. e4 {{{}}} *\n", "y".repeat(10_000));
        let got = games_of(text.as_bytes(), 1000);
        assert_eq!(got.len(), 1);
        assert!(got[0].as_ref().unwrap_err().game_too_large().is_some());
    }

    #[test]
    fn cr_only_line_ends_are_read_as_line_ends() {
        let text = "[Event \"a\"]\r[Result \"*\"]\r\r1. e4 *\r\r[Event \"b\"]\r\r1. d4 *\r";
        let got = games_of(text.as_bytes(), usize::MAX);
        let numbers: Vec<(u64, u64)> = got.iter().map(|g| g.as_ref().map(|g| (g.number, g.line)).unwrap()).collect();
        assert_eq!(numbers, [(1, 1), (2, 6)]);
    }

    #[test]
    fn only_regular_files_of_bounded_size_are_read_whole() {
        let dir = std::env::temp_dir().join(format!("cqlrs-regular-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f.cql");
        std::fs::write(&file, "check").unwrap();
        assert_eq!(read_regular_text(&file, 5).unwrap(), "check");
        assert!(read_regular_file(&file, 4).unwrap_err().to_string().contains("larger than 4 bytes"));
        assert!(read_regular_file(&dir, 100).unwrap_err().to_string().contains("directory"));
        #[cfg(unix)]
        assert!(read_regular_file(std::path::Path::new("/dev/zero"), 100)
            .unwrap_err()
            .to_string()
            .contains("regular file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
