//! The commands that are not single searches: `cqlrs completions SHELL` (a shell
//! completion script), `cqlrs man` (the manual page in roff) and `cqlrs survey` (many
//! scripts in one pass, see [`super::survey`]).
//!
//! Takes in: the raw argument list. A command is recognised only when the first
//! argument is exactly `completions`, `man` or `survey`; anything else (`cqlrs q.cql`,
//! `cqlrs completions.cql`, `cqlrs ./man`) is a search as before.
//! Gives out: the script or page on stdout, exit status 0 (2 for a wrong shell name).
//! Must never: read a query, an input or a file.

use clap::{Arg, Command, CommandFactory};
use clap_complete::Shell;

use super::args::Args;
use super::{EXIT_ERROR, EXIT_MATCH};

/// The words that name a command when they are the first argument.
pub const COMMANDS: [&str; 3] = ["completions", "man", "survey"];

/// The full command-line interface: every search option of [`Args`] and the two
/// commands, as the completion scripts and the manual page describe it.
pub fn interface() -> Command {
    Args::command()
        .subcommand(
            Command::new("completions")
                .about("Print a completion script for a shell (bash, zsh, fish, powershell)")
                .arg(Arg::new("shell").value_name("SHELL").required(true).value_parser([
                    "bash",
                    "zsh",
                    "fish",
                    "powershell",
                ])),
        )
        .subcommand(Command::new("man").about("Print the manual page (roff) on standard output"))
        .subcommand(super::survey::command())
        .after_help(
            "Commands: `cqlrs completions SHELL` prints a completion script; `cqlrs man` prints the manual page; \
             `cqlrs survey -i ARCHIVE… SCRIPT_OR_DIR… -o OUTDIR` runs many scripts in one pass and writes a report.",
        )
}

/// The completion script for `shell` (`bash`, `zsh`, `fish`, `powershell`).
pub fn completions(shell: &str) -> Result<Vec<u8>, String> {
    let shell = match shell {
        "bash" => Shell::Bash,
        "zsh" => Shell::Zsh,
        "fish" => Shell::Fish,
        "powershell" => Shell::PowerShell,
        other => {
            return Err(format!("cqlrs: unknown shell `{other}`: expected bash, zsh, fish or powershell"));
        }
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut interface(), "cqlrs", &mut out);
    Ok(out)
}

/// The manual page, in roff (`cqlrs man | man -l -`).
pub fn man_page() -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into a vector cannot fail.
    let _ = clap_mangen::Man::new(interface()).render(&mut out);
    out
}

/// Run `completions` or `man` when the first argument names one; `None` otherwise.
pub fn run_subcommand(argv: &[String]) -> Option<i32> {
    let word = argv.get(1)?;
    if !COMMANDS.contains(&word.as_str()) {
        return None;
    }
    let rest = &argv[2..];
    if word == "survey" {
        return Some(super::survey::run(rest));
    }
    let result = match (word.as_str(), rest) {
        ("completions", [shell]) => completions(shell),
        ("completions", _) => Err("cqlrs: usage: cqlrs completions bash|zsh|fish|powershell".to_string()),
        ("man", []) => Ok(man_page()),
        _ => Err("cqlrs: usage: cqlrs man (it takes no arguments)".to_string()),
    };
    Some(match result {
        Ok(bytes) => match crate::output::print_stdout(&String::from_utf8_lossy(&bytes)) {
            Ok(()) => EXIT_MATCH,
            Err(e) => {
                say!("cqlrs: {e}");
                EXIT_ERROR
            }
        },
        Err(message) => {
            say!("{message}");
            EXIT_ERROR
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_the_exact_first_word_is_a_command() {
        assert_eq!(run_subcommand(&argv(&["cqlrs", "completions.cql"])), None);
        assert_eq!(run_subcommand(&argv(&["cqlrs", "./man"])), None);
        assert_eq!(run_subcommand(&argv(&["cqlrs", "-i", "man"])), None);
        assert_eq!(run_subcommand(&argv(&["cqlrs", "completions", "tcsh"])), Some(EXIT_ERROR));
        assert_eq!(run_subcommand(&argv(&["cqlrs", "man", "extra"])), Some(EXIT_ERROR));
    }

    #[test]
    fn every_long_option_is_completed_and_documented() {
        let bash = String::from_utf8(completions("bash").unwrap()).unwrap();
        let page = String::from_utf8(man_page()).unwrap();
        for arg in Args::command().get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(bash.contains(&format!("--{long}")), "bash completion lacks --{long}");
                // roff escapes `-` as `\-`.
                assert!(page.contains(&format!("\\-\\-{}", long.replace('-', "\\-"))), "man page lacks --{long}");
            }
        }
        assert!(completions("zsh").is_ok() && completions("fish").is_ok() && completions("powershell").is_ok());
    }
}
