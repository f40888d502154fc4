#!/bin/bash
# The VM matrix's guest side: r8169-tuned's package under the guest's own systemd and kernel,
# on a real PCIe tree (QEMU q35: an e1000e behind a root port, managed as an RTL8168h through
# assume-xid), through every step a user's machine goes through. Run by tests/vm/matrix.sh as
#   guest.sh DIR    (DIR holds r8169-tuned_*.deb; it is a 9p share that dies in a suspend, so
#                    everything is copied to /run first and the rest runs from there)
# Prints one line per step with the guest's uptime, "STEP name seconds" timings and
# "FAIL: ..." lines; exits 1 if any check failed.
set -u
if [[ ${1:-} != --from-run ]]; then
        mkdir -p /run/r8t-vm && cp "$1"/*.deb "$1"/autopkgtest-service "$0" /run/r8t-vm/ || exit 1
        cd / && exec bash /run/r8t-vm/guest.sh --from-run
fi
cd /
export SYSTEMD_PAGER= SYSTEMD_COLORS=0
failures=0
up() { cut -d' ' -f1 /proc/uptime; }
say() { printf '[%7.1f] %s\n' "$(up)" "$*"; }
fail() { say "FAIL: $*"; failures=$((failures + 1)); }
eq() { [[ $2 == "$3" ]] && say "ok: $1 ($3)" || fail "$1: expected '$2', got '$3'"; }
step_t0=0 step_name=""
step() { [[ -z $step_name ]] || say "STEP $step_name $(awk -v a="$step_t0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')"
        step_name=${1:-}; step_t0=$(up); [[ -z $step_name ]] || say "== $step_name"; }
# wait_for SECONDS WHAT COMMAND...: polls until COMMAND succeeds; says how long it took.
wait_for() {
        local limit=$1 what=$2 t0; shift 2
        t0=$(up)
        while ! "$@" >/dev/null 2>&1; do
                if awk -v a="$t0" -v b="$(up)" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
                        fail "$what: not within $limit s"; return 1
                fi
                sleep 0.2
        done
        say "ok: $what after $(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }') s"
}

slot1=0000:01:00.0 slot2=0000:02:00.0
ifname_of() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -1; }
# The knobs the configuration below sets, as the kernel and ethtool report them.
state() {
        local s=$1 i; i=$(ifname_of "$s")
        printf 'l0s=%s tso=%s rx-usecs=%s gro=%s napi=%s' "$(cat "/sys/bus/pci/devices/$s/link/l0s_aspm" 2>/dev/null)" \
                "$(ethtool -k "$i" 2>/dev/null | awk '/^tcp-segmentation-offload:/ {print $2}')" \
                "$(ethtool -c "$i" 2>/dev/null | awk '/^rx-usecs:/ {print $2}')" \
                "$(cat "/sys/class/net/$i/gro_flush_timeout" 2>/dev/null)" "$(cat "/sys/class/net/$i/napi_defer_hard_irqs" 2>/dev/null)"
}
state_is() { [[ $(state "$1") == "$2" ]]; }
file_is() { [[ $(cat "$1" 2>/dev/null) == "$2" ]]; }
has_netdev() { [[ -n $(ifname_of "$1") ]]; }
journal_has() { journalctl -u r8169-tuned -o cat --no-pager | grep -q -- "$1"; }
knob_events() { # knob_events MESSAGE_ID: how many journal entries of that kind the service wrote
        journalctl -u r8169-tuned -o json --no-pager "MESSAGE_ID=$1" | grep -c . || true; }

. /etc/os-release
say "guest: $PRETTY_NAME, kernel $(uname -r), systemd $(systemctl --version | awk 'NR == 1 {print $2}')"
if1=$(ifname_of $slot1)
say "onboard NIC: $slot1 $if1 $(cat /sys/bus/pci/devices/$slot1/vendor):$(cat /sys/bus/pci/devices/$slot1/device), driver $(basename "$(readlink /sys/bus/pci/devices/$slot1/driver)")"

step prepare
# Under the BIOS's "default" ASPM policy the kernel will not turn L0s on (vm-NOTES Q2); under
# powersave it does, so the daemon has a 1 to turn off and to give back.
echo powersave >/sys/module/pcie_aspm/parameters/policy
ip link set "$if1" up
# The suspend step wakes an s2idle guest with the power button (below): logind lets it be.
mkdir -p /run/systemd/logind.conf.d
printf '[Login]\nHandlePowerKey=ignore\n' >/run/systemd/logind.conf.d/r8t-vm.conf
systemctl restart systemd-logind
wait_for 20 "L0s on under the powersave policy" file_is /sys/bus/pci/devices/$slot1/link/l0s_aspm 1
orig1=$(state $slot1)
say "found: $orig1"
mkdir -p /etc/r8169-tuned/r8169-tuned.conf.d
cat >/etc/r8169-tuned/r8169-tuned.conf.d/50-testbed.conf <<EOF
# The matrix's stand-in: QEMU's e1000e (8086:10d3) managed as an RTL8168h.
[device onboard]
match-slot = $slot1
assume-xid = 541
l0s_aspm = 0
tso = off
rx-usecs = 50
gro_flush_timeout = 20000
napi_defer_hard_irqs = 2
runtime-pm = on

[device hotplugged]
match-slot = $slot2
assume-xid = 541
l0s_aspm = 0
tso = off
rx-usecs = 40
EOF
want1="l0s=0 tso=off rx-usecs=50 gro=20000 napi=2"

step install
deb=$(ls /run/r8t-vm/r8169-tuned_*.deb)
dpkg -i "$deb" >/run/r8t-vm/dpkg.log 2>&1 || { cat /run/r8t-vm/dpkg.log; fail "dpkg -i ${deb##*/}"; }
say "installed: $(dpkg-query -W -f '${Package} ${Version}' r8169-tuned)"
systemctl enable --now r8169-tuned 2>&1 | sed 's/^/  /'
eq "enabled" enabled "$(systemctl is-enabled r8169-tuned)"
eq "active" active "$(systemctl is-active r8169-tuned)"
wait_for 60 "onboard NIC tuned" state_is $slot1 "$want1"
eq "onboard NIC" "$want1" "$(state $slot1)"
status=$(r8169-tuned status $slot1)
echo "$status" | sed 's/^/  | /'
grep -q "RTL8168h/8111h (XID 541 assumed by /etc/r8169-tuned/r8169-tuned.conf.d/50-testbed.conf:4)" <<<"$status" ||
        fail "status does not say where the chip was assumed"
