//! The commands that are not single searches: `cqlrs completions SHELL` (a shell
//! completion script), `cqlrs man` (the manual page in roff) and `cqlrs survey` (many
//! scripts in one pass, see [`super::survey`]) and `cqlrs index` (a persistent index, see
//! [`super::index`]).
//!
//! Takes in: the raw argument list. A command is recognised only when the first
//! argument is exactly `completions`, `man`, `survey`, `serve`, `index` or `help`; anything else (`cqlrs q.cql`,
//! `cqlrs completions.cql`, `cqlrs ./man`) is a search as before.
//! Gives out: the script or page on stdout, exit status 0 (2 for a wrong shell name).
//! Must never: read a query, an input or a file.

use clap::{Arg, Command, CommandFactory};
use clap_complete::Shell;

use super::args::Args;
use super::{EXIT_ERROR, EXIT_MATCH};

/// The words that name a command when they are the first argument.
pub const COMMANDS: [&str; 5] = ["completions", "man", "survey", "serve", "index"];

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
        .subcommand(super::serve::command())
        .subcommand(super::index::command())
        .after_help(
            "Commands: `cqlrs completions SHELL` prints a completion script; `cqlrs man` prints the manual page; \
             `cqlrs survey -i ARCHIVE… SCRIPT_OR_DIR… -o OUTDIR` runs many scripts in one pass and writes a report; \
             `cqlrs serve INPUT…` serves a page on 127.0.0.1 to explore the games in a browser; \
             `cqlrs index -o NAME.cqlx INPUT…` builds an index that `-i NAME.cqlx` then reads.",
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
    if shell == Shell::Bash {
        out = with_single_dash_words(&out);
    }
    Ok(out)
}

/// The bash script with CQL's single-dash option words (`-gamenumber`, `-input`, …)
/// added to the words offered for `cqlrs` itself, so `-gamen<Tab>` completes.
fn with_single_dash_words(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    // The `opts="…"` list of the case for the command itself (`cqlrs)`), before those of
    // its subcommands.
    let Some(case) = text.find("cqlrs)\n") else { return script.to_vec() };
    let Some(at) = text[case..].find("opts=\"").map(|i| case + i + "opts=\"".len()) else { return script.to_vec() };
    let listed: Vec<&str> = text[at..].split('"').next().unwrap_or("").split(' ').collect();
    let words: Vec<String> = super::args::single_dash_words().filter(|w| !listed.contains(&w.as_str())).collect();
    format!("{}{} {}", &text[..at], words.join(" "), &text[at..]).into_bytes()
}

/// The manual page, in roff (`cqlrs man | man -l -`): NAME, SYNOPSIS, DESCRIPTION and
/// OPTIONS from the interface itself, then COMMANDS, EXIT STATUS, FILES, EXAMPLES and
/// SEE ALSO written here.
pub fn man_page() -> Vec<u8> {
    let man = clap_mangen::Man::new(interface());
    let mut out = Vec::new();
    // Writing into a vector cannot fail.
    let _ = man.render_title(&mut out);
    let _ = man.render_name_section(&mut out);
    let _ = man.render_synopsis_section(&mut out);
    out.extend_from_slice(section("DESCRIPTION", DESCRIPTION).as_bytes());
    let _ = man.render_options_section(&mut out);
    for (title, body) in [
        ("COMMANDS", COMMANDS_TEXT),
        ("EXIT STATUS", EXIT_STATUS),
        ("FILES", FILES),
        ("EXAMPLES", EXAMPLES),
        ("SEE ALSO", SEE_ALSO),
    ] {
        out.extend_from_slice(section(title, body).as_bytes());
    }
    let _ = man.render_version_section(&mut out);
    out
}

/// A manual page section in roff from plain text: paragraphs are separated by blank
/// lines; a paragraph whose first line starts with `$ ` is a command shown as typed
/// (no filling), one starting with `* ` an indented item whose first line is its tag.
fn section(title: &str, body: &str) -> String {
    let escape = |line: &str| {
        let text = line.replace('\\', "\\e").replace('-', "\\-");
        // A line starting with `.` or `'` would be read as a request.
        if text.starts_with('.') || text.starts_with('\'') {
            format!("\\&{text}")
        } else {
            text
        }
    };
    let mut out = format!(".SH \"{title}\"\n");
    for paragraph in body.trim().split("\n\n") {
        let lines: Vec<&str> = paragraph.lines().collect();
        if lines[0].starts_with("$ ") {
            out.push_str(".PP\n.nf\n.RS 4\n");
            for line in lines {
                out.push_str(&escape(line));
                out.push('\n');
            }
            out.push_str(".RE\n.fi\n");
        } else if let Some(tag) = lines[0].strip_prefix("* ") {
            out.push_str(&format!(".TP\n\\fB{}\\fR\n", escape(tag)));
            for line in &lines[1..] {
                out.push_str(&escape(line));
                out.push('\n');
            }
        } else {
            out.push_str(".PP\n");
            for line in lines {
                out.push_str(&escape(line));
                out.push('\n');
            }
        }
    }
    out
}

const DESCRIPTION: &str = "
cqlrs finds chess games by theme. A query describes a pattern (a smothered mate, a pinned
piece that later promotes, a rook that visits all four corners) and cqlrs scans PGN files
for it, on all cores, and writes the matching games as PGN with the matching positions
marked by a comment.

Three query languages are read: CQL 6 (Unicode or ASCII spellings), the legacy
S-expression language of CQL 1-3 and CQL-S (a script starting with `(match`), and the
YACPDB problem query language (`--yacpdb` or a .yacpdb script).

