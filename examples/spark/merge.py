"""Merge the JSON-lines output of cqlrs shards into what one cqlrs run writes.

Each shard runs `cqlrs --shard K/N --games-before G --file-games-before F --json-pgn ...`
(see cqlrs_spark.py for how G and F are found). Its match records carry the game number a
single run gives the game, the query's sort key, and the PGN text of the game. Merging is
then a sort: by game number, or for a query with `sort` by its sort key and then by game
number (the order the single-process writer uses), keeping the first `limit` records.

Usable on its own for shards run by GNU parallel or any other engine:

    python3 merge.py --numbering count-*.json     # K, --games-before, --file-games-before
    python3 merge.py --pgn out.pgn --numbers out.txt shard-*.jsonl
"""

import argparse
import base64
import functools
import json
import sys


def compare(a, b):
    """Order two match records as cqlrs orders sorted output: better key first, then number."""
    ka, kb = a["sort_key"], b["sort_key"]
    for i in range(max(len(ka), len(kb))):
        if i >= len(ka):
            return 1  # a game without this sort value comes after those with one
        if i >= len(kb):
            return -1
        (x, ascending), (y, _) = ka[i], kb[i]
        if x != y:
            if ascending:
                return -1 if x < y else 1
            return -1 if x > y else 1
    return (a["number"] > b["number"]) - (a["number"] < b["number"])


def merge(records, limit=None):
    """Split records into (ordered matches, summaries); matches in single-run order."""
    matches = [r for r in records if r.get("record") == "match"]
    summaries = [r for r in records if r.get("record") == "summary"]
    matches.sort(key=functools.cmp_to_key(compare))
    if limit is not None:
        matches = matches[:limit]
    return matches, summaries


def numbering(counts):
    """From the `--count-games` records of shards 1..N (in any order; they are put in
    range order): (games before, games of the shard's first file before it) for each
    shard, the values of `--games-before` and `--file-games-before`."""
    counts = sorted(counts, key=lambda c: c.get("range", [0])[0])
    out = []
    for k, c in enumerate(counts):
        before = sum(p["games"] for p in counts[:k])
        first = c["files"][0]["index"] if c["files"] else None
        in_file = sum(f["games"] for p in counts[:k] for f in p["files"] if f["index"] == first)
        out.append((before, in_file))
    return out


def total(summaries):
    """Add up shard summaries (seconds: the longest shard)."""
    keys = ["games", "matched", "unmatched", "skipped", "abandoned", "input_errors", "bytes"]
    out = {k: sum(s.get(k) or 0 for s in summaries) for k in keys}
    out["shard_seconds_max"] = max((s["seconds"] for s in summaries), default=0.0)
    out["shard_seconds_sum"] = sum(s["seconds"] for s in summaries)
    return out


def pgn_bytes(matches):
    """The PGN file a single run writes: the matches' PGN bytes, in order (`pgn` is
    UTF-8 text; a game whose bytes are not UTF-8 comes as `pgn_base64`)."""
    return b"".join(m["pgn"].encode("utf-8") if "pgn" in m else base64.b64decode(m["pgn_base64"]) for m in matches)


def numbers_bytes(matches):
    """What `cqlrs --numbers` writes: one game number per line."""
    return "".join(f"{m['number']}\n" for m in matches).encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="JSON-lines files written by cqlrs shards")
    ap.add_argument("--pgn", help="write the merged PGN here")
    ap.add_argument("--numbers", help="write the ordered game numbers here")
    ap.add_argument("--limit", type=int, help="keep the first N matches (as --limit N)")
    ap.add_argument("--numbering", action="store_true",
                    help="the inputs are --count-games records: print `K GAMES_BEFORE FILE_GAMES_BEFORE` per shard")
    args = ap.parse_args()
    records = []
    for path in args.inputs:
        with open(path, encoding="utf-8") as f:
            records.extend(json.loads(line) for line in f if line.strip())
    if args.numbering:
        for k, (before, in_file) in enumerate(numbering(records), 1):
            print(k, before, in_file)
        return
    matches, summaries = merge(records, args.limit)
    if args.pgn:
        with open(args.pgn, "wb") as f:
            f.write(pgn_bytes(matches))
    if args.numbers:
        with open(args.numbers, "wb") as f:
            f.write(numbers_bytes(matches))
    json.dump(total(summaries), sys.stderr)
    sys.stderr.write("\n")


if __name__ == "__main__":
    main()
