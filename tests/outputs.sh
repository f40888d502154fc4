#!/usr/bin/env bash
# outputs.sh BINARY OUTDIR: every output of every read-only command, as text and as --json, on
# every fixture, under four configurations and three kernel releases (Debian 12's, Debian 13's,
# the newest LTS), plan under each profile: one file per run (its standard output, its standard
# error and its exit status), in OUTDIR. A change that should not change what any command says
# (a refactor) proves it by an empty diff:
#
#   tests/outputs.sh build/r8169-tuned /tmp/before      # on the commit before
#   tests/outputs.sh build/r8169-tuned /tmp/after       # on the change
#   diff -r /tmp/before /tmp/after
#
# Not a test of its own (the tests say what is right; this says what changed); about a minute
# on one core. The paths of this run's scratch trees are written as @FX@ and @TMP@, the host's
# running kernel (diagnose quotes it) as @UNAME@; nothing else of the host reaches the output:
# the kernel release is given, the state directory is an empty scratch one, the configuration
# and quirks are the source's.
set -euo pipefail
(($# == 2)) || { echo "usage: $0 BINARY OUTDIR" >&2; exit 2; }
bin=$(realpath "$1")
out=$2
src=$(cd "$(dirname "$0")/.." && pwd)
[[ -x $bin ]] || { echo "$0: $1: not an executable" >&2; exit 2; }
mkdir -p "$out"
[[ -z $(ls -A "$out") ]] || { echo "$0: $out: not empty" >&2; exit 2; }
tmp=$(mktemp -d /tmp/r8t-outputs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC
unset COLUMNS R8T_LOG_LEVEL SYSTEMD_LOG_LEVEL NO_COLOR
uname_r=$(uname -r)

: >"$tmp/empty.conf"
printf '[global]\nprofile = balanced\n\n[device all]\nmatch-chip = RTL*\nclkpm = 1\ntso = on\n' >"$tmp/override.conf"
printf '[device x]\nmatch-chip = RTL8168h*\nignore = yes\n' >"$tmp/ignore.conf"
printf '[global]\nlink-power = dynamic\n[device h]\nmatch-chip = RTL8168h*\nlink-power = dynamic\n' >"$tmp/dynamic.conf"
mkdir "$tmp/state"

n=0
run() { # run NAME ARGS...: one run of the binary into OUTDIR/NAME
        local f=$out/$1 rc; shift
        set +e
        "$bin" "$@" >"$f" 2>"$tmp/stderr" </dev/null
        rc=$?
        set -e
        { echo "--- stderr"; cat "$tmp/stderr"; echo "--- exit $rc"; } >>"$f"
        sed -i -e "s|$tmp/fx|@FX@|g" -e "s|$tmp|@TMP@|g" -e "s|$uname_r|@UNAME@|g" "$f"
        n=$((n + 1))
}

# What depends on no machine.
mkdir -p "$out/-"
run -/help --help
run -/version --version
run -/knobs knobs
run -/knobs.json knobs --json
for cmd in status plan check-config quirks kernel-defaults knobs apply verify restore diagnose metrics daemon reload profile \
        experiment; do
        run "-/help-$cmd" "$cmd" --help
done
run -/unknown-command bogus
run -/unknown-option --bogus status
run -/unknown-option.json --json --bogus status

for def in "$src"/tests/fixtures/*.fixture; do
        name=$(basename "$def" .fixture)
        fx=$tmp/fx/$name
        "$src/tests/fixtures/mkfixture" "$def" "$fx"
        mkdir -p "$out/$name"
        for kernel in 6.1.0 6.12.0 6.18.0; do
                for conf in empty override ignore dynamic; do
                        common=(--sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --kernel-release "$kernel"
                                --quirks "$src/conf/quirks.d" --config "$tmp/$conf.conf" --state-dir "$tmp/state")
                        at="$name/$kernel-$conf"
                        for profile in "" performance balanced powersave; do
                                p=${profile:-configured}
                                run "$at-plan-$p" "${common[@]}" ${profile:+--profile "$profile"} plan
                                run "$at-plan-$p.json" "${common[@]}" ${profile:+--profile "$profile"} plan --json
                        done
                        run "$at-plan-verbose" "${common[@]}" plan -v
                        for cmd in status quirks kernel-defaults diagnose verify profile check-config metrics; do
                                run "$at-$cmd" "${common[@]}" "$cmd"
                                run "$at-$cmd.json" "${common[@]}" "$cmd" --json
                        done
                done
        done
        common=(--sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --kernel-release 6.12.0 --quirks "$src/conf/quirks.d"
                --config "$tmp/empty.conf" --state-dir "$tmp/state")
        run "$name/diagnose-mac" "${common[@]}" diagnose --show-mac
        run "$name/diagnose-mac.json" "${common[@]}" diagnose --show-mac --json
        run "$name/status-unknown-nic" "${common[@]}" status enp9s0
        run "$name/status-unknown-nic.json" "${common[@]}" status enp9s0 --json
done
[[ -z $(ls -A "$tmp/state") ]] || { echo "$0: a read-only command wrote into the state directory" >&2; exit 1; }
echo "$n runs into $out"
