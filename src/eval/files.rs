//! Files a query reads and writes while it runs: `readfile`, `writefile`, and the
//! inputs of the run (`lastgamenumber` counts their games; `writefile` must never write
//! over one of them, nor into the run's own output); and the policy every file a script
//! names goes through ([`FilePolicy`], opened by the gate in `gate.rs`).
//!
//! Takes in: the run's input paths ([`RunFiles::register_inputs`]), file names from the
//! query, and the [`FilePolicy`] the query was compiled with.
//! Gives out: file contents, appends to output files, the number of input games.
//! Must never: write over an input of the run (a PGN input, the query script, a
//! `-similarposition` file), open an output file twice in one run, carry an open file or
//! a count from one run into another (the registry belongs to the run, see
//! [`super::Run`]), or touch a file the policy does not allow (a script from a stranger
//! must not reach the user's files).

use crate::ir::{Keyword62Filter, NumberFilter};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use super::gate;
use crate::diag::Diagnostic;
use crate::ir::{Filter, FilterId, Ir};

/// How far a script's own file access reaches: `readfile`, `writefile`, `include`, and the
/// `input` and `output` of its header (the legacy `:pgn` and `:output` too). The files the
/// user names on the command line are not the script's and are not limited by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileAccess {
    /// Only files inside the policy's folders (the default: the script's folder, the
    /// output's folder, and those the user allowed with `--allow-files`). The name is
    /// resolved by its words alone (`..` takes away the folder before it) and must lead
    /// inside one of them; the file is then opened from that folder one step at a time
    /// without following a symbolic link, and must be a regular file with no other name
    /// (hard link). An existing `.cql` file is never written over.
    Confined,
    /// No file access at all (`--secure`).
    Forbidden,
    /// Any path, only the file name extensions checked (what CQL 6.2 does); a file that
    /// is not a regular file is still refused.
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
    /// `cql(input NAME)` or the legacy `:pgn NAME`: a `.pgn` file, possibly compressed
    /// (`.pgn.gz`, `.pgn.zst`, `.pgn.bz2`).
    Input,
}

impl FileUse {
    /// The keyword, for messages.
    fn keyword(self) -> &'static str {
        match self {
            FileUse::Read => "readfile",
            FileUse::Write => "writefile",
            FileUse::Include => "include",
            FileUse::Output => "output",
            FileUse::Input => "input",
        }
    }

    /// The extensions a file name must end in (ASCII case ignored).
    fn extensions(self) -> &'static [&'static str] {
        match self {
            FileUse::Read => &[".pgn", ".cql", ".cqo"],
            FileUse::Write => &[".cql", ".cqo"],
            FileUse::Include => &[".cql"],
            FileUse::Output => &[".pgn"],
            FileUse::Input => &[".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2"],
        }
    }
}

/// The file policy of a run: which files a script may read and write. It is part of the
/// compiled query (set through [`crate::CompileOptions::files`]) and read by the
/// evaluator, so two runs in one process can have different policies.
///
/// Every file a script names goes through this one gate: [`FilePolicy::open`] for the
/// files the script reads and writes itself, [`FilePolicy::check`] for the names the
/// program opens on the script's behalf (its header's `input` and `output`) and for the
/// early check of quoted names.
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

/// Where a name leads under a policy, found from its words alone.
struct Located {
    /// The path to use: absolute and free of `.` and `..` when confined, else as written
    /// (joined to the base folder).
    path: PathBuf,
    /// The policy folder the path is inside (confined only), and the path's steps below it.
    beneath: Option<(PathBuf, PathBuf)>,
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

