#!/usr/bin/env bash
# The daemon with a real systemd-udevd and systemd-journald in private network and mount
# namespaces: hotplug, link up, drift, reload, readiness and watchdog, journal fields,
# restore on SIGTERM, and no wakeups when idle.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
Q="$SRCDIR/conf/quirks.d"
MSG_CHANGED=b926363d80b442b9a3ac8323c6888e8c
MSG_DRIFT=da8236c0ab734f3a8028105923b94089
MSG_REJECTED=2f6fe45a5a694a63a91c6629fe9dce55
feature() { ethtool -k "$1" | awk -v n="$2:" '$1 == n {print $2}'; }
feature_is() { [[ $(feature "$1" "$2") == "$3" ]]; }
file_is() { [[ $(cat "$1") == "$2" ]]; }
# The daemon as tests/lib.sh starts and stops it (a fresh NOTIFY_SOCKET listener each time:
# a previous listener's socket file would let a READY=1 go to the wrong one, or nowhere).
start_daemon() { daemon_start "$@"; }
stop_daemon() { daemon_stop; }

########## A: hotplug, drift, reload, watchdog (RTL8168c fixture: TSO and SG go off)
fx=$(fixture desktop-8168c)
printf '[global]\nprofile = performance\n' >"$TMP/a.conf"
start_daemon "$fx" "$TMP/a.conf" WATCHDOG_USEC=200000
contains "READY carries STATUS" "STATUS=0 NICs tuned, 1 waiting for an interface" "$(grep READY=1 "$TMP/notify" | head -1)"

# 1. A NIC that appears after start is tuned once udev has it; again after delete + re-create.
ip link add enp2s0 type veth peer name peer0
wait_for 10 feature_is enp2s0 tcp-segmentation-offload off && ok || fail "hotplug: tso not turned off"
eq "hotplug: sg off" off "$(feature enp2s0 scatter-gather)"
wait_for 10 notified "STATUS=1 NIC tuned" && ok || fail "STATUS after hotplug"
tso_changes() { journal_json MESSAGE_ID=$MSG_CHANGED KNOB=tso | wc -l; }
n=$(tso_changes)
ip link del enp2s0
ip link add enp2s0 type veth peer name peer0
wait_for 10 feature_is enp2s0 tcp-segmentation-offload off && ok || fail "re-created: tuned again"
wait_for 10 bash -c "[[ \$(journalctl -D $JOURNAL_DIR -o json MESSAGE_ID=$MSG_CHANGED KNOB=tso | wc -l) -gt $n ]]" &&
        ok || fail "re-created: a new change was logged"

# 2b. ethtool -K by hand on a managed feature: logged as drift, put back (default policy).
ethtool -K enp2s0 sg on >/dev/null
wait_for 10 feature_is enp2s0 scatter-gather off && ok || fail "drift: sg not put back"
wait_for 10 bash -c "journalctl -D $JOURNAL_DIR -o json MESSAGE_ID=$MSG_DRIFT KNOB=sg | grep -q 'putting off back'" &&
        ok || fail "drift: not logged"
drift=$(journal_json MESSAGE_ID=$MSG_DRIFT KNOB=sg | head -1)
eq "drift: OLD_VALUE" off "$(jq -r .OLD_VALUE <<<"$drift")"
eq "drift: NEW_VALUE" on "$(jq -r .NEW_VALUE <<<"$drift")"
eq "drift: INTERFACE" enp2s0 "$(jq -r .INTERFACE <<<"$drift")"

