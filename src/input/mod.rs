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

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::sync::Arc;

#[cfg(test)]
mod reference;
pub mod shard;
pub mod sniff;

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

/// The compression format of an input, as told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed (anything without a known magic number).
    Plain,
    /// gzip (`1f 8b`), possibly several members concatenated.
    Gzip,
    /// Zstandard (`28 b5 2f fd`).
    Zstd,
    /// bzip2 (`BZh`), possibly several streams concatenated.
    Bzip2,
}

/// What the first bytes of an input say it is, when it is not something we read.
pub fn refuse_reason(head: &[u8]) -> Option<&'static str> {
    const KINDS: &[(&[u8], &str)] = &[
        (&[0xfd, b'7', b'z', b'X', b'Z', 0], "xz-compressed data is not read: decompress it first (`xz -dk FILE`)"),
        (b"PK\x03\x04", "a zip archive is not read: extract the PGN first (`unzip FILE`)"),
        (b"PK\x05\x06", "an (empty) zip archive is not read"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive is not read: extract the PGN first"),
        (b"Rar!", "a RAR archive is not read: extract the PGN first"),
        (b"\x7fELF", "this is an executable, not PGN text"),
        (b"MZ", "this is a Windows executable, not PGN text"),
        (&[0xcf, 0xfa, 0xed, 0xfe], "this is an executable, not PGN text"),
        (b"%PDF", "this is a PDF document, not PGN text"),
        (&[0xff, 0xfe], "UTF-16 text is not read: convert it to UTF-8 first (`iconv -f UTF-16 -t UTF-8`)"),
        (&[0xfe, 0xff], "UTF-16 text is not read: convert it to UTF-8 first (`iconv -f UTF-16 -t UTF-8`)"),
    ];
    KINDS.iter().find(|(magic, _)| head.starts_with(magic)).map(|(_, why)| *why)
}

/// Is this start of a (decompressed) stream plainly not text? NUL bytes, or many
/// control bytes other than tab, line feed, carriage return, form feed, Ctrl-Z and
/// escape. (Stray NULs deep inside a PGN file are tolerated as blanks.)
pub fn looks_binary(head: &[u8]) -> bool {
    let nul = head.iter().filter(|&&b| b == 0).count();
    let control =
        head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1a | 0x1b)).count();
    nul * 200 > head.len() || control * 20 > head.len()
}

impl Compression {
    /// Recognise a format from the first bytes of a stream.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else {
            Compression::Plain
        }
    }
}

/// Counts the bytes read through it (the position in a compressed file).
struct Counting<R> {
    inner: R,
    count: Arc<std::sync::atomic::AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened input: the decoded text and how many bytes of the file were read.
pub struct Opened {
    /// The PGN text (decompressed).
    pub reader: Box<dyn BufRead + Send>,
    /// Bytes of the file read so far (compressed bytes for a compressed file).
    pub file_bytes: Arc<std::sync::atomic::AtomicU64>,
    /// How the file was compressed.
    pub compression: Compression,
}

/// Open a path (`-` = standard input) for reading, undoing gzip, zstd or bzip2
/// compression when the magic bytes say so. The result streams; nothing is read ahead
/// beyond the buffers. Archives, other compressors, executables and binary data are
/// refused (one error for the file).
pub fn open(path: &str) -> Result<Box<dyn BufRead + Send>, Error> {
    open_counted(path).map(|o| o.reader)
}

/// [`open`], also giving the count of file bytes read (for error positions).
pub fn open_counted(path: &str) -> Result<Opened, Error> {
    let raw: Box<dyn Read + Send> =
        if path == "-" { Box::new(io::stdin()) } else { Box::new(open_file(path).map_err(|e| Error::new(path, e))?) };
    let count = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let raw = Box::new(Counting { inner: raw, count: count.clone() });
    let (reader, compression) = decode(raw).map_err(|(e, kind)| {
        let mut err = Error::new(path, e);
        if let Some(kind) = kind {
            // Failed while reading the first block: say where.
            let file_bytes = count.load(std::sync::atomic::Ordering::Relaxed);
            err.offset = Some(Offset { file_bytes, text_bytes: 0, lines: 0, compressed: kind != Compression::Plain });
        }
        err
    })?;
    Ok(Opened { reader, file_bytes: count, compression })
}

/// Open a file for reading, with plain words for the two commonest mistakes: a path
/// that does not exist and a directory.
fn open_file(path: &str) -> io::Result<File> {
    let file = File::open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => io::Error::new(e.kind(), "no such file"),
        _ => e,
    })?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        let hint =
            format!("is a directory, not a PGN file: give the files in it (`-i {}/*.pgn`)", path.trim_end_matches('/'));
        return Err(io::Error::new(io::ErrorKind::InvalidInput, hint));
    }
    Ok(file)
}

