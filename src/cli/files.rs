//! Keeping the user's files safe: an output may never be one of the inputs.
//!
//! Takes in: the paths the run will read (PGN inputs, the query script, files named
//! by the query) and the paths it will write (`-o`, `--rejects`).
//! Gives out: `Ok` or an error message naming the clash.
//! Must never: open anything for writing (this runs before any output exists).
//!
//! Two paths name the same file when they lead to the same device and inode, so a
//! symbolic link or a hard link to an input counts as that input. An output that does
//! not exist yet cannot be an input.

use std::path::Path;

/// The identity of an existing file: (device, inode) on Unix, the canonical path
/// elsewhere.
#[derive(Debug, PartialEq, Eq)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Canonical(std::path::PathBuf),
}

fn file_id(path: &str) -> Option<FileId> {
    let meta = if path == "-" { stdin_metadata()? } else { std::fs::metadata(Path::new(path)).ok()? };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileId::Inode(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        std::fs::canonicalize(path).ok().map(FileId::Canonical)
    }
}

/// What standard input is (`-` as an input): the file redirected into it (`< s.pgn`),
/// so that an output that is that file is refused like any other input.
#[cfg(unix)]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    std::fs::File::from(fd).metadata().ok().filter(|m| m.is_file())
}

#[cfg(not(unix))]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    None
}

/// Refuse when an output is the same file as an input or as another output.
/// `inputs` and `outputs` are `(what, path)` pairs; `what` names the role in messages
/// (`input`, `query script`, `output`, `rejects file`).
pub fn check_distinct(inputs: &[(&str, &str)], outputs: &[(&str, &str)]) -> Result<(), String> {
    for (i, (out_role, out)) in outputs.iter().enumerate() {
        let Some(out_id) = file_id(out) else { continue };
        for (in_role, input) in inputs {
            if file_id(input).as_ref() == Some(&out_id) {
                let how = if out == input { String::new() } else { format!(" (`{out}` and `{input}` are one file)") };
                return Err(format!(
                    "cqlrs: refusing to write the {out_role} `{out}`: it is the {in_role} `{input}`{how}; \
                     nothing was written. Choose another output file."
                ));
            }
        }
        for (other_role, other) in &outputs[i + 1..] {
            if file_id(other).as_ref() == Some(&out_id) || (other == out && *other != "-") {
                return Err(format!("cqlrs: the {out_role} and the {other_role} are the same file `{out}`"));
            }
        }
    }
    // Two outputs that do not exist yet can still be one name.
    for (i, (role, out)) in outputs.iter().enumerate() {
        if *out == "-" {
            continue;
        }
        if let Some((other_role, _)) = outputs[i + 1..].iter().find(|(_, o)| o == out) {
            return Err(format!("cqlrs: the {role} and the {other_role} are the same file `{out}`"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_path_hard_link_and_symlink_are_refused() {
        let dir = std::env::temp_dir().join(format!("cqlrs-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.pgn");
        std::fs::write(&a, "1. e4 *\n").unwrap();
        let a = a.to_string_lossy().into_owned();
        let fresh = dir.join("new.pgn").to_string_lossy().into_owned();
        assert!(check_distinct(&[("input", &a)], &[("output", &a)]).unwrap_err().contains("refusing"));
        assert!(check_distinct(&[("input", &a)], &[("output", &fresh)]).is_ok());
        assert!(check_distinct(&[("input", &a)], &[("output", "-")]).is_ok());
        assert!(check_distinct(&[], &[("output", &fresh), ("rejects file", &fresh)]).is_err());
        #[cfg(unix)]
        {
            let link = dir.join("link.pgn");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&a, &link).unwrap();
            let link = link.to_string_lossy().into_owned();
            assert!(check_distinct(&[("input", &a)], &[("output", &link)]).unwrap_err().contains("are one file"));
            let hard = dir.join("hard.pgn");
            let _ = std::fs::remove_file(&hard);
            std::fs::hard_link(&a, &hard).unwrap();
            let hard = hard.to_string_lossy().into_owned();
            assert!(check_distinct(&[("input", &hard)], &[("output", &a)]).is_err());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
