//! The game splitter as it was before it worked on a block buffer (issue 17): kept for tests
//! only, as the reference the fast splitter must agree with byte for byte.

use super::{is_blank, looks_like_tag_pair, repeats_tag_name, scan_movetext, Error, Offset, RawGame};
use std::io::{self, BufRead};
use std::sync::Arc;

/// Cuts a stream of PGN bytes into games (see the module docs for the rules).
pub(crate) struct OldSplitter<R: BufRead> {
    reader: R,
    file: Arc<str>,
    /// Number the next game will get.
    next_number: u64,
    /// Ordinal within the file the next game will get.
    next_file_number: u64,
    /// Offset in the file just after the last byte read (the buffer `current.bytes` always
    /// holds the bytes just before it).
    read_pos: u64,
    /// Lines read so far.
    lines_read: u64,
    /// The game being collected.
    current: RawGame,
    /// Has the current game any tag or movetext content?
    has_content: bool,
    /// Has the current game movetext (so a tag line starts a new game)?
    has_movetext: bool,
    /// Are we inside a `{…}` comment that began on an earlier line?
    in_comment: bool,
    /// Was the previous line blank?
    prev_blank: bool,
    /// Bytes of text read so far.
    bytes_read: u64,
    done: bool,
}

impl<R: BufRead> OldSplitter<R> {
    /// A splitter over one input; `file` names it in messages, `first_number` is the
    /// number the first game gets.
    pub fn new(reader: R, file: Arc<str>, first_number: u64) -> OldSplitter<R> {
        OldSplitter {
            reader,
            current: RawGame { file: file.clone(), bytes: Vec::with_capacity(4096), ..RawGame::default() },
            file,
            next_number: first_number,
            next_file_number: 1,
            read_pos: 0,
            lines_read: 0,
            has_content: false,
            has_movetext: false,
            in_comment: false,
            prev_blank: true,
            bytes_read: 0,
            done: false,
        }
    }

    /// Bytes of text read so far.
    #[allow(dead_code)]
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Lines of text read so far.
    #[allow(dead_code)]
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
    pub fn starting_at(mut self, offset: u64, lines: u64, games: u64) -> OldSplitter<R> {
        self.read_pos = offset;
        self.lines_read = lines;
        self.next_file_number = games + 1;
        self
    }

    /// Hand out the collected game (if it has content), keeping the bytes from `keep_from`
    /// on (the line that starts the next game) as the start of a fresh one.
    fn take_current(&mut self, keep_from: usize) -> Option<RawGame> {
        if !self.has_content {
            self.current.bytes.drain(..keep_from);
            return None;
        }
        let offset = self.read_pos - self.current.bytes.len() as u64;
        let mut next = Vec::with_capacity(self.current.bytes.len().max(4096));
        next.extend_from_slice(&self.current.bytes[keep_from..]);
        self.current.bytes.truncate(keep_from);
        let mut game = std::mem::replace(
            &mut self.current,
            RawGame { file: self.file.clone(), bytes: next, ..RawGame::default() },
        );
        game.number = self.next_number;
        game.file_number = self.next_file_number;
        game.offset = offset;
        self.next_number += 1;
        self.next_file_number += 1;
        self.has_content = false;
        self.has_movetext = false;
        self.in_comment = false;
        // Trim trailing blank bytes so a game's bytes end at its last token.
        while game.bytes.last().is_some_and(|&b| is_blank(b)) {
            game.bytes.pop();
        }
        Some(game)
    }

    /// Look at the line just appended to the current game (from byte `start`); if it
    /// starts a new game, return the finished one and keep the line for the new one.
    fn feed_line(&mut self, start: usize, line_no: u64) -> Option<RawGame> {
        let line = &self.current.bytes[start..];
        let first = line.iter().position(|&b| !is_blank(b));
        let Some(first) = first else {
            // Blank line: only kept inside a game.
            if !self.has_content {
                self.current.bytes.truncate(start);
            }
            self.prev_blank = true;
            return None;
        };
        let prev_blank = std::mem::replace(&mut self.prev_blank, false);
        if self.in_comment {
            if prev_blank && looks_like_tag_pair(&line[first..]) {
                // An unterminated comment: close the damaged game here.
                self.in_comment = false;
                let finished = self.take_current(start);
                self.start_line(0, first, line_no);
                return finished;
            }
            self.in_comment = scan_movetext(line, 0, true);
            return None;
        }
        if line[first] == b'%' && first == 0 {
            // Escape line: kept inside a game (pgn skips it) but it is no content.
            if !self.has_content {
                self.current.bytes.truncate(start);
            }
            return None;
        }
        if line[first] == b'['
            && (self.has_movetext
                || (prev_blank
                    && self.has_content
                    && repeats_tag_name(&self.current.bytes[..start], &self.current.bytes[start + first..])))
        {
            let finished = self.take_current(start);
            self.start_line(0, first, line_no);
            return finished;
        }
        self.start_line(start, first, line_no);
        None
    }