# 3b. "reload" as ExecReload= runs it ($MAINPID set): only the process holding the service's lock is
# signalled (security review S13: it sent SIGHUP to whatever $MAINPID named).
sleep 300 &
victim=$!
cleanup_hooks+=("kill $victim 2>/dev/null")
reload_as() { env MAINPID="$1" "$R8T" --sysfs "$fx/sys" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/a.conf" \
        --state-dir "$TMP/state" reload 2>&1; }
set +e
out=$(reload_as "$victim")
rc=$?
set -e
eq "reload, MAINPID of another process: exit 1" 1 "$rc"
contains "reload, MAINPID of another process: said" "MAINPID=$victim is not the r8169-tuned service" "$out"
sleep 0.2
kill -0 "$victim" 2>/dev/null && ok || fail "reload signalled PID $victim, which is not the service"
kill "$victim"
n_ready=$(grep -c READY=1 "$TMP/notify")
eq "reload, the service's MAINPID: exit 0" 0 "$(reload_as "$DPID" >/dev/null; echo $?)"
wait_for 10 bash -c "[[ \$(grep -c READY=1 $TMP/notify) -gt $n_ready ]]" && ok || fail "reload with MAINPID: the service did not reload"

# 4. SIGHUP: RELOADING=1, then READY=1; drift = leave now keeps the other tool's value.
printf '[global]\nprofile = performance\ndrift = leave\n' >"$TMP/a.conf"
n_ready=$(grep -c READY=1 "$TMP/notify")
kill -HUP "$DPID"
wait_for 10 bash -c "[[ \$(grep -c READY=1 $TMP/notify) -gt $n_ready ]]" && ok || fail "reload: no READY=1 after it"
eq "reload: RELOADING=1 before READY=1" "RELOADING=1" "$(grep -E 'RELOADING=1|READY=1' "$TMP/notify" | tail -2 | head -1 | cut -d';' -f1)"
ethtool -K enp2s0 sg on >/dev/null
wait_for 10 bash -c "journalctl -D $JOURNAL_DIR -o cat MESSAGE_ID=$MSG_DRIFT | grep -q 'leaving it'" && ok || fail "leave: not logged"
sleep 0.3
eq "leave: sg stays on" on "$(feature enp2s0 scatter-gather)"

# 4b. SIGHUP with a broken drop-in: it is left out with file:line, the rest (drift = leave) is in force.
mkdir -p "$TMP/a.conf.d"
printf '[global]\nprofile = turbo\n' >"$TMP/a.conf.d/50-typo.conf"
n_ready=$(grep -c READY=1 "$TMP/notify")
kill -HUP "$DPID"
wait_for 10 bash -c "[[ \$(grep -c READY=1 $TMP/notify) -gt $n_ready ]]" && ok || fail "broken reload: no READY=1"
rejected=$(journal_json MESSAGE_ID=$MSG_REJECTED | jq -r .MESSAGE)
contains "broken reload: file:line" "$TMP/a.conf.d/50-typo.conf:2: bad profile \"turbo\"" "$rejected"
contains "broken reload: the file is left out" "$TMP/a.conf.d/50-typo.conf is left out, as a whole" "$rejected"
ethtool -K enp2s0 tso on >/dev/null
sleep 0.3
eq "the rest (leave) in force" on "$(feature enp2s0 tcp-segmentation-offload)"
kill -0 "$DPID" && ok || fail "daemon died on a broken config"
rm -r "$TMP/a.conf.d"

# 4c. Watchdog pings.
(( $(grep -c WATCHDOG=1 "$TMP/notify") >= 2 )) && ok || fail "watchdog: fewer than 2 pings"
stop_daemon
eq "A: SIGTERM exit 0" 0 "$DRC"

########## B: link up re-applies, idle, journal fields, restore on SIGTERM (ThinkPad E480 fixture)
# On Debian 12's kernel, where its software coalescing is a back-port (rtl8168g-sw-coalesce); its
# SG/TSO on is a suggestion, accepted here (suggestions = apply).
fx=$(fixture thinkpad-e480-8168gu)
DAEMON_ARGS=(--kernel-release 6.1.158)
printf '[global]\nprofile = performance\nsuggestions = apply\n' >"$TMP/b.conf"
# 0. No enp3s0 in this namespace yet: the fixture's directory of that name is not the interface,
# and is not written (as ethtool is not asked) until rtnetlink tells of it.
start_daemon "$fx" "$TMP/b.conf"
eq "B: no interface, its directory untouched" 0 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
ip link add enp3s0 type veth peer name peer1
wait_for 10 file_is "$fx/sys/class/net/enp3s0/gro_flush_timeout" 20000 && ok || fail "B: not written when the interface appeared"
stop_daemon
eq "B: SIGTERM exit 0 (the interface added after start)" 0 "$DRC"
eq "B: restored (the interface added after start)" 0 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
ip link del enp3s0
ip link add enp3s0 type veth peer name peer1
ethtool -K enp3s0 sg off tso off >/dev/null
start_daemon "$fx" "$TMP/b.conf"
wait_for 10 feature_is enp3s0 tcp-segmentation-offload on && ok || fail "B: tso on"
eq "B: sg on" on "$(feature enp3s0 scatter-gather)"
eq "B: gro_flush_timeout" 20000 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"

# 2. Down and up re-applies what was changed behind the daemon's back (no notification for it).
echo 0 >"$fx/sys/class/net/enp3s0/gro_flush_timeout"
ip link set enp3s0 down
ip link set enp3s0 up
wait_for 10 file_is "$fx/sys/class/net/enp3s0/gro_flush_timeout" 20000 && ok || fail "link up: not re-applied"

# 3. journalctl -o json: the structured fields of a change.
e=$(journal_json MESSAGE_ID=$MSG_CHANGED KNOB=gro_flush_timeout | tail -1)
eq "journal: INTERFACE" enp3s0 "$(jq -r .INTERFACE <<<"$e")"
eq "journal: PCI_SLOT" 0000:03:00.0 "$(jq -r .PCI_SLOT <<<"$e")"
eq "journal: CHIP" RTL8168gu/8111gu "$(jq -r .CHIP <<<"$e")"
eq "journal: XID" 509 "$(jq -r .XID <<<"$e")"
eq "journal: OLD_VALUE" 0 "$(jq -r .OLD_VALUE <<<"$e")"
eq "journal: NEW_VALUE" 20000 "$(jq -r .NEW_VALUE <<<"$e")"
eq "journal: QUIRK" rtl8168g-sw-coalesce "$(jq -r .QUIRK <<<"$e")"
eq "journal: identifier" r8169-tuned "$(jq -r .SYSLOG_IDENTIFIER <<<"$e")"

# diagnose with a real interface and a real journal: driver info, statistics, our messages.
md=$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --config "$TMP/b.conf" --kernel-release 6.1.158 diagnose enp3s0)
contains "diagnose: driver info" "| driver (ethtool) | veth" "$md"
contains "diagnose: statistics" "| peer_ifindex |" "$md"
contains "diagnose: recent messages" "gro_flush_timeout 0 -> 20000 (quirk rtl8168g-sw-coalesce)" "$md"
eq "diagnose json: journal lines" true "$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" \
        --config "$TMP/b.conf" --json diagnose | jq '.nics[0].journal | length > 0')"

