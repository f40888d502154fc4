# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the shell tests. Environment: R8T (the binary), SRCDIR, BUILDDIR.
set -euo pipefail

: "${R8T:?R8T must name the r8169-tuned binary}"
: "${SRCDIR:?}"
TMP=$(mktemp -d /tmp/r8t-test.XXXXXX)
cleanup_hooks=()
on_exit() {
        local rc=$?
        for h in "${cleanup_hooks[@]+"${cleanup_hooks[@]}"}"; do eval "$h" || true; done
        rm -rf "$TMP"
        exit $rc
}
trap on_exit EXIT

failures=0
checks=0
# Sanitizer reports go to files, so that none is lost in a pipeline or a daemon's stderr:
# finish fails the test if any was written.
mkdir -p "$TMP/sanitizer"
export ASAN_OPTIONS="log_path=$TMP/sanitizer/asan:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="log_path=$TMP/sanitizer/ubsan:print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }
eq() { # eq WHAT EXPECTED ACTUAL
        if [[ "$2" == "$3" ]]; then ok; else fail "$1: expected '$2', got '$3'"; fi
}
contains() { # contains WHAT NEEDLE HAYSTACK
        if [[ "$3" == *"$2"* ]]; then ok; else fail "$1: '$2' not in: $3"; fi
}
not_contains() {
        if [[ "$3" != *"$2"* ]]; then ok; else fail "$1: '$2' unexpectedly in: $3"; fi
}
finish() {
        local report
        for report in "$TMP"/sanitizer/*; do
                [[ -e "$report" ]] || continue
                cat "$report" >&2
                fail "sanitizer report $(basename "$report")"
        done
        echo "$checks checks, $failures failures"
        [[ $failures -eq 0 ]]
}

# fixture NAME -> builds tests/fixtures/NAME.fixture into $TMP/NAME (idempotent)
fixture() {
        local dir="$TMP/fx/$1"
        [[ -d "$dir" ]] || "$SRCDIR/tests/fixtures/mkfixture" "$SRCDIR/tests/fixtures/$1.fixture" "$dir"
        echo "$dir"
}

# r8t FIXTURE ARGS... -> runs the binary on a fixture tree with its kernel log
r8t() {
        local fx=$1; shift
        "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" "$@"
}

need_root() {
        if [[ $(id -u) -ne 0 ]] || ! ip netns add "r8t-probe-$$" 2>/dev/null; then
                echo "SKIP: needs root and network namespaces"; exit 77
        fi
        ip netns del "r8t-probe-$$"
}

# netns_new VAR -> creates a network namespace, removed at exit, and stores its name in VAR.
# (Not "$(netns_new)": the cleanup hook would be registered in a subshell and lost.)
netns_new() {
        local name="r8t-$$-$RANDOM"
        ip netns add "$name"
        cleanup_hooks+=("ip netns del $name")
        ip -n "$name" link set lo up
        printf -v "$1" '%s' "$name"
}

# every_backend_nic -> the lenovo-8168h fixture (base), a namespace (ns) holding its interface
# enp1s0 (a veth), $TMP/many.conf with knobs on every backend that can be written there (link
# states, the feature batch, netdev attributes; coalescing is EOPNOTSUPP on veth), and
# snapshot FIXTURE (below): every fixture file and ethtool -k of enp1s0 in $ns, for "exactly as before".
every_backend_nic() {
        cat >"$TMP/many.conf" <<'CONF'
[device lenovo]
match-slot = 0000:01:00.0
l1_1_aspm = 0
l1_1_pcipm = 0
tso = off
sg = off
gro_flush_timeout = 50000
napi_defer_hard_irqs = 2
CONF
        base=$(fixture lenovo-8168h)
        netns_new ns
        ip -n "$ns" link add enp1s0 type veth peer name peer0
}
# snapshot FIXTURE -> every file of the fixture with its hash, then ethtool -k enp1s0 in $ns.
snapshot() { (cd "$1/sys" && find . -type f -print0 | sort -z | xargs -0 sha256sum); ip netns exec "$ns" ethtool -k enp1s0; }

# wait_for SECONDS CMD... -> polls CMD every 50 ms until it succeeds; fails after SECONDS, counted in
# µs ($SECONDS counts whole seconds: "1" would be anything from nothing to a second)
wait_for() {
        local end=$((${EPOCHREALTIME/./} + $1 * 1000000)); shift
        until "$@" >/dev/null 2>&1; do
                ((${EPOCHREALTIME/./} < end)) || return 1
                sleep 0.05
        done
}

# sandbox "$@" -> re-runs the calling test inside a new network namespace and a private mount
# namespace, with a tmpfs on /run, an empty udev rules directory, cgroup2 mounted (journald
# needs it: "ip netns exec" remounts /sys), and a real systemd-journald and systemd-udevd.
# Returns (inside) with JOURNAL_DIR set; the outer invocation exits with the inner result.
sandbox() {
        if [[ "${R8T_IN_SANDBOX:-}" != 1 ]]; then
                need_root
                [[ -x /lib/systemd/systemd-udevd && -x /lib/systemd/systemd-journald ]] ||
                        { echo "SKIP: systemd-udevd or systemd-journald missing"; exit 77; }
                local ns; netns_new ns
                set +e
                R8T_IN_SANDBOX=1 ip netns exec "$ns" unshare --mount --propagation private bash "$0" "$@"
                local rc=$?
                set -e
                exit $rc
        fi
        mount -t tmpfs tmpfs /run
        mkdir -p /run/empty-rules /run/udev
        mount --bind /run/empty-rules /lib/udev/rules.d
        [[ -d /etc/udev/rules.d ]] && mount --bind /run/empty-rules /etc/udev/rules.d
        mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null || true
        ip link set lo up
        /lib/systemd/systemd-journald </dev/null >/dev/null 2>&1 &
        local jpid=$!
        cleanup_hooks+=("kill $jpid")
        wait_for 10 test -S /run/systemd/journal/socket || { echo "journald did not start"; exit 1; }
        /lib/systemd/systemd-udevd </dev/null >/dev/null 2>&1 &
        local upid=$!
        cleanup_hooks+=("kill $upid")
        wait_for 10 test -S /run/udev/control || { echo "udevd did not start"; exit 1; }
        JOURNAL_DIR=/run/log/journal
}

# system_bus_config open|debian [POLICY-FILE...] -> a private D-Bus system bus's configuration,
# its socket in this sandbox's /run, DBUS_SYSTEM_BUS_ADDRESS exported. "open": anyone owns and
# calls anything (stand-ins need that); "debian": as Debian's system.conf, nothing owned and no
# method called unless a policy file allows it. system_bus_start (again after a kill) runs
# dbus-daemon on it; BPID is its PID.
system_bus_config() {
        local mode=$1 f rules includes=""
        shift
        if [[ $mode == open ]]; then
                rules='<allow own="*"/><allow send_type="method_call"/><allow send_type="signal"/>
    <allow send_type="method_return"/><allow send_type="error"/>'
        else
                rules='<deny own="*"/><deny send_type="method_call"/><allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/><allow send_requested_reply="true" send_type="error"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>'
        fi
        for f in "$@"; do includes+="  <include>$f</include>"$'\n'; done
        mkdir -p /run/r8t-bus
        cat >"$TMP/bus.conf" <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/r8t-bus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    $rules
    <allow receive_type="method_call"/><allow receive_type="method_return"/>
    <allow receive_type="error"/><allow receive_type="signal"/>
  </policy>
$includes</busconfig>
XML
        export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/r8t-bus/system_bus_socket
}
system_bus_start() {
        rm -f /run/r8t-bus/system_bus_socket
        dbus-daemon --config-file="$TMP/bus.conf" --nofork --nopidfile --nosyslog 2>>"$TMP/bus.log" &
        BPID=$!
        cleanup_hooks+=("kill $BPID 2>/dev/null")
        wait_for 10 test -S /run/r8t-bus/system_bus_socket || { cat "$TMP/bus.log" >&2; echo "dbus-daemon did not start"; exit 1; }
}

# journal_json [MATCH...] -> this sandbox's journal as JSON lines
journal_json() { journalctl -D "$JOURNAL_DIR" -o json --no-pager "$@" 2>/dev/null; }

# daemon_start FIXTURE CONFIG [VAR=VALUE...] -> runs "r8169-tuned daemon" on FIXTURE as the
# service does (journal logging, a NOTIFY_SOCKET listened to as systemd does, the shipped
# quirks) and waits for READY=1. DPID is its PID, $TMP/notify what it notified, one line each.
# daemon_stop: SIGTERM, then DRC is its exit status. R8T_WRAPPER (e.g. valgrind) wraps it;
# the array DAEMON_ARGS holds more options for it (e.g. --kernel-release).
daemon_start() {
        local fx=$1 conf=$2; shift 2
        : >"$TMP/notify"
        rm -f "$TMP/notify.sock" # a listener's left-over socket would pass the wait below
        python3 "$SRCDIR/tests/integration/notify-listen.py" "$TMP/notify.sock" "$TMP/notify" &
        NPID=$!
        cleanup_hooks+=("kill $NPID 2>/dev/null")
        wait_for 10 test -S "$TMP/notify.sock"
        env NOTIFY_SOCKET="$TMP/notify.sock" "$@" ${R8T_WRAPPER:-} "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" \
                --quirks "$SRCDIR/conf/quirks.d" --config "$conf" --state-dir "$TMP/state" --log-target journal \
                ${DAEMON_ARGS[@]+"${DAEMON_ARGS[@]}"} daemon &
        DPID=$!
        cleanup_hooks+=("kill $DPID 2>/dev/null")
        wait_for 60 notified READY=1 || fail "daemon: no READY=1"
}
daemon_stop() {
        kill -TERM "$DPID"
        set +e; wait "$DPID"; DRC=$?; set -e
        kill "$NPID" 2>/dev/null || true
}
notified() { grep -q "$1" "$TMP/notify"; }
