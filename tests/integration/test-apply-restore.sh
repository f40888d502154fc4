#!/usr/bin/env bash
# apply and restore against the real kernel (features) and fixture trees (link and netdev
# attributes): every change read back, originals recorded first and restored exactly.
source "$SRCDIR/tests/lib.sh"
need_root
Q="$SRCDIR/conf/quirks.d"
: >"$TMP/empty.conf"
STATE="$TMP/state"

# On Debian 12's kernel: the E480's software coalescing is a back-port there (rtl8168g-sw-coalesce),
# and its SG/TSO a suggestion, which the E480's configuration accepts (e480.conf).
K=(--kernel-release 6.1.158)
printf '[global]\nsuggestions = apply\n' >"$TMP/e480.conf"
r8t_ns() { # r8t_ns NS FIXTURE-DIR ARGS...
        local ns=$1 fx=$2; shift 2
        ip netns exec "$ns" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --state-dir "$STATE" "${K[@]}" "$@"
}
run() { set +e; out=$("$@" 2>&1); rc=$?; set -e; }
feature() { ip netns exec "$1" ethtool -k "$2" | awk -v n="$3:" '$1 == n {print $2}'; }
# A snapshot of everything r8169-tuned could touch: every file of the fixture and ethtool -k.
snapshot() { # snapshot NS FIXTURE-DIR IFACE
        (cd "$2/sys" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
        ip netns exec "$1" ethtool -k "$3"
}

### 1. RTL8168c: TSO (and SG) off by apply, back on by restore; ethtool -k agrees each time.
netns_new ns
ip -n "$ns" link add enp2s0 type veth peer name peer0
fx=$(fixture desktop-8168c)
eq "8168c before" on "$(feature "$ns" enp2s0 tcp-segmentation-offload)"
run r8t_ns "$ns" "$fx" --config "$TMP/empty.conf" apply
eq "8168c apply exit" 0 "$rc"
eq "8168c tso off" off "$(feature "$ns" enp2s0 tcp-segmentation-offload)"
eq "8168c sg off" off "$(feature "$ns" enp2s0 scatter-gather)"
contains "8168c apply says why" "tso on -> off (quirk rtl8168c-ver22-tso)" "$out"
grep -q "^feature tx-tcp-segmentation 1 0$" "$STATE/0000:02:00.0" && ok || fail "journal records tx-tcp-segmentation"
run r8t_ns "$ns" "$fx" restore
eq "8168c restore exit" 0 "$rc"
eq "8168c tso back on" on "$(feature "$ns" enp2s0 tcp-segmentation-offload)"
eq "8168c sg back on" on "$(feature "$ns" enp2s0 scatter-gather)"
contains "8168c restore says so" "tso off -> on (restored" "$out"
[[ ! -e "$STATE/0000:02:00.0" ]] && ok || fail "journal cleared after restore"

### 2. Link and netdev attributes in the fixture: planned values after apply, originals after restore.
fx=$(fixture lenovo-8168h)
netns_new ns2
ip -n "$ns2" link add enp1s0 type veth peer name peer0
dev="$fx/sys/bus/pci/devices/0000:01:00.0"
run r8t_ns "$ns2" "$fx" --config "$TMP/empty.conf" --profile performance apply
eq "clkpm after apply" 0 "$(cat "$dev/link/clkpm")"
# A switch to powersave, applied directly, gives back what only performance wanted, as the
# service does at a profile switch (issue 45 M3: clkpm stayed 0 and verify said as planned).
run r8t_ns "$ns2" "$fx" --config "$TMP/empty.conf" --profile powersave apply
eq "powersave apply: exit 0" 0 "$rc"
eq "powersave apply: clkpm given back" 1 "$(cat "$dev/link/clkpm")"
contains "powersave apply: said" "given back" "$out"
run r8t_ns "$ns2" "$fx" --config "$TMP/empty.conf" --profile powersave verify
eq "powersave verify agrees" 0 "$rc"
run r8t_ns "$ns2" "$fx" --config "$TMP/empty.conf" --profile performance apply
eq "clkpm after performance again" 0 "$(cat "$dev/link/clkpm")"
run r8t_ns "$ns2" "$fx" restore
eq "clkpm after restore" 1 "$(cat "$dev/link/clkpm")"
fx=$(fixture intel-8125-l12)
netns_new ns3
ip -n "$ns3" link add enp2s0 type veth peer name peer0
run r8t_ns "$ns3" "$fx" --config "$TMP/empty.conf" --profile performance apply
eq "l1_2_aspm after apply" 0 "$(cat "$fx/sys/bus/pci/devices/0000:02:00.0/link/l1_2_aspm")"
eq "l1_1_aspm untouched" 1 "$(cat "$fx/sys/bus/pci/devices/0000:02:00.0/link/l1_1_aspm")"
run r8t_ns "$ns3" "$fx" restore
eq "l1_2_aspm after restore" 1 "$(cat "$fx/sys/bus/pci/devices/0000:02:00.0/link/l1_2_aspm")"
fx=$(fixture thinkpad-e480-8168gu)
netns_new ns4
ip -n "$ns4" link add enp3s0 type veth peer name peer0
ip netns exec "$ns4" ethtool -K enp3s0 sg off tso off >/dev/null
run r8t_ns "$ns4" "$fx" --config "$TMP/e480.conf" --profile performance apply
eq "e480 apply exit" 0 "$rc"
eq "gro_flush_timeout after apply" 20000 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
eq "napi_defer_hard_irqs after apply" 1 "$(cat "$fx/sys/class/net/enp3s0/napi_defer_hard_irqs")"
eq "e480 sg on" on "$(feature "$ns4" enp3s0 scatter-gather)"
eq "e480 tso on" on "$(feature "$ns4" enp3s0 tcp-segmentation-offload)"
run r8t_ns "$ns4" "$fx" restore
eq "gro_flush_timeout after restore" 0 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
eq "napi_defer_hard_irqs after restore" 0 "$(cat "$fx/sys/class/net/enp3s0/napi_defer_hard_irqs")"
eq "e480 tso off again" off "$(feature "$ns4" enp3s0 tcp-segmentation-offload)"

### Every original is on disk once, before the first write: one journal save for the whole apply
### (features, then the two netdev attributes), not one per write.
# Killed right after its first write, the journal already holds all three originals.
set +e
ip netns exec "$ns4" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --state-dir "$STATE" "${K[@]}" \
        --config "$TMP/e480.conf" --profile performance --fault-after-writes 1:KILL apply >/dev/null 2>&1
set -e
eq "killed after write 1: the features' originals recorded" 1 "$(grep -c '^feature tx-tcp-segmentation 0 1$' "$STATE/0000:03:00.0" || true)"
eq "killed after write 1: both netdev originals recorded" "netdev gro_flush_timeout 0 20000,netdev napi_defer_hard_irqs 0 1" \
        "$(grep '^netdev ' "$STATE/0000:03:00.0" | sort | paste -sd, || true)"
run r8t_ns "$ns4" "$fx" restore
eq "killed after write 1: restore exit" 0 "$rc"
eq "killed after write 1: tso as before" off "$(feature "$ns4" enp3s0 tcp-segmentation-offload)"
eq "killed after write 1: gro_flush_timeout as before" 0 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
# Killed between two writes of a second apply (values of ours already recorded): every
# original still goes back, the one written and the one not written yet.
run r8t_ns "$ns4" "$fx" --config "$TMP/e480.conf" --profile performance apply
printf '[global]\nsuggestions = apply\n[device e480]\nmatch-interface = enp3s0\ngro_flush_timeout = 30000\nnapi_defer_hard_irqs = 2\n' >"$TMP/more.conf"
set +e
ip netns exec "$ns4" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --state-dir "$STATE" "${K[@]}" \
        --config "$TMP/more.conf" --profile performance --fault-after-writes 1:KILL apply >/dev/null 2>&1
set -e
eq "second apply killed after write 1: gro written" 30000 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
eq "second apply killed after write 1: napi not yet" 1 "$(cat "$fx/sys/class/net/enp3s0/napi_defer_hard_irqs")"
run r8t_ns "$ns4" "$fx" restore
eq "second apply killed: gro original back" 0 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
eq "second apply killed: napi original back" 0 "$(cat "$fx/sys/class/net/enp3s0/napi_defer_hard_irqs")"
contains "second apply killed: nothing taken for someone else's" "4 restored, 0 left alone, 0 failed" "$out"
eq "second apply killed: tso back off" off "$(feature "$ns4" enp3s0 tcp-segmentation-offload)"
# One save (strace; LeakSanitizer cannot run under ptrace).
if command -v strace >/dev/null; then
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=rename,renameat,renameat2 -o "$TMP/trace" \
                ip netns exec "$ns4" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --state-dir "$STATE" "${K[@]}" \
                --config "$TMP/e480.conf" --profile performance apply >/dev/null 2>&1 || true
        eq "one journal save per apply" 1 "$(grep -c "rename.*\"$STATE/0000:03:00.0\"" "$TMP/trace" || true)"
        eq "traced apply: tso on" on "$(feature "$ns4" enp3s0 tcp-segmentation-offload)"
        run r8t_ns "$ns4" "$fx" restore
        eq "traced apply: restored" off "$(feature "$ns4" enp3s0 tcp-segmentation-offload)"
        # fsync where it can matter: a journal on a disk is synced, file and directory; on tmpfs
        # (/run, the default) there is nothing to flush and it is not.
        mkdir -p "$TMP/tmpfs-state" && mount -t tmpfs r8t-state "$TMP/tmpfs-state" && cleanup_hooks+=("umount $TMP/tmpfs-state")
        disk=$(mktemp -d /var/tmp/r8t-state.XXXXXX) && cleanup_hooks+=("rm -rf $disk")
        for st in "$TMP/tmpfs-state" "$disk"; do
                ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=fsync,fdatasync -o "$TMP/trace" \
                        ip netns exec "$ns4" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" "${K[@]}" \
                        --state-dir "$st" --config "$TMP/e480.conf" --profile performance apply >/dev/null 2>&1 || true
                syncs=$(grep -c "fsync" "$TMP/trace" || true)
                case $(stat -f -c %T "$st") in
                tmpfs) eq "journal on tmpfs: no fsync" 0 "$syncs" ;;
                *) ((syncs >= 2)) && ok || fail "journal on $(stat -f -c %T "$st"): file and directory synced, $syncs fsync" ;;
                esac
                run r8t_ns "$ns4" "$fx" --state-dir "$st" restore
                eq "journal in $st: restored" off "$(feature "$ns4" enp3s0 tcp-segmentation-offload)"
        done
