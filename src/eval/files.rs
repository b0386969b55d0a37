//! Files a query reads and writes while it runs: `readfile`, `writefile`, and the
//! inputs of the run (`lastgamenumber` counts their games; `writefile` must never write
//! over one of them).
//!
//! Takes in: the run's input paths ([`register_inputs`]), file names from the query.
//! Gives out: file contents, appends to output files, the number of input games.
//! Must never: write over an input of the run (a PGN input, the query script, a
//! `-similarposition` file), or open an output file twice in one run.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

/// The identity of an existing file: device and inode on Unix, else its canonical path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[allow(dead_code)]
    Path(std::path::PathBuf),
}

fn file_id(path: &str) -> Option<FileId> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileId::Inode(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        std::fs::canonicalize(path).ok().map(FileId::Path)
    }
}

#[derive(Default)]
struct Registry {
    /// PGN inputs, in order (for `lastgamenumber`).
    inputs: Vec<String>,
    /// Every file the run reads: never written.
    protected: Vec<FileId>,
    /// Files `writefile` opened in this run.
    open: HashMap<String, File>,
    /// Games counted in the inputs, once known.
    last_game: Option<u64>,
}

fn registry() -> &'static Mutex<Registry> {
    static REG: OnceLock<Mutex<Registry>> = OnceLock::new();
    REG.get_or_init(Default::default)
}

/// Tell the evaluator which files the run reads: the PGN inputs (`pgn`) and any other
/// file (`other`: the query script, `-similarposition` files). `writefile` refuses all of
/// them; `lastgamenumber` counts the games of the PGN inputs.
pub fn register_inputs(pgn: &[String], other: &[String]) {
    if let Ok(mut reg) = registry().lock() {
        reg.inputs = pgn.to_vec();
        reg.protected = pgn.iter().chain(other).filter_map(|p| file_id(p)).collect();
        reg.last_game = None;
    }
}

/// Does `name` end in one of the extensions (ASCII case ignored)?
fn has_extension(name: &str, exts: &[&str]) -> bool {
    let lower = name.to_ascii_lowercase();
    exts.iter().any(|e| lower.ends_with(e))
}

/// `readfile NAME`: the text of a `.pgn`, `.cql` or `.cqo` file.
pub fn read(name: &str) -> Result<String, String> {
    if !has_extension(name, &[".pgn", ".cql", ".cqo"]) {
        return Err(format!("readfile: \"{name}\" must end in .pgn, .cql or .cqo"));
    }
    let bytes = crate::input::read_regular_file(std::path::Path::new(name), crate::input::MAX_TEXT_FILE_BYTES)
        .map_err(|e| format!("readfile: {name}: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `writefile (NAME TEXT)`: append TEXT to NAME (a `.cql` or `.cqo` file), emptied when
/// the run first writes to it. A file the run reads is refused.
pub fn write(name: &str, text: &str) -> Result<(), String> {
    if !has_extension(name, &[".cql", ".cqo"]) {
        return Err(format!("writefile: \"{name}\" must end in .cql or .cqo"));
    }
    let mut reg = registry().lock().map_err(|_| "writefile: lock poisoned".to_string())?;
    if !reg.open.contains_key(name) {
        if let Some(id) = file_id(name) {
            if reg.protected.contains(&id) {
                return Err(format!("writefile: {name} is an input of this run; it is never written over"));
            }
        }
        let file = File::create(name).map_err(|e| format!("writefile: {name}: {e}"))?;
        reg.open.insert(name.to_string(), file);
    }
    let file = reg.open.get_mut(name).ok_or_else(|| format!("writefile: {name}: not open"))?;
    file.write_all(text.as_bytes()).and_then(|_| file.flush()).map_err(|e| format!("writefile: {name}: {e}"))
}

/// `lastgamenumber`: the number of games in the run's PGN inputs (counted once), no larger
/// than `cap` (the upper bound of `cql(gamenumber …)`). `None` when no input is known.
pub fn last_game_number(cap: Option<u64>) -> Option<u64> {
    let mut reg = registry().lock().ok()?;
    if reg.last_game.is_none() {
        if reg.inputs.is_empty() || reg.inputs.iter().any(|p| p == "-") {
            return None;
        }
        let n = crate::input::Games::new(reg.inputs.clone()).filter(|g| g.is_ok()).count() as u64;
        reg.last_game = Some(n);
    }
    let n = reg.last_game?;
    Some(cap.map_or(n, |c| n.min(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_checked() {
        assert!(has_extension("a.CQL", &[".cql"]));
        assert!(read("notes.txt").is_err());
        assert!(write("out.pgn", "x").is_err());
    }

    #[test]
    fn writefile_appends_and_never_writes_an_input() {
        let dir = std::env::temp_dir().join(format!("cqlrs-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("w.cqo").to_string_lossy().into_owned();
        let input = dir.join("in.cql").to_string_lossy().into_owned();
        std::fs::write(&input, "check").unwrap();
        std::fs::write(&out, "old text").unwrap();
        register_inputs(&[], std::slice::from_ref(&input));
        write(&out, "a").unwrap();
        write(&out, "b").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "ab");
        assert!(write(&input, "x").is_err());
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "check");
        assert_eq!(read(&out).unwrap(), "ab");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
