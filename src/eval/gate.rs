//! The file gate's opening half: reaching a file below a policy folder without following
//! symbolic links, and checking the file that was opened rather than its name.
//!
//! Takes in: a policy folder (canonical, found by [`super::FilePolicy`]) and the steps
//! below it, or (unrestricted policy) a path.
//! Gives out: an open file that is a regular file, or a sentence saying why not.
//! Must never: follow a symbolic link below the policy folder (a link swapped in between
//! a check and the opening must not lead out), block on a FIFO or a device, hand out a
//! file that has another name (a hard link may be the name of a file outside), or empty
//! a file (the caller does, after its own checks).
//!
//! On Unix every step is an `openat` from the folder opened before it, with `O_NOFOLLOW`
//! (and `O_DIRECTORY` for the folders), so the path is never looked up twice; the last
//! step adds `O_NONBLOCK`, and `fstat` on the opened file decides. Elsewhere the path is
//! checked with `symlink_metadata` and then opened (a weaker guarantee).

#[cfg(not(unix))]
use std::fs::File;
#[cfg(not(unix))]
use std::path::Path;

/// Refusal of something that is not a regular file.
const NOT_REGULAR: &str = "not a regular file (a folder, a FIFO, a device or a socket): only regular files are used";
/// Refusal of a file with more than one name.
const HARD_LINKED: &str =
    "the file has other names (hard links), one of which may be outside the allowed folders: it is not used";
/// Refusal of a symbolic link on the way.
const LINK: &str = "a symbolic link is on the way: links are not followed below the allowed folders";
/// Refusal of an existing `.cql` file to write.
const SCRIPT_EXISTS: &str = "exists: a script never writes over an existing `.cql` file";

