#!/usr/bin/env bash
# The service publishes its metrics (metrics-textfile) to the real prometheus-node-exporter's
# textfile collector, scraped by a real Prometheus with the shipped alert rules, on a fixture NIC
# whose interface is a veth, with real udevd, journald and a system bus with the shipped policy:
#   - a scrape has the metrics; they change within a second of an apply, a restore, a failed
#     write and a profile switch, all through the CLI as a user types them;
#   - they join node_exporter's own network metrics on device: the PromQL expression of
#     r8169-tuned(8) EXAMPLES, as printed, evaluated by Prometheus, gives the veth's MAC address;
#   - the shipped rule R8169TunedWriteFailed fires in Prometheus after the failed write;
#   - the file is never seen half-written by a reader in a loop during 1,000 updates;
#   - a symlink or another user's file where the file goes is not written through nor replaced,
#     and a read-only or a full directory is said once in the journal (and again when it works),
#     while the NIC stays tuned;
#   - a stop leaves the service's last words: r8169_tuned_running 0.
source "$SRCDIR/tests/lib.sh"
sandbox "$@"
for t in prometheus-node-exporter prometheus promtool dbus-daemon busctl; do
        command -v "$t" >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
file_is() { [[ $(cat "$1" 2>/dev/null) == "$2" ]]; }
NAME=io.github.r8169_tuned1
system_bus_config debian "$SRCDIR/conf/dbus/io.github.r8169_tuned1.conf"
system_bus_start

fx=$(fixture desktop-8168c)
gro=$fx/sys/class/net/enp2s0/gro_flush_timeout
echo 0 >"$gro"
ip link add enp2s0 type veth peer name peer0
ip link set enp2s0 up
mac=$(cat /sys/class/net/enp2s0/address)
# node_exporter's directory, a small file system of its own (filled and made read-only below).
textdir=$TMP/node-exporter
mkdir -p "$textdir"
mount -t tmpfs -o size=256k tmpfs "$textdir"
cleanup_hooks+=("umount -l $textdir 2>/dev/null")
prom=$textdir/r8169-tuned.prom
printf '[global]\nprofile = performance\nmetrics-textfile = %s\n\n[device desk]\nmatch-slot = 02:00.0\ngro_flush_timeout = 20000\n' \
        "$prom" >"$TMP/a.conf"
daemon_start "$fx" "$TMP/a.conf" R8T_TEST_METRICS_GAP_USEC="${GAP_USEC:-250000}"
cli() { "$R8T" --state-dir "$TMP/state" "$@"; }

prometheus-node-exporter --web.listen-address=127.0.0.1:9100 --collector.disable-defaults --collector.textfile \
        --collector.textfile.directory="$textdir" --collector.netclass >"$TMP/node-exporter.log" 2>&1 &
cleanup_hooks+=("kill $! 2>/dev/null")
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $SRCDIR/conf/prometheus/r8169-tuned.rules.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:9100"]
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" --web.listen-address=127.0.0.1:9090 \
        >"$TMP/prometheus.log" 2>&1 &
cleanup_hooks+=("kill $! 2>/dev/null")