Games are given with -i FILE (repeatable, - for standard input); gzip, zstd and bzip2
files are read as they are. The query is a script file, an inline -cql FILTER or an
inline --yacpdb QUERY. CQL 6.2's single-dash options (-input, -gamenumber N M, -year N M,
-flipcolor, -parse, ...) are all recognised, as are the --long forms listed below.

A malformed game is reported with its file, number and line, counted as skipped, and the
scan goes on. The summary on standard error counts every game read: matched, unmatched,
skipped, abandoned.";

const COMMANDS_TEXT: &str = "
These words are commands only as the first argument (cqlrs ./man runs a script named man).

* cqlrs completions bash|zsh|fish|powershell
Print a completion script for the shell on standard output.

* cqlrs man
Print this manual page (roff) on standard output.

* cqlrs survey -i GAMES.pgn … SCRIPT_OR_DIR … -o OUTDIR
Run many scripts over the games in one pass: one PGN per theme, summary tables and
report.html in OUTDIR.

* cqlrs serve [--port N] [--survey DIR] INPUT …
Serve a page on 127.0.0.1 (its address is printed) to write a query, watch its matches
arrive, step through them on a board and download them as the PGN -o writes; scripts
reach no file unless --allow-files is given. See docs/serve.md.

* cqlrs index -o NAME.cqlx INPUT …   (or: cqlrs index --update NAME.cqlx INPUT …)
Read PGN files or folders once and write an index; a search given -i NAME.cqlx then reads
only the games the query could match, with the same output (docs/index.md).";

const EXIT_STATUS: &str = "
* 0
The run completed, whether or not a game matched, as CQL 6.2 (also: -parse found the query
valid).

* 1
No game matched, only when --grep-status was given (as grep).

* 2
An error: a bad query or option, no input (standard input is read only with -i -), an
output that is also an input, an input that could not be read, is not PGN, or is damaged or
cut off (a compressed stream that ends early), an output that could not be written, or a
query abandoned on nearly every game (stopped early). An unreadable input among several is
named and skipped and the others' matches are written; --exit-zero makes that run exit 0.
Malformed games and games the query gives up on are counted in the summary and do not by
themselves make the status 2.

* 130, 143
The run was stopped by SIGINT (Ctrl-C) or SIGTERM: nothing was written over an existing
output, and a line says how far the run got.";

const FILES: &str = "
* SCRIPT-out.pgn
The default output of a script run (in the current directory), unless -o or the script's
cql(output ...) names another; -o - writes to standard output. An output is written to a
temporary file and replaces an existing file only when the run succeeds; an output that is
one of the inputs is refused.

* cql(include \"FILE\")
A CQL 6 script reads included files relative to its own directory.

* ~/.local/share/bash-completion/completions/cqlrs
Where bash looks for the completion script (see EXAMPLES).";

const EXAMPLES: &str = "
Back-rank mates in two PGN files, written to a file:

$ cqlrs -i a.pgn -i b.pgn -o mates.pgn back-rank-mate.cql

An inline CQL 6 filter, output on standard output:

$ cqlrs -i games.pgn -cql 'mate' -o -

Only the numbers of the matching games among games 1 to 500 played from 1990 to 1999:

$ cqlrs -i games.pgn.gz -gamenumber 1 500 -year 1990 1999 --numbers -cql 'mate'

A YACPDB query, one JSON object per matching game:

$ cqlrs -i problems.pgn --yacpdb 'ClosedWalk(wR, 4, *)' --json

Check a script without reading games:

$ cqlrs -parse theme.cql

Install the bash completion and read the manual page:

$ mkdir -p ~/.local/share/bash-completion/completions
$ cqlrs completions bash > ~/.local/share/bash-completion/completions/cqlrs
$ cqlrs man > cqlrs.1 && man -l cqlrs.1";

const SEE_ALSO: &str = "
gzip(1). The CQL 6 language and the differences from CQL 6.2 are described in README.md and
docs/ of the cqlrs source (docs/compat.md, docs/output.md, docs/scale.md); the CQL manual
is at http://www.gadycosteff.com/cql/.";

/// Run `completions` or `man` when the first argument names one; `None` otherwise.
pub fn run_subcommand(argv: &[String]) -> Option<i32> {
    let word = argv.get(1)?;
    if word == HELP {
        return Some(help(&argv[2..]));
    }
    if !COMMANDS.contains(&word.as_str()) {
        return None;
    }
    let rest = &argv[2..];
    if word == "survey" {
        return Some(super::survey::run(rest));
    }
    if word == "serve" {
        return Some(super::serve::run(rest));
    }
    if word == "index" {
        return Some(super::index::run(rest));
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

/// The word that asks for help when it is the first argument: `cqlrs help` is
/// `cqlrs --help`, `cqlrs help COMMAND` that command's help.
pub const HELP: &str = "help";

/// `cqlrs help [COMMAND]`: the help of the search (no command) or of one command.
fn help(rest: &[String]) -> i32 {
    match rest {
        [] => super::run(vec!["cqlrs".into(), "--help".into()]),
        [word] if word == "survey" => super::survey::run(&["--help".to_string()]),
        [word] if word == "completions" || word == "man" => {
            let mut command = interface();
            let Some(sub) = command.find_subcommand_mut(word) else { return EXIT_ERROR };
            let text = sub.render_long_help().to_string();
            match crate::output::print_stdout(&text) {
                Ok(()) => EXIT_MATCH,
                Err(_) => EXIT_ERROR,
            }
        }
        _ => {
            let names = rest.join(" ");
            say!(
                "cqlrs: help: no command `{names}`; the commands are {}\n  = hint: `cqlrs --help` describes \
                 the search options",
                COMMANDS.join(", ")
            );
            EXIT_ERROR
        }
    }
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
