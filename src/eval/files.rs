//! Files a query reads and writes while it runs: `readfile`, `writefile`, and the
//! inputs of the run (`lastgamenumber` counts their games; `writefile` must never write
//! over one of them).
//!
//! Takes in: the run's input paths ([`RunFiles::register_inputs`]), file names from the
//! query, and the [`FilePolicy`] the query was compiled with.
//! Gives out: file contents, appends to output files, the number of input games.
//! Must never: write over an input of the run (a PGN input, the query script, a
//! `-similarposition` file), open an output file twice in one run, carry an open file or
//! a count from one run into another (the registry belongs to the run, see
//! [`super::Run`]), or touch a file the policy does not allow (a script from a stranger
//! must not reach the user's files).

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::diag::Diagnostic;
use crate::ir::{Filter, FilterId, Ir};

/// How far a script's own file access reaches: `readfile`, `writefile`, `include` and
/// `cql(output …)`. The files the user names on the command line are not the script's
/// and are not limited by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileAccess {
    /// Only files inside the policy's folders (the default: the script's folder, the
    /// output's folder, and those the user allowed with `--allow-files`): the file a
    /// name leads to, with `..` and symbolic links followed, must be inside one of them
    /// (an absolute path, a `..` or a link that leads out is refused). An existing
    /// `.cql` file is never written over.
    Confined,
    /// No file access at all (`--secure`).
    Forbidden,
    /// Any path, only the file name extensions checked (what CQL 6.2 does).
    Unrestricted,
}

/// What a script does with a file, for the extension rule and for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileUse {
    /// `readfile NAME`: a `.pgn`, `.cql` or `.cqo` file (CQL 6.2 `ReadFileNode`).
    Read,
    /// `writefile (NAME …)`: a `.cql` or `.cqo` file (CQL 6.2 `WriteFileNode`).
    Write,
    /// `include "NAME"` in the header: a `.cql` file.
    Include,
    /// `cql(output NAME)`: a `.pgn` file (CQL 6.2 `CqlNode`, `filename_is_pgn`).
    Output,
}

impl FileUse {
    /// The keyword, for messages.
    fn keyword(self) -> &'static str {
        match self {
            FileUse::Read => "readfile",
            FileUse::Write => "writefile",
            FileUse::Include => "include",
            FileUse::Output => "output",
        }
    }

    /// The extensions a file name must end in (ASCII case ignored).
    fn extensions(self) -> &'static [&'static str] {
        match self {
            FileUse::Read => &[".pgn", ".cql", ".cqo"],
            FileUse::Write => &[".cql", ".cqo"],
            FileUse::Include => &[".cql"],
            FileUse::Output => &[".pgn"],
        }
    }
}

/// The file policy of a run: which files a script may read and write. It is part of the
/// compiled query (set through [`crate::CompileOptions::files`]) and read by the
/// evaluator, so two runs in one process can have different policies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePolicy {
    access: FileAccess,
    /// The script's own folders (its folder and the output's folder), canonical.
    home: Vec<PathBuf>,
    /// Folders the user allowed besides (`--allow-files`), canonical.
    allowed: Vec<PathBuf>,
}

impl Default for FilePolicy {
    /// Confined to the current directory.
    fn default() -> Self {
        FilePolicy::confined(&[Path::new(".")], &[]).unwrap_or(FilePolicy::forbidden())
    }
}

impl FilePolicy {
    /// Confined to `home` (the script's folder and the output's folder; one that does not
    /// exist holds nothing and is left out) and the `allowed` folders, which must exist
    /// (an error names one that does not).
    pub fn confined(home: &[&Path], allowed: &[&Path]) -> Result<FilePolicy, String> {
        let canonical = |dir: &Path| {
            let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
            std::fs::canonicalize(dir).map_err(|e| format!("cqlrs: the folder `{}`: {e}", dir.display()))
        };
        Ok(FilePolicy {
            access: FileAccess::Confined,
            home: home.iter().filter_map(|d| canonical(d).ok()).collect(),
            allowed: allowed.iter().map(|d| canonical(d)).collect::<Result<_, _>>()?,
        })
    }

    /// No file access from the script (`--secure`).
    pub fn forbidden() -> FilePolicy {
        FilePolicy { access: FileAccess::Forbidden, home: Vec::new(), allowed: Vec::new() }
    }

    /// Any path, as CQL 6.2 allows (only the extensions are checked).
    pub fn unrestricted() -> FilePolicy {
        FilePolicy { access: FileAccess::Unrestricted, home: Vec::new(), allowed: Vec::new() }
    }

    /// How far this policy reaches.
    pub fn access(&self) -> FileAccess {
        self.access
    }