eq "status --json: the assumed chip" "config e1000e" "$(r8169-tuned --json status $slot1 | jq -r '.nics[0] | "\(.xid_source) \(.driver)"')"
systemctl status --no-pager r8169-tuned 2>&1 | sed -n '1,4p' | sed 's/^/  | /'

step journal
n=$(knob_events b926363d80b442b9a3ac8323c6888e8c)
[[ $n -ge 5 ]] && say "ok: $n knob changes in the journal" || fail "only $n knob-change entries in the journal"
entry=$(journalctl -u r8169-tuned -o json --no-pager MESSAGE_ID=b926363d80b442b9a3ac8323c6888e8c KNOB=l0s_aspm | tail -1)
eq "journal: l0s_aspm entry" "$slot1 $if1 RTL8168h/8111h 1 0" \
        "$(jq -r '"\(.PCI_SLOT) \(.INTERFACE) \(.CHIP) \(.OLD_VALUE) \(.NEW_VALUE)"' <<<"$entry")"

step kernel-defaults
# What r8169 does by itself, for the claimed chip (RTL8168h) on this release's own kernel: the
# software coalescing r8169 turned on in 6.2 is not in Debian 12's 6.1, and is in Debian 13's
# 6.12 (kernel-defaults.conf; the quirk database back-ports it to 6.1 for the 8168g and 8125).
. /etc/os-release
kd=$(r8169-tuned --json kernel-defaults $slot1)
say "kernel-defaults: kernel $(jq -r .kernel <<<"$kd") ($(jq -r '.nics[0].defaults | length' <<<"$kd") rows)"
case ${VERSION_ID%%.*} in
12) want_gro=0 ;;
*) want_gro=20000 ;;
esac
eq "kernel-defaults: gro_flush_timeout on this kernel" "$want_gro" \
        "$(jq -r '.nics[0].defaults[] | select(.knob == "gro_flush_timeout") | .value' <<<"$kd")"