    /// The rules that need no file: `--secure`, the extension, and (confined) that the
    /// name's words lead inside a policy folder. Nothing outside the folders is looked at,
    /// so a refusal says nothing of whether a file there exists.
    fn locate(&self, what: FileUse, name: &str, base: Option<&Path>) -> Result<Located, String> {
        if self.access == FileAccess::Forbidden {
            return Err(format!("`{name}`: a script may not use files under `--secure`"));
        }
        let exts = what.extensions();
        if !has_extension(name, exts) {
            return Err(format!("`{name}` must end in {}", exts.join(", ")));
        }
        let written = Path::new(name);
        if self.access == FileAccess::Unrestricted {
            let path = match base {
                Some(dir) if written.is_relative() => dir.join(name),
                _ => PathBuf::from(name),
            };
            return Ok(Located { path, beneath: None });
        }
        let start = if written.is_absolute() {
            PathBuf::from("/")
        } else {
            let dir = match base {
                Some(dir) if !dir.as_os_str().is_empty() => std::fs::canonicalize(dir),
                _ => std::env::current_dir(),
            };
            dir.map_err(|e| format!("`{name}`: its folder: {e}"))?
        };
        let mut path = start;
        for part in written.components() {
            match part {
                Component::Normal(word) => path.push(word),
                Component::ParentDir => {
                    path.pop();
                }
                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            }
        }
        if path.file_name().is_none() || name.ends_with('/') {
            return Err(format!("`{name}`: not a file name"));
        }
        let root = self
            .home
            .iter()
            .chain(&self.allowed)
            .filter(|dir| path.starts_with(dir))
            .max_by_key(|d| d.as_os_str().len());
        let Some(root) = root else {
            let how = if written.is_absolute() {
                "an absolute path"
            } else if written.components().any(|c| matches!(c, Component::ParentDir)) {
                "`..`"
            } else {
                "the name (from the current directory)"
            };
            return Err(format!("`{name}`: {how} leads outside the script's folder and the output's folder"));
        };
        let rest = path.strip_prefix(root).map(Path::to_path_buf).unwrap_or_default();
        Ok(Located { beneath: Some((root.clone(), rest)), path })
    }

    /// May the script use the file `name` this way? Relative names are read from `base`
    /// (the current directory when `None`). `Ok` with the path to use, or the rule the
    /// name breaks (a sentence without the keyword's name in front). Confined, the
    /// folders on the way are opened without following links and what is there now is
    /// looked at (a symbolic link, something other than a regular file, an existing
    /// `.cql` file to write): an early answer for a quoted name, and the check of a
    /// header's `input` and `output`, which the program opens. [`FilePolicy::open`]
    /// makes the same checks on the file it opens.
    pub fn check(&self, what: FileUse, name: &str, base: Option<&Path>) -> Result<PathBuf, String> {
        let located = self.locate(what, name, base)?;
        if let Some((root, rest)) = &located.beneath {
            gate::probe(root, rest, what == FileUse::Write && has_extension(name, &[".cql"]))
                .map_err(|why| format!("`{name}`: {why}"))?;
        }
        Ok(located.path)
    }

    /// Open the file `name` for `what` under this policy: for reading (`readfile`,
    /// `include`, `input`), or for writing (`writefile`: made when missing, never emptied
    /// here; `output` is written by the program, see [`FilePolicy::check`]). Confined, the
    /// file is reached from its policy folder one step at a time without following a
    /// symbolic link, and the file opened must be a regular file with a single name; a
    /// `.cql` file to write must not exist yet. Under every policy a FIFO, a device or a
    /// folder is refused, without waiting on it. `Ok` with the open file and the path it
    /// was reached by.
    pub fn open(&self, what: FileUse, name: &str, base: Option<&Path>) -> Result<(File, PathBuf), String> {
        let located = self.locate(what, name, base)?;
        let write = what == FileUse::Write;
        let fresh = write && has_extension(name, &[".cql"]);
        let file = match &located.beneath {
            Some((root, rest)) => gate::open_beneath(root, rest, write, fresh),
            None => gate::open_anywhere(&located.path, write),
        }
        .map_err(|why| format!("`{name}`: {why}"))?;
        Ok((file, located.path))
    }

    /// The hint that goes with a refusal.
    fn hint(&self) -> &'static str {
        match self.access {
            FileAccess::Forbidden => "`--secure` forbids `readfile`, `writefile`, `include` and `output` in scripts",
            _ => "name a file inside the script's folder or the output's folder, or allow a folder with `--allow-files DIR`",
        }
    }
}

