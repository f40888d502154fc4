#!/usr/bin/env bash
# How long a default experiment takes, and what it prints (the README's example): the RTL8125B
# fixture of seeds/002 on the NIC-physics harness (tests/harness): L1.2 holds the link at 255
# Mb/s and saves 0.4 W at idle, 670 without it; TSO off would cost a third; nothing else has
# an effect; each direction drifts by up to 5 % every half second. Then
#   r8169-tuned experiment --server 10.77.0.2 --report FILE
# with the defaults (5 rounds of 5 s, both directions, 5 s idle samples).
# Needs root and iperf3. Not a test (never in ctest): a default run takes a quarter of an hour.
#   tests/bench/experiment.sh          ARGS="--rounds 4" (more experiment options) OUT=DIR
set -euo pipefail
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
source "$SRCDIR/tests/bench/lib.sh"
bench_init experiment-
source "$SRCDIR/tests/lib.sh"
source "$SRCDIR/tests/harness/harness.sh"
cat >"$TMP/physics.rules" <<'EOF'
rate 670
cap sys/bus/pci/devices/0000:02:00.0/link/l1_2_aspm 1 255
cap ethtool tcp-segmentation-offload off 440
power 2.0
power+ sys/bus/pci/devices/0000:02:00.0/link/l1_2_aspm 0 0.4
EOF
physics_start intel-8125-l12 "$TMP/physics.rules" --noise 0.05 --noise-period 0.5
start=$SECONDS
# shellcheck disable=SC2086
r8t_ns experiment --server 10.77.0.2 --report "$OUT/report.md" ${ARGS:-} | tee "$OUT/experiment.txt"
took=$((SECONDS - start))
physics_stop
measured=$(grep -c -E '^[a-z].*\((quirk|generic|--knob)' "$OUT/experiment.txt" || true)
echo "default run: $measured candidates measured in ${took} s ($((took / 60)) min $((took % 60)) s), ${ARGS:-defaults}" |
        tee "$OUT/time.txt"
echo "results in $OUT"
