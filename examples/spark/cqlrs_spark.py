"""Run a cqlrs query over a list of PGN files on Apache Spark.

    spark-submit cqlrs_spark.py --cqlrs target/release/cqlrs --shards 64 \
        --pgn matches.pgn --numbers matches.txt QUERY.cql FILE.pgn ...

The files are cut into N byte-range shards over their concatenation (`cqlrs --shard K/N`:
each shard owns the games that begin in its range, see docs/scale.md). Two Spark stages:

1. count: every task runs `cqlrs --shard K/N --count-games --exit-zero` (splitting only, no query:
   hundreds of MB/s) and reports how many games of each file its shard holds;
2. scan: with those counts the driver knows how many games precede each shard, so every
   task runs `cqlrs --shard K/N --games-before G --file-games-before F --json-pgn
   --summary-json --exit-zero QUERY` and its games carry the numbers a single run gives.

The driver merges the match records (merge.py: by number, or by sort key for `sort`
queries) into the ordered list of matches and one PGN file, byte-identical to what
`cqlrs QUERY -i FILE ... -o out.pgn` writes. Tasks talk to cqlrs through a subprocess in
`mapPartitions`; the binary and the query are shipped with `SparkContext.addFile`, the PGN
files must be readable at the same paths on every worker (a shared or distributed file
system mounted locally). Compressed files are not split: each is read whole by one task.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import merge  # noqa: E402


def _binary(name):
    from pyspark import SparkFiles

    path = SparkFiles.get(name)
    os.chmod(path, 0o755)
    return path


def _run(argv):
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines() if line.strip()]


def run(sc, cqlrs, query, files, shards, limit=None, extra=()):
    """Run `query` (a .cql file, or ["--cql", TEXT]) over `files` in `shards` tasks;
    return (ordered match records, summed summary)."""
    # The task functions below live in this module: the workers must be able to import it.
    sc.addPyFile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "merge.py"))
    sc.addPyFile(os.path.abspath(__file__))
    sc.addFile(cqlrs)
    exe = os.path.basename(cqlrs)
    query_args = list(query)
    if len(query_args) == 1 and os.path.exists(query_args[0]):
        sc.addFile(os.path.abspath(query_args[0]))
    inputs = [a for f in files for a in ("-i", f)]
    n = shards

    def count(k):
        # `--exit-zero`: a file that is not PGN is named on stderr and counted as no games,
        # in the count as in the scan below, so the numbering stays that of a single run.
        return _run([_binary(exe), "--count-games", "--exit-zero", "--shard", f"{k}/{n}", *inputs])[0]

    counts = sc.parallelize(range(1, n + 1), n).map(count).collect()
    tasks = [(k + 1, before, in_file) for k, (before, in_file) in enumerate(merge.numbering(counts))]

    def scan(partition):
        from pyspark import SparkFiles

        q = list(query_args)
        if len(q) == 1 and not q[0].startswith("-"):
            q = [SparkFiles.get(os.path.basename(q[0]))]
        for k, before, in_file in partition:
            argv = [_binary(exe), *q, "--json-pgn", "--summary-json", "--exit-zero", "--shard", f"{k}/{n}",
                    "--games-before", str(before), "--file-games-before", str(in_file), "--threads", "1"]
            if limit is not None:
                argv += ["--limit", str(limit)]
            argv += list(extra) + inputs
            yield from _run(argv)

    records = sc.parallelize(tasks, n).mapPartitions(scan).collect()
    matches, summaries = merge.merge(records, limit)
    return matches, merge.total(summaries)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cqlrs", required=True, help="path of the cqlrs binary")
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--master", default=None, help="Spark master (default: spark-submit's)")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--pgn", help="write the merged PGN here")
    ap.add_argument("--numbers", help="write the ordered game numbers here")
    ap.add_argument("--matches", help="write the match records (JSON lines, without PGN) here")
    ap.add_argument("query", help="a .cql / legacy / .yacpdb script")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    from pyspark import SparkConf, SparkContext

    conf = SparkConf().setAppName("cqlrs")
    if args.master:
        conf = conf.setMaster(args.master)
    sc = SparkContext(conf=conf)
    try:
        matches, summary = run(sc, os.path.abspath(args.cqlrs), [args.query], args.files, args.shards, args.limit)
    finally:
        sc.stop()
    if args.pgn:
        with open(args.pgn, "wb") as f:
            f.write(merge.pgn_bytes(matches))
    if args.numbers:
        with open(args.numbers, "wb") as f:
            f.write(merge.numbers_bytes(matches))
    if args.matches:
        with open(args.matches, "w", encoding="utf-8") as f:
            for m in matches:
                f.write(json.dumps({k: v for k, v in m.items() if k != "pgn"}) + "\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