fi

### A second apply keeps the first original; someone else's later change is left alone by restore.
fx=$(fixture thinkpad-e480-8168gu)
run r8t_ns "$ns4" "$fx" --config "$TMP/e480.conf" --profile performance apply
echo 30000 >"$fx/sys/class/net/enp3s0/gro_flush_timeout"            # another tool
run r8t_ns "$ns4" "$fx" --config "$TMP/e480.conf" --profile performance apply   # we put ours back
eq "reapplied" 20000 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
grep -q "^netdev gro_flush_timeout 0 20000$" "$STATE/0000:03:00.0" && ok || fail "first original (0) kept"
echo 50000 >"$fx/sys/class/net/enp3s0/gro_flush_timeout"            # changed again behind our back
run r8t_ns "$ns4" "$fx" restore
eq "left alone" 50000 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
contains "left alone, reported" "gro_flush_timeout is 50000, not the 20000 r8169-tuned set" "$out"
eq "napi restored all the same" 0 "$(cat "$fx/sys/class/net/enp3s0/napi_defer_hard_irqs")"

### 3. Coalescing on veth: EOPNOTSUPP, said once, the rest applied, exit code says so.
printf '[global]\nsuggestions = apply\n[device e480]\nmatch-interface = enp3s0\nrx-usecs = 50\n' >"$TMP/coalesce.conf"
ip netns exec "$ns4" ethtool -K enp3s0 sg off tso off >/dev/null
echo 0 >"$fx/sys/class/net/enp3s0/gro_flush_timeout"
run r8t_ns "$ns4" "$fx" --config "$TMP/coalesce.conf" --profile performance apply
eq "coalesce: exit 0 (a knob the NIC does not have is a state, as plan and verify say)" 0 "$rc"
eq "coalesce: said once" 1 "$(grep -c 'rx-usecs' <<<"$out")"
contains "coalesce: clearly" "rx-usecs is not supported on this NIC (Operation not supported); 50 not applied ($TMP/coalesce.conf:5)" "$out"
eq "coalesce: sg still applied" on "$(feature "$ns4" enp3s0 scatter-gather)"
eq "coalesce: gro_flush_timeout still applied" 20000 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
# One meaning of success (issue 45 M1): a second apply, verify and the plan agree.
run r8t_ns "$ns4" "$fx" --config "$TMP/coalesce.conf" --profile performance apply
eq "coalesce: a second apply exits 0 too" 0 "$rc"
contains "coalesce: and says what it skipped" "1 not supported, 0 failed" "$out"
run r8t_ns "$ns4" "$fx" --config "$TMP/coalesce.conf" --profile performance verify
eq "coalesce: verify agrees" 0 "$rc"
run r8t_ns "$ns4" "$fx" restore

