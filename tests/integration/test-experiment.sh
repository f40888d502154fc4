#!/usr/bin/env bash
# experiment against the NIC-physics harness (tests/harness): a fixture RTL8125B whose
# interface is a veth in a namespace, a real iperf3 -s in the peer namespace, and tc rates
# that follow the fixture's knob files, with noise. A knob with an effect is found with the
# right sign and size; a knob with none gets the verdict its numbers give (the rate of false
# discoveries is unit/test-experiment's, over simulated runs); a knob that hurts says so; idle power comes from a fixture RAPL counter; every value is as found after
# the run, after Ctrl-C, and (through restore) after kill -9; --json is valid against the
# schema; --write-config keeps only what helped and check-config accepts it and the report's
# quirk draft.
source "$SRCDIR/tests/lib.sh"
source "$SRCDIR/tests/harness/harness.sh"
need_root
command -v iperf3 >/dev/null || { echo "SKIP: iperf3 missing"; exit 77; }
Q="$SRCDIR/conf/quirks.d"
S="$SRCDIR/conf/r8169-tuned.schema.json"

# The physics: L1.2 holds the link at 255 Mb/s (seeds/002: 255 -> 670 once it is off) and
# costs 0.4 W less at idle; TSO off would cut it to 150; clock PM and the NAPI pair change
# nothing. Every quarter second each direction's rate is multiplied by a fresh factor in
# [0.9, 1.1].
cat >"$TMP/physics.rules" <<'EOF'
rate 670
cap sys/bus/pci/devices/0000:02:00.0/link/l1_2_aspm 1 255
cap ethtool tcp-segmentation-offload off 150
power 2.0
power+ sys/bus/pci/devices/0000:02:00.0/link/l1_2_aspm 0 0.4
EOF
physics_start intel-8125-l12 "$TMP/physics.rules" --noise 0.1 --noise-period 0.25
dev="$fx/sys/bus/pci/devices/0000:02:00.0"

# Everything the experiment could touch: every file of the fixture but the RAPL counter, and ethtool -k.
snapshot() {
        (cd "$fx/sys" && find . -type f -not -path './class/powercap/*' -print0 | sort -z | xargs -0 sha256sum)
        ip netns exec "$nsa" ethtool -k enp2s0
}
snapshot >"$TMP/before"
as_found() { # as_found WHAT
        snapshot >"$TMP/after"
        if diff -u "$TMP/before" "$TMP/after" >"$TMP/diff"; then ok; else fail "$1: not as found: $(cat "$TMP/diff")"; fi
        [[ ! -e "$STATE/0000:02:00.0" ]] && ok || fail "$1: an undo journal is left: $(cat "$STATE/0000:02:00.0")"
}

### 1. One run, three knobs: the right sign and size for each, idle power, every value back.
set +e
r8t_ns experiment --server 10.77.0.2 --knob l1_2_aspm=0 --knob clkpm=0 --knob tso=off --rounds 4 --seconds 1 \
        --idle-seconds 1 --json --write-config "$TMP/helped.conf" --report "$TMP/report.md" >"$TMP/run.json" 2>"$TMP/run.err"