/// Put the right decoder around a byte stream, judging by its first bytes.
pub fn wrap_decoder(raw: Box<dyn Read + Send>) -> io::Result<Box<dyn BufRead + Send>> {
    decode(raw).map(|(r, _)| r).map_err(|(e, _)| e)
}

/// Why a text input is refused as a whole.
const NOT_PGN: &str = "this is not PGN: its first lines hold no tag pair (`[Event \"…\"]`) and no moves (`1. e4 e5`)";

fn not_text(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

/// The decoder for a stream and its compression; refuses what is not PGN text. An
/// error comes with the compression when it happened while reading (not when the
/// stream was refused).
#[allow(clippy::type_complexity)]
fn decode(
    raw: Box<dyn Read + Send>,
) -> Result<(Box<dyn BufRead + Send>, Compression), (io::Error, Option<Compression>)> {
    let mut reader = BufReader::with_capacity(BUFFER_BYTES, raw);
    // Peek at up to eight bytes; a pipe may hand them out one at a time.
    let mut head = [0u8; 8];
    let mut have = 0;
    let mut whole = false;
    while have < head.len() {
        let buf = reader.fill_buf().map_err(|e| (e, Some(Compression::Plain)))?;
        if buf.is_empty() {
            break;
        }
        if have == 0 && buf.len() >= head.len() {
            // Common case: everything is already in the buffer, no need to consume.
            head.copy_from_slice(&buf[..8]);
            have = head.len();
            whole = true;
            break;
        }
        let take = (head.len() - have).min(buf.len());
        head[have..have + take].copy_from_slice(&buf[..take]);
        reader.consume(take);
        have += take;
    }
    if let Some(why) = refuse_reason(&head[..have]) {
        return Err((not_text(why), None));
    }
    let kind = Compression::sniff(&head[..have]);
    let reading = |e: io::Error| (e, Some(kind));
    let mut decoded = if whole {
        decoder_for(kind, reader).map_err(reading)?
    } else {
        // Short or slow stream: put the peeked bytes back in front.
        let prefix = io::Cursor::new(head[..have].to_vec());
        let chained = BufReader::with_capacity(BUFFER_BYTES, Box::new(prefix.chain(reader)) as Box<dyn Read + Send>);
        decoder_for(kind, chained).map_err(reading)?
    };
    let text = decoded.fill_buf().map_err(reading)?;
    if kind != Compression::Plain {
        // What the compressed stream holds may itself be something else.
        if let Some(why) = refuse_reason(text) {
            return Err((not_text(why), None));
        }
    }
    if looks_binary(&text[..text.len().min(8192)]) {
        return Err((not_text("this is binary data, not PGN text"), None));
    }
    let cr_only = memchr::memchr(b'\n', text).is_none() && memchr::memchr(b'\r', text).is_some();
    let head = &text[..text.len().min(64 * 1024)];
    let judged = if cr_only {
        sniff::judge(&head.iter().map(|&b| if b == b'\r' { b'\n' } else { b }).collect::<Vec<u8>>())
    } else {
        sniff::judge(head)
    };
    if judged == sniff::Verdict::NotPgn {
        return Err((not_text(NOT_PGN), None));
    }
    if cr_only {
        // Old Mac line ends (CR alone): read each CR as a line feed.
        let lines = CrLineEnds { inner: decoded };
        return Ok((Box::new(BufReader::with_capacity(BUFFER_BYTES, lines)), kind));
    }
    Ok((decoded, kind))
}

/// Text whose lines end with a CR alone, read with a line feed in place of each CR (one
/// byte for one: offsets in the text stay those of the file).
struct CrLineEnds<R> {
    inner: R,
}

impl<R: Read> Read for CrLineEnds<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        for b in &mut buf[..n] {
            if *b == b'\r' {
                *b = b'\n';
            }
        }
        Ok(n)
    }
}

