#!/usr/bin/env bash
# run.sh FUZZER SECONDS SEED-DIR...: a libFuzzer run from the seeds (and the regression inputs
# of earlier crashes). The test suite's short runs use a scratch corpus; with R8T_FUZZ_CORPUS=DIR
# (a long run, by hand) the corpus is DIR/<fuzzer> and grows from run to run. Either way it says
# the executions per second and the coverage reached. Any crash fails it and leaves the input
# in /tmp/r8t-fuzz-artifacts, to be added under tests/fuzz/regressions/<fuzzer>/.
#
# A long run of every target, e.g. 30 minutes each, two at a time (not in CI):
#   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DR8T_FUZZ=ON -DR8T_TESTS=OFF -DFUZZ_SECONDS=1800
#   cmake --build build-fuzz && R8T_FUZZ_CORPUS=/var/tmp/r8t-corpus ctest --test-dir build-fuzz -j2 -V | grep per.second
set -euo pipefail
fuzzer=$1 seconds=$2; shift 2
work=$(mktemp -d /tmp/r8t-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
seeds=()
for d in "$@"; do [[ -d "$d" ]] && seeds+=("$d"); done
if [[ -n ${R8T_FUZZ_CORPUS:-} ]]; then
        corpus=$R8T_FUZZ_CORPUS/$(basename "$fuzzer")
        mkdir -p "$corpus"
else
        corpus=$work/corpus
        mkdir "$corpus"
fi
cd "$work"
set +e
"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
        -artifact_prefix="$work/" "$corpus" "${seeds[@]}" >"$work/log" 2>&1
status=$?
set -e
tail -40 "$work/log"
awk -v name="$(basename "$fuzzer")" -v s="$seconds" '
        /^stat::number_of_executed_units:/ { n = $2 }
        /^stat::average_exec_per_sec:/ { eps = $2 }
        /cov: [0-9]+/ { for (i = 1; i < NF; i++) if ($i == "cov:") cov = $(i + 1) }
        END { printf "%s: %d s, %d executions, %d per second, coverage %d edges\n", name, s, n, eps, cov }' "$work/log"
if ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* >/dev/null 2>&1; then
        mkdir -p /tmp/r8t-fuzz-artifacts
        cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* /tmp/r8t-fuzz-artifacts/ 2>/dev/null || true
        echo "artifacts kept in /tmp/r8t-fuzz-artifacts"
fi
exit "$status"
