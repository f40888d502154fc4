#!/usr/bin/env bash
# One row of the VM matrix (DESIGN §7): the package built for a Debian release, installed in a
# booted VM of that release with its own kernel (QEMU q35 under TCG, systemd as PID 1, a real
# PCIe tree with an e1000e that a [device] section manages as an RTL8168h), and there every step
# of tests/vm/guest.sh: enable --now, status, journal, systemd-analyze security, reload, drift,
# PCIe hotplug through QMP, suspend to RAM through logind, stop and restore.
#   matrix.sh bookworm|trixie     (from tests/vm/test-debian12.sh and test-debian13.sh)
# The guest's log is printed (ctest shows it on failure) and kept in $BUILDDIR/Testing/vm-SUITE.log;
# its key lines and the step times go to $BUILDDIR/Testing/vm-SUITE.txt, which .ci/run prints.
# Needs root, qemu-system-x86, debootstrap, zstd; the VM images and the other release's build
# root are built once and cached (tests/vm/vm-run.sh, tests/build-deb.sh).
source "$SRCDIR/tests/lib.sh"
suite=$1
# bookworm's guest suspends to S3 ("deep", as desktops do), trixie's to idle ("s2idle", as
# laptops since about 2019 do, and out of the firmware's way: from S3 a 6.12 guest under TCG
# reset on its way back in three of four runs on CI's machine, 1 December 2026, and two of two on
# 3 December). Both are the kernel's suspend, between logind's PrepareForSleep true and false.
case $suite in bookworm) kernel=6.1 sleep=deep ;; trixie) kernel=6.12 sleep=s2idle ;; *) echo "matrix.sh: no such suite $suite" >&2; exit 2 ;; esac

[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit 77; }
for t in qemu-system-x86_64 debootstrap zstd python3 mkfs.ext4; do
        command -v "$t" >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done

t0=$SECONDS
share=$TMP/share
mkdir -p "$share"
built=$(bash "$SRCDIR/tests/build-deb.sh" "$suite" "$TMP/debs") || { fail "the $suite package: not built"; finish; exit 1; }
echo "$built"
t_deb=$((SECONDS - t0))
# The package (its own version, not the +test1 one), the guest's steps and the package's own
# autopkgtest that needs a machine (conf/debian/tests/service: isolation-machine).
cp "${built%% *}" "$SRCDIR/tests/vm/guest.sh" "$share/"
cp "$SRCDIR/conf/debian/tests/service" "$share/autopkgtest-service"

log=$TMP/guest.log
t1=$SECONDS
# A run takes 100 to 200 s here (TCG); 600 s ends one whose guest stopped answering long
# before the suite's own limit.
run_vm() {
        set +e
        (cd "$share" && R8T_VM_APPEND="mem_sleep_default=$sleep" bash "$SRCDIR/tests/vm/vm-run.sh" --kernel "$kernel" --timeout 600 --share "$share" \
                -- bash "$share/guest.sh" "$share") >"$log" 2>&1
        rc=$?
        set -e
}
run_vm
# Under TCG a guest of 6.12 has at times not come back from S3 (twice in about twenty runs here,
# more often on CI's machine; hence s2idle above): it reset on its way back (QEMU, run with
# -no-reboot, then exits 0 with no status) or stopped answering (the timeout; vm-run.sh now says
# what QEMU reported then, and wakes a guest still suspended 5 s after a wakeup again). No step
# before it failed, and neither is the service's doing: such a run is made once more, and said;
# a second one fails the test.
retried=""
if [[ $rc == 124 || ( $rc != 0 && $(grep -c 'no exit status came back (qemu status 0)' "$log") != 0 ) ]] &&
   [[ $(grep -E '^\[ *[0-9.]*\] == ' "$log" | tail -1) == *"== suspend" ]] && ! grep -q '^\[ *[0-9.]*\] FAIL' "$log"; then
        cp "$log" "$BUILDDIR/Testing/vm-$suite-reset.log"
        how="reset on its way back (QEMU exited 0, no status)"
        [[ $rc == 124 ]] && how="stopped answering ($(grep -o "QEMU's status then: [^;]*" "$log" || echo "QEMU's status unknown"))"
        retried="the first run's guest $how during its suspend (its log: vm-$suite-reset.log); run again"
        echo "vm matrix: $retried"
        run_vm
fi
t_vm=$((SECONDS - t1))
cat "$log"
eq "guest's exit status (vm-run: 124 timed out, 125 no status)" 0 "$rc"

# What the log must show, whatever the guest said of itself.
release=$(sed -n 's/.*kernel \([^,]*\), systemd.*/\1/p' "$log" | head -1)
case $kernel in
6.1) [[ $release == 6.1.* ]] || fail "guest kernel '$release' is not 6.1" ;;
6.12) [[ $release == 6.12.* ]] || fail "guest kernel '$release' is not 6.12" ;;
esac
for want in "ok: onboard NIC tuned" "ok: verify through the service" "ok: apply through the service" "ok: reloaded value applied" "ok: drift made with ethtool put back" \
        "ok: hotplugged NIC tuned" "ok: resumed (logind's PrepareForSleep false)" "ok: tuned after resume" \
        "ok: restored on stop" "PM: suspend entry ($sleep)" "RESULT: 0 failure(s)"; do
        grep -qF "$want" "$log" && ok || fail "the guest's log lacks \"$want\""
done

mkdir -p "$BUILDDIR/Testing"
{
        echo "VM matrix, Debian $suite, guest kernel ${release:-?}: ${built%% (*}"
        echo "  package ${t_deb} s, VM ${t_vm} s (boot to command, steps, power-off), total $((SECONDS - t0)) s"
        [[ -z $retried ]] || echo "  RETRIED: $retried"
        grep '^vm-run: kernel' "$log" | sed 's/^/  /'
        sed -n 's/^\[ *\([0-9.]*\)\] STEP \(.*\) \([0-9.]*\)$/  step \2: \3 s/p' "$log"
        grep -E '^\[ *[0-9.]*\] (guest:|onboard NIC:|found:|suspend:|ok: (onboard NIC|reloaded|drift made|hotplugged NIC tuned|resumed|tuned after resume|restored|D-Bus|verify through|restore through|apply through|nobody)|hotplug:|systemd-analyze security:|RESULT)' "$log" |
                sed 's/^\[ *\([0-9.]*\)\] /  [\1] /'
} | tee "$BUILDDIR/Testing/vm-$suite.txt"
cp "$log" "$BUILDDIR/Testing/vm-$suite.log"
finish
