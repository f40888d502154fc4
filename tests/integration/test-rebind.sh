#!/usr/bin/env bash
# Rebinding (issue 48, §3): r8169 disables ASPM L1 in its probe and nowhere else, and the mask
# outlives an unbind: every unbind and bind of r8169 (a module reload, a switch to r8168 and
# back, PCI error recovery) undoes an "L1 on" choice. The daemon hears the PCI function's own
# bind and unbind uevents (raised through the kernel, passed on by a real systemd-udevd), puts
# the planned L1 back within a second of r8169's bind, and says in the journal and in status
# when another driver took the function. The fixture's driver link and link/l1_aspm play the
# kernel's part: what the probe leaves, the daemon finds.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
said() { journalctl -D "$JOURNAL_DIR" -o cat _PID="$DPID" | grep -c -F "$1" || true; }
file_is() { [[ $(cat "$1") == "$2" ]]; }

fx=$(fixture lenovo-8168h)
dev=/devices/pci0000:00/0000:00:1c.0/0000:01:00.0
l1=$fx/sys$dev/link/l1_aspm
drivers=$fx/sys/bus/pci/drivers
mkdir -p "$drivers/r8168"
bind() { # bind DRIVER|"": the fixture's driver link as the kernel's bind leaves it, then the uevent
        rm -f "$fx/sys$dev/driver"
        if [[ -n $1 ]]; then
                ln -s "../../../../bus/pci/drivers/$1" "$fx/sys$dev/driver"
                [[ $1 == r8169 ]] && echo 0 >"$l1" # r8169's probe: pci_disable_link_state(L1)
                python3 "$SRCDIR/tests/integration/uevent-inject.py" bind "$dev" pci "DRIVER=$1" PCI_SLOT_NAME=0000:01:00.0
        else
                python3 "$SRCDIR/tests/integration/uevent-inject.py" unbind "$dev" pci PCI_SLOT_NAME=0000:01:00.0
        fi
}
printf '[device lenovo]\nmatch-slot = 0000:01:00.0\nl1_aspm = 1\n' >"$TMP/l1.conf"
ip link add enp1s0 type veth peer name peer0
daemon_start "$fx" "$TMP/l1.conf"
eq "tuned: L1 on, as configured" 1 "$(cat "$l1")"

# Unbound (rmmod r8169): said; nothing written (no driver to tune); status says so.
bind ""
wait_for 5 bash -c "[[ \$(journalctl -D $JOURNAL_DIR -o cat _PID=$DPID | grep -cF 'r8169 unbound from it') -ge 1 ]]" &&
        ok || fail "unbind: not said"
contains "status: none bound" "driver: none bound" \
        "$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --config "$TMP/l1.conf" --quirks "$SRCDIR/conf/quirks.d" status)"
# With no driver nothing is written, whatever event would apply the plan (an interface coming
# up; the veth plays the one the unbind took away): L1 set to 0 by hand stays.
echo 0 >"$l1"
ip link set enp1s0 down
ip link set enp1s0 up
sleep 1
eq "unbound: nothing written" 0 "$(cat "$l1")"

# Bound again (modprobe r8169): its probe turned L1 off; the plan's L1 is back within a second.
bind r8169
start=$(date +%s%N)
wait_for 1 file_is "$l1" 1 && ok || fail "rebind: L1 not back within a second ($(cat "$l1"))"
echo "rebind: L1 back after $((($(date +%s%N) - start) / 1000000)) ms"
eq "rebind: said once" 1 "$(said "r8169 bound to it again: its probe turned ASPM L1 off; applying the plan again")"

# A switch to Realtek's r8168: said in the journal and in status; L1 as r8169 left it.
bind ""
echo 0 >"$l1"
bind r8168
wait_for 5 bash -c "[[ \$(journalctl -D $JOURNAL_DIR -o cat _PID=$DPID | grep -cF 'r8168 bound to it, not r8169') -ge 1 ]]" &&
        ok || fail "r8168 bound: not said"
contains "status: another driver took it" "driver: r8168 took the function, not r8169" \
        "$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --config "$TMP/l1.conf" --quirks "$SRCDIR/conf/quirks.d" status)"
# And back to r8169: tuned again.
bind ""
bind r8169
wait_for 1 file_is "$l1" 1 && ok || fail "back to r8169: L1 not back within a second"
kill -0 "$DPID" && ok || fail "the daemon died"
# What r8169's probe rewrote is not another tool's drift: never said as one.
eq "no drift said across the rebinds" 0 "$(said "outside r8169-tuned")"
daemon_stop
eq "SIGTERM: exit 0" 0 "$DRC"
ip link del enp1s0
finish