rc=$?
set -e
eq "experiment: exit" 0 "$rc"
[[ $rc == 0 ]] || { cat "$TMP/run.err"; cat "$TMP/physics.err"; } >&2
python3 "$SRCDIR/tests/validate-json.py" "$S" experiment "$TMP/run.json" && ok || fail "experiment --json against the schema"
res() { jq -r --arg k "$1" --arg d "$2" ".results[] | select(.knob == \$k and .direction == \$d) | $3" "$TMP/run.json"; }
for d in send receive; do
        eq "l1_2_aspm=0 $d: helps" helps "$(res l1_2_aspm "$d" .verdict)"
        # 255 -> 670 Mb/s is +163 %: found within the noise. 670 is the harness's cap, not a rate
        # it guarantees: on CI's 2 cores the receive side has reached only about 590 (+131 %, one
        # run of six on 2 December 2026), so the band reaches down to +120 %.
        rel=$(res l1_2_aspm "$d" .relative)
        awk -v r="$rel" 'BEGIN { exit !(r > 1.20 && r < 1.85) }' && ok ||
                fail "l1_2_aspm=0 $d: +$rel ($(res l1_2_aspm "$d" '"\(.baseline.median_mbps) -> \(.candidate.median_mbps) Mb/s"')), not about +1.63"
        awk -v b="$(res l1_2_aspm "$d" .baseline.median_mbps)" 'BEGIN { exit !(b > 230 && b < 280) }' && ok ||
                fail "l1_2_aspm=0 $d: baseline not about 255"
        eq "l1_2_aspm=0 $d: 4 rounds of each" "4 4" "$(res l1_2_aspm "$d" '"\(.baseline.mbps | length) \(.candidate.mbps | length)"')"
        # No effect: the verdict may be the rare false one (section 3), but the noise never makes
        # the estimate 15 % off (none in unit/test-experiment's 40,000 simulated runs).
        rel=$(res clkpm "$d" .relative)
        awk -v r="$rel" 'BEGIN { exit !(r > -0.15 && r < 0.15) }' && ok || fail "clkpm=0 $d: $rel, not about 0"
        eq "tso=off $d: hurts" hurts "$(res tso "$d" .verdict)"
        lo_hi=$(res tso "$d" '"\(.ci95[0]) \(.ci95[1])"')
        awk -v lo="${lo_hi% *}" -v hi="${lo_hi#* }" 'BEGIN { exit !(lo < hi && hi < 0) }' && ok || fail "tso=off $d: interval $lo_hi"
done
# Idle power: measured for the link power knobs only; L1.2 off costs the harness's 0.4 W.
eq "idle power measured for clkpm and l1_2_aspm" "clkpm l1_2_aspm" "$(jq -r '[.idle_power.results[].knob] | sort | join(" ")' "$TMP/run.json")"
w=$(jq -r '.idle_power.results[] | select(.knob == "l1_2_aspm") | "\(.change_watts) \(.ci95[0])"' "$TMP/run.json")
awk -v c="${w% *}" -v lo="${w#* }" 'BEGIN { exit !(c > 0.3 && c < 0.5 && lo > 0) }' && ok || fail "l1_2_aspm idle power: $w"
as_found "after the run"
# The drop-in: what helped, only that; check-config takes it, and plan follows it.
# What helped only: L1.2 (and clock PM, in the rare run where the noise made it look like it helped).
written=$(grep -E '^[a-z_0-9-]+ = ' "$TMP/helped.conf" | grep -v '^match-' | sort | tr '\n' ' ')
[[ $written == "l1_2_aspm = 0 " || ($written == "clkpm = 0 l1_2_aspm = 0 " && $(res clkpm send .verdict)$(res clkpm receive .verdict) == *helps*) ]] &&
        ok || fail "write-config: what helped only: $written"
cp "$TMP/helped.conf" "$TMP/helped-check.conf"
r8t_ns check-config "$TMP/helped-check.conf" >/dev/null 2>&1 && ok || fail "check-config rejects the written drop-in"
contains "plan follows the drop-in" "l1_2_aspm" "$(ip netns exec "$nsa" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" \
        --quirks "$Q" --config "$TMP/helped.conf" plan 2>&1 | grep -i "change")"
# The report: the machine, the numbers, and a quirk draft the database would load.
contains "report: the NIC" "0000:02:00.0" "$(cat "$TMP/report.md")"
contains "report: a result row" "| \`l1_2_aspm=0\` |" "$(cat "$TMP/report.md")"
mkdir -p "$TMP/draft/quirks.d"
sed -n '/^```ini$/,/^```$/p' "$TMP/report.md" | sed '1d;$d' >"$TMP/draft/quirks.d/90-draft.conf"
contains "report: draft sets the knob" "l1_2_aspm = 0" "$(cat "$TMP/draft/quirks.d/90-draft.conf")"
r8t_ns check-config "$TMP/draft/quirks.d/90-draft.conf" >"$TMP/draft.out" 2>&1 && ok || fail "quirk draft: $(cat "$TMP/draft.out")"