### 3b. EEE on veth: the kernel answers EEE_GET with EOPNOTSUPP (veth has no get_eee), as r8169
###     does for RTL8402 and RTL8106e. status says not-supported; an override is said once,
###     nothing is journalled for it, and the rest of the plan is applied.
run r8t_ns "$ns4" "$fx" --json status
eq "eee: status not-supported" not-supported "$(jq -r '.nics[0].knobs.eee.status' <<<"$out")"
eq "eee: the kernel's errno" "EOPNOTSUPP" "$(jq -r '.nics[0].knobs.eee.errno' <<<"$out")"
printf '[global]\nsuggestions = apply\n[device e480]\nmatch-interface = enp3s0\neee = off\n' >"$TMP/eee.conf"
run r8t_ns "$ns4" "$fx" --config "$TMP/eee.conf" --profile performance plan
contains "eee: plan skips it" "skip      eee                   not-supported" "$out"
ip netns exec "$ns4" ethtool -K enp3s0 sg off tso off >/dev/null
run r8t_ns "$ns4" "$fx" --config "$TMP/eee.conf" --profile performance apply
eq "eee: exit 0" 0 "$rc"
eq "eee: said once" 1 "$(grep -c 'eee' <<<"$out")"
contains "eee: clearly" "eee is not supported on this NIC (Operation not supported); off not applied ($TMP/eee.conf:5)" "$out"
eq "eee: sg still applied" on "$(feature "$ns4" enp3s0 scatter-gather)"
grep -q "^eee " "$STATE/0000:03:00.0" && fail "eee: nothing journalled for it" || ok
run r8t_ns "$ns4" "$fx" restore
eq "eee: restore after it" 0 "$rc"

