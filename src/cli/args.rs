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

/// cqlrs — find chess games and positions matching a query (CQL 6, legacy CQL or YACPDB).
///
/// CQL 6 single-dash options (`-input f.pgn`, `-gamenumber 5 9`, `-flipcolor`) are
/// accepted as well as `--long` ones.
#[derive(Debug, Parser)]
#[command(name = "cqlrs", version, about, long_about = None, disable_help_subcommand = true)]
pub struct Args {
    /// Query script (.cql; legacy detected by `(match`; .yacpdb = YACPDB)
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
    /// Stop after N matching games
    #[arg(long = "limit", value_name = "N")]
    pub limit: Option<u64>,
    /// Worker threads (default: all cores)
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Use one worker thread
    #[arg(short = 's', long = "singlethreaded")]
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
    /// Do not mark matching positions
    #[arg(long = "silent")]
    pub silent: bool,
    /// Do not write the query's comments
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
    /// Print a CQL 6 script with ASCII spellings and exit
    #[arg(long = "to-ascii", value_name = "FILE")]
    pub to_ascii: Option<String>,
    /// Print a CQL 6 script with Unicode spellings and exit
    #[arg(long = "to-unicode", value_name = "FILE")]
    pub to_unicode: Option<String>,
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
    /// Exit 0 when the run succeeded, whether or not a game matched
    #[arg(long = "exit-zero")]
    pub exit_zero: bool,
    /// Write the game that begins at byte OFFSET of FILE and exit (repeatable)
    #[arg(long = "extract", value_name = "FILE@OFFSET")]
    pub extract: Vec<String>,
}

/// `N`, `N-M`, `N:M` or `N..M` as an inclusive range.
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

/// Options taking one value.
const ONE_VALUE: &[&str] = &[
    "input",
    "output",
    "cql",
    "yacpdb",
    "syntax",
    "limit",
    "threads",
    "matchstring",
    "player",
    "white",
    "black",
    "event",
    "site",
    "result",
    "to-ascii",
    "to-unicode",
];
/// Options taking a number and an optional second one (`-gamenumber 5 9`).
const RANGE_VALUE: &[&str] = &["gamenumber", "matchcount", "year"];
/// Options without a value.
const FLAGS: &[&str] = &[
    "numbers",
    "count",
    "json",
    "singlethreaded",
    "mainline",
    "variations",
    "silent",
    "quiet",
    "noheader",
    "flip",
    "flipcolor",
    "shift",
    "fliphorizontal",
    "flipvertical",
    "rotate90",
    "rotate45",
    "reversecolor",
    "dump-ir",
    "help",
    "version",
];

/// Rewrite CQL 6 style arguments into clap's: `-name` → `--name` for every long
/// option, and `-gamenumber N M` → `--gamenumber N-M`. Values are copied untouched.
pub fn normalize(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut input = args.into_iter();
    let mut out: Vec<String> = input.next().into_iter().collect();
    let mut rest: std::collections::VecDeque<String> = input.collect();
    while let Some(arg) = rest.pop_front() {
        if arg == "--" {
            out.push(arg);
            out.extend(rest.drain(..));
            break;
        }
        let name = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')).unwrap_or("");
        let (name, inline_value) = match name.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (name, None),
        };
        let long = match name {
            "i" => "input",
            "o" => "output",
            "s" => "singlethreaded",
            n => n,
        };
        let long = long.to_string();
        if ONE_VALUE.contains(&long.as_str()) {
            out.push(format!("--{long}"));
            match inline_value {
                Some(v) => out.push(v),
                None => out.extend(rest.pop_front()),
            }
        } else if RANGE_VALUE.contains(&long.as_str()) {
            out.push(format!("--{long}"));
            let first = inline_value.or_else(|| rest.pop_front());
            if let Some(first) = first {
                let second_is_number = rest.front().is_some_and(|s| s.parse::<u64>().is_ok());
                if second_is_number && first.parse::<u64>().is_ok() {
                    let second = rest.pop_front().unwrap_or_default();
                    out.push(format!("{first}-{second}"));
                } else {
                    out.push(first);
                }
            }
        } else if FLAGS.contains(&long.as_str()) && inline_value.is_none() {
            out.push(format!("--{long}"));
        } else {
            out.push(arg);
        }
    }
    out
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
            normalize(strings(&["cqlrs", "-input", "a.pgn", "-gamenumber", "5", "9", "-flipcolor", "-s", "q.cql"]));
        assert_eq!(
            got,
            strings(&["cqlrs", "--input", "a.pgn", "--gamenumber", "5-9", "--flipcolor", "--singlethreaded", "q.cql"])
        );
        let args = Args::try_parse_from(got).unwrap();
        assert_eq!(args.gamenumber, Some((5, 9)));
        assert!(args.flipcolor && args.singlethreaded);
        assert_eq!(args.script.as_deref(), Some("q.cql"));
    }

    #[test]
    fn second_range_number_is_optional_and_values_are_untouched() {
        let got = normalize(strings(&["cqlrs", "-year", "1990", "q.cql", "-cql", "-flip", "--matchcount=2"]));
        assert_eq!(got, strings(&["cqlrs", "--year", "1990", "q.cql", "--cql", "-flip", "--matchcount", "2"]));
        let args = Args::try_parse_from(got).unwrap();
        assert_eq!(args.year, Some((1990, 1990)));
        assert_eq!(args.cql.as_deref(), Some("-flip"));
        assert_eq!(args.matchcount, Some((2, 2)));
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
