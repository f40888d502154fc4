#!/usr/bin/env bash
# Resume from suspend through logind's PrepareForSleep, on a private D-Bus system bus with
# a stand-in that owns org.freedesktop.login1 (real udevd and journald, as test-daemon):
# what a resume undoes is re-applied after PrepareForSleep(false), and only then; a signal
# from anyone but the name's owner is not taken for a resume; logind restarting is nothing
# to the daemon; the bus going away costs it nothing; without a bus it says so once.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
command -v dbus-daemon >/dev/null || { echo "SKIP: dbus-daemon missing"; exit 77; }
: "${LOGIN1_STANDIN:?LOGIN1_STANDIN must name the login1-standin helper}"
feature() { ethtool -k "$1" | awk -v n="$2:" '$1 == n {print $2}'; }
feature_is() { [[ $(feature "$1" "$2") == "$3" ]]; }
file_is() { [[ $(cat "$1") == "$2" ]]; }
resumed_logged() { journal_json _PID="$DPID" | jq -r .MESSAGE | grep -c '^Resumed from suspend' || true; }

# The private system bus, on a socket in this test's own /run (a tmpfs of the sandbox).
system_bus_config open

# The stand-in reads its commands from a FIFO; each is acknowledged with "sent" once flushed.
mkfifo "$TMP/standin.in"
standin_start() {
        : >"$TMP/standin.out"
        "$LOGIN1_STANDIN" <"$TMP/standin.in" >"$TMP/standin.out" 2>&1 &
        SPID=$!
        cleanup_hooks+=("kill $SPID 2>/dev/null")
        exec {SFD}>"$TMP/standin.in"
        wait_for 10 grep -q '^ready$' "$TMP/standin.out" || { cat "$TMP/standin.out"; fail "stand-in not ready"; }
}
standin_say() { # standin_say sleep|resume
        local n
        n=$(grep -c '^sent$' "$TMP/standin.out" || true)
        echo "$1" >&"$SFD"
        wait_for 10 bash -c "[[ \$(grep -c '^sent$' $TMP/standin.out) -gt $n ]]" || fail "stand-in: $1 not sent"
}
standin_stop() {
        echo quit >&"$SFD"
        exec {SFD}>&-
        wait "$SPID" || true
}

# What r8169 forgets on a resume (kernel-facts: coalescing and CLKREQ are rewritten on every
# reset): netdev attributes, of which no notification tells. Nothing but the resume can.
undo_attributes() {
        echo 0 >"$gro"
        echo 0 >"$napi"
}
tuned() { file_is "$gro" 20000 && file_is "$napi" 1 && feature_is enp3s0 tcp-segmentation-offload on &&
        feature_is enp3s0 scatter-gather on; }
sleep_undo_resume() { # sleep_undo_resume WHAT: the resume undoes the attributes; only it re-applies
        standin_say sleep
        undo_attributes
        sleep 1
        eq "$1, suspended: gro_flush_timeout left as the resume made it" 0 "$(cat "$gro")"
        eq "$1, suspended: napi_defer_hard_irqs left as the resume made it" 0 "$(cat "$napi")"
        standin_say resume
        wait_for 10 tuned && ok || fail "$1: not re-applied after PrepareForSleep(false)"
}

fx=$(fixture thinkpad-e480-8168gu)
gro="$fx/sys/class/net/enp3s0/gro_flush_timeout"
napi="$fx/sys/class/net/enp3s0/napi_defer_hard_irqs"
printf '[global]\nprofile = performance\nsuggestions = apply\n' >"$TMP/perf.conf"
DAEMON_ARGS=(--kernel-release 6.1.158) # Debian 12's: the E480's software coalescing is r8169-tuned's there
ip link add enp3s0 type veth peer name peer0
ethtool -K enp3s0 sg off tso off >/dev/null

########## 1. Suspend and resume with logind on the bus
system_bus_start
standin_start
daemon_start "$fx" "$TMP/perf.conf"
wait_for 10 tuned && ok || fail "start: not tuned"
eq "bus found: no complaint" "" "$(journal_json _PID="$DPID" | jq -r .MESSAGE | grep 'No system bus' || true)"