### 5. Nothing outside the planned knobs of the planned NICs changes.
fx=$(fixture lenovo-8168h)
before=$(snapshot "$ns2" "$fx" enp1s0)
run r8t_ns "$ns2" "$fx" --config "$TMP/empty.conf" --profile performance apply
after=$(snapshot "$ns2" "$fx" enp1s0)
eq "only link/clkpm differs" "./devices/pci0000:00/0000:00:1c.0/0000:01:00.0/link/clkpm" \
        "$(diff <(echo "$before") <(echo "$after") | awk '/^[<>]/ {print $3}' | sort -u)"
run r8t_ns "$ns2" "$fx" restore
eq "restore returns the exact snapshot" "$before" "$(snapshot "$ns2" "$fx" enp1s0)"

### 6. The interface vanishes in the middle of apply: a log line, a clean exit, no crash.
fx=$(fixture thinkpad-e480-8168gu)
printf '[global]\nsuggestions = apply\n[device e480]\nmatch-slot = 0000:03:00.0\nl0s_aspm = 0\n' >"$TMP/l0s.conf"
ip netns exec "$ns4" ethtool -K enp3s0 sg off tso off >/dev/null
set +e
ip netns exec "$ns4" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --state-dir "$STATE" "${K[@]}" \
        --config "$TMP/l0s.conf" --profile performance --fault-after-writes 1:STOP apply >"$TMP/vanish.out" 2>&1 &
pid=$!
set -e
for _ in $(seq 100); do [[ $(awk '{print $3}' /proc/$pid/stat 2>/dev/null) == T ]] && break; sleep 0.05; done
eq "stopped after the first write" T "$(awk '{print $3}' /proc/$pid/stat)"
ip -n "$ns4" link del enp3s0
kill -CONT $pid
set +e; wait $pid; rc=$?; set -e
out=$(cat "$TMP/vanish.out")
eq "vanished: exit 1, no crash" 1 "$rc"
contains "vanished: log line" "setting sg -> on failed: No such device" "$out"
eq "vanished: link write done" 0 "$(cat "$fx/sys/bus/pci/devices/0000:03:00.0/link/l0s_aspm")"
eq "vanished: netdev writes after it still done" 20000 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
grep -q "^link l0s_aspm 1 0$" "$STATE/0000:03:00.0" && ok || fail "vanished: original of the done write recorded"

finish
