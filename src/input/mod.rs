//! Reading input files (minimal stand-in of the `input` stage, replaced at merge).
//!
//! Takes in: file paths (`-` = standard input), plain or gzip / zstd / bzip2 compressed.
//! Gives out: the raw bytes of each game ([`RawGame`]) in input order, numbered from 1
//! across all files.
//! Must never: parse moves, print, or stop the whole scan because one game is damaged.

use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

/// A file that could not be opened or read.
#[derive(Debug)]
pub struct Error {
    /// The path as given by the user.
    pub path: String,
    /// What went wrong.
    pub source: std::io::Error,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.source)
    }
}

impl std::error::Error for Error {}

/// The undecoded text of one game, as cut out of its file.
#[derive(Clone, Debug)]
pub struct RawGame {
    /// Ordinal of the game across all inputs, from 1.
    pub number: u64,
    /// The file the game came from.
    pub file: Arc<str>,
    /// Line (1-based) where the game starts in that file.
    pub line: u64,
    /// The game's bytes: tag section and movetext.
    pub bytes: Vec<u8>,
}

/// Open a path for reading (`-` = stdin), decompressing by magic bytes.
pub fn open(path: &str) -> Result<Box<dyn BufRead + Send>, Error> {
    let wrap = |source| Error { path: path.to_string(), source };
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(wrap)?)
    };
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let magic = buffered.fill_buf().map_err(wrap)?.to_vec();
    let decoded: Box<dyn BufRead + Send> = if magic.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(buffered)))
    } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Box::new(BufReader::new(zstd::stream::read::Decoder::with_buffer(buffered).map_err(wrap)?))
    } else if magic.starts_with(b"BZh") {
        Box::new(BufReader::new(bzip2::read::MultiBzDecoder::new(buffered)))
    } else {
        Box::new(buffered)
    };
    Ok(decoded)
}

/// The games of a list of files, in order.
pub struct Games {
    paths: std::vec::IntoIter<String>,
    current: Option<(Arc<str>, Box<dyn BufRead + Send>)>,
    line_no: u64,
    next_number: u64,
    pending: Option<(Vec<u8>, u64)>,
}

impl Games {
    /// Games of these files (`-` = stdin), numbered from 1.
    pub fn new(paths: Vec<String>) -> Games {
        Games { paths: paths.into_iter(), current: None, line_no: 0, next_number: 1, pending: None }
    }

    fn emit(&mut self, file: &Arc<str>, bytes: Vec<u8>, line: u64) -> RawGame {
        let number = self.next_number;
        self.next_number += 1;
        RawGame { number, file: file.clone(), line, bytes }
    }
}

impl Iterator for Games {
    type Item = Result<RawGame, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.current.is_none() {
                let path = self.paths.next()?;
                match open(&path) {
                    Ok(r) => self.current = Some((Arc::from(path.as_str()), r)),
                    Err(e) => return Some(Err(e)),
                }
                self.line_no = 0;
                self.pending = None;
            }
            let (file, reader) = self.current.as_mut()?;
            let file = file.clone();
            // Accumulate lines until a tag line follows movetext: that starts a new game.
            let (mut game, mut start) = self.pending.take().unwrap_or((Vec::new(), 0));
            let mut seen_movetext = false;
            let mut in_comment = false;
            let mut line = Vec::new();
            loop {
                line.clear();
                let n = match reader.read_until(b'\n', &mut line) {
                    Ok(n) => n,
                    Err(source) => {
                        self.current = None;
                        return Some(Err(Error { path: file.to_string(), source }));
                    }
                };
                if n == 0 {
                    self.current = None;
                    if game.iter().any(|b| !b.is_ascii_whitespace()) {
                        return Some(Ok(self.emit(&file, game, start)));
                    }
                    break;
                }
                self.line_no += 1;
                let trimmed = line.trim_ascii();
                if !in_comment && trimmed.starts_with(b"[") && seen_movetext {
                    self.pending = Some((line.clone(), self.line_no));
                    return Some(Ok(self.emit(&file, game, start)));
                }
                if game.iter().all(|b| b.is_ascii_whitespace()) {
                    if trimmed.is_empty() {
                        continue;
                    }
                    game.clear();
                    start = self.line_no;
                }
                if !trimmed.is_empty() && (in_comment || !trimmed.starts_with(b"[")) {
                    seen_movetext = true;
                    for &b in trimmed {
                        match b {
                            b'{' => in_comment = true,
                            b'}' => in_comment = false,
                            _ => {}
                        }
                    }
                }
                game.extend_from_slice(&line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_games_and_numbers_them() {
        let dir = std::env::temp_dir().join(format!("cqlrs-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.pgn");
        std::fs::write(&p, "[Event \"a\"]\n\n1. e4 {x\n[not a tag]} 1-0\n\n[Event \"b\"]\n\n1. d4 0-1\n").unwrap();
        let games: Vec<RawGame> =
            Games::new(vec![p.to_string_lossy().into_owned()]).map(|g| g.unwrap()).collect();
        assert_eq!(games.len(), 2);
        assert_eq!((games[0].number, games[0].line), (1, 1));
        assert_eq!((games[1].number, games[1].line), (2, 6));
        assert!(String::from_utf8_lossy(&games[1].bytes).contains("1. d4"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn missing_file_is_an_error() {
        let mut g = Games::new(vec!["/nonexistent/x.pgn".into()]);
        assert!(matches!(g.next(), Some(Err(_))));
        assert!(g.next().is_none());
    }
}
