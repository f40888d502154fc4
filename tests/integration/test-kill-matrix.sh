#!/usr/bin/env bash
# kill -9 of apply right after each single write in turn (every injection point), then
# restore: every original value comes back, every time.
source "$SRCDIR/tests/lib.sh"
# One kernel, whatever the host runs: the lenovo-8168h fixture's plan (and so the writes counted
# below) depends on the release. 7.3 turns EEE off on this chip itself, so no entry asks it of
# the veth, which has no EEE: the plan is the seed's own (clkpm, L1.2) and the knobs below.
KR=(--kernel-release 7.3)
DAEMON_ARGS=("${KR[@]}")
need_root
Q="$SRCDIR/conf/quirks.d"
every_backend_nic # base, ns, $TMP/many.conf, snapshot (tests/lib.sh)

# How many writes a whole apply makes: that many injection points.
cp -a "$base" "$TMP/count"
set +e
ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$TMP/count/sys" --kernel-log "$base/kernel.log" --quirks "$Q" --config "$TMP/many.conf" \
        --profile performance --state-dir "$TMP/count-state" apply >/dev/null 2>&1
set -e
ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$TMP/count/sys" --state-dir "$TMP/count-state" restore >/dev/null 2>&1
writes=$(ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$TMP/count/sys" --kernel-log "$base/kernel.log" --quirks "$Q" \
        --config "$TMP/many.conf" --profile performance --json plan | jq '[.nics[0].items[] | select(.action == "change") | .knob] | map(if . == "tso" or . == "sg" then "features" else . end) | unique | length')
eq "injection points" 6 "$writes"

# kill -9 right after write n of `apply`, and of the daemon's start-up apply, then restore.
run_mode() { # run_mode MODE FIXTURE STATE N -> exit code of the run killed after write N
        local extra=()
        [[ $1 == daemon ]] && extra=(--log-target stderr)
        set +e
        # A daemon that never reaches write N would run on: timeout's SIGTERM (exit 124, not the
        # kill's 137) ends it, and the check below says so instead of the suite hanging.
        timeout 60 ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$2/sys" --kernel-log "$2/kernel.log" --quirks "$Q" \
                --config "$TMP/many.conf" --profile performance --state-dir "$3" "${extra[@]}" --fault-after-writes "$4:KILL" "$1" \
                >/dev/null 2>&1
        local rc=$?
        set -e
        return $rc
}
for mode in apply daemon; do
        for n in $(seq 1 "$writes"); do
                fx="$TMP/$mode-run$n"
                cp -a "$base" "$fx"
                before=$(snapshot "$fx")
                run_mode "$mode" "$fx" "$TMP/$mode-state$n" "$n" && rc=0 || rc=$?
                eq "$mode write $n: killed" 137 "$rc"
                [[ "$(snapshot "$fx")" != "$before" ]] && ok || fail "$mode write $n: nothing had changed before the kill"
                set +e
                journal=$(cat "$TMP/$mode-state$n/0000:01:00.0" 2>&1)
                out=$(ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$fx/sys" --state-dir "$TMP/$mode-state$n" restore 2>&1); rc=$?
                set -e
                eq "$mode write $n: restore exit" 0 "$rc"
                [[ $rc == 0 ]] || printf 'journal before restore:\n%s\nrestore said:\n%s\n' "$journal" "$out" >&2
                eq "$mode write $n: every original back" "$before" "$(snapshot "$fx")"
                [[ ! -e "$TMP/$mode-state$n/0000:01:00.0" ]] && ok || fail "$mode write $n: journal cleared"
        done
done
# There is no write $((writes + 1)): apply finishes instead of being killed, so the matrix
# above covered every write there is.
fx="$TMP/beyond"; cp -a "$base" "$fx"
run_mode apply "$fx" "$TMP/beyond-state" $((writes + 1)) && rc=0 || rc=$?
eq "no write beyond the last: apply completes" 0 "$rc"
ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$fx/sys" --state-dir "$TMP/beyond-state" restore >/dev/null 2>&1 || true

# A journal with a line nobody can parse: apply refuses to touch the NIC (never loses an
# original), restore puts back what it can read and keeps the rest.
fx="$TMP/corrupt"; cp -a "$base" "$fx"; mkdir -p "$TMP/cstate"
printf '# r8169-tuned undo journal 1\nslot 0000:01:00.0\nlink clkpm 1 0\nlink l1_1_aspm 1 Z\n' >"$TMP/cstate/0000:01:00.0"
echo 0 >"$fx/sys/bus/pci/devices/0000:01:00.0/link/clkpm"
set +e
out=$(ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --config "$TMP/many.conf" \
        --profile performance --state-dir "$TMP/cstate" apply 2>&1); rc=$?
set -e
eq "corrupt journal: apply refuses" 1 "$rc"
contains "corrupt journal: file:line" "$TMP/cstate/0000:01:00.0:4: cannot parse" "$out"
eq "corrupt journal: nothing changed" 1 "$(cat "$fx/sys/bus/pci/devices/0000:01:00.0/link/l1_1_aspm")"
set +e
out=$(ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$fx/sys" --state-dir "$TMP/cstate" restore 2>&1); rc=$?
set -e
eq "corrupt journal: clkpm restored" 1 "$(cat "$fx/sys/bus/pci/devices/0000:01:00.0/link/clkpm")"
grep -q "^link l1_1_aspm 1 Z$" "$TMP/cstate/0000:01:00.0" && ok || fail "corrupt journal: unreadable line kept"
contains "corrupt journal: reported" "could not be read and stays there" "$out"

finish
