//! Opening an input: a path or standard input, its compression told by its first bytes
//! (gzip, zstd, bzip2), CR line ends, and the refusal of files that are not PGN text.
//!
//! Takes in: a path (`-` = standard input) or an open reader. Gives out: a buffered reader
//! of the plain PGN text, counting the bytes read where asked.
//! Must never: read a whole file into memory (except [`read_regular_file`], bounded by its
//! limit), or open anything but a regular file or standard input.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use std::sync::Arc;

use super::{sniff, Error, Offset, BUFFER_BYTES};

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
pub(super) struct Counting<R> {
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

/// Set when the process is asked to stop (SIGINT or SIGTERM, see [`stop_flag`]): an
/// input that is not a regular file (standard input, a FIFO, a terminal) is read only
/// when it has bytes, and its reads end with an error once this is set, so that a run
/// waiting for input stops at once.
static STOP_READS: std::sync::OnceLock<Arc<std::sync::atomic::AtomicBool>> = std::sync::OnceLock::new();

/// The process-wide flag that ends the reads that wait (see [`STOP_READS`]); the
/// command line sets it from its signal handler.
pub fn stop_flag() -> Arc<std::sync::atomic::AtomicBool> {
    STOP_READS.get_or_init(|| Arc::new(std::sync::atomic::AtomicBool::new(false))).clone()
}

/// The error of a read ended by [`stop_flag`].
pub const STOPPED: &str = "reading stopped by a signal";

/// How long a waiting read sleeps before it looks at [`stop_flag`] again.
#[cfg(unix)]
const WAIT_SLICE_MS: i32 = 100;

/// A pipe, FIFO, terminal or device read without blocking in `read`: it waits in
/// `poll` for bytes, a slice at a time, and gives up when [`stop_flag`] is set.
#[cfg(unix)]
struct Waiting {
    file: File,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

#[cfg(unix)]
impl Read for Waiting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::fd::AsRawFd;
        loop {
            if self.stop.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(io::Error::other(STOPPED));
            }
            let mut fds = libc::pollfd { fd: self.file.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid `pollfd` for the duration of the call.
            let ready = unsafe { libc::poll(&mut fds, 1, WAIT_SLICE_MS) };
            if ready < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if ready == 0 {
                continue;
            }
            match self.file.read(buf) {
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => continue,
                r => return r,
            }
        }
    }
}

/// The raw reader of an input: a regular file as it is, anything else (standard input,
/// a FIFO) through [`Waiting`].
fn raw_input(path: &str) -> io::Result<Box<dyn Read + Send>> {
    #[cfg(unix)]
    {
        let file = if path == "-" {
            use std::os::fd::AsFd;
            File::from(io::stdin().as_fd().try_clone_to_owned()?)
        } else {
            open_file(path)?
        };
        if file.metadata()?.is_file() {
            return Ok(Box::new(file));
        }
        Ok(Box::new(Waiting { file, stop: stop_flag() }))
    }
    #[cfg(not(unix))]
    {
        if path == "-" {
            Ok(Box::new(io::stdin()))
        } else {
            Ok(Box::new(open_file(path)?))
        }
    }
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
    let raw = raw_input(path).map_err(|e| Error::new(path, e))?;
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
///
/// On Unix the file is opened with `O_NONBLOCK`, so that a FIFO without a writer does
/// not hold the opening up (its reads wait in [`Waiting`], which a signal ends).
pub(super) fn open_file(path: &str) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| match e.kind() {
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
pub(super) const NOT_PGN: &str =
    "this is not PGN: its first lines hold no tag pair (`[Event \"…\"]`) and no moves (`1. e4 e5`)";

pub(super) fn not_text(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

/// The decoder for a stream and its compression; refuses what is not PGN text. An
/// error comes with the compression when it happened while reading (not when the
/// stream was refused).
#[allow(clippy::type_complexity)]
pub(super) fn decode(
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
pub(super) struct CrLineEnds<R> {
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

pub(super) fn decoder_for<R: BufRead + Send + 'static>(
    kind: Compression,
    reader: R,
) -> io::Result<Box<dyn BufRead + Send>> {
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
    read_open_file(File::open(path)?, max)
}

/// The whole content of an open regular file of at most `max` bytes (refused when
/// larger, also when it grows while it is read).
pub fn read_open_file(file: File, max: u64) -> io::Result<Vec<u8>> {
    let too_large = || io::Error::new(io::ErrorKind::InvalidData, format!("larger than {max} bytes: not read"));
    let len = file.metadata()?.len();
    if len > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
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