sleep_undo_resume "resume"
eq "resume: logged once" 1 "$(resumed_logged)"

# As a real suspend goes: frozen (the kernel's freezer) between PrepareForSleep(true) and
# (false), offloads and attributes undone meanwhile, thawed with the resume signal queued.
standin_say sleep
kill -STOP "$DPID"
undo_attributes
ethtool -K enp3s0 sg off tso off >/dev/null
standin_say resume
kill -CONT "$DPID"
wait_for 10 tuned && ok || fail "frozen through the suspend: not re-applied"
eq "frozen through the suspend: resume logged" 2 "$(resumed_logged)"

########## 2. Only logind's resume counts: the same signal from a connection without the name,
# broadcast, and unicast to the daemon's own name (which no match rule filters: security review
# S1), as root from another connection and as nobody.
echo 0 >"$gro"
busctl emit /org/freedesktop/login1 org.freedesktop.login1.Manager PrepareForSleep b false
sleep 1
eq "spoofed PrepareForSleep(false): ignored" 0 "$(cat "$gro")"
eq "spoofed: no resume logged" 2 "$(resumed_logged)"
daemon_name=$(busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s io.github.r8169_tuned1 |
        awk '{print $2}' | tr -d '"')
[[ $daemon_name == :* ]] && ok || fail "the daemon's unique name: '$daemon_name'"
busctl emit --destination="$daemon_name" /org/freedesktop/login1 org.freedesktop.login1.Manager PrepareForSleep b false
if command -v setpriv >/dev/null; then
        for _ in $(seq 50); do
                setpriv --reuid=nobody --regid=nogroup --clear-groups busctl emit --destination="$daemon_name" \
                        /org/freedesktop/login1 org.freedesktop.login1.Manager PrepareForSleep b false
        done
fi
sleep 1
eq "unicast spoofs (root elsewhere, 50 as nobody): ignored" 0 "$(cat "$gro")"
eq "unicast spoofs: no resume logged" 2 "$(resumed_logged)"
echo 20000 >"$gro"

########## 3. logind restarts: a new owner of the name, and the next resume is seen
standin_stop
standin_start
sleep_undo_resume "after logind restarted"
eq "after logind restarted: resume logged" 3 "$(resumed_logged)"

########## 4. The bus goes away: the daemon stays, idle, and still tunes on link up
standin_stop
kill "$BPID"; wait "$BPID" 2>/dev/null || true
sleep 1
kill -0 "$DPID" && ok || fail "bus gone: the daemon died"
ctx() { awk '/ctxt_switches/ {s += $2} END {print s}' "/proc/$DPID/status"; }
c0=$(ctx); sleep 2; c1=$(ctx)
eq "bus gone: no busy loop (context switches in 2 s)" "$c0" "$c1"
echo 0 >"$gro"
ip link set enp3s0 down
ip link set enp3s0 up
wait_for 10 file_is "$gro" 20000 && ok || fail "bus gone: link up not re-applied"
journal_json _PID="$DPID" | jq -r .MESSAGE | tail -3 | sed 's/^/bus gone, the daemon said: /'
daemon_stop
eq "bus gone: SIGTERM exit 0" 0 "$DRC"

########## 5. No system bus at all: said once, at start; everything else works
rm -f /run/r8t-bus/system_bus_socket
daemon_start "$fx" "$TMP/perf.conf"
wait_for 10 tuned && ok || fail "no bus: not tuned"
kill -HUP "$DPID"
wait_for 10 bash -c "[[ \$(grep -c READY=1 $TMP/notify) -ge 2 ]]" || fail "no bus: reload"
echo 0 >"$gro"
ip link set enp3s0 down
ip link set enp3s0 up
wait_for 10 file_is "$gro" 20000 && ok || fail "no bus: link up not re-applied"
said=$(journal_json _PID="$DPID" | jq -r .MESSAGE | grep 'No system bus' || true)
eq "no bus: said once" 1 "$(grep -c . <<<"$said")"
contains "no bus: says what is lost" "resume from suspend is noticed on link up only" "$said"
daemon_stop
eq "no bus: SIGTERM exit 0" 0 "$DRC"

finish
