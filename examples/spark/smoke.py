"""Check that cqlrs on Spark (local mode) writes what a single cqlrs run writes.

For every query: one single-process run (`cqlrs QUERY -i FILES -o single.pgn` and
`--numbers`), one Spark run (cqlrs_spark.run with N shards), then a byte-for-byte
comparison of the ordered match list (game numbers) and of the PGN, and of the number of
input files that could not be read (the edge corpora hold files that are not PGN on
purpose: both runs must name and skip the same ones). Exits 1 on any difference. Used by
scripts/spark-smoke.
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cqlrs_spark  # noqa: E402
import merge  # noqa: E402


def single(cqlrs, query, files, out_dir, threads):
    inputs = [a for f in files for a in ("-i", f)]
    pgn = os.path.join(out_dir, "single.pgn")
    started = time.time()
    run = subprocess.run([cqlrs, query, "-o", pgn, "--exit-zero", "--summary-json", "--threads", str(threads),
                          *inputs], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.time() - started
    # The summary record is the one JSON line on stderr (among the messages naming skipped files).
    lines = run.stderr.decode(errors="replace").splitlines()
    input_errors = next(json.loads(line) for line in lines if line.startswith("{"))["input_errors"]
    numbers = subprocess.run([cqlrs, query, "--numbers", "--exit-zero", *inputs], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    with open(pgn, "rb") as f:
        return numbers, f.read(), seconds, input_errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cqlrs", required=True)
    ap.add_argument("--shards", type=int, default=7)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--out", default="/tmp/cqlrs-spark-smoke")
    ap.add_argument("--corpus", action="append", default=[], help="a list of files, comma-separated, run as one input")
    ap.add_argument("--query", action="append", default=[])
    ap.add_argument("--bench", help="a large plain PGN file: also run --bench-query on it")
    ap.add_argument("--bench-query", action="append", default=[])
    ap.add_argument("--bench-shards", type=int, default=8)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cqlrs = os.path.abspath(args.cqlrs)
    from pyspark import SparkConf, SparkContext

    conf = SparkConf().setAppName("cqlrs-smoke").setMaster(args.master).set("spark.ui.enabled", "false")
    conf = conf.set("spark.ui.showConsoleProgress", "false").set("spark.task.maxFailures", "1")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    runs = [(c.split(","), q, args.shards) for c in args.corpus for q in args.query]
    if args.bench:
        runs += [([args.bench], q, args.bench_shards) for q in args.bench_query]
    failures = 0
    print(f"{'query':28} {'files':>5} {'MB':>7} {'games':>7} {'matches':>7} {'single s':>8} {'spark s':>8}  result")
    try:
        for files, query, shards in runs:
            numbers, pgn, single_seconds, single_errors = single(cqlrs, query, files, args.out, 2)
            started = time.time()
            matches, summary = cqlrs_spark.run(sc, cqlrs, [query], files, shards)
            spark_seconds = time.time() - started
            got_numbers, got_pgn = merge.numbers_bytes(matches), merge.pgn_bytes(matches)
            same = got_numbers == numbers and got_pgn == pgn
            name = os.path.basename(query)
            with open(os.path.join(args.out, name + ".spark.pgn"), "wb") as f:
                f.write(got_pgn)
            mb = sum(os.path.getsize(f) for f in files) / 1e6
            verdict = "identical" if same else "DIFFERENT"
            detail = f" (numbers {len(numbers)} vs {len(got_numbers)} bytes, pgn {len(pgn)} vs {len(got_pgn)} bytes)"
            print(f"{name:28} {len(files):5} {mb:7.1f} {summary['games']:7} {len(matches):7} "
                  f"{single_seconds:8.2f} {spark_seconds:8.2f}  {verdict} numbers+pgn {len(pgn)} bytes"
                  + ("" if same else detail), flush=True)
            if not same:
                failures += 1
            if summary["input_errors"] != single_errors:
                print(f"  input errors differ: single run {single_errors}, Spark {json.dumps(summary)}")
                failures += 1
            elif summary["input_errors"]:
                print(f"  {summary['input_errors']} unreadable input files named and skipped by both runs")
    finally:
        sc.stop()
    print(f"spark-smoke: {len(runs) - failures} of {len(runs)} runs byte-identical to the single-process run")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
