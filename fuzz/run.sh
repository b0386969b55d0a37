#!/bin/sh
# Build every fuzz target with libFuzzer instrumentation (no cargo-fuzz needed, only a
# nightly toolchain) and run the targets one after another, each on its working corpus
# fuzz/corpus/<target> (kept between runs, not committed) started from fuzz/seeds/<target>.
# A run stops after LIMIT: a number of seconds (`600`) or of executions (`10M`, `2500000`).
# Prints the executions, exec/s and crashes of each run and appends them to the ledger
# fuzz/runs.tsv (committed: the executions of every campaign on the kept corpora add up
# there); the full libFuzzer log is fuzz/logs/<target>.log. A crash leaves its input as fuzz/artifacts/<target>/crash-*
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
-Cllvm-args=-sanitizer-coverage-trace-compares -Coverflow-checks"
# Overflow checks stay on (an overflow is a bug); debug assertions are off: the only ones
# are in dependencies (regex-automata, hashbrown), where they cost a quarter of the speed.
# `-reload=0`: one fuzzer per corpus, so re-reading the corpus directory every second (the
# default, a `stat` of each of its thousands of files) only cost a tenth of the time.
nice cargo +nightly build --release --bins --target x86_64-unknown-linux-gnu
mkdir -p logs
for t in $targets; do
    mkdir -p "artifacts/$t" "corpus/$t"
    nice -n "${NICE:-19}" "target/x86_64-unknown-linux-gnu/release/$t" $stop -max_len="${MAX_LEN:-4096}" \
        -timeout="${TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 -reload=0 \
        -artifact_prefix="artifacts/$t/" "corpus/$t" "seeds/$t" >"logs/$t.log" 2>&1 || true
    # A run that stops on a crash prints no final statistics: the greps find nothing and
    # the run is still entered in the ledger, with its crash input counted.
    runs=$(grep -o 'number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' || true)
    speed=$(grep -o 'average_exec_per_sec: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' || true)
    secs=$(grep -o 'Done [0-9]* runs in [0-9]*' "logs/$t.log" | grep -o '[0-9]*$' || true)
    # Crashes, timeouts and out-of-memory inputs; `slow-unit-*` files are not failures.
    found=$(ls "artifacts/$t" | grep -cE '^(crash|timeout|oom|leak)-' || true)
    echo "$t: ${runs:-0} executions, ${speed:-0} exec/s, $found crash/timeout/oom inputs"
    [ -f runs.tsv ] || printf 'date\ttarget\texecutions\tseconds\texec_per_sec\tartifacts\tcommit\n' >runs.tsv
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$t" "${runs:-0}" "${secs:-0}" \
        "${speed:-0}" "$found" "$(git rev-parse --short HEAD 2>/dev/null)" >>runs.tsv
done
