#!/usr/bin/env bash
# The power source under the running daemon in the balanced profile (real udevd and
# journald, as test-daemon): the fixture's power_supply attributes switch between AC and
# battery, and a power_supply uevent raised through the kernel (uevent-inject.py) and passed
# on by systemd-udevd tells the daemon; the performance-only CLKPM and ASPM L1.2 fixes are
# applied on AC and given back on battery, nothing changes without the event, and a
# configured profile does not follow the power source.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
file_is() { [[ $(cat "$1") == "$2" ]]; }
said() { journal_json _PID="$DPID" | jq -r .MESSAGE | grep -c -F "$1" || true; }

power() { # power FIXTURE ac|battery: what the kernel's AC adapter and battery would show
        local online=1 status=Charging
        [[ $2 == battery ]] && online=0 status=Discharging
        echo "$online" >"$1/sys/class/power_supply/AC/online"
        echo "$status" >"$1/sys/class/power_supply/BAT0/status"
}
announce() { # announce ac|battery: the uevent an ACPI AC adapter raises when it changes
        local online=1
        [[ $1 == battery ]] && online=0
        python3 "$SRCDIR/tests/integration/uevent-inject.py" change \
                /devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC power_supply \
                POWER_SUPPLY_NAME=AC POWER_SUPPLY_TYPE=Mains "POWER_SUPPLY_ONLINE=$online" ||
                fail "the kernel refused the uevent"
}
: >"$TMP/balanced.conf" # the default profile: balanced
printf '[global]\nprofile = performance\n' >"$TMP/perf.conf"

########## A. A desktop board in a laptop's role: RTL8168h, clkpm = 0 in performance only
sed 's/^power = none$/power = ac/' "$SRCDIR/tests/fixtures/lenovo-8168h.fixture" >"$TMP/lenovo-ac.fixture"
"$SRCDIR/tests/fixtures/mkfixture" "$TMP/lenovo-ac.fixture" "$TMP/fx/lenovo-ac"
fx=$TMP/fx/lenovo-ac
clkpm="$fx/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/link/clkpm"
ip link add enp1s0 type veth peer name peer0
daemon_start "$fx" "$TMP/balanced.conf"
wait_for 10 file_is "$clkpm" 0 && ok || fail "on AC: clkpm not applied"
contains "on AC: performance" "(profile performance)" "$(grep READY=1 "$TMP/notify" | tail -1)"

# Unplugged: nothing polls, so the attributes alone change nothing; the uevent does.
power "$fx" battery
sleep 1
eq "unplugged, no event yet: clkpm as it was" 0 "$(cat "$clkpm")"
announce battery
wait_for 10 file_is "$clkpm" 1 && ok || fail "on battery: clkpm not given back"
wait_for 5 bash -c "journalctl -D $JOURNAL_DIR -o cat _PID=$DPID | grep -qF 'Profile powersave (balanced, power: battery)'" &&
        ok || fail "on battery: profile change not logged"
eq "on battery: the restore is logged" 1 "$(said "clkpm 0 -> 1")"

# Plugged in again.
n=$(said "Profile performance (balanced, power: ac)")
power "$fx" ac
announce ac
wait_for 10 file_is "$clkpm" 0 && ok || fail "on AC again: clkpm not applied"
eq "on AC again: profile change logged" $((n + 1)) "$(said "Profile performance (balanced, power: ac)")"

# An event that changes nothing (another supply, the same source): nothing is re-applied.
n=$(said "clkpm 1 -> 0")
announce ac
sleep 1
eq "same source: no new change" "$n" "$(said "clkpm 1 -> 0")"
kill -0 "$DPID" && ok || fail "the daemon died"
daemon_stop
eq "A: SIGTERM exit 0" 0 "$DRC"
eq "A: stop restores clkpm" 1 "$(cat "$clkpm")"

# A configured profile is the user's: the power source does not move it.
daemon_start "$fx" "$TMP/perf.conf"
wait_for 10 file_is "$clkpm" 0 && ok || fail "performance: clkpm not applied"
power "$fx" battery
announce battery
sleep 1
eq "performance on battery: clkpm stays" 0 "$(cat "$clkpm")"
eq "performance on battery: no profile change" 0 "$(said "Profile powersave")"
daemon_stop
ip link del enp1s0