    /// Account for a non-blank line (from byte `start`, first non-blank at `start +
    /// first`), not inside a comment, that belongs to the current game.
    fn start_line(&mut self, mut start: usize, first: usize, line_no: u64) {
        if !self.has_content {
            // Only blank or escape bytes can come before the first content line.
            self.current.bytes.drain(..start);
            start = 0;
            self.has_content = true;
            self.current.line = line_no;
        }
        let line = &self.current.bytes[start..];
        let movetext_from = if line[first] == b'[' { skip_tag_pairs(line, first) } else { first };
        if movetext_from < line.len() && line[movetext_from..].iter().any(|&b| !is_blank(b)) {
            self.has_movetext = true;
            self.in_comment = scan_movetext(line, movetext_from, false);
        }
    }
}

impl<R: BufRead> Iterator for OldSplitter<R> {
    type Item = Result<RawGame, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            let start = self.current.bytes.len();
            match read_line(&mut self.reader, &mut self.current.bytes) {
                Ok(0) => {
                    self.done = true;
                    let end = self.current.bytes.len();
                    return self.take_current(end).map(Ok);
                }
                Ok(n) => {
                    self.bytes_read += n as u64;
                    self.read_pos += n as u64;
                    self.lines_read += 1;
                    if let Some(game) = self.feed_line(start, self.lines_read) {
                        return Some(Ok(game));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // A read or decompression error ends this input; the game being
                    // read is handed out with the error, to be counted as skipped.
                    self.done = true;
                    self.bytes_read += (self.current.bytes.len() - start) as u64;
                    self.read_pos += (self.current.bytes.len() - start) as u64;
                    let end = self.current.bytes.len();
                    let partial = self.take_current(end);
                    let offset = Offset {
                        file_bytes: 0,
                        text_bytes: self.bytes_read,
                        lines: self.lines_read,
                        compressed: false,
                    };
                    return Some(Err(Error { path: self.file.clone(), source: e, offset: Some(offset), partial }));
                }
            }
        }
    }
}

/// Append one line (up to and including its line feed, or up to the end of the input)
/// to `out`; the number of bytes appended, 0 at the end of the input. Like
/// `BufRead::read_until(b'\n', …)`, but finds the line feed with the vectorised `memchr`.
/// On an error, the bytes read before it stay appended.
fn read_line<R: BufRead + ?Sized>(reader: &mut R, out: &mut Vec<u8>) -> io::Result<usize> {
    let mut read = 0;
    loop {
        let (done, used) = {
            let available = match reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            match memchr::memchr(b'\n', available) {
                Some(i) => {
                    out.extend_from_slice(&available[..=i]);
                    (true, i + 1)
                }
                None => {
                    out.extend_from_slice(available);
                    (available.is_empty(), available.len())
                }
            }
        };
        reader.consume(used);
        read += used;
        if done || used == 0 {
            return Ok(read);
        }
    }
}

/// Skip the tag pairs at the start of a line (`[Name "value"] [Other "x"]`); return the
/// index of the first byte after them (the line's length if nothing else follows).
/// A tag whose quote or bracket never closes takes the rest of the line.
fn skip_tag_pairs(line: &[u8], mut i: usize) -> usize {
    loop {
        while i < line.len() && is_blank(line[i]) {
            i += 1;
        }
        if i >= line.len() || line[i] != b'[' {
            return i;
        }
        i += 1;
        let mut in_quote = false;
        loop {
            if i >= line.len() {
                return i;
            }
            match line[i] {
                b'\\' if in_quote => i += 1,
                b'"' => in_quote = !in_quote,
                b']' if !in_quote => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
}