echo "$SECONDS s: section 2"
### 2. The README's experiment command lines, as written but for the server (the harness's),
### the files (this test's) and their length (4 rounds of 1 s, one direction, 1 s idle samples).
### The first is the default run: the quirk database's entries for this chip and the generic
### list, as a table.
grep -E '^r8169-tuned experiment ' "$SRCDIR/README.md" >"$TMP/readme-lines"
eq "README: the default run comes first" "r8169-tuned experiment --server 192.168.1.10" "$(head -1 "$TMP/readme-lines")"
[[ $(wc -l <"$TMP/readme-lines") -ge 2 ]] && ok || fail "README: fewer than 2 experiment command lines"
n=0
while read -r line; do
        n=$((n + 1))
        line=${line//192.168.1.10/10.77.0.2}
        line=${line//\/etc\/r8169-tuned\/r8169-tuned.conf.d\//$TMP/}
        line=${line//experiment.md/$TMP/experiment.md}
        read -r -a words <<<"$line"
        set +e
        r8t_ns "${words[@]:1}" --rounds 4 --seconds 1 --idle-seconds 1 --direction send >"$TMP/readme-$n.txt" 2>&1
        rc=$?
        set -e
        eq "README: '$line'" 0 "$rc"
        [[ $rc == 0 ]] || cat "$TMP/readme-$n.txt" >&2
        as_found "README: '$line'"
done <"$TMP/readme-lines"
out=$(cat "$TMP/readme-1.txt")
contains "default run: the quirk entry for L1.2" "l1_2_aspm=0 (quirk" "$out"
contains "default run: clock PM from the generic list" "clkpm=0 (generic)" "$out"
contains "default run: what it cannot measure here" "Not measured:" "$out"
grep -E '^l1_2_aspm=0 \(quirk' "$TMP/readme-1.txt" | grep -q ' helps$' && ok || fail "default run: L1.2 helps: $out"
[[ -s "$TMP/experiment.md" ]] && ok || fail "README: --report wrote nothing"

echo "$SECONDS s: section 3"
### 3. A change without effect (the NAPI pair off; no idle power to sample), the default 5
### rounds: the verdict is the one its printed numbers give, and every value is back. How often
### such a change is called "helps" or "hurts" is the method's rate, measured where chance can
### be counted: unit/test-experiment's 40,000 seeded simulated runs of this harness (0.48 %).
### Asserting it on a few real runs failed the README's second command by chance (issue 45 H5).
set +e
r8t_ns experiment --server 10.77.0.2 --knob gro_flush_timeout=0,napi_defer_hard_irqs=0 --rounds 5 --seconds 1 \
        --direction send --json >"$TMP/null.json" 2>"$TMP/null.err"
rc=$?
set -e
eq "the NAPI pair: exit" 0 "$rc"
echo "the NAPI pair: $(jq -c '.results[0] | [.verdict, .baseline.mbps, .candidate.mbps, .change_mbps, .relative, .ci95]' "$TMP/null.json")"
# The rule (experiment_compare): helps when the interval is above 0 and the change is at least
# the practical size of the baseline, hurts when below 0 and as large, else no effect. Numbers
# are printed rounded (the interval to 0.1 Mb/s, relative to 1e-4): one within half a unit of
# its threshold allows either answer on that test.
python3 - "$TMP/null.json" <<'PY' && ok || fail "the NAPI pair: the verdict does not follow from its numbers"
import json, sys
doc = json.load(open(sys.argv[1]))
r, p = doc["results"][0], doc["practical_size"]
lo, hi, rel = r["ci95"][0], r["ci95"][1], r["relative"]
def cmp(v, t, half):  # True, False, or None when the rounding hides which side of t v is on
    return None if abs(v - t) <= half else v > t
up, down, large = cmp(lo, 0, 0.05), cmp(-hi, 0, 0.05), cmp(abs(rel), p, 0.00005)
allowed = set()
for u in ([up] if up is not None else [True, False]):
    for d in ([down] if down is not None else [True, False]):
        for l in ([large] if large is not None else [True, False]):
            allowed.add("hurts" if d and l else "helps" if u and l else "no-effect")
print("verdict %s, allowed by its numbers: %s" % (r["verdict"], sorted(allowed)))
sys.exit(r["verdict"] not in allowed)
PY
as_found "after the NAPI pair"

echo "$SECONDS s: section 4"
### 4. Ctrl-C, and every other signal whose default would end it (security review S3: QUIT did,
### leaving the candidate in place): the candidate's values go back, exit 128 + the signal.
for sig in INT QUIT; do
        ip netns exec "$nsa" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --config "$TMP/empty.conf" \
                --state-dir "$STATE" experiment --server 10.77.0.2 --knob l1_2_aspm=0 --knob tso=off --rounds 10 --seconds 1 \
                >"$TMP/int.out" 2>"$TMP/int.err" &
        pid=$!
        wait_for 30 grep -q '^link l1_2_aspm 1 0$' "$STATE/0000:02:00.0" && ok || fail "SIG$sig: the candidate was never applied"
        kill -"$sig" "$pid"
        set +e
        wait "$pid"
        rc=$?
        set -e
        eq "SIG$sig: exit 128 + $(kill -l "$sig")" $((128 + $(kill -l "$sig"))) "$rc"
        contains "SIG$sig: says so" "Interrupted" "$(cat "$TMP/int.err")"
        # What was measured so far, as iperf3 prints on Ctrl-C (ux-findings L12): the table, the
        # candidate cut short marked so, the one never reached said so.
        contains "SIG$sig: what was measured, incomplete" "Interrupted: what was measured before it, incomplete" "$(cat "$TMP/int.out")"
        # Killed as its first change was written: within its first round, whichever arm came first.
        grep -qE '^l1_2_aspm=0 \(.*interrupted in its first round$' "$TMP/int.out" && ok || fail "SIG$sig: no l1_2_aspm=0 row: $(cat "$TMP/int.out")"
        grep -qE '^tso=off \(.*not measured \(stopped before it\)' "$TMP/int.out" && ok || fail "SIG$sig: no tso=off row: $(cat "$TMP/int.out")"
        as_found "after SIG$sig"
done

### On a terminal (script(1) gives it one): the total first, then each candidate's numbers as soon
### as it is measured, before the table (ux-findings M4). 4 rounds of 1 s, one direction.
cmd=$(printf '%q ' ip netns exec "$nsa" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" \
        --config "$TMP/empty.conf" --state-dir "$STATE" experiment --server 10.77.0.2 --knob l1_2_aspm=0 --knob tso=off \
        --rounds 4 --seconds 1 --idle-seconds 1 --direction send)
script -qec "$cmd" /dev/null | tr '\r' '\n' | sed 's/\x1b\[K//g' | grep -v '^$' >"$TMP/tty.out" || fail "on a terminal: exit $?"
contains "on a terminal: the total first" "2 candidates, 4 rounds of 1 s per arm and direction: about" "$(cat "$TMP/tty.out")"
first=$(grep -n '^\[1/2\] l1_2_aspm=0 (' "$TMP/tty.out" | cut -d: -f1)
second=$(grep -n '^\[2/2\] tso=off (' "$TMP/tty.out" | cut -d: -f1)
table=$(grep -n '^CANDIDATE (FROM)' "$TMP/tty.out" | cut -d: -f1)
[[ -n $first && -n $second && -n $table && $first -lt $second && $second -lt $table ]] && ok ||
        fail "on a terminal: each result as it comes, then the table: $(cat "$TMP/tty.out")"
grep -A1 '^\[1/2\] l1_2_aspm=0' "$TMP/tty.out" | grep -qE '^  send [0-9]+ -> [0-9]+ Mb/s, .*helps$' && ok ||
        fail "on a terminal: l1_2_aspm=0's numbers: $(cat "$TMP/tty.out")"
as_found "on a terminal"

echo "$SECONDS s: section 5"
### 5. kill -9 right after the first write: the journal has the original, restore puts it back.
set +e
r8t_ns --fault-after-writes 1:KILL experiment --server 10.77.0.2 --knob l1_2_aspm=0 --rounds 4 --seconds 1 >/dev/null 2>&1
set -e
eq "kill -9: the candidate is in place" 0 "$(cat "$dev/link/l1_2_aspm")"
grep -q '^link l1_2_aspm 1 0$' "$STATE/0000:02:00.0" && ok || fail "kill -9: no journal entry"
# The next experiment refuses to start from a changed NIC, and says how to get back.
set +e
out=$(r8t_ns experiment --server 10.77.0.2 --knob clkpm=0 2>&1)
rc=$?
set -e
eq "a changed NIC: refused" 1 "$rc"
contains "a changed NIC: what to do" "r8169-tuned restore enp2s0" "$out"
r8t_ns restore >/dev/null 2>&1 && ok || fail "restore after kill -9"
as_found "after kill -9 and restore"

echo "$SECONDS s: section 6"
### 6. Usage errors (exit 2) and a server nobody runs (exit 1, said, nothing changed).
for args in "" "--server 10.77.0.2 --rounds 3" "--server 10.77.0.2 --knob foo=1" "--server 10.77.0.2 --seconds 0" \
            "--server host:99999" "--server 10.77.0.2 --direction up"; do
        set +e
        # shellcheck disable=SC2086
        r8t_ns experiment $args >/dev/null 2>&1
        rc=$?
        set -e
        eq "usage error: experiment $args" 2 "$rc"
done
# What reaches iperf3 and the drop-in is checked first (S6), and where the results go, before any
# measuring; a newline in --server once wrote a [device] section into the drop-in.
bad_args=(--server $'10.77.0.2\n[device injected]' --server "-x" --server "[::1" --server "[fe80::1%bad/if]:5201"
          --write-config "$TMP/missing/helped.conf" --report "$TMP" --iperf3 iperf3 --iperf3 /nonexistent/iperf3)
for ((i = 0; i < ${#bad_args[@]}; i += 2)); do
        set +e
        if [[ ${bad_args[i]} == --server ]]; then
                out=$(r8t_ns experiment "${bad_args[i]}" "${bad_args[i + 1]}" --knob clkpm=0 2>&1)
        else
                out=$(r8t_ns experiment --server 10.77.0.2 "${bad_args[i]}" "${bad_args[i + 1]}" --knob clkpm=0 2>&1)
        fi
        rc=$?
        set -e
        eq "usage error: ${bad_args[i]} ${bad_args[i + 1]@Q}" 2 "$rc"
        [[ $out != *$'\n'*injected* ]] && ok || fail "${bad_args[i]}: the raw newline was printed: $out"
done
# An iperf3 another user could change is not run (S4): a copy in a directory anyone may write.
mkdir -m 0777 "$TMP/open"
install -m 0755 /usr/bin/iperf3 "$TMP/open/iperf3"
set +e
out=$(r8t_ns experiment --server 10.77.0.2 --iperf3 "$TMP/open/iperf3" --knob clkpm=0 2>&1)
rc=$?
set -e
eq "an iperf3 others can change: usage error" 2 "$rc"
contains "an iperf3 others can change: why" "another user can write $TMP/open" "$out"
# An iperf3 that hangs costs its test's length and a few seconds, said as such (S14: 86 s at --seconds 1).
chmod 0755 "$TMP"
mkdir -m 0755 "$TMP/bin"
printf '#!/bin/sh\nsleep 60\n' >"$TMP/bin/iperf3"
chmod 0755 "$TMP/bin/iperf3"
t0=$SECONDS
set +e
out=$(r8t_ns experiment --server 10.77.0.2 --iperf3 "$TMP/bin/iperf3" --knob clkpm=0 --seconds 1 2>&1)
rc=$?
set -e
eq "a hanging iperf3: exit 1" 1 "$rc"
contains "a hanging iperf3: said" "did not finish within" "$out"
(( SECONDS - t0 < 20 )) && ok || fail "a hanging iperf3 took $((SECONDS - t0)) s"
pkill -f "$TMP/bin/iperf3" || true
as_found "after a hanging iperf3"
# Root's iperf3 runs as a user of its own (issue 46 R3), which no other process runs as:
# _r8169-tuned-iperf where it exists (here: a mount namespace whose /etc/passwd and /etc/group
# have it, made by systemd-sysusers from the shipped file), else nobody, and the experiment says so.
printf '#!/bin/sh\necho "{\\"error\\": \\"ran as $(id -un):$(id -gn) groups $(id -G)\\"}"\n' >"$TMP/bin/iperf3"
for v in with without; do
        mkdir -p "$TMP/users-$v/etc"
        for f in passwd group shadow gshadow; do
                grep -v '^_r8169-tuned-iperf:' "/etc/$f" >"$TMP/users-$v/etc/$f" || true
        done
done
systemd-sysusers --root="$TMP/users-with" --inline "$(grep '^u ' "$SRCDIR/systemd/r8169-tuned.sysusers")"
grep -q '^_r8169-tuned-iperf:' "$TMP/users-with/etc/passwd" && ok || fail "systemd-sysusers made no _r8169-tuned-iperf"
as_users() { # as_users with|without ARGS...: r8t_ns with that /etc/passwd and /etc/group
        local users=$TMP/users-$1; shift
        unshare -m bash -c 'mount --bind "$1/etc/passwd" /etc/passwd && mount --bind "$1/etc/group" /etc/group && shift && exec "$@"' \
                _ "$users" ip netns exec "$nsa" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" \
                --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/empty.conf" --state-dir "$STATE" "$@"
}
set +e
out=$(as_users with experiment --server 10.77.0.2 --iperf3 "$TMP/bin/iperf3" --knob clkpm=0 --seconds 1 2>&1)
out2=$(as_users without experiment --server 10.77.0.2 --iperf3 "$TMP/bin/iperf3" --knob clkpm=0 --seconds 1 2>&1)
set -e
contains "iperf3's own user" "ran as _r8169-tuned-iperf:_r8169-tuned-iperf groups $(awk -F: '$1 == "_r8169-tuned-iperf" {print $4}' "$TMP/users-with/etc/passwd")" "$out"
not_contains "iperf3's own user: no warning" "runs as nobody" "$out"
contains "no iperf3 user: nobody" "ran as nobody:" "$out2"
contains "no iperf3 user: said" "iperf3 runs as nobody, shared with other services" "$out2"
as_found "after iperf3 as its own user"
set +e
out=$(r8t_ns experiment --server 10.77.0.2:5999 --knob clkpm=0 --seconds 1 2>&1)
rc=$?
set -e
eq "no server: exit 1" 1 "$rc"
contains "no server: iperf3's own words" "10.77.0.2:5999" "$out"
# A name that does not resolve is said as such (issue 33, ux-findings L2: iperf3's "Resource
# temporarily unavailable").
set +e
out=$(r8t_ns experiment --server nosuchhost.invalid --knob clkpm=0 --seconds 1 2>&1)
rc=$?
set -e
eq "unresolvable server: exit 1" 1 "$rc"
contains "unresolvable server: said" "Cannot resolve nosuchhost.invalid" "$out"
as_found "after a failed start"
fxi=$(fixture intel-only)
set +e
out=$("$R8T" --sysfs "$fxi/sys" --kernel-log "$fxi/kernel.log" --quirks "$Q" --state-dir "$STATE" experiment --server 10.77.0.2 2>&1)
rc=$?
set -e
eq "no Realtek NIC: exit 1" 1 "$rc"
contains "no Realtek NIC: said" "nothing to measure" "$out"

physics_stop
finish
