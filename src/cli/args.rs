//! What the user typed: clap definitions and the rewriting of CQL 6 single-dash
//! options (`-input f`, `-gamenumber 5 9`) into clap's `--long` form.
//!
//! Takes in: the raw argument list.
//! Gives out: [`Args`], checked only for shape (types, required values).
//! Must never: open files, parse queries or build objects from the arguments.

use clap::{Parser, ValueEnum};

/// Query syntax chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SyntaxArg {
    /// CQL 6 (Unicode or ASCII).
    Cql6,
    /// Legacy CQL 1–3 S-expressions: `(match …)`.
    Legacy,
    /// YACPDB queries.
    Yacpdb,
}

/// When something is drawn on standard error (`--progress`, `--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum When {
    /// Only when standard error is a terminal (and, for colour, `NO_COLOR` is unset).
    #[default]
    Auto,
    /// Always, even into a file or a pipe.
    Always,
    /// Never.
    Never,
}

/// cqlrs — find chess games and positions matching a query (CQL 6, legacy CQL or YACPDB).
///
/// CQL 6 single-dash options (`-input f.pgn`, `-gamenumber 5 9`, `-flipcolor`) are
/// accepted as well as `--long` ones.
#[derive(Debug, Parser)]
#[command(
    name = "cqlrs",
    version,
    about,
    long_about = None,
    disable_help_subcommand = true,
    override_usage = USAGE,
    after_help = "Exit status: 0 when the run completed, whether or not a game matched (as CQL); \
                  1 when no game matched, only with --grep-status; 2 on an error."
)]
pub struct Args {
    /// Query script (.cql; legacy detected by `(match`; .yacpdb = YACPDB); games go with `-i`
    pub script: Option<String>,
    /// PGN input file (repeatable; `-` = stdin; .gz .zst .bz2 are decompressed)
    #[arg(short = 'i', long = "input", value_name = "FILE")]
    pub input: Vec<String>,
    /// Output file (`-` = stdout); default `<script>-out.pgn`, stdout for inline queries
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
    /// Inline CQL 6 filter (used as the query body, or added to a CQL 6 script)
    #[arg(long = "cql", allow_hyphen_values = true, value_name = "FILTER")]
    pub cql: Option<String>,
    /// Inline YACPDB query
    #[arg(long = "yacpdb", allow_hyphen_values = true, value_name = "QUERY")]
    pub yacpdb: Option<String>,
    /// Force the query syntax instead of detecting it
    #[arg(long = "syntax", value_enum)]
    pub syntax: Option<SyntaxArg>,
    /// Write matching game numbers, one per line
    #[arg(long = "numbers", conflicts_with_all = ["count", "json"])]
    pub numbers: bool,
    /// Write only the number of matching games
    #[arg(long = "count", conflicts_with = "json")]
    pub count: bool,
    /// Write one JSON object per matching game
    #[arg(long = "json")]
    pub json: bool,
    /// Write one JSON object per matching position (ply, FEN, SAN, comments; see docs/output.md)
    #[arg(long = "positions", conflicts_with_all = ["numbers", "count", "json", "json_pgn", "epd"])]
    pub positions: bool,
    /// Write one EPD line per matching position (game locator in the `id` opcode)
    #[arg(long = "epd", conflicts_with_all = ["numbers", "count", "json", "json_pgn"])]
    pub epd: bool,
    /// Progress bar on stderr: auto (only on a terminal), always, never
    #[arg(long = "progress", value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub progress: When,
    /// Colour in error messages: auto (terminal and no NO_COLOR), always, never
    #[arg(long = "color", value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub color: When,
    /// Stop after N matching games
    #[arg(long = "limit", value_name = "N")]
    pub limit: Option<u64>,
    /// Worker threads, 1 to 1024 (default: all cores)
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Use one worker thread
    #[arg(long = "singlethreaded")]
    pub singlethreaded: bool,
    /// Only games numbered N (or N to M): `-gamenumber N [M]`
    #[arg(long = "gamenumber", value_name = "N[-M]", value_parser = parse_range)]
    pub gamenumber: Option<(u64, u64)>,
    /// Games must have N (or N to M) matching positions: `-matchcount N [M]`
    #[arg(long = "matchcount", value_name = "N[-M]", value_parser = parse_range)]
    pub matchcount: Option<(u64, u64)>,
    /// Comment written at matching positions instead of `CQL`
    #[arg(long = "matchstring", allow_hyphen_values = true, value_name = "TEXT")]
    pub matchstring: Option<String>,
    /// Search the main line only
    #[arg(long = "mainline", conflicts_with = "variations")]
    pub mainline: bool,
    /// Search variations too
    #[arg(long = "variations")]
    pub variations: bool,
    /// Write matching games without any comment of the run's (no game number, marks or query comments)
    #[arg(long = "silent")]
    pub silent: bool,
    /// Do not mark matching positions (the query's own comments are still written)
    #[arg(long = "quiet")]
    pub quiet: bool,
    /// Do not write the `{Game number N}` comment
    #[arg(long = "noheader")]
    pub noheader: bool,
    /// Only games where this player (either colour) took part
    #[arg(long = "player", value_name = "NAME")]
    pub player: Option<String>,
    /// Only games with this White player
    #[arg(long = "white", value_name = "NAME")]
    pub white: Option<String>,
    /// Only games with this Black player
    #[arg(long = "black", value_name = "NAME")]
    pub black: Option<String>,
    /// Only games whose Event contains this text
    #[arg(long = "event", value_name = "TEXT")]
    pub event: Option<String>,
    /// Only games whose Site contains this text
    #[arg(long = "site", value_name = "TEXT")]
    pub site: Option<String>,
    /// Only games with this result (1-0, 0-1, 1/2-1/2)
    #[arg(long = "result", value_name = "R")]
    pub result: Option<String>,
    /// Only games played in year N (or N to M): `-year N [M]`
    #[arg(long = "year", value_name = "N[-M]", value_parser = parse_range)]
    pub year: Option<(u64, u64)>,
    /// Also match the query's eight board symmetries
    #[arg(long = "flip")]
    pub flip: bool,
    /// Also match with colours swapped
    #[arg(long = "flipcolor")]
    pub flipcolor: bool,
    /// Also match every translation of the board
    #[arg(long = "shift")]
    pub shift: bool,
    /// Also match mirrored rank 1 ↔ rank 8
    #[arg(long = "fliphorizontal")]
    pub fliphorizontal: bool,
    /// Also match mirrored a-file ↔ h-file
    #[arg(long = "flipvertical")]
    pub flipvertical: bool,
    /// Also match the board rotated by 90°, 180°, 270°
    #[arg(long = "rotate90")]
    pub rotate90: bool,
    /// Also match directions rotated by multiples of 45°
    #[arg(long = "rotate45")]
    pub rotate45: bool,
    /// Match only with colours swapped
    #[arg(long = "reversecolor")]
    pub reversecolor: bool,
    /// Print the query's IR and exit
    #[arg(long = "dump-ir")]
    pub dump_ir: bool,
    /// Evaluate the query the plain way: every filter in the script's order at every
    /// position, with no evaluation plan (slow; what it writes is what the default writes)
    #[arg(long = "no-plan")]
    pub no_plan: bool,
    /// Print a CQL 6 script with ASCII spellings and exit
    #[arg(long = "to-ascii", value_name = "FILE")]
    pub to_ascii: Option<String>,
    /// Print a CQL 6 script with Unicode spellings and exit
    #[arg(long = "to-unicode", value_name = "FILE")]
    pub to_unicode: Option<String>,

