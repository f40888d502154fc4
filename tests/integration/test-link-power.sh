#!/usr/bin/env bash
# Dynamic link power under the running daemon (real udevd and journald): a fixture NIC on a
# real veth whose peer lives in a network namespace of its own, real traffic across the pair.
# Woken by the kernel (a packet socket), L1 goes off a window after the traffic starts,
# substates first (L1.2 too: the kernel masks it with L1); back on only after the quiet
# time, L1 first, L1.2 as it was; nothing at info per transition; no wakeups at all while the
# link is quiet, down or without carrier; a stray frame wakes it once and changes nothing, a
# broadcast not even that; a hand-written attribute stops it before the next write, said
# once; a tx timeout stops it at once and for good; where a quirk marks the chip static it
# does not run unless a [device] section asks.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
MSG_CHANGED=$(sed -n 's/^#define R8T_MESSAGE_KNOB_CHANGED *"\(.*\)"$/\1/p' "$SRCDIR/include/base/messages.h")
fx=$(fixture lenovo-8168h)
L="$fx/sys/bus/pci/devices/0000:01:00.0/link"
link() { cat "$L/$1"; }
link_is() { [[ $(link "$1") == "$2" ]]; }
lp_writes() { # KNOB=NEW_VALUE of every link power write, in order
        journal_json MESSAGE_ID="$MSG_CHANGED" LINK_POWER=dynamic | jq -r '"\(.KNOB)=\(.NEW_VALUE)"' | tr '\n' ' ' | sed 's/ $//'
}
said() { journal_json _PID="$DPID" | jq -r .MESSAGE | grep -c -F "$1" || true; }
said_at_least() { [[ $(said "$2") -ge $1 ]]; }
ready_at_least() { [[ $(grep -c READY=1 "$TMP/notify") -ge $1 ]]; }
ctxt() { awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$DPID/status"; }
# The CLI beside the daemon: same fixture, configuration, quirks and state.
cli() { "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/lp.conf" \
        --kernel-release 6.18 --state-dir "$TMP/state" "$@"; }
status_json() { cli --json status; }
# $1 UDP datagrams to the peer ($3, default: 192.0.2.2) every $2 s (default 0.005: 200 a
# second): bounded, and only ever to our own peer or our own link's broadcast.
traffic() {
        python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for i in range(int(sys.argv[1])):
    s.sendto(b"r8169-tuned link power test", (sys.argv[3], 9))
    time.sleep(float(sys.argv[2]))' "$1" "${2:-0.005}" "${3:-192.0.2.2}"
}
lp_json() { status_json | jq -r ".nics[0].link_power.$1"; }

# The peer: a namespace with no process in it, gone with the sandbox's mount namespace.
ip netns add r8t-peer
ip link add enp1s0 type veth peer name peer0 netns r8t-peer
ip -n r8t-peer addr add 192.0.2.2/24 dev peer0
ip -n r8t-peer link set peer0 up
ip addr add 192.0.2.1/24 dev enp1s0
ip link set enp1s0 up
# L1.2 on, as a BIOS may leave it; powersave: no quirk of this database decides L1.2 there.
echo 1 >"$L/l1_2_aspm"

# [global] alone: the rtl8168h-l1-static quirk keeps this chip static.
printf '[global]\nprofile = powersave\nlink-power = dynamic\nlink-power-quiet = 2\n' >"$TMP/global.conf"
plan=$(r8t "$fx" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/global.conf" --kernel-release 6.18 --json plan)
eq "global: does not run" false "$(jq -r '.nics[0].link_power.runs' <<<"$plan")"
eq "global: the quirk" rtl8168h-l1-static "$(jq -r '.nics[0].link_power.quirk' <<<"$plan")"
# A [device] section naming this board asks for it: it runs.
printf '[device here]\nmatch-slot = 0000:01:00.0\nlink-power = dynamic\n' | cat "$TMP/global.conf" - >"$TMP/lp.conf"
plan=$(r8t "$fx" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/lp.conf" --kernel-release 6.18 --json plan)
eq "device: runs" true "$(jq -r '.nics[0].link_power.runs' <<<"$plan")"
eq "device: from its line" 7 "$(jq -r '.nics[0].link_power.line' <<<"$plan")"
eq "plan (CLI): L1 not planned" "" "$(jq -r '.nics[0].items[] | select(.knob | startswith("l1")) | .knob' <<<"$plan")"

DAEMON_ARGS=(--kernel-release 6.18 --log-level debug)
daemon_start "$fx" "$TMP/lp.conf"
eq "idle: L1 on" 1 "$(link l1_aspm)"
eq "idle: L1.1 on" 1 "$(link l1_1_aspm)"
eq "idle: L1.2 as found" 1 "$(link l1_2_aspm)"

# Quiet, link up: the daemon sleeps (no timer, no counter read: no wakeup at all).
sleep 1
before=$(ctxt); sleep 3; after=$(ctxt)
((after - before <= 1)) && ok || fail "link up, quiet: $((after - before)) wakeups in 3 s"
# Broadcast chatter does not even wake it (the filter drops it in the kernel).
traffic 20 0.1 192.0.2.255
before=$(ctxt); traffic 20 0.1 192.0.2.255; after=$(ctxt)
((after - before <= 1)) && ok || fail "broadcast: $((after - before)) wakeups for 20 frames"
# A unicast frame now and then wakes it for one window each, and changes nothing.
traffic 4 0.5
sleep 0.3
eq "stray frames: L1 stays on" 1 "$(link l1_aspm)"
eq "stray frames: no transition" 0 "$(lp_json transitions)"
s=$(lp_json stray_wakeups)
((s >= 3 && s <= 5)) && ok || fail "stray frames: $s stray wakeups for 4 frames (and their ARP)"
# Stray windows in a row grow (to 800 ms); 2 s of calm make the next one short again.
sleep 2.5

# Traffic: L1 off a window (50 ms) after the first packet, plus the apply.
start=$(date +%s%N)
traffic 600 &
tpid=$!
wait_for 5 link_is l1_aspm 0 && ok || fail "busy: L1 off"
reaction_ms=$((($(date +%s%N) - start) / 1000000))
((reaction_ms <= 1000)) && ok || fail "busy: reaction ${reaction_ms} ms"
eq "busy: L1.1 off" 0 "$(link l1_1_aspm)"
eq "busy: L1.2 off" 0 "$(link l1_2_aspm)"
eq "busy: PCI-PM L1.1 off" 0 "$(link l1_1_pcipm)"
wait $tpid
# Quiet: back on only after the quiet time (2 s here), not at once.
sleep 1
eq "quiet 1 s: still off" 0 "$(link l1_aspm)"
wait_for 6 link_is l1_aspm 1 && ok || fail "quiet: L1 back on"
eq "quiet: L1.1 back on" 1 "$(link l1_1_aspm)"
eq "quiet: L1.2 back as found" 1 "$(link l1_2_aspm)"
eq "quiet: PCI-PM L1.1 back as found" 1 "$(link l1_1_pcipm)"
eq "quiet: PCI-PM L1.2 stays as found" 0 "$(link l1_2_pcipm)"
eq "write order: substates off first, L1 on first" \
        "l1_2_aspm=0 l1_1_pcipm=0 l1_1_aspm=0 l1_aspm=0 l1_aspm=1 l1_1_aspm=1 l1_1_pcipm=1 l1_2_aspm=1" "$(lp_writes)"
st=$(status_json)
eq "status: the state" idle "$(jq -r '.nics[0].link_power.state' <<<"$st")"
eq "status: the transitions" 2 "$(jq -r '.nics[0].link_power.transitions' <<<"$st")"
# The configured quiet time (2) as printed. JSON: a number in its shortest form, checked in the
# text the tool wrote, not as a JSON reader renders it (jq 1.6 on Debian 12 re-renders numbers,
# jq 1.7 on 13 keeps the literal: "2.000" read as 2 on one and 2.000 on the other). Text: one
# decimal, "quiet time 2.0 s".
contains "status --json: the quiet time (configured) as JSON's shortest form" '"quiet_seconds":2,' "$st"
eq "status --json: the quiet time, a number" number "$(jq -r '.nics[0].link_power.quiet_seconds | type' <<<"$st")"
st_text=$(cli status)
contains "status text" "link power: dynamic, idle (L1 on)" "$st_text"
contains "status text: the quiet time (configured), one decimal" "; quiet time 2.0 s;" "$st_text"
# The same in diagnose and metrics, and every JSON as the schema says.
cli --json diagnose >"$TMP/diagnose.json"
eq "diagnose: the state" idle "$(jq -r '.nics[0].link_power.state' "$TMP/diagnose.json")"
eq "diagnose: runs" true "$(jq -r '.nics[0].link_power_plan.runs' "$TMP/diagnose.json")"
status_json >"$TMP/status.json"
if python3 -c 'import jsonschema' 2>/dev/null; then
        for d in status diagnose; do
                out=$(python3 "$SRCDIR/tests/validate-json.py" "$SRCDIR/conf/r8169-tuned.schema.json" $d "$TMP/$d.json" 2>&1) &&
                        ok || fail "schema: $d: $out"
        done
fi
metrics=$(cli metrics)
contains "metrics: transitions" 'r8169_tuned_link_power_transitions_total{device="enp1s0",slot="0000:01:00.0"' "$metrics"
eq "metrics: L1 on" 1 "$(grep '^r8169_tuned_link_power_l1_on{' <<<"$metrics" | awk '{print $2}')"
if command -v promtool >/dev/null; then
        out=$(promtool check metrics <<<"$metrics" 2>&1) && ok || fail "promtool: $out"
fi
eq "transitions at info: none" 0 "$(journal_json MESSAGE_ID="$MSG_CHANGED" LINK_POWER=dynamic PRIORITY=6 | wc -l)"

# Link down: no samples, no wakeups.
ip link set enp1s0 down
sleep 1
before=$(ctxt); sleep 3; after=$(ctxt)
((after - before <= 1)) && ok || fail "link down: $((after - before)) wakeups in 3 s"
ip link set enp1s0 up
# Up without carrier (the other end gone, as an unplugged cable): no samples either. The
# kernel tells of carrier changes through linkwatch, up to a second later (and later still
# on a loaded machine): the window starts once it has (operstate down, the link still up).
ip -n r8t-peer link set peer0 down
wait_for 10 bash -c "ip -o link show enp1s0 | grep -q 'NO-CARRIER.*,UP>.* state DOWN'" || fail "no carrier: operstate never said so"
sleep 1
before=$(ctxt); sleep 3; after=$(ctxt)
((after - before <= 1)) && ok || fail "no carrier: $((after - before)) wakeups in 3 s"
ip -n r8t-peer link set peer0 up
sleep 1

# Someone writes L1 by hand while the link is quiet: nothing is read until the next
# decision, which finds it before any write; link power leaves it to them, said once.
echo 0 >"$L/l1_aspm"
traffic 400
wait_for 5 said_at_least 1 'link/l1_aspm was set to 0 outside r8169-tuned' && ok || fail "hand-written: said"
sleep 3
eq "hand-written: said once" 1 "$(said 'dynamic link power is off for this link')"
eq "hand-written: left as written" 0 "$(link l1_aspm)"
eq "hand-written: nothing more written" 8 "$(lp_writes | wc -w)"
eq "hand-written: status says stopped" stopped "$(status_json | jq -r '.nics[0].link_power.state')"

# A reload starts it again; a tx timeout then stops it at once and for good.
echo 1 >"$L/l1_aspm"
kill -HUP "$DPID"
wait_for 10 ready_at_least 2 && ok || fail "reload"
sleep 1
# Busy, then the link loses its carrier: L1 back on at once (no traffic without a link), not
# after the quiet time, and not left off while nothing is sampled.
traffic 300 &
tpid=$!
wait_for 5 link_is l1_aspm 0 && ok || fail "busy again after the reload"
ip -n r8t-peer link set peer0 down
wait_for 2 link_is l1_aspm 1 && ok || fail "carrier lost while busy: L1 back on"
wait $tpid || true
ip -n r8t-peer link set peer0 up
sleep 1
# As r8169 does since 6.3: the watchdog fires (under traffic), the driver turns L0s and L1 off itself.
echo 1 >"$fx/sys/class/net/enp1s0/queues/tx-0/tx_timeout"
echo 0 >"$L/l1_1_aspm"; echo 0 >"$L/l1_aspm"
traffic 100
wait_for 5 link_is l1_2_aspm 0 && ok || fail "tx timeout: the guard turns the rest of the L1 family off"
wait_for 5 said_at_least 1 'is off for this link: the link had a tx timeout' && ok || fail "tx timeout: said"
traffic 200
sleep 3
eq "tx timeout: L1 stays off after quiet" 0 "$(link l1_aspm)"
eq "tx timeout: not taken for a hand-written value" 1 "$(said 'was set to 0 outside r8169-tuned')"

daemon_stop
eq "stop: exit 0" 0 "$DRC"
eq "stop: no record left" "" "$(ls "$TMP/state" | grep linkpower || true)"

# Without CAP_NET_RAW (a unit that lacks it): no wake socket, said once with why, link power
# off for the link (stopped in status), and L1 applied as the plan without it says.
echo 0 >"$fx/sys/class/net/enp1s0/queues/tx-0/tx_timeout"
rm -rf "${TMP:?}/state"/* # this boot's tx-timeout guard with the rest: a NIC without one
R8T_WRAPPER="setpriv --bounding-set -net_raw --" daemon_start "$fx" "$TMP/lp.conf"
wait_for 5 said_at_least 1 'dynamic link power needs a packet socket, which the service may not open' && ok ||
        fail "no CAP_NET_RAW: said"
contains "no CAP_NET_RAW: what grants it" "/share/r8169-tuned/systemd/link-power.conf into /etc/systemd/system/r8169-tuned.service.d/" \
        "$(journal_json _PID="$DPID" | jq -r .MESSAGE | grep -F 'needs a packet socket')"
wait_for 5 said_at_least 1 'dynamic link power is off for this link: the service may not open a packet socket' && ok ||
        fail "no CAP_NET_RAW: stopped"
eq "no CAP_NET_RAW: said once" 1 "$(said 'needs a packet socket')"
eq "no CAP_NET_RAW: no attempt to open one" 0 "$(said 'cannot open a packet socket')"
eq "no CAP_NET_RAW: status says stopped" stopped "$(status_json | jq -r '.nics[0].link_power.state')"
daemon_stop
eq "no CAP_NET_RAW: exit 0" 0 "$DRC"
finish
