#!/usr/bin/env bash
# One command: builds if needed, then runs tests/bench/bench.py in a sandbox (own network and
# mount namespaces, a real systemd-udevd) and prints the table. Needs root. Not a test.
#   sudo tests/bench/run.sh            (BENCH_ONE_BY_ONE=50 BENCH_BURST=200 BENCH_IDLE=10 …)
set -euo pipefail
if [[ "${R8T_IN_SANDBOX:-}" != 1 ]]; then
        export SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
        if [[ -z "${R8T:-}" ]]; then
                cmake -S "$SRCDIR" -B "$SRCDIR/build-bench" -DCMAKE_BUILD_TYPE=Release -DR8T_TESTS=OFF >/dev/null
                cmake --build "$SRCDIR/build-bench" -j"$(nproc)" >/dev/null
                export R8T=$SRCDIR/build-bench/r8169-tuned
        fi
fi
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
python3 "$SRCDIR/tests/bench/bench.py"
