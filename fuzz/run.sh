#!/bin/sh
# Build every fuzz target with libFuzzer instrumentation (no cargo-fuzz needed, only a
# nightly toolchain) and run each for SECONDS (default 60) on a scratch copy of its seed
# corpus in fuzz/corpus/<target>; prints the executions of each run. A crash leaves its
# input as fuzz/artifacts/<target>/crash-*; turn it into a regression test.
#   usage: fuzz/run.sh [SECONDS] [TARGET…]
set -e
cd "$(dirname "$0")"
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-"options cql6 legacy yacpdb pgn_game splitter"}
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
nice cargo +nightly build --release --bins --target x86_64-unknown-linux-gnu
for t in $targets; do
    work=$(mktemp -d)
    mkdir -p "artifacts/$t"
    nice "target/x86_64-unknown-linux-gnu/release/$t" -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" "$work" "seeds/$t" 2>"$work.log" || true
    echo "$t: $(grep -o 'number_of_executed_units: *[0-9]*' "$work.log" | grep -o '[0-9]*$') executions, \
$(ls "artifacts/$t" | wc -l) crashes"
    rm -rf "$work" "$work.log"
done