eq "kernel-defaults: the running kernel's release" "$(uname -r | cut -d. -f1,2)" "$(jq -r .kernel <<<"$kd" | cut -d. -f1,2)"

step security
sec=$(systemd-analyze security --no-pager r8169-tuned 2>&1 | tail -1)
say "systemd-analyze security: $sec"
grep -Eq 'Overall exposure level for r8169-tuned.service: [0-9.]+' <<<"$sec" || fail "systemd-analyze security gave no verdict"
exposure=$(sed -n 's/.*: \([0-9.]*\) .*/\1/p' <<<"$sec")
awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 1.4) }' && say "ok: exposure $exposure <= 1.4 (as in system/test-package)" || fail "exposure $exposure > 1.4"

step dbus
# The API on the real system bus, with the shipped policy; the CLI through it.
api=io.github.r8169_tuned1
eq "D-Bus: the profile in force" '"performance"' "$(busctl get-property $api /io/github/r8169_tuned1 $api.Manager ActiveProfile | cut -d' ' -f2)"
r8169-tuned verify >/dev/null && say "ok: verify through the service" || fail "verify: $?"
r8169-tuned restore $slot1 | sed 's/^/  | /'
eq "restore through the service" "$orig1" "$(state $slot1)"
# status says, first, that the NIC was given back and how to take it back (ux-findings M1, H5).
st=$(r8169-tuned status)
[[ $(head -1 <<<"$st") == "Verdict: 1 NIC given back by \"restore\""* && $st == *"service: given back by restore; \"r8169-tuned apply $if1\" takes it back"* ]] &&
        say "ok: status: given back, said first and on the NIC" || fail "status after restore: $(head -12 <<<"$st")"
r8169-tuned apply enp1s0 >/dev/null
wait_for 30 "apply through the service" state_is $slot1 "$want1"
st=$(r8169-tuned status)
[[ $st == *"service: tuned by r8169-tuned.service"* && $st == *"l0s_aspm"*"as planned: "*"50-testbed.conf:"* ]] &&
        say "ok: status: tuned by the service, each knob's line" || fail "status after apply: $(head -14 <<<"$st")"
r8169-tuned profile powersave && r8169-tuned profile | sed 's/^/  | /'
r8169-tuned profile balanced --persist >/dev/null
eq "profile --persist" "profile = balanced" "$(grep '^profile' /etc/r8169-tuned/r8169-tuned.conf.d/90-profile.conf)"
r8169-tuned profile --reset --persist | sed 's/^/  | /'
[[ ! -e /etc/r8169-tuned/r8169-tuned.conf.d/90-profile.conf ]] && say "ok: profile --reset --persist removed the drop-in" ||
        fail "profile --reset --persist left 90-profile.conf"
eq "profile --reset: the configured profile again" '"performance" "configuration"' \
        "$(busctl get-property $api /io/github/r8169_tuned1 $api.Manager ActiveProfile | cut -d' ' -f2) $(busctl get-property $api /io/github/r8169_tuned1 $api.Manager ProfileSource | cut -d' ' -f2)"
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups busctl call $api /io/github/r8169_tuned1 $api.Manager SetProfile s powersave 2>&1)
rc=$?
[[ $rc -ne 0 && $out == *"ccess denied"* ]] && say "ok: nobody may not switch the profile" || fail "nobody: SetProfile gave $rc: $out"

