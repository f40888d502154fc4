#!/usr/bin/env bash
# A suggestion accepted, and its guard, under the running daemon (real udevd, journald, a veth
# whose features are the kernel's own): the shipped rtl8168g-sg-tso (confidence reported,
# guard = tx-timeout) is only shown until the configuration accepts suggestions; accepted, it
# turns SG and TSO on (ethtool -k says so); the NIC's tx watchdog fires, and the daemon takes
# the entry back (SG and TSO as they were found), says so with its own MESSAGE_ID, and
# remembers it for this board across a reboot; another board does not inherit it; restore
# forgets it.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
MSG=$(sed -n 's/^#define R8T_MESSAGE_QUIRK_GUARD *"\(.*\)"$/\1/p' "$SRCDIR/include/base/messages.h")
feature() { ethtool -k enp3s0 | sed -n "s/^$1: \([a-z]*\).*/\1/p"; }
feature_is() { [[ $(feature "$1") == "$2" ]]; }
entries() { journal_json MESSAGE_ID="$MSG" | wc -l; }
entries_are() { [[ $(entries) == "$1" ]]; }
bounce() { ip link set enp3s0 down; ip link set enp3s0 up; }
plan() { "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config "$1" \
        --state-dir "$TMP/state" --kernel-release 6.12.30 --json plan; }
DAEMON_ARGS=(--kernel-release 6.12.30)

# The ThinkPad E480 of seeds/003 (RTL8168gu, XID 509), SG and TSO off as r8169 leaves them.
fx=$(fixture thinkpad-e480-8168gu)
ip link add enp3s0 type veth peer name peer0
ip link set peer0 up
ip link set enp3s0 up
ethtool -K enp3s0 sg off tso off
printf '[global]\nprofile = performance\n' >"$TMP/show.conf"
printf '[global]\nprofile = performance\nsuggestions = apply\n' >"$TMP/apply.conf"

# Not accepted: shown, with the line that measures it, and nothing changes.
json=$(plan "$TMP/show.conf")
eq "shown: suggested" "sg=true tso=true" "$(jq -r '[.nics[0].suggested[] | "\(.knob)=\(.desired)"] | sort | join(" ")' <<<"$json")"
eq "shown: its tier and guard" "reported tx-timeout" "$(jq -r '.nics[0].suggested[0] | "\(.confidence) \(.guard)"' <<<"$json")"
eq "shown: the experiment line" "r8169-tuned experiment enp3s0 --server HOST --knob tso=on,sg=on" \
        "$(jq -r '.nics[0].suggested[0].experiment' <<<"$json")"
eq "shown: not among the items" 0 "$(jq '[.nics[0].items[] | select(.knob == "sg" or .knob == "tso")] | length' <<<"$json")"
daemon_start "$fx" "$TMP/show.conf"
sleep 0.5
eq "not accepted: TSO stays off" off "$(feature tcp-segmentation-offload)"
daemon_stop

# Accepted: applied as any entry, its tier in the plan.
json=$(plan "$TMP/apply.conf")
eq "accepted: planned" "sg=true tso=true" \
        "$(jq -r '[.nics[0].items[] | select(.quirk == "rtl8168g-sg-tso") | "\(.knob)=\(.desired)"] | sort | join(" ")' <<<"$json")"
eq "accepted: nothing left to suggest" 0 "$(jq '.nics[0].suggested | length' <<<"$json")"
eq "accepted: where it was said" "$TMP/apply.conf 3" "$(jq -r '.nics[0].suggestions | "\(.file) \(.line)"' <<<"$json")"
daemon_start "$fx" "$TMP/apply.conf"
wait_for 10 feature_is tcp-segmentation-offload on && ok || fail "accepted: TSO on"
eq "accepted: SG on" on "$(feature scatter-gather)"

# The watchdog fires and the link comes back: the entry is taken back, said once.
echo 1 >"$fx/sys/class/net/enp3s0/queues/tx-0/tx_timeout"
bounce
wait_for 10 feature_is tcp-segmentation-offload off && ok || fail "timed out: TSO back off"
eq "timed out: SG back off" off "$(feature scatter-gather)"
wait_for 5 entries_are 1 && ok || fail "timed out: one journal entry"
entry=$(journal_json MESSAGE_ID="$MSG" | head -1)
eq "journal: INTERFACE" enp3s0 "$(jq -r .INTERFACE <<<"$entry")"
contains "journal: what and where" "rtl8168g-sg-tso taken back, and not applied again on this board (LENOVO / 20KN001QGE)" \
        "$(jq -r .MESSAGE <<<"$entry")"
record="$TMP/state/0000:03:00.0-509.guard"
eq "remembered: the board" "board LENOVO / 20KN001QGE" "$(head -1 "$record")"
eq "remembered: the entry" "quirks rtl8168g-sg-tso" "$(sed -n 2p "$record")"
eq "remembered: readable by plan and status as any user" 644 "$(stat -c %a "$record")"
daemon_stop

# A reboot: the boot's own records are gone (tmpfs), the counter starts from 0; the board's stays.
rm -f "$TMP/state/"*.txguard "$TMP/state/"*.journal
echo 0 >"$fx/sys/class/net/enp3s0/queues/tx-0/tx_timeout"
json=$(plan "$TMP/apply.conf")
eq "after reboot: remembered" true "$(jq -r '.nics[0].guard_remembered' <<<"$json")"
eq "after reboot: withheld" "sg tso" "$(jq -r '[.nics[0].guarded[] | .knob] | sort | join(" ")' <<<"$json")"
eq "after reboot: withheld entry named" "rtl8168g-sg-tso tx-timeout" "$(jq -r '.nics[0].guarded[0] | "\(.quirk) \(.guard)"' <<<"$json")"
contains "after reboot: plan says why" "remembered from an earlier boot" \
        "$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/apply.conf" \
                --state-dir "$TMP/state" --kernel-release 6.12.30 plan | tr -s ' \n' '  ')"
daemon_start "$fx" "$TMP/apply.conf"
sleep 0.5
eq "after reboot: TSO stays off" off "$(feature tcp-segmentation-offload)"
daemon_stop

# The disk in another machine: another board does not inherit the record.
echo "20KN999XXX" >"$fx/sys/class/dmi/id/board_name"
eq "another board: applied" "sg=true tso=true" \
        "$(plan "$TMP/apply.conf" | jq -r '[.nics[0].items[] | select(.quirk == "rtl8168g-sg-tso") | "\(.knob)=\(.desired)"] | sort | join(" ")')"
echo "20KN001QGE" >"$fx/sys/class/dmi/id/board_name"

# restore forgets it (said in the journal), and the next plan applies the entry again.
set +e; out=$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --config "$TMP/apply.conf" --state-dir "$TMP/state" \
        --log-target journal restore 2>&1); rc=$?; set -e
eq "restore: exit" 0 "$rc"
[[ ! -e $record ]] && ok || fail "restore: the record is gone"
wait_for 5 entries_are 2 && ok || fail "restore: said"
contains "restore: forgotten" "forgotten" "$(journal_json MESSAGE_ID="$MSG" | tail -1 | jq -r .MESSAGE)"
eq "restore: applied again" false "$(plan "$TMP/apply.conf" | jq -r '.nics[0].guard_remembered')"
finish
