# Sourced after tests/lib.sh: a fixture NIC with physics (README.md here), for the experiment's
# test and its benchmark.
#
# physics_start FIXTURE RULES [nic-physics.py options...]
#   Two namespaces ($nsa with enp2s0 10.77.0.1, $nsb with peer0 10.77.0.2), a real iperf3 -s
#   in $nsb, the fixture built into $fx, and the harness shaping the pair by RULES (a file);
#   RAPL counters in the fixture. All removed at exit. The NIC's interface must be enp2s0.
# physics_stop
#   Stops the harness and fails the test if it did not exit cleanly.
# r8t_ns ARGS...
#   r8169-tuned in $nsa on the fixture, with the shipped quirks, no configuration and $STATE.
physics_start() {
        local fixture=$1 rules=$2
        shift 2
        netns_new nsa
        netns_new nsb
        ip -n "$nsa" link add enp2s0 type veth peer name peer0 netns "$nsb"
        ip -n "$nsa" addr add 10.77.0.1/24 dev enp2s0
        ip -n "$nsb" addr add 10.77.0.2/24 dev peer0
        ip -n "$nsa" link set enp2s0 up
        ip -n "$nsb" link set peer0 up
        ip netns exec "$nsb" iperf3 -s -D --pidfile "$TMP/iperf3.pid"
        wait_for 10 test -s "$TMP/iperf3.pid"
        cleanup_hooks+=("kill \$(cat $TMP/iperf3.pid)") # a daemon outlives its namespace's name
        fx=$(fixture "$fixture")
        /usr/bin/python3 "$SRCDIR/tests/harness/nic-physics.py" --fixture "$fx" --rules "$rules" \
                --ns-a "$nsa" --dev-a enp2s0 --ns-b "$nsb" --dev-b peer0 --rapl "$fx/sys/class/powercap" \
                --state "$TMP/physics.state" "$@" 2>"$TMP/physics.err" &
        PHYS=$!
        cleanup_hooks+=("kill $PHYS 2>/dev/null")
        wait_for 10 test -s "$TMP/physics.state" || fail "harness did not start: $(cat "$TMP/physics.err")"
        STATE=${STATE:-$TMP/state}
        : >"$TMP/empty.conf"
}

physics_stop() {
        kill -TERM "$PHYS"
        wait "$PHYS" && ok || fail "harness exit $?: $(cat "$TMP/physics.err")"
}

r8t_ns() {
        ip netns exec "$nsa" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" \
                --config "$TMP/empty.conf" --state-dir "$STATE" "$@"
}