########## B. The Intel-platform laptop: RTL8125B, l1_2_aspm = 0 in performance only
fx=$(fixture intel-8125-l12)
l12="$fx/sys/devices/pci0000:00/0000:00:1d.0/0000:02:00.0/link/l1_2_aspm"
ip link add enp2s0 type veth peer name peer1
daemon_start "$fx" "$TMP/balanced.conf"
contains "on battery: powersave" "(profile powersave)" "$(grep READY=1 "$TMP/notify" | tail -1)"
eq "on battery: L1.2 stays as the kernel set it" 1 "$(cat "$l12")"
power "$fx" ac
announce ac
wait_for 10 file_is "$l12" 0 && ok || fail "on AC: l1_2_aspm not applied"
power "$fx" battery
announce battery
wait_for 10 file_is "$l12" 1 && ok || fail "on battery: l1_2_aspm not given back"
daemon_stop
eq "B: SIGTERM exit 0" 0 "$DRC"
eq "B: L1.2 as the kernel set it" 1 "$(cat "$l12")"
ip link del enp2s0

########## C. TLP on the same events (issue 48, §4): runtime-pm = on asked, TLP writes auto on
# battery (RUNTIME_PM_ON_BAT=auto). At the apply the event brings, the daemon finds it changed
# behind its back: said, and put back once (drift = reassert) or left (drift = leave); the next
# event that changes nothing writes nothing: no loop between the two.
sed 's/^power = none$/power = ac/' "$SRCDIR/tests/fixtures/lenovo-8168h.fixture" >"$TMP/lenovo-tlp.fixture"
control_of() { echo "$1/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/power/control"; }
for drift in reassert leave; do
        "$SRCDIR/tests/fixtures/mkfixture" "$TMP/lenovo-tlp.fixture" "$TMP/fx/tlp-$drift" >/dev/null
        fx=$TMP/fx/tlp-$drift
        control=$(control_of "$fx")
        printf '[global]\ndrift = %s\n\n[device lenovo]\nmatch-slot = 0000:01:00.0\nruntime-pm = on\n' "$drift" >"$TMP/tlp.conf"
        ip link add enp1s0 type veth peer name peer0
        rm -rf "$TMP/state"
        daemon_start "$fx" "$TMP/tlp.conf"
        eq "C/$drift: on AC, runtime-pm on" on "$(cat "$control")"
        echo auto >"$control" # TLP, on the way to battery
        power "$fx" battery
        announce battery
        if [[ $drift == reassert ]]; then
                wait_for 10 file_is "$control" on && ok || fail "C/reassert: runtime-pm not put back"
                wait_for 5 bash -c "[[ \$(journalctl -D $JOURNAL_DIR -o cat _PID=$DPID | grep -cF 'runtime-pm changed from on to auto outside r8169-tuned; putting on back') == 1 ]]" &&
                        ok || fail "C/reassert: the drift not said once"
        else
                wait_for 5 bash -c "journalctl -D $JOURNAL_DIR -o cat _PID=$DPID | grep -qF 'runtime-pm changed from on to auto outside r8169-tuned; leaving it (drift = leave)'" &&
                        ok || fail "C/leave: the drift not said"
                eq "C/leave: TLP's auto stands" auto "$(cat "$control")"
        fi
        writes=$(said "runtime-pm auto -> on")
        applies=$(said "already right")
        # Another event that applies the plan (the interface comes up again): nothing more written.
        ip link set enp1s0 down
        ip link set enp1s0 up
        wait_for 10 bash -c "[[ \$(journalctl -D $JOURNAL_DIR -o cat _PID=$DPID | grep -cF 'already right') -gt $applies ]]" &&
                ok || fail "C/$drift: the link's up applied nothing"
        eq "C/$drift: no second write" "$writes" "$(said "runtime-pm auto -> on")"
        eq "C/$drift: $([[ $drift == reassert ]] && echo 1 || echo 0) write in all" "$([[ $drift == reassert ]] && echo 1 || echo 0)" "$writes"
        daemon_stop
        ip link del enp1s0
done

finish
