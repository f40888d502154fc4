#!/usr/bin/env bash
# An event storm: 500 interfaces created and 250 of them deleted again as fast as the kernel
# takes it, while the daemon runs with a real udevd; then the same once more. Every surviving
# interface ends tuned, and the second storm adds no memory to what the first left. Reports
# idle, peak and final memory, and sends few STATUS= to PID 1.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
N=${R8T_STORM:-500}
Q="$SRCDIR/conf/quirks.d"

# A machine with N RTL8168c NICs (TSO and SG go off), interfaces s0 … s$((N-1)).
{
        echo "[machine]"; echo "power = none"
        for ((i = 0; i < N; i++)); do
                printf '[device 0000:%02x:%02x.0]\nvendor = 10ec\ndevice = 8168\nsubsystem = 1043:82c6\n' $((1 + i / 32)) $((i % 32))
                printf 'driver = r8169\ninterface = s%d\nmac = 02:00:00:00:%02x:%02x\ntxconfig = 3c400000\n' $i $((i / 256)) $((i % 256))
        done
} >"$TMP/storm.fixture"
"$SRCDIR/tests/fixtures/mkfixture" "$TMP/storm.fixture" "$TMP/fx"
printf '[global]\nprofile = performance\n' >"$TMP/storm.conf"

python3 "$SRCDIR/tests/integration/notify-listen.py" "$TMP/notify.sock" "$TMP/notify" &
cleanup_hooks+=("kill $!")
wait_for 10 test -S "$TMP/notify.sock"
NOTIFY_SOCKET="$TMP/notify.sock" "$R8T" --sysfs "$TMP/fx/sys" --quirks "$Q" --config "$TMP/storm.conf" \
        --state-dir "$TMP/state" --log-target journal --log-level notice daemon &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
mem() { awk -v k="$1:" '$1 == k {print $2}' /proc/$pid/status; }
wait_for 60 grep -q READY=1 "$TMP/notify" && ok || fail "daemon ready"
sleep 0.5
idle=$(mem VmRSS)

for ((i = 0; i < N; i++)); do echo "link add s$i type veth peer name p$i"; done >"$TMP/add"
for ((i = 0; i < N; i += 2)); do echo "link del s$i"; done >"$TMP/del"
for ((i = 1; i < N; i += 2)); do echo "link del s$i"; done >"$TMP/del-rest"

tuned() {
        local i
        for ((i = 1; i < N; i += 2)); do
                [[ $(ethtool -k "s$i" 2>/dev/null | awk '$1 == "tcp-segmentation-offload:" {print $2}') == off ]] || return 1
        done
}
# One storm: all N created, every other one deleted at once; the survivors must end tuned.
storm() { # storm WHICH
        ip -batch "$TMP/add"
        ip -batch "$TMP/del"
        wait_for 120 tuned && ok || fail "$1 storm: every surviving interface tuned"
        local untuned=0 i
        for ((i = 1; i < N; i += 2)); do
                [[ $(ethtool -k "s$i" | awk '$1 == "scatter-gather:" {print $2}') == off ]] || untuned=$((untuned + 1))
        done
        eq "$1 storm: surviving interfaces with SG still on" 0 "$untuned"
        kill -0 $pid && ok || fail "daemon alive after the $1 storm"
        sleep 1
}
storm first
final1=$(mem VmRSS)
# Memory: what the first storm left is the allocator's to keep (its arenas and caches: glibc
# 2.36 kept 130-210 KiB, 2.41 260); a second storm of the same size must find it there and
# add nothing: growth per storm is bounded. RSS cannot see a small leak that the retained
# arena absorbs: finding leaks is memcheck's (test-daemon under valgrind) and LeakSanitizer's
# (the ASan phase runs this test too).
ip -batch "$TMP/del-rest"
wait_for 30 bash -c '! ip -o link show | grep -q " s[0-9]*@"' || fail "the first storm's interfaces did not go"
sleep 1
storm second
peak=$(mem VmHWM); final2=$(mem VmRSS)
echo "memory: idle ${idle} KiB, after one storm ${final1} KiB, after two ${final2} KiB, peak ${peak} KiB (RSS)"
# Under AddressSanitizer RSS is shadow memory and quarantine: report it, judge it only without.
if [[ -z "${R8T_SANITIZED:-}" ]]; then
        (( final2 <= final1 + 64 )) && ok || fail "memory grew with the second storm: after one ${final1} KiB, after two ${final2} KiB"
        (( final1 <= idle + 1024 )) && ok || fail "one storm left more than 1 MiB: idle $idle KiB, after it $final1 KiB"
fi

# A trickle, one interface each 10-20 ms (one "ip -batch" fed line by line; each tuned in a round
# of its own, the counts changing every time): a few STATUS= to PID 1, not one each. Two that only
# count NICs are at least 100 ms apart (STATUS_MIN_GAP_USEC; the stamps are the kernel's, of
# their arrival: 10 ms allowed).
ip -batch "$TMP/del-rest"
wait_for 30 bash -c '! ip -o link show | grep -q " s[0-9]*@"' || fail "the second storm's interfaces did not go"
sleep 0.5
mark=$(wc -l <"$TMP/notify")
for ((i = 1; i < 50; i += 2)); do echo "link add s$i type veth peer name p$i"; sleep 0.01; done | ip -batch -
trickle_tuned() { [[ $(ethtool -k s49 2>/dev/null | awk '$1 == "tcp-segmentation-offload:" {print $2}') == off ]]; }
wait_for 30 trickle_tuned || fail "trickle: the last interface not tuned"
counts() { tail -n +$((mark + 1)) "$TMP/notify" | grep -v -e READY=1 -e RELOADING=1 | grep STATUS= || true; }
# The last count goes at its gap's end, and the listener may lag under load.
counted() { (($(counts | wc -l) >= 1)); }
wait_for 5 counted || true
sleep 0.3
n_counts=$(counts | wc -l)
(( n_counts >= 1 && n_counts <= 15 )) && ok || fail "trickle: $n_counts STATUS= for 25 interfaces; the last: $(tail -n 3 "$TMP/notify")"
gaps=$(counts | sed 's/.*;RECEIVED=//' | awk 'NR > 1 && $1 - last < 0.09 {n++} {last = $1} END {print n + 0}')
eq "trickle: STATUS= at most one each 100 ms" 0 "$gaps"

kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
eq "SIGTERM after the storm: exit 0" 0 "$rc"
finish