    // Query text added by options (CQL 6 only): each adds a filter to the query.
    /// Check the query and exit (0 = it compiles, 2 = it does not); no game is read
    #[arg(long = "parse")]
    pub parse: bool,
    /// Only positions with this FEN board (adds `fen "FEN"` to the query)
    #[arg(long = "fen", value_name = "FEN")]
    pub fen: Option<String>,
    /// Only positions with White to move (adds `wtm`)
    #[arg(long = "wtm", conflicts_with = "btm")]
    pub wtm: bool,
    /// Only positions with Black to move (adds `btm`)
    #[arg(long = "btm")]
    pub btm: bool,
    /// Set a query variable before the query runs: `-assign NAME VALUE` (repeatable)
    #[arg(long = "assign", value_name = "NAME=VALUE")]
    pub assign: Vec<String>,
    /// Positions like those of a PGN file: `-similarposition [nosort] [notransform] FILE`
    #[arg(long = "similarposition", value_name = "WORD")]
    pub similarposition: Vec<String>,
    /// An `hhdb` filter for the endgame study database HHdb, as CQL 6 text (CQL's
    /// `-hhdb KEY… [TEXT]`, e.g. `-hhdb composer Kasparyan` adds `hhdb composer "Kasparyan"`)
    #[arg(long = "hhdb", value_name = "FILTER")]
    pub hhdb: Vec<String>,
    /// Search variations as if each were the main line (adds `virtualmainline`)
    #[arg(long = "virtualmainline")]
    pub virtualmainline: bool,
    /// Also match the board shifted along ranks
    #[arg(long = "shifthorizontal")]
    pub shifthorizontal: bool,
    /// Also match the board shifted along files
    #[arg(long = "shiftvertical")]
    pub shiftvertical: bool,

