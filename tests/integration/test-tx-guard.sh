#!/usr/bin/env bash
# The tx-timeout guard, under the running daemon (real udevd, journald, a veth): when the
# NIC's tx watchdog fires and the link comes back after the driver's reset, L1 goes off for
# that link and nothing turns it on again (a reload asking for it, another link bounce, the
# CLI); the journal says why once, with its own MESSAGE_ID. On a kernel that already turned
# L1 off itself (6.3+), r8169-tuned only refuses to turn it back on.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
MSG_GUARD=$(sed -n 's/^#define R8T_MESSAGE_TX_TIMEOUT_GUARD *"\(.*\)"$/\1/p' "$SRCDIR/include/base/messages.h")
link() { cat "$fx/sys/bus/pci/devices/0000:01:00.0/link/$1"; }
link_is() { [[ $(link "$1") == "$2" ]]; }
guard_entries() { journal_json MESSAGE_ID="$MSG_GUARD" | wc -l; }
guard_entries_are() { [[ $(guard_entries) == "$1" ]]; }
ready_count_is_at_least() { [[ $(grep -c READY=1 "$TMP/notify") -ge $1 ]]; }
bounce() { ip link set enp1s0 down; ip link set enp1s0 up; }

# The Lenovo RTL8168h of seeds/000 (L1 and L1.1 on), with a configuration that wants L1 on.
fx=$(fixture lenovo-8168h)
printf '[global]\nprofile = performance\n[device lenovo]\nmatch-slot = 0000:01:00.0\nl1_aspm = 1\nl1_1_aspm = 1\n' >"$TMP/l1.conf"
ip link add enp1s0 type veth peer name peer0
ip link set peer0 up
ip link set enp1s0 up
daemon_start "$fx" "$TMP/l1.conf"
eq "before: L1 on" 1 "$(link l1_aspm)"
eq "before: no guard" 0 "$(journal_json MESSAGE_ID="$MSG_GUARD" | wc -l)"

# The watchdog fires; this kernel has no guard of its own (L1 stays on); the driver resets
# the NIC and the link comes back.
echo 1 >"$fx/sys/class/net/enp1s0/queues/tx-0/tx_timeout"
bounce
wait_for 10 link_is l1_aspm 0 && ok || fail "after the timeout: L1 off"
eq "after the timeout: L0s off" 0 "$(link l0s_aspm)"
wait_for 5 guard_entries_are 1 && ok || fail "guard: one journal entry"
entry=$(journal_json MESSAGE_ID="$MSG_GUARD" | head -1)
eq "guard: INTERFACE field" enp1s0 "$(jq -r .INTERFACE <<<"$entry")"
eq "guard: PCI_SLOT field" 0000:01:00.0 "$(jq -r .PCI_SLOT <<<"$entry")"
contains "guard: says why" "had 1 tx timeout: L1 stays off for this link until reboot" "$(jq -r .MESSAGE <<<"$entry")"
eq "guard: the L1 write names the guard" tx-timeout \
        "$(journal_json KNOB=l1_aspm | jq -r 'select(.NEW_VALUE == "0") | .GUARD' | tail -1)"

# Nothing turns it on again: a reload asking for it, another bounce, the counter read as 0
# after a driver reload (the guard is recorded for this boot), the CLI's plan.
kill -HUP "$DPID"
wait_for 10 ready_count_is_at_least 2 && ok || fail "reload done"
bounce
echo 0 >"$fx/sys/class/net/enp1s0/queues/tx-0/tx_timeout"
bounce
sleep 0.5
eq "reload and bounces: L1 still off" 0 "$(link l1_aspm)"
eq "reload and bounces: L1.1 still off" 0 "$(link l1_1_aspm)"
eq "said once" 1 "$(journal_json MESSAGE_ID="$MSG_GUARD" | wc -l)"
plan=$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/l1.conf" \
        --state-dir "$TMP/state" --json plan)
eq "plan: guard on" true "$(jq -r '.nics[0].tx_timeout_guard' <<<"$plan")"
eq "plan: what it holds off" "l1_1_aspm l1_aspm" "$(jq -r '[.nics[0].guarded[].knob] | sort | join(" ")' <<<"$plan")"
eq "plan: nothing turns L1 on" 0 "$(jq '[.nics[0].items[] | select(.knob | test("^l1")) | select(.desired == true)] | length' <<<"$plan")"
text=$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/l1.conf" \
        --state-dir "$TMP/state" plan)
eq "plan text: the guard said once" 1 "$(grep -c 'tx-timeout guard:' <<<"$text")"
eq "plan text: each guarded knob once" 2 "$(grep -c '^  guarded ' <<<"$text")"
status=$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --state-dir "$TMP/state" --json status)
eq "status: guard shown" true "$(jq -r '.nics[0].tx_timeout_guard' <<<"$status")"
daemon_stop
eq "daemon: stop exit" 0 "$DRC"
eq "stop: the restore leaves L1 off" 0 "$(link l1_aspm)"
eq "stop: and L1.1" 0 "$(link l1_1_aspm)"
contains "stop: says why" "this link had a tx timeout" "$(journal_json MESSAGE_ID=9b5ea075c6c344209cf5822d7ca1d18c | jq -r .MESSAGE)"

# A kernel with its own guard (6.3+) already turned L0s/L1 off: nothing is written, and
# the configuration's L1 is not turned back on.
fx2="$TMP/fx2"; cp -a "$fx" "$fx2"; rm -rf "$TMP/state"
echo 3 >"$fx2/sys/class/net/enp1s0/queues/tx-0/tx_timeout"
for k in l0s_aspm l1_aspm l1_1_aspm l1_2_aspm; do echo 0 >"$fx2/sys/bus/pci/devices/0000:01:00.0/link/$k"; done
set +e
out=$("$R8T" --sysfs "$fx2/sys" --kernel-log "$fx2/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/l1.conf" \
        --state-dir "$TMP/state" --log-target stderr apply 2>&1)
set -e
eq "kernel guard: L1 left off" 0 "$(cat "$fx2/sys/bus/pci/devices/0000:01:00.0/link/l1_aspm")"
not_contains "kernel guard: no link write" "aspm 0 -> 1" "$out"
contains "kernel guard: says so once" "had 3 tx timeouts" "$out"
finish
