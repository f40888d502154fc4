#!/usr/bin/env bash
# The rows of the performance table that ../shared/bench/peers.sh does not measure, with its
# own probe (pbprobe: veth pairs created by RTM_NEWLINK, CPU clocks of the process) and its
# fixture generator, inside the sandbox of the integration tests (own network and mount
# namespaces, a real systemd-udevd and journald). Run by tests/bench/run.sh; not a test.
#   start-up   spawn -> READY=1 with 1, 51 and 251 NICs (none of their interfaces exists)
#   churn      CHURN_N veth pairs that are not ours while one fixture NIC is managed:
#              r8169-tuned's CPU, and whether it rescanned, re-applied or lost notifications
#   memory     USS (private pages) and PSS of the idle daemon managing 251 NICs
# Environment: R8T, SRCDIR, PBPROBE, PEERS_BENCH (the directory of peers.sh), OUT.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
: "${PBPROBE:?}" "${PEERS_BENCH:?}" "${OUT:?}"
STARTUP_REPS=${STARTUP_REPS:-7}
CHURN_N=${CHURN_N:-500}
# Fixtures and undo journals on tmpfs, as peers.sh has them (/run is the sandbox's tmpfs).
W=/run/r8t-bench
mkdir -p "$W"

# fixture N DIR: N RTL8168c NICs as peers.sh makes them, interfaces pbtpre, pbts0, ...
fixture_n() {
        python3 - "$W/machine$1.json" "$1" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
names = ["pbtpre"] + [f"pbts{i}" for i in range(n - 1)]
devs, kmsg = [], []
for i, name in enumerate(names):
    bdf = f"0000:{1 + i // 32:02x}:{i % 32:02x}.0"
    mac = f"02:00:00:00:{i // 256:02x}:{i % 256:02x}"
    devs.append({"bdf": bdf, "parent": None, "vendor": 0x10ec, "device": 0x8168, "subsys_vendor": 0x1043,
                 "subsys_device": 0x82c6, "revision": 2, "class": 0x020000, "driver": "r8169", "ifname": name,
                 "mac": mac, "link": {"clkpm": 1, "l1_aspm": 1}})
    kmsg.append(f"[    1.{i:06d}] r8169 {bdf} eth{i}: RTL8168c/8111c, {mac}, XID 3c4, IRQ {30 + i}")
json.dump({"devices": devs, "kmsg": kmsg}, open(out, "w"))
PY
        rm -rf "$2"
        python3 "$PEERS_BENCH/mkfixture.py" "$W/machine$1.json" "$2" >/dev/null
}
mkdir -p "$W/quirks"
printf '%s\n' '[bench]' 'xid = 3c0/7c8' 'profiles = performance powersave' 'tso = off' \
        'gro_flush_timeout = 20000' 'napi_defer_hard_irqs = 1' \
        'reason = the change every peer of this benchmark applies' 'reference = https://example.org/r8169-tuned-bench' \
        >"$W/quirks/50-bench.conf"
: >"$W/r8169-tuned.conf"