/// Check the file names a query gives as quoted strings (`readfile "x.pgn"`,
/// `writefile ("x.cqo" …)`) against `policy` before the run: one diagnostic, with the
/// place of the name and the rule, per name refused. Names computed while the query
/// runs are checked then (the game is abandoned).
pub fn check_constant_names(ir: &Ir, policy: &FilePolicy) -> Vec<Diagnostic> {
    let mut refused: Vec<Diagnostic> = Vec::new();
    for i in 0..ir.len() {
        let (what, name) = match ir.get(FilterId(i as u32)) {
            Filter::Keyword62(Keyword62Filter::ReadFile(name)) => (FileUse::Read, *name),
            Filter::Keyword62(Keyword62Filter::WriteFile(name, _)) => (FileUse::Write, *name),
            _ => continue,
        };
        let Filter::Numbers(NumberFilter::Str(text)) = ir.get(name) else { continue };
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

/// The identity of an open file.
fn file_id_of(file: &File) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = file.metadata().ok()?;
        Some(FileId::Inode(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        None
    }
}

/// Where a file (existing or not) goes: its folder's canonical path and its name.
fn place_of(path: &Path) -> Option<PathBuf> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(folder).ok()?.join(path.file_name()?))
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
    /// The run's own output files (see [`place_of`]): never a `writefile` target.
    outputs: Vec<PathBuf>,
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

    /// Tell the run which files it writes itself (its output and `--rejects` file):
    /// `writefile` refuses them, with a message, rather than lose its text when the run
    /// puts its own file in their place.
    pub fn register_outputs(&self, outputs: &[String]) {
        if let Ok(mut reg) = self.state.lock() {
            reg.outputs = outputs.iter().filter(|p| *p != "-").filter_map(|p| place_of(Path::new(p))).collect();
        }
    }

    /// `writefile (NAME TEXT)`: append TEXT to NAME (a `.cql` or `.cqo` file the policy
    /// allows, opened through the policy's gate), emptied when the run first writes to
    /// it. A file the run reads, and the run's own output and rejects files, are refused.
    pub fn write(&self, name: &str, text: &str, policy: &FilePolicy) -> Result<(), String> {
        let mut reg = self.state.lock().map_err(|_| "writefile: lock poisoned".to_string())?;
        if !reg.open.contains_key(name) {
            let path = policy.check(FileUse::Write, name, None).map_err(|why| format!("writefile: {why}"))?;
            if place_of(&path).is_some_and(|p| reg.outputs.contains(&p)) {
                return Err(format!(
                    "writefile: `{name}` is this run's own output or rejects file; the run writes it whole at the end, so text written there would be lost"
                ));
            }
            let (file, _) = policy.open(FileUse::Write, name, None).map_err(|why| format!("writefile: {why}"))?;
            if file_id_of(&file).is_some_and(|id| reg.protected.contains(&id)) {
                return Err(format!("writefile: {name} is an input of this run; it is never written over"));
            }
            file.set_len(0).map_err(|e| format!("writefile: {name}: {e}"))?;
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

/// `readfile NAME`: the text of a `.pgn`, `.cql` or `.cqo` file the policy allows,
/// opened through the policy's gate.
pub fn read(name: &str, policy: &FilePolicy) -> Result<String, String> {
    let (file, _) = policy.open(FileUse::Read, name, None).map_err(|why| format!("readfile: {why}"))?;
    let bytes = crate::input::read_open_file(file, crate::input::MAX_TEXT_FILE_BYTES)
        .map_err(|e| format!("readfile: `{name}`: {e}"))?;
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
            assert!(err.contains("symbolic link"), "{err}");
            // Opened, not only checked: the gate refuses the links too, and a hard link.
            assert!(policy.open(FileUse::Read, "door/secret.pgn", Some(&home)).unwrap_err().contains("symbolic link"));
            assert!(policy.open(FileUse::Write, "dangling.cqo", Some(&home)).unwrap_err().contains("symbolic link"));
            assert!(!other.join("none.cqo").exists());
            std::fs::hard_link(other.join("secret.pgn"), home.join("twin.pgn")).unwrap();
            assert!(policy.open(FileUse::Read, "twin.pgn", Some(&home)).unwrap_err().contains("hard links"));
            let (mut file, _) = policy.open(FileUse::Write, "sub/fresh.cqo", Some(&home)).unwrap();
            std::io::Write::write_all(&mut file, b"x").unwrap();
            assert_eq!(std::fs::read_to_string(home.join("sub/fresh.cqo")).unwrap(), "x");
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