    /// May the script use the file `name` this way? Relative names are read from `base`
    /// (the current directory when `None`). `Ok` with the path to open, or the rule the
    /// name breaks (a sentence without the keyword's name in front).
    pub fn check(&self, what: FileUse, name: &str, base: Option<&Path>) -> Result<PathBuf, String> {
        if self.access == FileAccess::Forbidden {
            return Err(format!("`{name}`: a script may not use files under `--secure`"));
        }
        let exts = what.extensions();
        if !has_extension(name, exts) {
            return Err(format!("`{name}` must end in {}", exts.join(", ")));
        }
        let path = match base {
            Some(dir) if Path::new(name).is_relative() => dir.join(name),
            _ => PathBuf::from(name),
        };
        if self.access == FileAccess::Unrestricted {
            return Ok(path);
        }
        let real = real_location(&path).map_err(|why| format!("`{name}`: {why}"))?;
        let inside = |dirs: &[PathBuf]| dirs.iter().any(|dir| real.starts_with(dir));
        if !inside(&self.home) && !inside(&self.allowed) {
            let written = Path::new(name);
            let how = if written.is_absolute() {
                "an absolute path"
            } else if written.components().any(|c| matches!(c, Component::ParentDir)) {
                "`..`"
            } else {
                "the path (a symbolic link, or the current directory)"
            };
            return Err(format!(
                "`{name}` is `{}`: {how} leads outside the script's folder and the output's folder",
                real.display()
            ));
        }
        if what == FileUse::Write && has_extension(name, &[".cql"]) && std::fs::symlink_metadata(&path).is_ok() {
            return Err(format!("`{name}` exists: a script never writes over an existing `.cql` file"));
        }
        Ok(path)
    }

    /// The hint that goes with a refusal.
    fn hint(&self) -> &'static str {
        match self.access {
            FileAccess::Forbidden => "`--secure` forbids `readfile`, `writefile`, `include` and `output` in scripts",
            _ => "name a file inside the script's folder or the output's folder, or allow a folder with `--allow-files DIR`",
        }
    }
}

/// Where `path` really is: its canonical form when it exists, else its folder's canonical
/// form and its name (a file about to be made). A link that leads nowhere is refused: it
/// would make its target wherever it points.
fn real_location(path: &Path) -> Result<PathBuf, String> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Ok(real);
    }
    if std::fs::symlink_metadata(path).is_ok() {
        return Err("a symbolic link that leads nowhere".into());
    }
    let name = path.file_name().ok_or_else(|| "not a file name".to_string())?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = std::fs::canonicalize(folder).map_err(|e| format!("its folder: {e}"))?;
    Ok(folder.join(name))
}

/// Check the file names a query gives as quoted strings (`readfile "x.pgn"`,
/// `writefile ("x.cqo" …)`) against `policy` before the run: one diagnostic, with the
/// place of the name and the rule, per name refused. Names computed while the query
/// runs are checked then (the game is abandoned).
pub fn check_constant_names(ir: &Ir, policy: &FilePolicy) -> Vec<Diagnostic> {
    let mut refused: Vec<Diagnostic> = Vec::new();
    for i in 0..ir.len() {
        let (what, name) = match ir.get(FilterId(i as u32)) {
            Filter::ReadFile(name) => (FileUse::Read, *name),
            Filter::WriteFile(name, _) => (FileUse::Write, *name),
            _ => continue,
        };
        let Filter::Str(text) = ir.get(name) else { continue };
        if let Err(why) = policy.check(what, text, None) {
            let span = ir.span(name);
            if !refused.iter().any(|d| d.span == span) {
                refused.push(Diagnostic::new(format!("{}: {why}", what.keyword()), span).with_hint(policy.hint()));
            }
        }
    }
    refused.sort_by_key(|d| d.span.start);
    refused
}

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

/// What one run knows of its files: its inputs, the files it must never write, the files
/// `writefile` opened. Held by the run ([`super::Run`]), so a second run in the same
/// process starts with none of the first one's open files or counts.
#[derive(Debug, Default)]
pub struct RunFiles {
    state: Mutex<Registry>,
}

#[derive(Debug, Default)]
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

impl RunFiles {
    /// Tell the run which files it reads: the PGN inputs (`pgn`) and any other file
    /// (`other`: the query script, `-similarposition` files). `writefile` refuses all of
    /// them; `lastgamenumber` counts the games of the PGN inputs.
    pub fn register_inputs(&self, pgn: &[String], other: &[String]) {
        if let Ok(mut reg) = self.state.lock() {
            reg.inputs = pgn.to_vec();
            reg.protected = pgn.iter().chain(other).filter_map(|p| file_id(p)).collect();
            reg.last_game = None;
        }
    }

