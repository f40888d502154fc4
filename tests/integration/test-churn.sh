#!/usr/bin/env bash
# Link churn with a real udevd: (A) a container host's burst of interfaces that are not ours
# costs no rescan, no re-apply of the managed NIC and no lost notification; (B) when link
# notifications are lost (ENOBUFS: a receive buffer made tiny through the test seam, and the
# daemon stopped while the burst queues), the daemon resynchronises from a dump of the links
# and applies only the NIC whose interface appeared meanwhile. Functional, not timed.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
N=${R8T_CHURN:-500}
Q="$SRCDIR/conf/quirks.d"
feature() { ethtool -k "$1" 2>/dev/null | awk -v n="$2:" '$1 == n {print $2}'; }
feature_is() { [[ $(feature "$1" "$2") == "$3" ]]; }
# Debug lines of this daemon (PID) that contain TEXT.
said() { journalctl -D "$JOURNAL_DIR" -o cat _PID="$DPID" --no-pager 2>/dev/null | grep -cF -- "$1" || true; }
said_at_least() { (( $(said "$2") >= $1 )); } # said_at_least N TEXT

# Two RTL8168c NICs (TSO and SG go off with profile performance), interfaces s0 and s1.
{
        echo "[machine]"; echo "power = none"
        for i in 0 1; do
                printf '[device 0000:%02x:00.0]\nvendor = 10ec\ndevice = 8168\nsubsystem = 1043:82c6\n' $((1 + i))
                printf 'driver = r8169\ninterface = s%d\nmac = 02:00:00:00:00:%02x\ntxconfig = 3c400000\n' $i $i
        done
} >"$TMP/churn.fixture"
"$SRCDIR/tests/fixtures/mkfixture" "$TMP/churn.fixture" "$TMP/fx"
printf '[global]\nprofile = performance\nlog-level = debug\n' >"$TMP/churn.conf"

########## A: N foreign veth pairs while s0 is managed
ip link add s0 type veth peer name p0
daemon_start "$TMP/fx" "$TMP/churn.conf"
wait_for 10 feature_is s0 tcp-segmentation-offload off && ok || fail "A: s0 tuned at start"
wait_for 10 said_at_least 1 's0: applying.' && ok || fail "A: no debug line for the start-up apply"
applies=$(said 's0: applying.')
rescans=$(said 'Rescanning PCI devices.')

for ((i = 0; i < N; i++)); do echo "link add f$i type veth peer name g$i"; done >"$TMP/add"
ip -batch "$TMP/add"
udevadm settle -t 60 || true
for ((i = 0; i < N; i += 50)); do echo "link set f$i up"; done >"$TMP/up"
ip -batch "$TMP/up"
for ((i = 0; i < N; i++)); do echo "link del f$i"; done >"$TMP/del"
ip -batch "$TMP/del"
udevadm settle -t 60 || true
# A marker that the daemon has worked through everything queued before it: s0 coming up is
# acted on (a re-apply), after every foreign event.
ip link set s0 up
wait_for 10 said_at_least 1 's0: up; re-applying.' && ok || fail "A: s0 up not seen"
eq "A: no rescan for foreign interfaces" "$rescans" "$(said 'Rescanning PCI devices.')"
eq "A: s0 applied only for its own up" $((applies + 1)) "$(said 's0: applying.')"
eq "A: no lost notification" 0 "$(said 'notifications were lost')"
eq "A: nothing re-applied wholesale" 0 "$(said 're-applying every NIC')"
kill -0 "$DPID" && ok || fail "A: daemon alive"
daemon_stop
eq "A: SIGTERM exit 0" 0 "$DRC"

########## B: lost link notifications, resynchronised by a dump
ip link set s0 down
daemon_start "$TMP/fx" "$TMP/churn.conf" R8T_TEST_NETLINK_RCVBUF=4096
wait_for 10 feature_is s0 tcp-segmentation-offload off && ok || fail "B: s0 tuned at start"
wait_for 10 said_at_least 1 'Started:' || fail "B: no start-up message"
applies=$(said 's0: applying.')
applies1=$(said 's1: applying.') # at start-up too, waiting for its interface
kill -STOP "$DPID"
for ((i = 0; i < 200; i++)); do
        echo "link add f$i type veth peer name g$i"
        ((i == 100)) && echo "link add s1 type veth peer name p1"