    // Output safety, encodings and messages.
    /// Write output in this encoding: utf8 (default) or latin1 (fails on a character
    /// that Latin-1 lacks)
    #[arg(long = "output-encoding", value_name = "ENC")]
    pub output_encoding: Option<String>,
    /// Write the raw bytes of every skipped or partly read game to FILE
    #[arg(long = "rejects", value_name = "FILE")]
    pub rejects: Option<String>,
    /// Abandon a game after N evaluation steps (default 200000000; a string copy counts
    /// one step per 64 bytes)
    #[arg(long = "max-game-steps", value_name = "N")]
    pub max_game_steps: Option<u64>,
    /// Abandon a game after SECONDS of evaluation (default 10; 0 = no time limit)
    #[arg(long = "max-game-time", value_name = "SECONDS")]
    pub max_game_time: Option<f64>,
    /// Abandon a game whose strings, dictionaries and notes (those kept from earlier games
    /// included) take more than BYTES, and skip a game whose positions would (default 256M;
    /// suffixes K, M, G)
    #[arg(long = "max-game-memory", value_name = "BYTES", value_parser = parse_size)]
    pub max_game_memory: Option<u64>,
    /// Skip (unread) a game of more than BYTES of PGN text (default 64M; suffixes K, M, G)
    #[arg(long = "max-game-bytes", value_name = "BYTES", value_parser = parse_size)]
    pub max_game_bytes: Option<u64>,
    /// Let the script's readfile, writefile, include and output reach files in DIR too
    /// (repeatable); by default only the script's folder and the output's folder
    #[arg(long = "allow-files", value_name = "DIR")]
    pub allow_files: Vec<String>,
    /// Forbid every file access from the script (readfile, writefile, include, and its
    /// own input and output)
    #[arg(long = "secure")]
    pub secure: bool,
    /// Print at most N warnings (skipped games, abandoned games) on stderr
    #[arg(long = "max-warnings", value_name = "N")]
    pub max_warnings: Option<u64>,
    /// No warnings and no summary on stderr (errors are still printed)
    #[arg(long = "quiet-stderr")]
    pub quiet_stderr: bool,
    /// Do not apply the query's `settag` filters to the output
    #[arg(long = "nosettag")]
    pub nosettag: bool,
    /// Keep the comments `removecomment` would delete from the written games
    #[arg(long = "noremovecomment")]
    pub noremovecomment: bool,
    /// Print `<N>` for each matching game as it is found, as CQL does (on stdout when
    /// the games go to a file, else on stderr)
    #[arg(long = "showmatches")]
    pub showmatches: bool,
    /// CQL's progress: a `.` every N/10 games and `[N]` every N games (on stdout when the
    /// games go to a file, else on stderr)
    #[arg(long = "lineincrement", value_name = "N")]
    pub lineincrement: Option<u64>,

    /// Read only shard K of N near-equal byte ranges of the inputs (whole games; see docs/scale.md)
    #[arg(long = "shard", value_name = "K/N", value_parser = crate::input::shard::parse_shard, conflicts_with = "byte_range")]
    pub shard: Option<(u64, u64)>,
    /// Read only the games that begin in bytes START..END of the concatenated inputs
    #[arg(long = "byte-range", value_name = "START-END", value_parser = crate::input::shard::parse_byte_range)]
    pub byte_range: Option<crate::input::shard::ByteRange>,
    /// Games of all inputs before this shard (numbers games as a single run; else counted)
    #[arg(long = "games-before", value_name = "N", requires = "file_games_before")]
    pub games_before: Option<u64>,
    /// Games of the shard's first file before the shard (with --games-before)
    #[arg(long = "file-games-before", value_name = "M", requires = "games_before")]
    pub file_games_before: Option<u64>,
    /// Only count the games of each input (or shard) and print one JSON record; no query
    #[arg(long = "count-games")]
    pub count_games: bool,
    /// Like --json, each record also carrying the game's PGN output (field `pgn`)
    #[arg(long = "json-pgn", conflicts_with_all = ["numbers", "count"])]
    pub json_pgn: bool,
    /// End the run with a JSON summary record (last output line with --json, else stderr)
    #[arg(long = "summary-json")]
    pub summary_json: bool,
    /// Exit 1 when the run completed but no game matched, as grep does (without it a
    /// completed run exits 0 whether or not a game matched, as CQL does)
    #[arg(long = "grep-status")]
    pub grep_status: bool,
    /// Exit 0 when the run completed, whether or not a game matched (the default; kept
    /// for scripts written when 1 meant "no match")
    #[arg(long = "exit-zero", conflicts_with = "grep_status")]
    pub exit_zero: bool,
    /// CQL's GUI protocol on stdout: `<CqlGuiVariable>` lines, messages, errors,
    /// progress and `<CqlGuiNormalExit>` (see docs/gui.md)
    #[arg(long = "gui")]
    pub gui: bool,
    /// Write the matching games to stdout inside `<CqlGuiPgn …>` … `</CqlGuiPgn>`
    #[arg(long = "guipgnstdout", conflicts_with = "output")]
    pub guipgnstdout: bool,
    /// Read the PGN games from stdin (as `-input -`)
    #[arg(long = "guipgnstdin", conflicts_with = "input")]
    pub guipgnstdin: bool,
    /// Never replace an existing output file: the run stops with an error instead
    #[arg(long = "noclobber", conflicts_with = "append")]
    pub noclobber: bool,
    /// Add the matching games to the end of an existing output file
    #[arg(long = "append")]
    pub append: bool,
    /// Write the matching games in game-number order even when the query sorts them
    #[arg(long = "nosort")]
    pub nosort: bool,
    /// Write the game that begins at byte OFFSET of FILE and exit (repeatable)
    #[arg(long = "extract", value_name = "FILE@OFFSET")]
    pub extract: Vec<String>,
}