step reload
pid=$(systemctl show -P MainPID r8169-tuned)
sed -i 's/^rx-usecs = 50$/rx-usecs = 60/' /etc/r8169-tuned/r8169-tuned.conf.d/50-testbed.conf
systemctl reload r8169-tuned && say "ok: systemctl reload" || fail "systemctl reload: $?"
want1="l0s=0 tso=off rx-usecs=60 gro=20000 napi=2"
wait_for 30 "reloaded value applied" state_is $slot1 "$want1"
eq "same process" "$pid" "$(systemctl show -P MainPID r8169-tuned)"

step drift
ethtool -C "$if1" rx-usecs 3
ethtool -K "$if1" tso on 2>/dev/null
wait_for 30 "drift made with ethtool put back" state_is $slot1 "$want1"
wait_for 10 "drift in the journal" journal_has "rx-usecs"
journalctl -u r8169-tuned -o cat --no-pager MESSAGE_ID=da8236c0ab734f3a8028105923b94089 | tail -2 | sed 's/^/  | /'

step rebind
# A real driver unbound and bound again (issue 48, §3), as a module reload or a switch of driver
# does: the probe makes a new interface with the driver's own defaults (r8169's also turns L1
# off; e1000e stands in here). The daemon hears the PCI function's unbind and bind, says them,
# and puts the plan back.
drv=$(basename "$(readlink /sys/bus/pci/devices/$slot1/driver)")
echo "$slot1" >/sys/bus/pci/drivers/$drv/unbind
wait_for 10 "unbind in the journal" journal_has "$drv unbound from it"
echo "$slot1" >/sys/bus/pci/drivers/$drv/bind
t0=$(up)
wait_for 30 "rebound NIC tuned again" state_is $slot1 "$want1"
t_tuned=$(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')
say "rebind: tuned again $t_tuned s after the bind"
awk -v t="$t_tuned" 'BEGIN { exit !(t <= 5) }' && say "ok: within 5 s under emulation" || fail "rebind: $t_tuned s"
wait_for 10 "bind in the journal" journal_has "$drv bound to it, not r8169"
if1=$(ifname_of $slot1)

step runtime-pm
# The real kernel's power/control (issue 48, §4): TLP on battery writes auto; the next event
# (here the interface coming up again) finds it changed behind the daemon's back: said, and
# put back once (drift = reassert), not written again after.
control=/sys/bus/pci/devices/$slot1/power/control
eq "runtime-pm as configured" on "$(cat $control)"
echo auto >$control
ip link set "$if1" down
ip link set "$if1" up
wait_for 30 "runtime-pm put back at the link's up" file_is $control on
wait_for 10 "the other writer said" journal_has "runtime-pm changed from on to auto outside r8169-tuned; putting on back"
eq "runtime-pm: one write" 1 "$(journalctl -u r8169-tuned -o cat --no-pager | grep -c 'runtime-pm auto -> on')"
say "runtime status: $(cat /sys/bus/pci/devices/$slot1/power/runtime_status)"

step hotplug
t0=$(up)
r8t-qmp device_add driver=e1000e bus=rp2 id=hot1 mac=52:54:00:12:34:02 >/dev/null || fail "device_add"
wait_for 60 "hotplugged NIC appears" has_netdev $slot2
t_dev=$(up)
if2=$(ifname_of $slot2)
wait_for 60 "hotplugged NIC tuned" state_is $slot2 "l0s=0 tso=off rx-usecs=40 gro=0 napi=0"
say "hotplug: $slot2 $if2 present $(awk -v a="$t0" -v b="$t_dev" 'BEGIN { printf "%.1f", b - a }') s after device_add, tuned $(awk -v a="$t_dev" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }') s after that"
r8t-qmp device_del id=hot1 >/dev/null || fail "device_del"
wait_for 60 "hotplugged NIC removed" test ! -e /sys/bus/pci/devices/$slot2
wait_for 20 "removal in the journal" journal_has "$slot2.*gone"
eq "still running" active "$(systemctl is-active r8169-tuned)"

step autopkgtest
# The package's own test that needs a machine (conf/debian/tests/service, Restrictions:
# needs-root, isolation-machine), run as autopkgtest would in this guest: start, verify, reload,
# stop restores what it changed; it leaves the service running.
# Here the onboard NIC has knobs to change, so the counts must not be 0; and, as autopkgtest
# wants without allow-stderr, nothing on stderr.
if sh /run/r8t-vm/autopkgtest-service >/run/r8t-vm/autopkgtest.log 2>/run/r8t-vm/autopkgtest.err; then
        counts=$(grep -E '^this run changed' /run/r8t-vm/autopkgtest.log)
        [[ $counts =~ changed\ [1-9][0-9]*\ knob ]] && say "ok: autopkgtest service: $counts" ||
                fail "autopkgtest service: nothing changed here ($counts)"
        [[ ! -s /run/r8t-vm/autopkgtest.err ]] || { sed 's/^/  | /' /run/r8t-vm/autopkgtest.err; fail "autopkgtest service: stderr"; }
else
        sed 's/^/  | /' /run/r8t-vm/autopkgtest.log /run/r8t-vm/autopkgtest.err; fail "autopkgtest service"
fi
wait_for 30 "tuned again after it" state_is $slot1 "$want1"

step suspend
# Through logind, as a desktop suspends: PrepareForSleep(true), the kernel's suspend, then
# PrepareForSleep(false). Which suspend the kernel makes is the matrix's choice (matrix.sh):
# "deep" is S3 through the firmware, as desktops sleep; "s2idle" keeps the firmware out of it, as
# laptops since about 2019 sleep. From S3 the host wakes the guest (QMP system_wakeup once QEMU
# says it is suspended: the request is made now, while the 9p share still works) and the RTC
# alarm is a second way, late enough that a slow way into S3 cannot miss it (an alarm that fires
# before the suspend wakes nothing: seen once on 6.12 under TCG with 10 s). QEMU's RTC alarm does
# not end s2idle (6.12, TCG: seen here), and QEMU cannot tell when a guest is in it: the host
# presses the power button (QMP system_powerdown; logind ignores it, see prepare) three times, the
# first 10 s from now, well after the way in has begun (2 s here), the others in case a press
# came too early. Nothing from the 9p share is touched from here on.
mem_sleep=$(sed -n 's/.*\[\([a-z0-9]*\)\].*/\1/p' /sys/power/mem_sleep)
say "suspend: /sys/power/mem_sleep: $(cat /sys/power/mem_sleep)"
if [[ $mem_sleep == deep ]]; then
        r8t-qmp --when-suspended --delay 2 --nowait system_wakeup || fail "r8t-qmp system_wakeup"
        rtcwake -m no -s 60 >/dev/null || fail "rtcwake -m no"
else
        for d in 10 30 50; do r8t-qmp --delay $d --nowait system_powerdown || fail "r8t-qmp system_powerdown"; done
fi
resumes() { journalctl -u r8169-tuned -o cat --no-pager | grep -c "Resumed from suspend" || true; }
resumed_since() { [[ $(resumes) -gt $1 ]]; }
resumed_before=$(resumes)
systemctl suspend || fail "systemctl suspend"
wait_for 120 "resumed (logind's PrepareForSleep false)" resumed_since "$resumed_before"
journalctl -k --no-pager -g 'PM: suspend (entry|exit)' | tail -2 | sed 's/^/  | /'
wait_for 60 "tuned after resume" state_is $slot1 "$want1"

step stop
systemctl stop r8169-tuned
eq "stopped" inactive "$(systemctl is-active r8169-tuned)"
eq "restored on stop" "$orig1" "$(state $slot1)"
journalctl -u r8169-tuned -o cat --no-pager | tail -3 | sed 's/^/  | /'
step

if [[ $failures -gt 0 ]]; then
        say "the service's journal, for the failures above:"
        journalctl -u r8169-tuned -o short-monotonic --no-pager | tail -n 60 | sed 's/^/  | /'
        journalctl -u systemd-logind -u systemd-suspend -o short-monotonic --no-pager | tail -n 15 | sed 's/^/  | /'
fi
say "RESULT: $failures failure(s) on $(uname -r)"
[[ $failures -eq 0 ]]