    /// `writefile (NAME TEXT)`: append TEXT to NAME (a `.cql` or `.cqo` file the policy
    /// allows), emptied when the run first writes to it. A file the run reads is refused.
    pub fn write(&self, name: &str, text: &str, policy: &FilePolicy) -> Result<(), String> {
        let mut reg = self.state.lock().map_err(|_| "writefile: lock poisoned".to_string())?;
        if !reg.open.contains_key(name) {
            policy.check(FileUse::Write, name, None).map_err(|why| format!("writefile: {why}"))?;
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

    /// `lastgamenumber`: the number of games in the run's PGN inputs (counted once), no
    /// larger than `cap` (the upper bound of `cql(gamenumber …)`). `None` when no input is
    /// known.
    pub fn last_game_number(&self, cap: Option<u64>) -> Option<u64> {
        let mut reg = self.state.lock().ok()?;
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
}

/// Does `name` end in one of the extensions (ASCII case ignored)?
fn has_extension(name: &str, exts: &[&str]) -> bool {
    let lower = name.to_ascii_lowercase();
    exts.iter().any(|e| lower.ends_with(e))
}

/// `readfile NAME`: the text of a `.pgn`, `.cql` or `.cqo` file the policy allows.
pub fn read(name: &str, policy: &FilePolicy) -> Result<String, String> {
    let path = policy.check(FileUse::Read, name, None).map_err(|why| format!("readfile: {why}"))?;
    let bytes = crate::input::read_regular_file(&path, crate::input::MAX_TEXT_FILE_BYTES)
        .map_err(|e| format!("readfile: {name}: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_checked() {
        assert!(has_extension("a.CQL", &[".cql"]));
        let any = FilePolicy::unrestricted();
        assert!(read("notes.txt", &any).is_err());
        assert!(RunFiles::default().write("out.pgn", "x", &any).is_err());
    }

    #[test]
    fn writefile_appends_and_never_writes_an_input() {
        let dir = std::env::temp_dir().join(format!("cqlrs-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("w.cqo").to_string_lossy().into_owned();
        let input = dir.join("in.cql").to_string_lossy().into_owned();
        std::fs::write(&input, "check").unwrap();
        std::fs::write(&out, "old text").unwrap();
        let run = RunFiles::default();
        run.register_inputs(&[], std::slice::from_ref(&input));
        let any = FilePolicy::unrestricted();
        run.write(&out, "a", &any).unwrap();
        run.write(&out, "b", &any).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "ab");
        assert!(run.write(&input, "x", &any).is_err());
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "check");
        assert_eq!(read(&out, &any).unwrap(), "ab");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_confined_script_reaches_only_its_folders() {
        let root = std::env::temp_dir().join(format!("cqlrs-policy-{}", std::process::id()));
        let home = root.join("home");
        let other = root.join("other");
        std::fs::create_dir_all(home.join("sub")).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("secret.pgn"), "1. e4 *\n").unwrap();
        std::fs::write(home.join("script.cql"), "check").unwrap();
        let policy = FilePolicy::confined(&[&home], &[]).unwrap();
        let at = |name: &str| policy.check(FileUse::Read, name, Some(&home));
        assert!(at("sub/x.pgn").is_ok());
        assert!(at("sub/../x.pgn").is_ok(), "a `..` that stays inside");
        let abs = other.join("secret.pgn").to_string_lossy().into_owned();
        assert!(at(&abs).unwrap_err().contains("an absolute path leads outside"));
        assert!(at("../other/secret.pgn").unwrap_err().contains("`..` leads outside"));
        assert!(at("notes.txt").unwrap_err().contains("must end in"));
        // Writing over an existing script, or making one anew.
        assert!(policy.check(FileUse::Write, "script.cql", Some(&home)).unwrap_err().contains("never writes over"));
        assert!(policy.check(FileUse::Write, "new.cql", Some(&home)).is_ok());
        assert!(policy.check(FileUse::Output, "out.cqo", Some(&home)).unwrap_err().contains(".pgn"));
        #[cfg(unix)]
        {
            // A link inside the folder that leads out, and one that leads nowhere.
            std::os::unix::fs::symlink(&other, home.join("door")).unwrap();
            assert!(at("door/secret.pgn").unwrap_err().contains("symbolic link"));
            std::os::unix::fs::symlink(other.join("none.cqo"), home.join("dangling.cqo")).unwrap();
            let err = policy.check(FileUse::Write, "dangling.cqo", Some(&home)).unwrap_err();
            assert!(err.contains("leads nowhere"), "{err}");
        }
        // `--allow-files` opens another folder to any path; `--secure` closes everything.
        let wider = FilePolicy::confined(&[&home], &[&other]).unwrap();
        assert!(wider.check(FileUse::Read, &abs, None).is_ok());
        assert!(FilePolicy::forbidden()
            .check(FileUse::Read, "sub/x.pgn", Some(&home))
            .unwrap_err()
            .contains("--secure"));
        assert!(FilePolicy::unrestricted().check(FileUse::Read, &abs, None).is_ok());
        assert!(FilePolicy::confined(&[&home], &[&root.join("missing")]).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }
}