#[cfg(unix)]
mod unix {
    use super::{HARD_LINKED, LINK, NOT_REGULAR, SCRIPT_EXISTS};
    use std::ffi::{CString, OsStr};
    use std::fs::File;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Component, Path};

    /// `text` as a C string (a name with a NUL byte cannot exist).
    fn c_name(text: &OsStr) -> Result<CString, String> {
        CString::new(text.as_bytes()).map_err(|_| "a name with a NUL byte".to_string())
    }

    /// The last OS error as a sentence.
    fn os_error() -> std::io::Error {
        std::io::Error::last_os_error()
    }

    /// `openat(dir, name, flags, mode)` as an owned descriptor.
    fn open_at(dir: Option<&OwnedFd>, name: &CString, flags: i32, mode: libc::mode_t) -> std::io::Result<OwnedFd> {
        let at = dir.map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
        // SAFETY: `name` is a valid C string; the descriptor returned, when not -1, is new
        // and owned by nobody else.
        let fd = unsafe { libc::openat(at, name.as_ptr(), flags | libc::O_CLOEXEC, libc::c_uint::from(mode)) };
        if fd < 0 {
            Err(os_error())
        } else {
            // SAFETY: `fd` was just opened and is owned here only.
            Ok(unsafe { OwnedFd::from_raw_fd(fd) })
        }
    }

    /// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`: the entry itself, `None` when missing.
    fn stat_at(dir: &OwnedFd, name: &CString) -> std::io::Result<Option<libc::stat>> {
        // SAFETY: `st` is plain data, filled by the call on success.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: valid descriptor, C string and pointer.
        let r = unsafe { libc::fstatat(dir.as_raw_fd(), name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
        if r == 0 {
            Ok(Some(st))
        } else {
            let e = os_error();
            if e.kind() == std::io::ErrorKind::NotFound {
                Ok(None)
            } else {
                Err(e)
            }
        }
    }

    /// `fstat` of an open descriptor.
    fn stat_fd(fd: &OwnedFd) -> std::io::Result<libc::stat> {
        // SAFETY: as in `stat_at`.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: valid descriptor and pointer.
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0 {
            Ok(st)
        } else {
            Err(os_error())
        }
    }

    fn is_kind(st: &libc::stat, kind: libc::mode_t) -> bool {
        st.st_mode & libc::S_IFMT == kind
    }

    /// Why an `openat` with `O_NOFOLLOW` of `name` in `dir` failed, in words: a link
    /// there, or the system's reason.
    fn why_not(dir: &OwnedFd, name: &CString, e: std::io::Error) -> String {
        match stat_at(dir, name) {
            Ok(Some(st)) if is_kind(&st, libc::S_IFLNK) => LINK.to_string(),
            Ok(Some(st)) if !is_kind(&st, libc::S_IFDIR) && e.raw_os_error() == Some(libc::ENOTDIR) => {
                "a part of the path is not a folder".to_string()
            }
            _ if e.kind() == std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        }
    }

    /// The folder `root` and then every folder of `rest` but its last step, each opened
    /// from the one before without following a link; the last step's name.
    fn walk(root: &Path, rest: &Path) -> Result<(OwnedFd, CString), String> {
        let dir_flags = libc::O_RDONLY | libc::O_DIRECTORY;
        let root_name = c_name(root.as_os_str())?;
        let mut dir = open_at(None, &root_name, dir_flags, 0).map_err(|e| format!("its folder: {e}"))?;
        let steps: Vec<&OsStr> = rest
            .components()
            .filter_map(|c| match c {
                Component::Normal(word) => Some(word),
                _ => None,
            })
            .collect();
        let Some((last, folders)) = steps.split_last() else { return Err("not a file name".into()) };
        for step in folders {
            let name = c_name(step)?;
            dir = open_at(Some(&dir), &name, dir_flags | libc::O_NOFOLLOW, 0).map_err(|e| why_not(&dir, &name, e))?;
        }
        Ok((dir, c_name(last)?))
    }

    /// Check what is at `rest` below `root` now, without opening the file: the folders on
    /// the way are no links, and the entry, if there is one, is a regular file and no
    /// link (and does not exist at all when `fresh`).
    pub fn probe(root: &Path, rest: &Path, fresh: bool) -> Result<(), String> {
        let (dir, name) = walk(root, rest)?;
        match stat_at(&dir, &name).map_err(|e| e.to_string())? {
            None => Ok(()),
            Some(_) if fresh => Err(SCRIPT_EXISTS.into()),
            Some(st) if is_kind(&st, libc::S_IFLNK) => Err(LINK.into()),
            Some(st) if !is_kind(&st, libc::S_IFREG) => Err(NOT_REGULAR.into()),
            Some(_) => Ok(()),
        }
    }

    /// Open the file at `rest` below `root` (see [`super::super::FilePolicy::open`]).
    pub fn open_beneath(root: &Path, rest: &Path, write: bool, fresh: bool) -> Result<File, String> {
        let (dir, name) = walk(root, rest)?;
        let mut flags = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;
        flags |= if write { libc::O_WRONLY | libc::O_CREAT } else { libc::O_RDONLY };
        if fresh {
            flags |= libc::O_EXCL;
        }
        let fd = open_at(Some(&dir), &name, flags, 0o666).map_err(|e| match e.raw_os_error() {
            Some(libc::EEXIST) => SCRIPT_EXISTS.to_string(),
            Some(libc::ENXIO) => NOT_REGULAR.to_string(),
            _ => why_not(&dir, &name, e),
        })?;
        checked(fd, true)
    }

    /// Open `path` as it is (links followed: the unrestricted policy), refusing what is
    /// not a regular file without waiting on it.
    pub fn open_anywhere(path: &Path, write: bool) -> Result<File, String> {
        let name = c_name(path.as_os_str())?;
        let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
        flags |= if write { libc::O_WRONLY | libc::O_CREAT } else { libc::O_RDONLY };
        let fd = open_at(None, &name, flags, 0o666).map_err(|e| match e.raw_os_error() {
            Some(libc::ENXIO) => NOT_REGULAR.to_string(),
            _ if e.kind() == std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        })?;
        checked(fd, false)
    }

    /// The opened file, if it is a regular file (with one name when `single`); back in
    /// blocking mode.
    fn checked(fd: OwnedFd, single: bool) -> Result<File, String> {
        let st = stat_fd(&fd).map_err(|e| e.to_string())?;
        if !is_kind(&st, libc::S_IFREG) {
            return Err(NOT_REGULAR.into());
        }
        if single && st.st_nlink > 1 {
            return Err(HARD_LINKED.into());
        }
        // SAFETY: plain `fcntl` calls on a descriptor owned here.
        unsafe {
            let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
        Ok(File::from(fd))
    }
}

#[cfg(unix)]
pub(crate) use unix::{open_anywhere, open_beneath, probe};

/// Without `openat`: look at each step with `symlink_metadata`, then open (a link swapped
/// in between the two is not caught).
#[cfg(not(unix))]
pub(super) fn probe(root: &Path, rest: &Path, fresh: bool) -> Result<(), String> {
    let mut at = root.to_path_buf();
    let steps: Vec<_> = rest.components().collect();
    for (i, step) in steps.iter().enumerate() {
        at.push(step);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Err(LINK.into()),
            Ok(m) if i + 1 == steps.len() && fresh => return Err(SCRIPT_EXISTS.into()),
            Ok(m) if i + 1 == steps.len() && !m.is_file() => return Err(NOT_REGULAR.into()),
            Ok(_) => {}
            Err(_) if i + 1 == steps.len() => return Ok(()),
            Err(e) => return Err(e.to_string()),
        }
    }
    let _ = HARD_LINKED;
    Ok(())
}

#[cfg(not(unix))]
pub(super) fn open_beneath(root: &Path, rest: &Path, write: bool, fresh: bool) -> Result<File, String> {
    probe(root, rest, fresh)?;
    open_anywhere(&root.join(rest), write)
}

#[cfg(not(unix))]
pub(super) fn open_anywhere(path: &Path, write: bool) -> Result<File, String> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(NOT_REGULAR.into());
    }
    let file = if write {
        std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(path)
    } else {
        File::open(path)
    }
    .map_err(|e| e.to_string())?;
    Ok(file)
}
