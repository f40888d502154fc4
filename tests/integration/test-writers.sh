#!/usr/bin/env bash
# One writer at a time: two writers of the same NIC (commands, the daemon, the daemon's
# restore at stop) never interleave, whatever moment one of them is stopped at, and restore
# brings back every original afterwards: the fixture files and `ethtool -k` exactly as before.
source "$SRCDIR/tests/lib.sh"
# One kernel, whatever the host runs: the lenovo-8168h fixture's plan (and so the writes counted
# below) depends on the release. 7.3 turns EEE off on this chip itself, so no entry asks it of
# the veth, which has no EEE: the plan is the seed's own (clkpm, L1.2) and the knobs below.
KR=(--kernel-release 7.3)
DAEMON_ARGS=("${KR[@]}")
need_root
Q="$SRCDIR/conf/quirks.d"
every_backend_nic # base, ns, $TMP/many.conf, snapshot (tests/lib.sh)
r8t_bg() { # r8t_bg FIXTURE STATE OUT ARGS... -> $! is the r8169-tuned process itself (ip netns exec execs it)
        local fx=$1 st=$2 out=$3; shift 3
        # Emptied here, not by the background job's own redirection: a wait_for on OUT that runs
        # before the job gets that far must not read the last writer's lines (the last daemon's
        # "Started:" sent TERM to this one before it listened for it: killed, or in CI lost).
        : >"$out"
        ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --config "$TMP/many.conf" \
                --profile performance --state-dir "$st" --log-target stderr "$@" >>"$out" 2>&1 &
}
stopped() { [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) == T ]]; }
restore_all() { # restore_all FIXTURE STATE -> exit code
        ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$1/sys" --state-dir "$2" restore >"$TMP/restore.out" 2>&1
}
# How many writes the daemon's start-up apply makes (the fault seam counts every write of a process).
writes=$(ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$base/sys" --kernel-log "$base/kernel.log" --quirks "$Q" \
        --config "$TMP/many.conf" --profile performance --json plan |
        jq '[.nics[0].items[] | select(.action == "change") | .knob] | map(if . == "tso" or . == "sg" then "features" else . end) | unique | length')
eq "writes of one apply" 6 "$writes"

### 1. CLI/CLI: the first apply is stopped after its second write; the second waits for it.
fx="$TMP/cli-cli"; st="$TMP/cli-cli-state"; cp -a "$base" "$fx"
before=$(snapshot "$fx")
r8t_bg "$fx" "$st" "$TMP/a.out" --fault-after-writes 2:STOP apply; a=$!
wait_for 10 stopped $a && ok || fail "cli/cli: first writer stopped"
r8t_bg "$fx" "$st" "$TMP/b.out" apply; b=$!
sleep 0.5
kill -0 $b 2>/dev/null && ok || fail "cli/cli: the second writer waits while the first holds the NIC"
eq "cli/cli: nothing written by the second meanwhile" "" "$(grep -- '->' "$TMP/b.out" || true)"
kill -CONT $a
set +e; wait $a; rca=$?; wait $b; rcb=$?; set -e
eq "cli/cli: first exit" 0 "$rca"
eq "cli/cli: second exit" 0 "$rcb"
contains "cli/cli: the second found it done" "0 changed, 8 already right" "$(cat "$TMP/b.out")"
restore_all "$fx" "$st" && ok || fail "cli/cli: restore: $(cat "$TMP/restore.out")"
eq "cli/cli: every original back" "$before" "$(snapshot "$fx")"

### 2. CLI/daemon: a command stopped mid-apply; the daemon starting meanwhile leaves the NIC to it.
fx="$TMP/cli-daemon"; st="$TMP/cli-daemon-state"; cp -a "$base" "$fx"
before=$(snapshot "$fx")
r8t_bg "$fx" "$st" "$TMP/a.out" --fault-after-writes 3:STOP apply; a=$!
wait_for 10 stopped $a && ok || fail "cli/daemon: command stopped"
r8t_bg "$fx" "$st" "$TMP/d.out" --log-level debug daemon; d=$!
wait_for 10 grep -q "another writer holds it" "$TMP/d.out" && ok || fail "cli/daemon: the daemon waits for the command"
kill -CONT $a
set +e; wait $a; rca=$?; set -e
eq "cli/daemon: command exit" 0 "$rca"
wait_for 10 grep -q "already right" "$TMP/d.out" && ok || fail "cli/daemon: the daemon applied after it"
kill -TERM $d
set +e; wait $d; rcd=$?; set -e
eq "cli/daemon: daemon stop exit" 0 "$rcd"
eq "cli/daemon: every original back" "$before" "$(snapshot "$fx")"

### 3. daemon-restore/CLI: the daemon is stopped in the middle of its restore at stop; commands
###    run meanwhile refuse, saying what to do; the daemon finishes and every original is back.
fx="$TMP/daemon-cli"; st="$TMP/daemon-cli-state"; cp -a "$base" "$fx"
before=$(snapshot "$fx")
r8t_bg "$fx" "$st" "$TMP/d.out" --fault-after-writes $((writes + 2)):STOP daemon; d=$!
wait_for 10 grep -q "Started:" "$TMP/d.out" && ok || fail "daemon-restore/cli: started"
kill -TERM $d
# Not stopped: killed, so that what follows fails instead of waiting for it for ever.
wait_for 10 stopped $d && ok || { fail "daemon-restore/cli: stopped in its restore: $(cat "$TMP/d.out")"; kill -KILL $d 2>/dev/null || true; }
for cmd in apply restore; do
        set +e
        out=$(ip netns exec "$ns" "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --config "$TMP/many.conf" \
                --profile performance --state-dir "$st" "$cmd" 2>&1); rc=$?
        set -e
        eq "daemon-restore/cli: $cmd refused" 1 "$rc"
        contains "daemon-restore/cli: $cmd says what to do" "systemctl stop r8169-tuned" "$out"
done
kill -CONT $d 2>/dev/null || true
set +e; wait $d; rcd=$?; set -e
eq "daemon-restore/cli: daemon exit" 0 "$rcd"
eq "daemon-restore/cli: every original back" "$before" "$(snapshot "$fx")"
[[ ! -e "$st/0000:01:00.0" ]] && ok || fail "daemon-restore/cli: journal cleared"

### 4. The unseamed race: two applies at once, 100 times; each time restore brings back everything.
lost=0
for i in $(seq 1 100); do
        fx="$TMP/race"; st="$TMP/race-state"; rm -rf "$fx" "$st"; cp -a "$base" "$fx"
        [[ $i == 1 ]] && before=$(snapshot "$fx")
        r8t_bg "$fx" "$st" "$TMP/a.out" apply; a=$!
        r8t_bg "$fx" "$st" "$TMP/b.out" apply; b=$!
        set +e; wait $a; wait $b; set -e
        journal=$(cat "$st/0000:01:00.0" 2>&1)
        if ! restore_all "$fx" "$st" || [[ "$(snapshot "$fx")" != "$before" ]]; then
                lost=$((lost + 1))
                [[ $lost == 1 ]] && printf 'race %d: first apply:\n%s\nsecond:\n%s\njournal:\n%s\nrestore:\n%s\ndifference:\n%s\n' "$i" \
                        "$(cat "$TMP/a.out")" "$(cat "$TMP/b.out")" "$journal" "$(cat "$TMP/restore.out")" \
                        "$(diff <(echo "$before") <(snapshot "$fx") || true)" >&2
        fi
done
eq "race: runs that lost an original, of 100" 0 "$lost"

finish