fn decoder_for<R: BufRead + Send + 'static>(kind: Compression, reader: R) -> io::Result<Box<dyn BufRead + Send>> {
    Ok(match kind {
        Compression::Plain => Box::new(reader),
        Compression::Gzip => {
            Box::new(BufReader::with_capacity(BUFFER_BYTES, flate2::bufread::MultiGzDecoder::new(reader)))
        }
        Compression::Zstd => {
            Box::new(BufReader::with_capacity(BUFFER_BYTES, zstd::stream::read::Decoder::with_buffer(reader)?))
        }
        Compression::Bzip2 => {
            Box::new(BufReader::with_capacity(BUFFER_BYTES, bzip2::bufread::MultiBzDecoder::new(reader)))
        }
    })
}

/// Most bytes of a text file read whole: a query script, an `include`d file, a
/// `readfile`.
pub const MAX_TEXT_FILE_BYTES: u64 = 64 << 20;

/// Read a whole text file that must be a regular file of at most `max` bytes: a device
/// (`/dev/zero`), a FIFO or a directory is refused before it is opened (opening a FIFO
/// would wait for a writer), and a file larger than `max` is refused, also one that grows
/// while it is read.
pub fn read_regular_file(path: &std::path::Path, max: u64) -> io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "not a regular file (a device, a FIFO or a socket)" };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{what}: only regular files are read")));
    }
    let too_large = || io::Error::new(io::ErrorKind::InvalidData, format!("larger than {max} bytes: not read"));
    if meta.len() > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    File::open(path)?.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_regular_file`] as UTF-8 text.
pub fn read_regular_text(path: &std::path::Path, max: u64) -> io::Result<String> {
    String::from_utf8(read_regular_file(path, max)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
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
    /// line without comments. Returns the end of the line (after its line feed) when the
    /// line at `scan` is one of them and holds nothing else (it then changes nothing but
    /// what [`Splitter::feed_line`] would change for it), `None` when the line must take
    /// the general way.
    #[inline]
    fn quick_line(&mut self) -> Option<usize> {
        let ls = self.scan;
        let lead = *self.buf().get(ls)?;
        if self.in_comment || !self.has_content || self.prev_blank {
            return None;
        }
        if lead == b'[' && !self.has_movetext {
            // The tag pairs, then only blanks up to the line feed.
            let mut i = skip_tag_pairs_quick(self.buf(), ls)?;
            while i < self.end && self.buf()[i] != b'\n' && is_blank(self.buf()[i]) {
                i += 1;
            }
            return (self.buf().get(i) == Some(&b'\n')).then_some(i + 1);
        }
        if self.has_movetext && !is_blank(lead) && lead != b'[' && lead != b'%' {
            // Movetext up to the line feed with no comment in it.
            let i = find_byte_of(self.buf(), ls, [b'\n', b'{', b';', b'\n']);
            return (self.buf().get(i) == Some(&b'\n')).then_some(i + 1);
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
            if let Some(end) = self.quick_line() {
                let ls = self.scan;
                self.scan = end;
                self.bytes_read += (end - ls) as u64;
                self.lines_read += 1;
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

/// The first index from `from` on whose byte is one of `set` (`bytes.len()` if none).
/// Sixteen bytes at a time with SSE2 on x86-64 (always present there); the ranges
/// searched are short (a tag value, a line of moves), where `memchr`'s set-up costs
/// more than the search.
#[inline(always)]
pub(crate) fn find_byte_of(bytes: &[u8], from: usize, set: [u8; 4]) -> usize {
    let mut i = from;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
        while let Some(chunk) = bytes.get(i..i + 16) {
            // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `chunk`.
            let mask = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                let a = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(set[0] as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(set[1] as i8)),
                );
                let b = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(set[2] as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(set[3] as i8)),
                );
                _mm_movemask_epi8(_mm_or_si128(a, b)) as u32
            };
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    while i < bytes.len() && !set.contains(&bytes[i]) {
        i += 1;
    }
    i
}

/// Where the run of whole lines of plain movetext starting at `bytes[from]` ends, and how
/// many lines it holds: lines that end with a line feed and hold none of `{`, `;`, `[`
/// and `%` (so no comment, tag or escape line starts in them). Such a line, read inside a
/// game's movetext and outside a comment, only counts as a line (and as blank or not), so
/// the splitter steps over the run at once. `(from, 0)` when the first line is not one.
/// Sixteen bytes at a time with SSE2 on x86-64, counting the line feeds as it goes.
#[inline]
fn plain_movetext_lines(bytes: &[u8], from: usize) -> (usize, u64) {
    let mut i = from;
    let mut end = from;
    let mut lines = 0u64;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_sad_epu8,
            _mm_set1_epi8, _mm_setzero_si128, _mm_sub_epi8, _mm_unpackhi_epi64,
        };
        // Line feeds are counted in sixteen byte-wide lanes (a lane holds up to 255), which
        // are summed every 255 chunks and at the end: no bit count per chunk (x86-64 has no
        // `popcnt` before its v2 level). The last chunk holding a line feed is remembered
        // without a branch, since whether a chunk holds one is as good as random.
        // SAFETY (every intrinsic below): SSE2 is part of x86-64.
        let lanes_total = |lanes: __m128i| -> u64 {
            unsafe {
                let sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
                (_mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums))) as u64
            }
        };
        let mut lanes = unsafe { _mm_setzero_si128() };
        let mut chunks_in_lanes = 0u32;
        let (mut last_chunk, mut last_feeds) = (i, 0u32);
        while let Some(chunk) = bytes.get(i..i + 16) {
            // SAFETY: SSE2; the load reads the 16 bytes of `chunk`.
            let (is_feed, feeds, stops) = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                let is_feed = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8));
                let a = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'{' as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b';' as i8)),
                );
                let b = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'[' as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'%' as i8)),
                );
                (is_feed, _mm_movemask_epi8(is_feed) as u32, _mm_movemask_epi8(_mm_or_si128(a, b)) as u32)
            };
            if stops != 0 {
                // Only the line feeds before the first stop byte end plain lines.
                let before = feeds & ((1u32 << stops.trailing_zeros()) - 1);
                lines += lanes_total(lanes) + u64::from(before.count_ones());
                let (at, feeds) = if before != 0 { (i, before) } else { (last_chunk, last_feeds) };
                return if feeds != 0 { (at + 32 - feeds.leading_zeros() as usize, lines) } else { (end, lines) };
            }
            // A line feed compares as -1: subtracting counts it.
            lanes = unsafe { _mm_sub_epi8(lanes, is_feed) };
            last_chunk = if feeds != 0 { i } else { last_chunk };
            last_feeds = if feeds != 0 { feeds } else { last_feeds };
            chunks_in_lanes += 1;
            if chunks_in_lanes == 255 {
                lines += lanes_total(lanes);
                lanes = unsafe { _mm_setzero_si128() };
                chunks_in_lanes = 0;
            }
            i += 16;
        }
        lines += lanes_total(lanes);
        if last_feeds != 0 {
            end = last_chunk + 32 - last_feeds.leading_zeros() as usize;
        }
    }
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' | b';' | b'[' | b'%' => break,
            b'\n' => {
                lines += 1;
                end = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    (end, lines)
}

/// Is the last line of `lines` (whole lines, the last ending with its line feed) blank?
#[inline]
fn last_line_is_blank(lines: &[u8]) -> bool {
    let body = &lines[..lines.len().saturating_sub(1)];
    for &b in body.iter().rev() {
        if b == b'\n' {
            return true;
        }
        if !is_blank(b) {
            return false;
        }
    }
    true
}

/// [`skip_tag_pairs`] for the one tag pair that a line of `bytes` starts with at `ls`
/// (`bytes[ls] == b'['`), where the line's end is not known yet: the index just after
/// its closing `]`, or `None` when the tag does not close before the line feed (or the
/// end of `bytes`), which the general way then handles.
#[inline]
fn skip_tag_pairs_quick(bytes: &[u8], ls: usize) -> Option<usize> {
    // The usual shape first, `[Name "value"]` with no escape: two searches, each
    // ending where it is expected to.
    let open = find_byte_of(bytes, ls + 1, [b'"', b'\\', b']', b'\n']);
    if bytes.get(open) == Some(&b'"') {
        let close = find_byte_of(bytes, open + 1, [b'"', b'\\', b'\n', b'\n']);
        if bytes.get(close) == Some(&b'"') && bytes.get(close + 1) == Some(&b']') {
            return Some(close + 2);
        }
    }
    let mut i = ls + 1;
    let mut in_quote = false;
    loop {
        i = find_byte_of(bytes, i, [b'"', b'\\', b']', b'\n']);
        match *bytes.get(i)? {
            b'\n' => return None,
            b'\\' if in_quote => {
                if bytes.get(i + 1).is_none_or(|&b| b == b'\n') {
                    return None;
                }
                i += 2;
            }
            b'"' => {
                in_quote = !in_quote;
                i += 1;
            }
            b']' if !in_quote => return Some(i + 1),
            _ => i += 1,
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
            // Ordinary bytes are stepped over sixteen at a time.
            i = find_byte_of(line, i, [b'"', b'\\', b']', b']']);
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

/// Scan movetext bytes of one line from `from`, starting inside a brace comment if
/// `in_comment`; return whether a brace comment is still open at the end of the line.
fn scan_movetext(line: &[u8], from: usize, mut in_comment: bool) -> bool {
    let mut i = from;
    while i < line.len() {
        if in_comment {
            match memchr::memchr(b'}', &line[i..]) {
                Some(p) => {
                    in_comment = false;
                    i += p + 1;
                }
                None => return true,
            }
        } else {
            match memchr::memchr2(b'{', b';', &line[i..]) {
                Some(p) if line[i + p] == b'{' => {
                    in_comment = true;
                    i += p + 1;
                }
                // `;` comments out the rest of the line, braces included.
                Some(_) | None => return false,
            }
        }
    }
    in_comment
}

/// The tag name at the start of `tag` (which begins with `[`).
fn tag_name(tag: &[u8]) -> &[u8] {
    let rest = &tag[1..];
    let start = rest.iter().position(|&b| !is_blank(b)).unwrap_or(rest.len());
    let len = rest[start..].iter().take_while(|&&b| !is_blank(b) && b != b'"' && b != b']').count();
    &rest[start..start + len]
}

/// Does the tag on `tag_line` name a tag already given in the tag section `section`?
/// (Then a blank line and this tag start a new, header-only game.)
fn repeats_tag_name(section: &[u8], tag_line: &[u8]) -> bool {
    let name = tag_name(tag_line);
    if name.is_empty() {
        return false;
    }
    section.split(|&b| b == b'\n').any(|line| {
        let first = line.iter().position(|&b| !is_blank(b));
        first.is_some_and(|f| line[f] == b'[' && tag_name(&line[f..]) == name)
    })
}

/// Does this line (from its first non-blank byte) look exactly like a tag pair
/// `[Name "value"]` and nothing else?
pub(crate) fn looks_like_tag_pair(line: &[u8]) -> bool {
    let mut end = line.len();
    while end > 0 && is_blank(line[end - 1]) {
        end -= 1;
    }
    let line = &line[..end];
    if line.len() < 5 || line[0] != b'[' || line[end - 1] != b']' || line[end - 2] != b'"' {
        return false;
    }
    let name_len = line[1..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
    if name_len == 0 {
        return false;
    }
    let rest = &line[1 + name_len..end - 1];
    let spaces = rest.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    spaces > 0 && rest.get(spaces) == Some(&b'"') && rest.len() > spaces + 1
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
