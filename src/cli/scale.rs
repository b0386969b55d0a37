//! The command line's archive-scale options: `--shard`, `--byte-range`,
//! `--games-before`, `--count-games` and `--extract` (see docs/scale.md).
//!
//! Takes in: the parsed [`Args`] and the input paths.
//! Gives out: the [`Source`]s a run reads with the number of its first game, or the
//! output of the two modes that need no query (counting games, extracting one).
//! Must never: read more than the planner needs, or let a shard renumber games: a
//! shard's games carry the numbers a single run over all inputs gives them.

use std::io::Write;

use super::{Args, EXIT_ERROR, EXIT_MATCH};
use crate::input::shard::{self, ByteRange, Plan};
use crate::input::{Games, Source};

/// What a run reads.
pub(super) struct Prepared {
    /// Inputs (whole files or byte ranges), in order.
    pub sources: Vec<Source>,
    /// Number of the first game read.
    pub first_number: u64,
    /// Input bytes read, when known (not for standard input).
    pub bytes: Option<u64>,
    /// The byte range over the concatenated inputs, for a shard.
    pub range: Option<(u64, u64)>,
}

/// The byte range asked for, if any.
fn asked_range(args: &Args, total: u64) -> Option<ByteRange> {
    match (args.shard, args.byte_range) {
        (Some((k, n)), _) => Some(ByteRange::shard(k, n, total)),
        (None, Some(r)) => Some(ByteRange { start: r.start.min(total), end: r.end.min(total) }),
        (None, None) => None,
    }
}

fn plan_of(args: &Args, paths: &[String]) -> Result<Option<(Vec<shard::InputFile>, Plan)>, String> {
    if args.shard.is_none() && args.byte_range.is_none() {
        return Ok(None);
    }
    let files = shard::inspect(paths).map_err(|e| format!("cqlrs: {e}"))?;
    let total = files.iter().map(|f| f.len).sum();
    let range = asked_range(args, total).unwrap_or(ByteRange { start: 0, end: total });
    let plan = shard::plan(&files, range).map_err(|e| format!("cqlrs: {e}"))?;
    for w in &plan.warnings {
        say!("cqlrs: warning: {w}");
    }
    Ok(Some((files, plan)))
}

/// Decide what a query run reads: all of `paths`, or one shard of them.
pub(super) fn prepare(args: &Args, paths: Vec<String>, sequential: bool) -> Result<Prepared, String> {
    let Some((files, plan)) = plan_of(args, &paths)? else {
        if args.games_before.is_some() {
            return Err("cqlrs: `--games-before` needs `--shard` or `--byte-range`".into());
        }
        let bytes = paths.iter().map(|p| if p == "-" { None } else { std::fs::metadata(p).ok().map(|m| m.len()) });
        let bytes = bytes.sum::<Option<u64>>();
        return Ok(Prepared {
            sources: paths.into_iter().map(Source::whole).collect(),
            first_number: 1,
            bytes,
            range: None,
        });
    };
    if sequential {
        return Err("cqlrs: this query keeps dictionaries from game to game, so its result depends on every \
                    earlier game: it cannot be run on a shard"
            .into());
    }
    let (before, file_before, lines) = match (args.games_before, args.file_games_before) {
        (Some(n), Some(m)) => (n, m, 0),
        _ => shard::count_before(&files, &plan).map_err(|e| format!("cqlrs: {e}"))?,
    };
    let mut sources: Vec<Source> = plan.parts.iter().map(|p| p.source.clone()).collect();
    if let Some(first) = sources.first_mut() {
        first.games_before = file_before;
        first.lines_before = lines;
    }
    Ok(Prepared {
        sources,
        first_number: before + 1,
        bytes: Some(plan.bytes),
        range: Some((plan.range.start, plan.range.end)),
    })
}

/// `--count-games`: count the games of each input (or of each file part of a shard) and
/// print one JSON record.
pub(super) fn count_games(args: &Args) -> Result<i32, String> {
    let started = std::time::Instant::now();
    if args.input.is_empty() {
        return Err("cqlrs: `--count-games` needs input files (`-input FILE`)".into());
    }
    let (parts, range, bytes): (Vec<(usize, Source)>, Option<ByteRange>, Option<u64>) =
        match plan_of(args, &args.input)? {
            Some((_, plan)) => {
                (plan.parts.into_iter().map(|p| (p.index, p.source)).collect(), Some(plan.range), Some(plan.bytes))
            }
            None => {
                let bytes = args.input.iter().map(|p| std::fs::metadata(p).ok().map(|m| m.len())).sum::<Option<u64>>();
                (args.input.iter().cloned().map(Source::whole).enumerate().collect(), None, bytes)
            }
        };
    let mut files = Vec::new();
    let mut total = 0u64;
    let mut failed = false;
    for (index, source) in parts {
        let mut games = 0u64;
        for item in Games::from_sources(vec![source.clone()], 1) {
            match item {
                Ok(_) => games += 1,
                Err(e) => {
                    say!("cqlrs: {e}");
                    failed = true;
                }
            }
        }
        total += games;
        let (start, end) = source.range.map_or((None, None), |(s, e)| (Some(s), Some(e)));
        files
            .push(serde_json::json!({"index": index, "file": source.path, "games": games, "start": start, "end": end}));
    }
    let mut record = serde_json::json!({
        "record": "count",
        "games": total,
        "bytes": bytes,
        "seconds": started.elapsed().as_secs_f64(),
        "files": files,
    });
    if let Some(r) = range {
        record["range"] = serde_json::json!([r.start, r.end]);
    }
    crate::output::print_stdout(&format!("{record}\n")).map_err(|e| format!("cqlrs: {e}"))?;
    // As a search does: an unreadable file is named and counted as no games; the status
    // says so, unless `--exit-zero` asks for 0.
    Ok(if failed && !args.exit_zero { EXIT_ERROR } else { EXIT_MATCH })
}

/// `--extract FILE@OFFSET`: write the game that begins at that byte, followed by a
/// blank line.
pub(super) fn extract(targets: &[String]) -> Result<i32, String> {
    let mut out = Vec::new();
    for target in targets {
        let (path, offset) = target
            .rsplit_once('@')
            .and_then(|(p, o)| o.parse::<u64>().ok().map(|o| (p, o)))
            .ok_or_else(|| format!("cqlrs: `--extract {target}`: expected FILE@OFFSET"))?;
        match shard::extract(path, offset).map_err(|e| format!("cqlrs: {e}"))? {
            Some(bytes) => {
                out.extend_from_slice(&bytes);
                out.extend_from_slice(b"\n\n");
            }
            None => return Err(format!("cqlrs: {path}: no game begins at byte {offset}")),
        }
    }
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&out).and_then(|_| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cqlrs: {e}")),
        _ => Ok(EXIT_MATCH),
    }
}