/// The usage lines of `--help` and the manual page's synopsis: games are given with
/// `-i`, the query as a script, `-cql` or `--yacpdb`.
const USAGE: &str = "cqlrs [OPTIONS] -i GAMES.pgn [-i MORE.pgn …] [-o OUT.pgn] SCRIPT.cql
       cqlrs [OPTIONS] -i GAMES.pgn -cql 'FILTER'
       cqlrs [OPTIONS] -i GAMES.pgn --yacpdb 'QUERY'
       cqlrs survey -i ARCHIVE.pgn… SCRIPT.cql|DIR… -o OUTDIR
       cqlrs completions bash|zsh|fish|powershell
       cqlrs man
       cqlrs help [survey|completions|man]";

/// `N`, `N-M`, `N:M` or `N..M` as an inclusive range.
/// A size in bytes: a number with an optional K, M or G suffix (powers of 1024).
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("`{s}`: a size is a number with an optional K, M or G")),
    };
    let n: u64 = digits.trim().parse().map_err(|_| format!("`{s}`: a size is a number with an optional K, M or G"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("`{s}`: too large"))
}

/// The `hhdb` keys after which CQL's `-hhdb` reads one more argument, the text to look
/// for (CQL 6.2's command-line reader, `hhdb-options-parse.cpp`).
const HHDB_TEXT_KEYS: &[&str] = &["composer", "firstcomment", "gbr", "search", "source", "stipulation"];

/// Read the words of `-hhdb` as CQL 6.2 does: every following argument that is an `hhdb`
/// key, until one that is not, or until the text after a key that takes one; the result
/// is the `hhdb` filter they spell, with keys of other characters than letters, digits
/// and `_` quoted (`"(c)"`) and the text quoted.
fn hhdb_filter(arg: &str, rest: &mut std::collections::VecDeque<String>) -> Result<String, String> {
    let mut filter = String::from("hhdb");
    let mut keys = 0;
    while let Some(word) = rest.front().cloned() {
        if !crate::lang::cql6::hhdb_key(&word) {
            break;
        }
        rest.pop_front();
        keys += 1;
        if word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            filter = format!("{filter} {word}");
        } else {
            filter = format!("{filter} \"{word}\"");
        }
        if HHDB_TEXT_KEYS.contains(&word.as_str()) {
            let text = rest.pop_front().ok_or_else(|| format!("cqlrs: `{arg} {word}` needs the text to look for"))?;
            if text.is_empty() || text.contains('"') {
                return Err(format!("cqlrs: `{arg} {word}` needs a text without quotation marks, not `{text}`"));
            }
            filter = format!("{filter} \"{text}\"");
            break;
        }
    }
    if keys == 0 {
        let found = rest.front().map_or("nothing".to_string(), |w| format!("`{w}`"));
        return Err(format!(
            "cqlrs: `{arg}` needs hhdb keys such as `composer`, `cooked` or `(c)`, found {found} \
             (docs/header.md lists the keys of `hhdb`)"
        ));
    }
    Ok(filter)
}

fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let num = |t: &str| t.trim().parse::<u64>().map_err(|_| format!("expected a number, found `{t}`"));
    for sep in ["..", "-", ":"] {
        if let Some((a, b)) = s.split_once(sep) {
            let (lo, hi) = (num(a)?, num(b)?);
            if lo > hi {
                return Err(format!("empty range `{s}`"));
            }
            return Ok((lo, hi));
        }
    }
    let n = num(s)?;
    Ok((n, n))
}