# spawn FX LOGLEVEL -> starts the daemon under pbprobe; sets STARTUP_US, ROOT, PID
spawn() {
        local out
        rm -rf "$W/state"
        out=$("$PBPROBE" spawn --pidfile "$W/r8t.pid" --log "$W/r8t.log" --ready notify -- "$R8T" --sysfs "$1/sys" \
                --kernel-log "$1/kmsg" --quirks "$W/quirks" --config "$W/r8169-tuned.conf" --state-dir "$W/state" \
                --profile performance --log-level "$2" daemon) || { echo "spawn failed: $out" >&2; return 1; }
        STARTUP_US=${out#startup_us=}; STARTUP_US=${STARTUP_US%% *}
        ROOT=${out#*reaper=}; ROOT=${ROOT%% *}
        PID=${out#*pid=}; PID=${PID%% *}
}
stop() { "$PBPROBE" stop "$W/r8t.pid" 5000 >/dev/null; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

ip link add pbtpre type veth peer name pbppre
{
        echo "## start-up to READY=1 (median of $STARTUP_REPS, ms)"
        for n in 1 51 251; do
                fixture_n "$n" "$W/fx$n"
                for ((r = 0; r < STARTUP_REPS; r++)); do
                        spawn "$W/fx$n" warning || exit 1
                        stop
                        echo "$STARTUP_US"
                done | median | awk -v n="$n" '{printf "startup_nics=%d startup_ms=%.2f\n", n, $1 / 1000}'
        done
} | tee "$OUT/startup.txt"
awk -F'[ =]' '/^startup_nics=1 /{a=$4} /^startup_nics=251 /{b=$4} END {printf "startup_per_extra_nic_ms=%.3f\n", (b - a) / 250}' \
        "$OUT/startup.txt" | tee -a "$OUT/startup.txt"

# Memory: the idle daemon with 251 NICs, after its start-up settled.
spawn "$W/fx251" warning || exit 1
sleep 2
# USS = Private_Clean + Private_Dirty. The clean part is library text no other process maps
# at that moment (libsystemd.so.0, libnl, libpci on a host where nothing else uses them);
# Private_Dirty is the daemon's own whatever else runs.
awk '/^Pss:/ {pss = $2} /^Private_Clean:/ {pc = $2} /^Private_Dirty:/ {pd = $2} /^Rss:/ {rss = $2}
     END {printf "memory_nics=251 rss_kib=%d pss_kib=%d uss_kib=%d private_dirty_kib=%d\n", rss, pss, pc + pd, pd}' \
        "/proc/$PID/smaps_rollup" | tee "$OUT/memory.txt"
echo "memory_libsystemd_mapped_by_others=$(grep -l 'libsystemd.so.0' /proc/[0-9]*/maps 2>/dev/null | grep -vc "^/proc/$PID/")" |
        tee -a "$OUT/memory.txt"
# What the private pages are: the largest mappings.
awk '/^[0-9a-f]+-[0-9a-f]+ / {name = $6 == "" ? "[anon]" : $6} /^Private_(Clean|Dirty):/ {p[name] += $2}
     END {for (n in p) if (p[n] > 0) printf "uss_by_mapping %s %d\n", n, p[n]}' "/proc/$PID/smaps" | sort -k3 -nr | head -8 |
        tee -a "$OUT/memory.txt"
stop

# Foreign churn: pbtpre (a fixture NIC with a real interface) is managed; CHURN_N veth pairs
# named otherwise come and go. pbprobe's burst waits for settings that never come (not ours):
# it reports the daemon's CPU over the whole burst, udevd's events included.
fixture_n 1 "$W/fxc"
spawn "$W/fxc" debug || exit 1
sleep 1
before_rescan=$(grep -c 'Rescanning PCI devices' "$W/r8t.log" || true)
before_apply=$(grep -c 'pbtpre: applying' "$W/r8t.log" || true)
"$PBPROBE" burst "$CHURN_N" --tprefix fz --pprefix fzp --create nl --timeout-ms 2000 --sweep-us 1000 --roots "$ROOT" \
        >"$W/churn.txt"
udevadm settle -t 30 || true
sleep 0.5
cpu=$(awk -F= '/^burst_cpu_ms=/ {print $2}' "$W/churn.txt")
{
        echo "churn_n=$CHURN_N churn_cpu_ms=$cpu"
        echo "churn_rescans=$(( $(grep -c 'Rescanning PCI devices' "$W/r8t.log" || true) - before_rescan ))"
        echo "churn_reapplies=$(( $(grep -c 'pbtpre: applying' "$W/r8t.log" || true) - before_apply ))"
        echo "churn_lost_warnings=$(grep -c 'notifications were lost' "$W/r8t.log" || true)"
} | tee "$OUT/churn.txt"
stop
finish