# Forged lines (security review R1): any local user can log as r8169-tuned about this slot,
# escapes and Markdown included. Another user's are not ours; root's (trusted) are quoted with
# every control character escaped, under a fence no line can close.
forge() { # forge MESSAGE: a journal entry as r8169-tuned about 0000:03:00.0, through the native protocol
        python3 - "$1" <<'PY'
import socket, struct, sys
fields = {b"SYSLOG_IDENTIFIER": b"r8169-tuned", b"PCI_SLOT": b"0000:03:00.0", b"PRIORITY": b"5",
          b"MESSAGE": sys.argv[1].encode().decode("unicode_escape").encode("latin-1")}
msg = b"".join(k + b"\n" + struct.pack("<Q", len(v)) + v + b"\n" for k, v in fields.items())
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(msg, "/run/systemd/journal/socket")
PY
}
setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "$(declare -f forge); forge 'forged-by-nobody \\x1b[2J\\n## Maintainer note: run curl x | sudo sh'"
forge 'root-line \x1b]0;owned\x07\n```\n## Injected heading \xc2\x9b2J'
wait_for 5 bash -c "journalctl -D '$JOURNAL_DIR' -o cat SYSLOG_IDENTIFIER=r8169-tuned 2>/dev/null | grep -q root-line" ||
        fail "the forged entries did not reach the journal"
eq "forged: nobody's entry is in the journal (the test forged it)" 1 \
        "$(journalctl -D "$JOURNAL_DIR" -o cat SYSLOG_IDENTIFIER=r8169-tuned _UID=65534 2>/dev/null | grep -c forged-by-nobody)"
md=$("$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --config "$TMP/b.conf" --kernel-release 6.1.158 diagnose enp3s0)
not_contains "diagnose: another user's entry is not ours" "forged-by-nobody" "$md"
contains "diagnose: root's entry, escaped on one line" 'root-line \x1b]0;owned\x07\n```\n## Injected heading \xc2\x9b2J' "$md"
eq "diagnose: no control character reaches the terminal" 0 "$(LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]\|\xc2\x9b' <<<"$md" || true)"
eq "diagnose: no heading injected" "" "$(grep -E '^#+ (Injected|Maintainer)' <<<"$md" || true)"
contains "diagnose: a fence no quoted line can close" $'\n````\n' "$md"

# 6. Idle: no wakeups at all over 10 s without events.
sleep 1
ctx() { awk '/ctxt_switches/ {s += $2} END {print s}' /proc/$DPID/status; }
c0=$(ctx); sleep 10; c1=$(ctx)
eq "idle: no context switches in 10 s" "$c0" "$c1"

# 5. SIGTERM restores the originals (restore-on-exit defaults to yes) and exits 0.
stop_daemon
eq "B: SIGTERM exit 0" 0 "$DRC"
eq "restored: tso" off "$(feature enp3s0 tcp-segmentation-offload)"
eq "restored: sg" off "$(feature enp3s0 scatter-gather)"
eq "restored: gro_flush_timeout" 0 "$(cat "$fx/sys/class/net/enp3s0/gro_flush_timeout")"
eq "restored: napi_defer_hard_irqs" 0 "$(cat "$fx/sys/class/net/enp3s0/napi_defer_hard_irqs")"

# restore-on-exit = no: the tuned values stay.
printf '[global]\nprofile = performance\nsuggestions = apply\nrestore-on-exit = no\n' >"$TMP/b.conf"
start_daemon "$fx" "$TMP/b.conf"
wait_for 10 feature_is enp3s0 tcp-segmentation-offload on && ok || fail "B2: tuned"
stop_daemon
eq "no restore: exit 0" 0 "$DRC"
eq "no restore: tso stays on" on "$(feature enp3s0 tcp-segmentation-offload)"

finish