/// What one option word (`-name` or `--name`) does to the argument list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A flag: `--long`.
    Flag(&'static str),
    /// One value, the next argument: `--long=VALUE`.
    Value(&'static str),
    /// One number and, when the next argument is a number too, a second one:
    /// `--long=N-M` (`-gamenumber 5 9`).
    Range(&'static str),
    /// Two values, a name and its value: `--long=NAME=VALUE` (`-assign x 5`).
    Pair(&'static str),
    /// `-similarposition [nosort] [notransform] FILE`: each word as `--long=WORD`.
    Words(&'static str, &'static [&'static str]),
    /// `-hhdb KEY… [TEXT]`: the words that are `hhdb` keys, and the text after a key that
    /// takes one, as one `hhdb` filter: `--long=hhdb KEY… "TEXT"`.
    HhdbWords(&'static str),
    /// A fixed replacement: `-vi` = `--input=hhdbvi.pgn`.
    Fixed(&'static str),
    /// Accepted and without effect, because cqlrs already behaves as the option asks;
    /// `bool`: the option takes a value (which is checked to be a positive number).
    NoEffect(bool),
    /// Refused: the text says why.
    Refused(&'static str),
}

use Kind::*;

/// Every option of CQL 6.2 (from the reference's command-line reader) and of cqlrs,
/// by name (matched without regard to case, after one or two dashes). CQL's short
/// names are listed as names of their own, so `-sort` is an unknown word, never
/// `-s -o rt`.
const OPTIONS: &[(&str, Kind)] = &[
    // Inputs and outputs.
    ("i", Value("input")),
    ("input", Value("input")),
    ("o", Value("output")),
    ("output", Value("output")),
    ("vi", Fixed("--input=hhdbvi.pgn")),
    ("vii", Fixed("--input=hhdbvii.pgn")),
    ("rejects", Value("rejects")),
    ("allow-files", Value("allow-files")),
    ("secure", Flag("secure")),
    ("output-encoding", Value("output-encoding")),
    // The query.
    ("cql", Value("cql")),
    ("yacpdb", Value("yacpdb")),
    ("syntax", Value("syntax")),
    ("parse", Flag("parse")),
    ("fen", Value("fen")),
    ("wtm", Flag("wtm")),
    ("btm", Flag("btm")),
    ("assign", Pair("assign")),
    ("similarposition", Words("similarposition", &["nosort", "notransform"])),
    ("hhdb", HhdbWords("hhdb")),
    ("virtualmainline", Flag("virtualmainline")),
    // Which games.
    ("g", Range("gamenumber")),
    ("gamenumber", Range("gamenumber")),
    ("matchcount", Range("matchcount")),
    ("year", Range("year")),
    ("player", Value("player")),
    ("white", Value("white")),
    ("black", Value("black")),
    ("event", Value("event")),
    ("site", Value("site")),
    ("result", Value("result")),
    ("limit", Value("limit")),
    ("mainline", Flag("mainline")),
    ("variations", Flag("variations")),
    // Transforms.
    ("flip", Flag("flip")),
    ("flipcolor", Flag("flipcolor")),
    ("flipvertical", Flag("flipvertical")),
    ("fliphorizontal", Flag("fliphorizontal")),
    ("shift", Flag("shift")),
    ("shifthorizontal", Flag("shifthorizontal")),
    ("shiftvertical", Flag("shiftvertical")),
    ("rotate90", Flag("rotate90")),
    ("rotate45", Flag("rotate45")),
    ("reversecolor", Flag("reversecolor")),
    // What is written.
    ("numbers", Flag("numbers")),
    ("count", Flag("count")),
    ("json", Flag("json")),
    ("positions", Flag("positions")),
    ("epd", Flag("epd")),
    ("matchstring", Value("matchstring")),
    ("silent", Flag("silent")),
    ("quiet", Flag("quiet")),
    ("noheader", Flag("noheader")),
    ("noheaders", Flag("noheader")),
    ("nosettag", Flag("nosettag")),
    // Progress and messages.
    ("showmatches", Flag("showmatches")),
    ("lineincrement", Value("lineincrement")),
    ("quiet-stderr", Flag("quiet-stderr")),
    ("max-warnings", Value("max-warnings")),
    ("max-game-steps", Value("max-game-steps")),
    ("max-game-time", Value("max-game-time")),
    ("max-game-memory", Value("max-game-memory")),
    ("max-game-bytes", Value("max-game-bytes")),
    ("progress", Value("progress")),
    ("color", Value("color")),
    // Threads.
    ("threads", Value("threads")),
    ("s", Flag("singlethreaded")),
    ("singlethreaded", Flag("singlethreaded")),
    ("m", NoEffect(false)),
    ("multithreaded", NoEffect(false)),
    ("outputbuffer", NoEffect(true)),
    ("nooutputstatus", NoEffect(false)),
    ("showoutput", Fixed("--lineincrement=10000")),
    ("noremovecomment", Flag("noremovecomment")),
    // Other programs' jobs.
    ("a", Value("to-ascii")),
    ("u", Value("to-unicode")),
    ("to-ascii", Value("to-ascii")),
    ("to-unicode", Value("to-unicode")),
    ("dump-ir", Flag("dump-ir")),
    // CQL's GUI protocol.
    ("gui", Flag("gui")),
    ("guipgnstdout", Flag("guipgnstdout")),
    ("guipgnstdin", Flag("guipgnstdin")),
    // Exit status and the output file (CQLi's long names; `-a` is CQL's `-ascii`).
    ("grep-status", Flag("grep-status")),
    ("exit-zero", Flag("exit-zero")),
    ("noclobber", Flag("noclobber")),
    ("nosort", Flag("nosort")),
    ("h", Flag("help")),
    ("help", Flag("help")),
    ("v", Flag("version")),
    ("version", Flag("version")),
    // Refused.
    ("html", Refused("HTML export of a query is not implemented; `--to-unicode FILE` prints the query")),
    ("utf8", Refused("use `--to-unicode FILE`, which prints the converted query")),
    ("echo", Refused("use `--to-ascii FILE` or `--to-unicode FILE`, which print the query")),
    ("colorize", Refused("coloured query printing is not implemented")),
    ("d", Refused("the reference's debug traces do not exist here; `--dump-ir` prints the compiled query")),
    ("debug", Refused("the reference's debug traces do not exist here; `--dump-ir` prints the compiled query")),
    ("lex", Refused("the token list is not printed; `-parse` checks a query and `--dump-ir` prints it")),
    ("showthread", Refused("per-thread progress is not printed")),
    ("showfromstring", Refused("move-origin strings are not printed")),
    ("alwayscomment", Refused("comment placement is fixed in cqlrs (see docs/output.md)")),
    ("nolinearize", Refused("cqlrs has no linearized mode to turn off")),
    ("nosortcomments", Refused("comment ordering is fixed in cqlrs (see docs/output.md)")),
    ("uniquecomments", Refused("comment de-duplication is not configurable in cqlrs")),
    ("nouniquecomments", Refused("comment de-duplication is not configurable in cqlrs")),
];

/// The single-dash option words a user may type (`-gamenumber`, `-i`, …), for the shell
/// completion scripts; refused words are left out.
pub fn single_dash_words() -> impl Iterator<Item = String> {
    OPTIONS.iter().filter(|(_, k)| !matches!(k, Refused(_))).map(|(n, _)| format!("-{n}"))
}

/// The entry for an option name (without dashes), ignoring case.
fn lookup(name: &str) -> Option<Kind> {
    OPTIONS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, k)| *k)
}

/// Edit distance between two short words (for "did you mean").
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = if ca == b[j] { prev } else { 1 + prev.min(row[j]).min(row[j + 1]) };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The known option closest to an unknown word, if one is close.
fn did_you_mean(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let best = OPTIONS
        .iter()
        .filter(|(n, k)| n.len() > 1 && !matches!(k, Refused(_)))
        .map(|(n, _)| (distance(&lower, n), *n))
        .min()?;
    let prefix = OPTIONS.iter().find(|(n, _)| n.len() > 2 && (n.starts_with(&lower) || lower.starts_with(n)));
    if best.0 <= 2.max(lower.len() / 3) {
        Some(best.1)
    } else {
        prefix.map(|(n, _)| *n)
    }
}

/// Words of a CQL query that users type as options (`-sort`): the word and what to
/// write instead.
const QUERY_WORDS: &[(&str, &str)] = &[
    ("sort", "`sort` is a filter of the query, not an option: e.g. `-cql 'sort \"material\" material'`"),
    ("matchcount", "give a range: `-matchcount N [M]`"),
    ("elo", "CQL has no `-elo` option: write the range in the query, e.g. `-cql '2000 <= elo white <= 2800'`"),
    ("mate", "`mate` is a filter of the query: `-cql mate`"),
    ("check", "`check` is a filter of the query: `-cql check`"),
];

/// A hint for an unknown option word: the closest option, or what to write when the
/// word is (or is close to) a filter of the query language.
fn hint_for(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let query = QUERY_WORDS.iter().map(|(w, hint)| (distance(&lower, w), *hint)).filter(|(d, _)| *d <= 2).min();
    let option = did_you_mean(name);
    match (query, option) {
        (Some((d, hint)), Some(n)) if d < distance(&lower, n) => Some(hint.to_string()),
        (_, Some(n)) => Some(format!("did you mean `-{n}`?")),
        (Some((_, hint)), None) => Some(hint.to_string()),
        (None, None) => None,
    }
}

/// Rewrite the argument list into clap's form using [`OPTIONS`]: every option word
/// with one or two dashes becomes `--long` or `--long=VALUE`, CQL's two-number ranges
/// become `N-M`, and values are passed on untouched (however they begin). A
/// single-dash word that is not in the table is an error; a double-dash one is left
/// to clap. Short options are never bundled.
pub fn normalize(args: impl IntoIterator<Item = String>) -> Result<Vec<String>, String> {
    let mut input = args.into_iter();
    let mut out: Vec<String> = input.next().into_iter().collect();
    let mut rest: std::collections::VecDeque<String> = input.collect();
    let missing = |arg: &str, what: &str| format!("cqlrs: `{arg}` needs {what}");
    while let Some(arg) = rest.pop_front() {
        if arg == "--" {
            out.push(arg);
            out.extend(rest.drain(..));
            break;
        }
        let (double, word) = match (arg.strip_prefix("--"), arg.strip_prefix('-')) {
            (Some(w), _) => (true, w),
            (None, Some(w)) if !w.is_empty() => (false, w),
            _ => {
                out.push(arg);
                continue;
            }
        };
        let (name, inline_value) = match word.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (word, None),
        };
        let Some(kind) = lookup(name) else {
            let is_clap_option = || {
                use clap::CommandFactory;
                Args::command().get_arguments().any(|a| a.get_long() == Some(name))
            };
            if double && (is_clap_option() || hint_for(name).is_none()) {
                out.push(arg);
                continue;
            }
            let hint = hint_for(name).map_or(String::new(), |h| format!("; {h}"));
            return Err(format!("cqlrs: unknown option `{arg}`{hint} (see --help)"));
        };
        let mut next_value = |what: &str| -> Result<String, String> {
            match inline_value.clone() {
                Some(v) => Ok(v),
                None => rest.pop_front().ok_or_else(|| missing(&arg, what)),
            }
        };
        match kind {
            Flag(long) => {
                if inline_value.is_some() {
                    return Err(format!("cqlrs: `-{name}` takes no value"));
                }
                out.push(format!("--{long}"));
            }
            Value(long) => {
                let v = next_value("a value")?;
                out.push(format!("--{long}={v}"));
            }
            Range(long) => {
                let first = next_value("a number")?;
                let second_is_number = rest.front().is_some_and(|s| s.parse::<u64>().is_ok());
                if inline_value.is_none() && second_is_number && first.parse::<u64>().is_ok() {
                    let second = rest.pop_front().unwrap_or_default();
                    if first.parse::<u64>().ok() > second.parse::<u64>().ok() {
                        // Said in the words the user typed, not in the `N-M` form above.
                        return Err(format!(
                            "cqlrs: `{arg} {first} {second}` is an empty range: the first number must not be \
                             larger than the second\n  = hint: write `{arg} {second} {first}`"
                        ));
                    }
                    out.push(format!("--{long}={first}-{second}"));
                } else {
                    out.push(format!("--{long}={first}"));
                }
            }
            Pair(long) => {
                let id = next_value("a name and a value")?;
                let value = rest.pop_front().ok_or_else(|| missing(&arg, "a name and a value"))?;
                out.push(format!("--{long}={id}={value}"));
            }
            Words(long, modifiers) => {
                let mut word = next_value("a file")?;
                while modifiers.contains(&word.as_str()) {
                    out.push(format!("--{long}={word}"));
                    word = rest.pop_front().ok_or_else(|| missing(&arg, "a file"))?;
                }
                out.push(format!("--{long}={word}"));
            }
            HhdbWords(long) => {
                let first = next_value("an hhdb key such as `composer`")?;
                rest.push_front(first);
                out.push(format!("--{long}={}", hhdb_filter(&arg, &mut rest)?));
            }
            Fixed(replacement) => out.push(replacement.to_string()),
            NoEffect(takes_value) => {
                if takes_value {
                    let v = next_value("a number")?;
                    if v.parse::<u64>().map_or(true, |n| n == 0) {
                        return Err(format!("cqlrs: `{arg}` needs a positive number, found `{v}`"));
                    }
                }
            }
            Refused(why) => {
                return Err(format!("cqlrs: the CQL option `{arg}` is not supported: {why}"));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn single_dash_options_become_long_ones() {
        let got =
            normalize(strings(&["cqlrs", "-input", "a.pgn", "-gamenumber", "5", "9", "-flipcolor", "-s", "q.cql"]))
                .unwrap();
        assert_eq!(
            got,
            strings(&["cqlrs", "--input=a.pgn", "--gamenumber=5-9", "--flipcolor", "--singlethreaded", "q.cql"])
        );
        let args = Args::try_parse_from(got).unwrap();
        assert_eq!(args.gamenumber, Some((5, 9)));
        assert!(args.flipcolor && args.singlethreaded);
        assert_eq!(args.script.as_deref(), Some("q.cql"));
    }

    #[test]
    fn second_range_number_is_optional_and_values_are_untouched() {
        let got = normalize(strings(&["cqlrs", "-year", "1990", "q.cql", "-cql", "-flip", "--matchcount=2"])).unwrap();
        assert_eq!(got, strings(&["cqlrs", "--year=1990", "q.cql", "--cql=-flip", "--matchcount=2"]));
        let args = Args::try_parse_from(got).unwrap();
        assert_eq!(args.year, Some((1990, 1990)));
        assert_eq!(args.cql.as_deref(), Some("-flip"));
        assert_eq!(args.matchcount, Some((2, 2)));
    }

    #[test]
    fn cql_words_are_never_bundles_of_short_flags() {
        let err = normalize(strings(&["cqlrs", "-sort", "q.cql"])).unwrap_err();
        assert!(err.contains("unknown option `-sort`") && err.contains("`sort` is a filter"), "{err}");
        let err = normalize(strings(&["cqlrs", "-srot", "q.cql"])).unwrap_err();
        assert!(err.contains("`sort` is a filter"), "{err}");
        let err = normalize(strings(&["cqlrs", "--plyer", "Tal"])).unwrap_err();
        assert!(err.contains("did you mean `-player`"), "{err}");
        // Long options of clap that the table does not list pass through.
        assert!(normalize(strings(&["cqlrs", "--shard", "1/2"])).is_ok());
        let err = normalize(strings(&["cqlrs", "-gamenumbr", "3"])).unwrap_err();
        assert!(err.contains("did you mean `-gamenumber`"), "{err}");
        let got = normalize(strings(&["cqlrs", "-showMatches", "-PARSE", "-i", "-x.pgn"])).unwrap();
        assert_eq!(got, strings(&["cqlrs", "--showmatches", "--parse", "--input=-x.pgn"]));
        let err = normalize(strings(&["cqlrs", "-html"])).unwrap_err();
        assert!(err.contains("not supported"), "{err}");
    }

    #[test]
    fn every_table_entry_is_a_clap_option() {
        for (name, kind) in OPTIONS {
            let mut argv = strings(&["cqlrs", &format!("-{name}")]);
            match kind {
                Value("syntax") => argv.push("cql6".into()),
                Value("output-encoding") => argv.push("utf8".into()),
                Value("progress") | Value("color") => argv.push("never".into()),
                Value(_) | Range(_) => argv.push("3".into()),
                Pair(_) => argv.extend(strings(&["x", "1"])),
                Words(..) => argv.push("f.pgn".into()),
                HhdbWords(_) => argv.push("cooked".into()),
                NoEffect(true) => argv.push("200000".into()),
                _ => {}
            }
            match normalize(argv) {
                Ok(norm) if !matches!(kind, Flag("help") | Flag("version")) => {
                    if let Err(e) = Args::try_parse_from(&norm) {
                        panic!("-{name} → {norm:?}: {e}");
                    }
                }
                Ok(_) => {}
                Err(e) => assert!(matches!(kind, Refused(_)), "-{name}: {e}"),
            }
        }
    }

    #[test]
    fn assign_and_similarposition_keep_their_words() {
        let got = normalize(strings(&["cqlrs", "-assign", "x", "5", "-similarposition", "nosort", "s.pgn"])).unwrap();
        let args = Args::try_parse_from(got).unwrap();
        assert_eq!(args.assign, vec!["x=5".to_string()]);
        assert_eq!(args.similarposition, strings(&["nosort", "s.pgn"]));
        assert!(normalize(strings(&["cqlrs", "-assign", "x"])).unwrap_err().contains("needs"));
    }

    #[test]
    fn hhdb_reads_its_keys_and_the_text_after_a_key_that_takes_one() {
        // As CQL 6.2's hhdb_parse_option: keys until a word that is not one, the text
        // after `composer` ends the option, keys of other characters are quoted.
        let got = normalize(strings(&["cqlrs", "-hhdb", "composer", "Kasparyan", "q.cql"])).unwrap();
        assert_eq!(got, strings(&["cqlrs", "--hhdb=hhdb composer \"Kasparyan\"", "q.cql"]));
        let got =
            normalize(strings(&["cqlrs", "-hhdb", "(c)", "cooked", "q.cql", "-hhdb", "special", "prize"])).unwrap();
        assert_eq!(got, strings(&["cqlrs", "--hhdb=hhdb \"(c)\" cooked", "q.cql", "--hhdb=hhdb special prize"]));
        let args = Args::try_parse_from(got).unwrap();
        assert_eq!(args.hhdb.len(), 2);
        assert!(normalize(strings(&["cqlrs", "-hhdb", "q.cql"])).unwrap_err().contains("needs hhdb keys"));
    }

    #[test]
    fn ranges_parse() {
        assert_eq!(parse_range("3"), Ok((3, 3)));
        assert_eq!(parse_range("3-7"), Ok((3, 7)));
        assert!(parse_range("7-3").is_err());
        assert!(parse_range("x").is_err());
    }

    #[test]
    fn output_formats_conflict() {
        assert!(Args::try_parse_from(strings(&["cqlrs", "--numbers", "--count"])).is_err());
    }
}
