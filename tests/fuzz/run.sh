#!/usr/bin/env bash
# run.sh FUZZER SECONDS SEED-DIR...: a short libFuzzer run from the seeds (and the regression
# inputs of earlier crashes), into a scratch corpus. Any crash fails it and leaves the input
# next to the output, to be added under tests/fuzz/regressions/<fuzzer>/.
set -euo pipefail
fuzzer=$1 seconds=$2; shift 2
work=$(mktemp -d /tmp/r8t-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
seeds=()
for d in "$@"; do [[ -d "$d" ]] && seeds+=("$d"); done
cd "$work"
mkdir corpus
set +e
"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
        -artifact_prefix="$work/" corpus "${seeds[@]}" >"$work/log" 2>&1
status=$?
set -e
tail -40 "$work/log"
if ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* >/dev/null 2>&1; then
        mkdir -p /tmp/r8t-fuzz-artifacts
        cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* /tmp/r8t-fuzz-artifacts/ 2>/dev/null || true
        echo "artifacts kept in /tmp/r8t-fuzz-artifacts"
fi
exit "$status"