# A scrape of node_exporter, as Prometheus makes it: the samples as JSON lines (tests/prom-parse.py).
scrape() { python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:9100/metrics", timeout=5).read().decode(), end="")'; }
samples() { scrape | grep -E '^(# (HELP|TYPE) )?r8169_tuned_' | python3 "$SRCDIR/tests/prom-parse.py"; }
# value NAME [LABEL=VALUE...]: the sample's value in a scrape now
value() {
        local name=$1 sel="" kv; shift
        for kv in "$@"; do sel+=" and .labels.${kv%%=*} == \"${kv#*=}\""; done
        samples | jq -r "select(.name == \"$name\"$sel) | .value"
}
scraped_is() { [[ $(value "${@:2}") == "$1" ]]; }
# within NAME WHAT EXPECTED METRIC [LABEL=VALUE...]: the scrape says so within a second of now
within() {
        local what=$1 expected=$2; shift 2
        wait_for 1 scraped_is "$expected" "$@" && ok || fail "$what: $1 is $(value "$@"), not $expected, a second later"
}

wait_for 10 scraped_is 1 r8169_tuned_running || fail "node_exporter: no r8169_tuned_running 1 ($(scrape | grep -c r8169_tuned_) samples)"
eq "scrape: tuned, gro_flush_timeout as planned" "1 20000 0" \
        "$(value r8169_tuned_nic_state state=tuned) $(value r8169_tuned_knob_current knob=gro_flush_timeout) $(value r8169_tuned_knob_drift knob=gro_flush_timeout)"
eq "scrape: the NIC's labels" "enp2s0 0000:02:00.0 RTL8168c/8111c 3c4" \
        "$(samples | jq -r 'select(.name == "r8169_tuned_nic_info") | .labels | "\(.device) \(.slot) \(.chip) \(.xid)"')"
eq "scrape: node_exporter read the file whole" 0 "$(scrape | awk '$1 == "node_textfile_scrape_error" {print $2}')"

# restore, apply, a failed write, a profile switch: each shows within a second.
cli restore >/dev/null
within "restore" 1 r8169_tuned_nic_state state=released
within "restore: the original back" 0 r8169_tuned_knob_current knob=gro_flush_timeout
cli apply >/dev/null
within "apply" 1 r8169_tuned_nic_state state=tuned
within "apply: as planned" 0 r8169_tuned_knob_drift knob=gro_flush_timeout
echo 0 >"$gro"
mount --bind "$gro" "$gro"
mount -o remount,ro,bind "$gro"
cleanup_hooks+=("umount $gro 2>/dev/null")
set +e; cli apply >/dev/null 2>&1; set -e
within "a failed write" 1 r8169_tuned_knob_write_failures_total knob=gro_flush_timeout
within "a failed write: the state" 1 r8169_tuned_nic_state state=failed
cli profile powersave >/dev/null
profile_is() { [[ $(samples | jq -r 'select(.name == "r8169_tuned_info") | "\(.labels.profile) \(.labels.profile_source)"') == "$1" ]]; }
wait_for 1 profile_is "powersave runtime" && ok || fail "profile switch: not in the scrape a second later"

# The join on device, as r8169-tuned(8) prints it, in Prometheus (which scrapes every second).
promql=$(sed -n '/^max by (instance, device, address)/,/^\.Ed/p' "$SRCDIR/man/r8169-tuned.8" | sed '$d' | tr '\n' ' ')
[[ -n $promql ]] && ok || fail "r8169-tuned(8): the PromQL example is not found"
joined() { promtool query instant -o json http://127.0.0.1:9090 "$promql" 2>/dev/null | jq -e --arg mac "$mac" \
        '.[] | select(.metric.device == "enp2s0" and .metric.address == $mac and .metric.instance == "127.0.0.1:9100")' >/dev/null; }
wait_for 30 joined && ok || fail "PromQL join on device: $(promtool query instant http://127.0.0.1:9090 "$promql" 2>&1)"
# The shipped rule fires on the failed write (no "for": at the next evaluation).
firing() { promtool query instant -o json http://127.0.0.1:9090 'ALERTS{alertname="R8169TunedWriteFailed",alertstate="firing"}' 2>/dev/null |
        jq -e '.[] | select(.metric.knob == "gro_flush_timeout" and .metric.device == "enp2s0")' >/dev/null; }
wait_for 30 firing && ok || fail "R8169TunedWriteFailed does not fire in Prometheus: $(tail -5 "$TMP/prometheus.log")"
umount "$gro"
cli profile performance >/dev/null
cli apply >/dev/null
within "tuned again" 1 r8169_tuned_nic_state state=tuned

# A reader in a loop while the file is written 1,000 times: never half a file. The daemon runs
# again with no gap between writes; each Apply over the bus is one change, and the next waits
# until the file shows the last one (its timestamp), so the thousand updates are real.
daemon_stop
daemon_start "$fx" "$TMP/a.conf" R8T_TEST_METRICS_GAP_USEC=0
wait_for 10 test -s "$prom"
python3 - "$prom" "$TMP/reader.json" <<'EOF' &
import json, os, signal, sys
path, out = sys.argv[1], sys.argv[2]
reads = bad = 0
versions, first_bad = set(), None
stop = False
def on_term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
while not stop:
    try:
        text = open(path).read()
    except FileNotFoundError:
        bad += 1
        continue
    reads += 1
    lines = text.split("\n")
    ts = [l for l in lines if l.startswith("r8169_tuned_last_update_timestamp_seconds ")]
    # Whole: it ends with a newline, has its first and its last family, and the timestamp once.
    if not text.endswith("\n") or not text.startswith("# HELP r8169_tuned_info ") or len(ts) != 1 \
            or "# TYPE r8169_tuned_link_power_quiet_seconds gauge" not in text:
        bad += 1
        first_bad = first_bad or text[-200:]
        continue
    versions.add(ts[0])
json.dump({"reads": reads, "bad": bad, "versions": len(versions), "first_bad": first_bad}, open(out, "w"))
EOF
reader=$!
python3 - "$prom" <<'EOF'
import subprocess, sys, time
path = sys.argv[1]
def stamp():
    with open(path) as f:
        return next((l for l in f if l.startswith("r8169_tuned_last_update_timestamp_seconds ")), None)
for i in range(1000):
    before = stamp()
    subprocess.run(["busctl", "call", "io.github.r8169_tuned1", "/io/github/r8169_tuned1", "io.github.r8169_tuned1.Manager",
                    "Apply", "as", "0"], check=True, stdout=subprocess.DEVNULL)
    end = time.monotonic() + 5
    while stamp() == before:
        if time.monotonic() > end:
            sys.exit("update %d: the file did not change within 5 s of an Apply" % i)
        time.sleep(0.0005)
EOF
rc=$?
kill -TERM "$reader"; wait "$reader" || true
eq "1,000 updates: each Apply changed the file" 0 "$rc"
read -r reads bad versions <<<"$(jq -r '"\(.reads) \(.bad) \(.versions)"' "$TMP/reader.json")"
echo "reader: $reads reads, $versions versions, $bad not whole"
eq "1,000 updates: never half a file (or none)" 0 "$bad"
# The writer waits for the file, not for the reader: a version can be replaced before the reader
# opens the file again (2 of 1,000 were, once the save became one write()). 95 % seen
# shows the reads fell between the writes all along, which is what "never half a file" needs.
((versions >= 950)) && ok || fail "the reader saw $versions versions of the file, not 950 or more of 1,000"
[[ -z $(find "$textdir" -name 'r8169-tuned.prom.*') ]] && ok || fail "a temporary file stayed: $(ls -a "$textdir")"
eq "the file: 0644, root's" "644 root" "$(stat -c '%a %U' "$prom")"

# A symlink where the file goes: not written through, not replaced; said once, and when it goes, written again.
said() { journal_json _PID="$DPID" | jq -r .MESSAGE | grep -c "$1" || true; }
echo precious >"$TMP/target"
rm "$prom"
ln -s "$TMP/target" "$prom"
for i in 1 2 3; do cli apply >/dev/null; done
wait_for 5 test "$(said 'Cannot publish the metrics')" -ge 1
eq "symlink: not written through" precious "$(cat "$TMP/target")"
[[ -L $prom ]] && ok || fail "symlink: replaced"
eq "symlink: said once, why" 1 "$(said 'it is a symbolic link, which is never followed')"
rm "$prom"
cli apply >/dev/null
wait_for 5 test -f "$prom" && ok || fail "symlink gone: not written again"
eq "written again: said" 1 "$(said "Metrics published to $prom again")"

# Another user's file there: not replaced (said), and the tuning goes on.
chown nobody "$prom"
before=$(stat -c %i "$prom")
cli apply >/dev/null
wait_for 5 test "$(said 'belongs to another user')" -ge 1 && ok || fail "another user's file: not said"
eq "another user's file: not replaced" "$before nobody" "$(stat -c '%i %U' "$prom")"
rm "$prom"
cli apply >/dev/null
wait_for 5 test "$(said "Metrics published to $prom again")" -ge 2 && ok || fail "another user's file gone: not written again"

# A read-only directory, then a full one: said once each, the NIC tuned all along.
mount -o remount,ro "$textdir"
for i in 1 2 3; do echo 0 >"$gro"; cli apply >/dev/null; done
wait_for 5 file_is "$gro" 20000 && ok || fail "read-only metrics directory: the NIC is not tuned"
eq "read-only: said once" 1 "$(said 'Cannot publish the metrics .*Read-only file system')"
mount -o remount,rw "$textdir"
cli apply >/dev/null
wait_for 5 test "$(said "Metrics published to $prom again")" -ge 3 && ok || fail "read-only: not said when it works again"
dd if=/dev/zero of="$textdir/filler" bs=4k 2>/dev/null || true
for i in 1 2 3; do echo 0 >"$gro"; cli apply >/dev/null; done
wait_for 5 file_is "$gro" 20000 && ok || fail "full metrics directory: the NIC is not tuned"
eq "full: said once" 1 "$(said 'Cannot publish the metrics .*No space left on device')"
[[ -z $(find "$textdir" -name 'r8169-tuned.prom.*') ]] && ok || fail "full: a temporary file stayed"
rm -f "$textdir/filler"
cli apply >/dev/null
wait_for 5 test "$(said "Metrics published to $prom again")" -ge 4 && ok || fail "full: not said when it works again"
eq "node_exporter still reads it whole" 0 "$(scrape | awk '$1 == "node_textfile_scrape_error" {print $2}')"

# The last words: a stop writes running 0 (and the restored NIC's state).
daemon_stop
eq "stop: exit" 0 "$DRC"
eq "stop: running 0 in the scrape" 0 "$(value r8169_tuned_running)"
finish
