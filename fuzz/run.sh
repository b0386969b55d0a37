#!/bin/sh
# Build every fuzz target with libFuzzer instrumentation (no cargo-fuzz needed, only a
# nightly toolchain) and run the targets one after another, each on its working corpus
# fuzz/corpus/<target> (kept between runs, not committed) started from fuzz/seeds/<target>.
# A run stops after LIMIT: a number of seconds (`600`) or of executions (`10M`, `2500000`).
# Prints the executions, exec/s and crashes of each run; the full libFuzzer log is
# fuzz/logs/<target>.log. A crash leaves its input as fuzz/artifacts/<target>/crash-*
# (or timeout-*, oom-*): minimise it with `-minimize_crash=1` and turn it into a test.
#   usage: fuzz/run.sh [LIMIT] [TARGET…]      (LIMIT defaults to 60 seconds)
#   env:   MAX_LEN (default 4096)  TIMEOUT per input in seconds (default 10)  NICE (default 19)
set -e
cd "$(dirname "$0")"
limit=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-"options cql6 cql6_respell legacy yacpdb pgn_game splitter"}
case $limit in
    *M) stop="-runs=$(( ${limit%M} * 1000000 ))" ;;
    *r) stop="-runs=${limit%r}" ;;
    *) stop="-max_total_time=$limit" ;;
esac
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
nice cargo +nightly build --release --bins --target x86_64-unknown-linux-gnu
mkdir -p logs
for t in $targets; do
    mkdir -p "artifacts/$t" "corpus/$t"
    nice -n "${NICE:-19}" "target/x86_64-unknown-linux-gnu/release/$t" $stop -max_len="${MAX_LEN:-4096}" \
        -timeout="${TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" "corpus/$t" "seeds/$t" >"logs/$t.log" 2>&1 || true
    runs=$(grep -o 'number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$')
    speed=$(grep -o 'average_exec_per_sec: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$')
    echo "$t: ${runs:-0} executions, ${speed:-0} exec/s, $(ls "artifacts/$t" | wc -l) crash/timeout/oom inputs"
done
