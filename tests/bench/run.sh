#!/usr/bin/env bash
# The performance table: builds a release binary, then runs, side by side in one run,
#  1. ../shared/bench/peers.sh (the project's yardstick: a C probe creates veth pairs with
#     RTM_NEWLINK and polls at 100 µs; latency from the creation request) with r8169-tuned as
#     a peer (R8169_TUNED=), beside udevd's .link builtin, a udev shell rule and a 200-line C
#     daemon (the floor);
#  2. tests/bench/rows.sh: start-up against the number of NICs, foreign churn, USS and PSS.
# Needs root. Not a test (never in ctest): the numbers depend on the machine.
#   tests/bench/run.sh                 REPS=3 PEERS="null udev-link udev-sh standin r8169-tuned"
#   PEERS_BENCH=DIR                    where peers.sh lives (default: ../shared/bench beside the tree)
#   OUT=DIR                            results (default: build-bench/results/DATE)
# Other variables (SEQ_N, BURST_N, IDLE_S, ...) go to peers.sh unchanged.
set -euo pipefail
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
PEERS_BENCH=${PEERS_BENCH:-$SRCDIR/../shared/bench}
[[ -x "$PEERS_BENCH/peers.sh" || -f "$PEERS_BENCH/peers.sh" ]] || { echo "no peers.sh in $PEERS_BENCH (set PEERS_BENCH)" >&2; exit 1; }
source "$SRCDIR/tests/bench/lib.sh"
bench_init ""
# peers.sh builds its probe beside itself, or under /tmp when that is read-only.
PBPROBE_BUILD=${PB_BUILD_DIR:-$SRCDIR/build-bench/peers}
mkdir -p "$PBPROBE_BUILD"

PB_BUILD_DIR=$PBPROBE_BUILD R8169_TUNED=$R8T REPS=${REPS:-3} \
        PEERS=${PEERS:-null udev-link udev-sh standin r8169-tuned} \
        bash "$PEERS_BENCH/peers.sh" -o "$OUT/peers"
# A benchmark in which r8169-tuned did not apply everything measures nothing: say so, loudly.
python3 - "$OUT/peers/summary.json" <<'PY' || { echo "r8169-tuned did not tune every interface: see $OUT/peers/r8169-tuned/*/r8169-tuned.log" >&2; exit 1; }
import json, sys
runs = json.load(open(sys.argv[1])).get("r8169-tuned", {})
bad = [f"{rep} {kind} {r[kind]['applied']}/{r[kind]['n']}" for rep, r in runs.items() for kind in ("seq", "burst")
       if r[kind]["applied"] != r[kind]["n"]]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad or not runs else 0)
PY
R8T=$R8T SRCDIR=$SRCDIR PBPROBE=$PBPROBE_BUILD/pbprobe PEERS_BENCH=$PEERS_BENCH OUT=$OUT \
        bash "$SRCDIR/tests/bench/rows.sh"
echo "results in $OUT (peers: $OUT/peers/summary.md)"