done >"$TMP/addb"
ip -batch "$TMP/addb"
kill -CONT "$DPID"
wait_for 10 feature_is s1 tcp-segmentation-offload off && ok || fail "B: s1 (appeared while notifications were lost) tuned"
wait_for 10 said_at_least 1 'Resynchronised from a dump of the links' && ok || fail "B: no resynchronisation"
eq "B: the loss was noticed" 1 "$(said 'Link notifications were lost')"
contains "B: the dump found only s1 to apply" "1 NIC applied, 0 interfaces gone" \
        "$(journalctl -D "$JOURNAL_DIR" -o cat _PID="$DPID" --no-pager | grep 'Resynchronised' | head -1)"
eq "B: s1 applied once more" $((applies1 + 1)) "$(said 's1: applying.')"
eq "B: s0 not re-applied" "$applies" "$(said 's0: applying.')"
eq "B: nothing re-applied wholesale" 0 "$(said 're-applying every NIC')"
# And the resynchronised state holds: s1 deleted and re-created is applied again.
ip link del s1
ip link add s1 type veth peer name p1
wait_for 10 said_at_least $((applies1 + 2)) 's1: applying.' && ok || fail "B: s1 re-created, not applied"
daemon_stop
eq "B: SIGTERM exit 0" 0 "$DRC"

########## C: udevd's add before the kernel's RTM_NEWLINK, the interface not there yet
# udevd passes a uevent on before ethtool can find the interface by name (a burst shows it);
# the apply it queues then finds no interface. The kernel's RTM_NEWLINK for the same ifindex
# must still be taken as the interface appearing, and acted on.
ip link del s1
daemon_start "$TMP/fx" "$TMP/churn.conf"
wait_for 10 said_at_least 1 'Started:' || fail "C: no start-up message"
python3 "$SRCDIR/tests/integration/uevent-inject.py" add /devices/pci0000:00/0000:02:00.0/net/s1 net \
        INTERFACE=s1 IFINDEX=4242 && ok || fail "C: uevent not injected"
wait_for 10 said_at_least 1 'udev: s1 added' && ok || fail "C: udevd's add not seen"
ip link add s1 index 4242 type veth peer name p1
wait_for 10 feature_is s1 tcp-segmentation-offload off && ok || fail "C: s1 not tuned after its RTM_NEWLINK"
wait_for 10 said_at_least 1 's1: appeared (ifindex 4242); applying.' && ok || fail "C: RTM_NEWLINK not acted on"
daemon_stop
eq "C: SIGTERM exit 0" 0 "$DRC"

########## D: a NIC a rescan finds, its interface there before it was ours
# rtnetlink told of s2 while it belonged to no NIC (one lookup, dropped); the NIC then
# appears (a PCI add, a rescan). Nothing said s2 is absent: it is applied by name.
{
        echo "[machine]"; echo "power = none"
        for i in 0 1 2; do
                printf '[device 0000:%02x:00.0]\nvendor = 10ec\ndevice = 8168\nsubsystem = 1043:82c6\n' $((1 + i))
                printf 'driver = r8169\ninterface = s%d\nmac = 02:00:00:00:00:%02x\ntxconfig = 3c400000\n' $i $i
        done
} >"$TMP/churn3.fixture"
"$SRCDIR/tests/fixtures/mkfixture" "$TMP/churn3.fixture" "$TMP/fx3"
daemon_start "$TMP/fx" "$TMP/churn.conf"
wait_for 10 said_at_least 1 'Started:' || fail "D: no start-up message"
rescans=$(said 'Rescanning PCI devices.')
ip link add s2 type veth peer name p2
ip link set s0 up # a marker: once s0's up is acted on, s2's RTM_NEWLINK before it was too
wait_for 10 said_at_least 1 's0: up; re-applying.' && ok || fail "D: s0 up not seen"
eq "D: s2 not touched while it is nobody's" on "$(ethtool -k s2 | awk '$1 == "tcp-segmentation-offload:" {print $2}')"
cp -a "$TMP/fx3/sys/devices/pci0000:00/0000:03:00.0" "$TMP/fx/sys/devices/pci0000:00/"
cp -a "$TMP/fx3/sys/bus/pci/devices/0000:03:00.0" "$TMP/fx/sys/bus/pci/devices/"
cp -a "$TMP/fx3/sys/class/net/s2" "$TMP/fx/sys/class/net/"
python3 "$SRCDIR/tests/integration/uevent-inject.py" add /devices/pci0000:00/0000:03:00.0 pci && ok ||
        fail "D: uevent not injected"
wait_for 10 said_at_least $((rescans + 1)) 'Rescanning PCI devices.' && ok || fail "D: no rescan for the PCI add"
wait_for 10 feature_is s2 tcp-segmentation-offload off && ok || fail "D: s2 (found by the rescan) not tuned"
daemon_stop
eq "D: SIGTERM exit 0" 0 "$DRC"
finish
