#!/usr/bin/env bash
# The Debian package under a real systemd as PID 1 (DESIGN §7): a root of this machine's Debian release made with
# debootstrap (cached under /var/cache, built when missing) boots with systemd-nspawn; a
# fixture NIC is bound in and a veth named like its interface is made at every boot. Each
# step of a package's life is asserted and timed:
#   install     apt install ./r8169-tuned_*.deb: enabled, running, and the unit's own sandbox
#               applied the fix (RTL8168c: TSO and SG off, seen by ethtool -k) and the local
#               configuration (gro_flush_timeout in the fixture's sysfs)
#   reload      systemctl reload with a changed configuration: same process, new value
#   link power  a drop-in asks for dynamic link power: its wake socket (AF_PACKET, CAP_NET_RAW)
#               opens under the unit's sandbox (ss -0 -p) and closes when the drop-in goes
#   reboot      applied again at boot; the shutdown had restored the originals
#   hotplug     the veth deleted, made again and brought up: tuned again (no udevd runs in a
#               container, so the daemon learns of it from rtnetlink's link up)
#   remove      apt remove: stopped, originals restored, not masked
#   reinstall   apt install after a remove (and a mask such as earlier packages left): enabled
#               and running, not masked
#   upgrade     apt install of a higher version: restarted, still tuned
#   ansible     the shipped playbook (conf/ansible), run in the machine by ansible-playbook as
#               printed in r8169-tuned(8): the first run changes (the drop-in, a reload), the
#               second changes nothing, a knob changed by hand fails the play (verify), and a
#               broken drop-in fails it with check-config's message, the old one kept
#   purge       apt purge: conffile, undo journal and enable state gone, originals restored
# The report (steps and times) is also written to $BUILDDIR/Testing/system-package.txt.
# Needs root, systemd-nspawn (systemd-container), debootstrap, zstd and Debian's mirror as
# apt reaches it (for the first build of the root only); skips (77) without them.
# R8T_SYSTEM_CACHE names another folder for the cached root.
source "$SRCDIR/tests/lib.sh"

[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit 77; }
for t in systemd-nspawn debootstrap zstd unshare nsenter dpkg-deb dpkg-buildpackage; do
        command -v "$t" >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
arch=$(dpkg --print-architecture)
cache=${R8T_SYSTEM_CACHE:-/var/cache/r8169-tuned-tests}
fixture_name=desktop-8168c   # RTL8168c: TSO and SG off, in every profile
ifname=enp2s0
slot=0000:02:00.0
fx_in=/srv/r8t-fixture       # where the fixture is inside the machine
report=()
t_start=$SECONDS
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
step_t0=""
step() { step_name=$1; step_t0=$(now); echo "== $1"; }
step_done() { # step_done DETAIL: the step's time and what it showed, into the report
        local line
        line=$(printf '%-10s %6s s  %s' "$step_name" "$(since "$step_t0")" "$1")
        report+=("$line")
        echo "   $line"
}
die() { fail "$*"; ! declare -F dump_machine >/dev/null || dump_machine; finish; exit 1; }

########## The debs: dpkg-buildpackage (tests/build-deb.sh), the changelog's version and a higher one
step package
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
mkdir -p "$TMP/debs"
bash "$SRCDIR/tests/build-deb.sh" "$suite" "$TMP/build-deb" >/dev/null || die "tests/build-deb.sh $suite failed"
version=$(dpkg-parsechangelog -l "$SRCDIR/conf/debian/changelog" -S Version)
next=$version+test1                                # sorts after $version for dpkg
deb1=r8169-tuned_${version}_$arch.deb
deb2=r8169-tuned_${next}_$arch.deb
cp "$TMP/build-deb/$deb1" "$TMP/build-deb/$deb2" "$TMP/debs/" || die "build-deb.sh made $(ls "$TMP/build-deb")"
dpkg --compare-versions "$next" gt "$version" || die "$next does not sort after $version"
step_done "$deb1, $deb2"

########## The machine's root: debootstrap once, then from the cache
# What the machine has: systemd as PID 1 and what the package needs to run, nothing to build.
packages=systemd,systemd-sysv,dbus,iproute2,ethtool,procps,libpci3,libnl-3-200,libnl-genl-3-200,libsystemd0,libinih1,libjson-c5
# And what the shipped Ansible playbook needs on a host it runs on (the step ansible runs it
# there), installed with apt in the new root: debootstrap --include cannot configure python3-cryptography.
extra_packages="ansible-core python3-apt"
# The release this machine runs (Debian 12 bookworm, 13 trixie): the package was built against its libraries ($suite).
[[ -n $suite ]] || die "no VERSION_CODENAME in /etc/os-release: which Debian release is this?"
key="r8169-tuned system test root 1: debootstrap --variant=minbase --include=$packages $suite $arch; apt-get install $extra_packages"
case $suite in bookworm) release=12 ;; trixie) release=13 ;; *) release=$suite ;; esac
tarball=$cache/debian$release-systemd-$arch.tar.zst
mkdir -p "$cache"
exec {lockfd}>"$cache/.lock"
flock "$lockfd"
step root
if [[ ! -s $tarball || "$(cat "$tarball.key" 2>/dev/null)" != "$key" ]]; then
        # The mirror apt uses here, as apt itself would print it.
        mirror=$(apt-get --print-uris update 2>/dev/null | sed -n "s|^'\(.*\)/dists/$suite/InRelease'.*|\1|p" | head -1)
        [[ -n $mirror ]] || die "no $suite entry in apt's sources: cannot debootstrap"
        rm -rf --one-file-system "$cache"/build.*
        build_root=$(mktemp -d "$cache/build.XXXXXX")
        if ! debootstrap --variant=minbase --include="$packages" "$suite" "$build_root/root" "$mirror" \
                >"$TMP/debootstrap.log" 2>&1; then
                tail -n 20 "$TMP/debootstrap.log" >&2
                rm -rf --one-file-system "$build_root"
                die "debootstrap failed"
        fi
        r=$build_root/root
        mount -t proc proc "$r/proc"
        # shellcheck disable=SC2086 # a list of package names
        if ! { chroot "$r" apt-get update -q && chroot "$r" env DEBIAN_FRONTEND=noninteractive \
                apt-get install -y -q --no-install-recommends $extra_packages; } >>"$TMP/debootstrap.log" 2>&1; then
                umount "$r/proc"
                tail -n 20 "$TMP/debootstrap.log" >&2
                rm -rf --one-file-system "$build_root"
                die "apt-get install $extra_packages in the new root failed"
        fi
        umount "$r/proc"
        # A machine of its own: no mirror (it has no network), an id per run, a persistent journal.
        : >"$r/etc/apt/sources.list"
        rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/*.bin "$r/var/log/bootstrap.log"
        : >"$r/etc/machine-id"
        rm -f "$r/var/lib/dbus/machine-id"
        mkdir -p "$r/var/log/journal"
        echo r8t-system >"$r/etc/hostname"
        tar --numeric-owner --xattrs --xattrs-include='*' -I 'zstd -T0 -q' -C "$r" -cf "$tarball.tmp" .
        mv -f "$tarball.tmp" "$tarball"
        echo "$key" >"$tarball.key"
        rm -rf --one-file-system "$build_root"
        root_how="built with debootstrap"
else
        root_how="from the cache"
fi
# Unpacked into memory when there is room (~10 s onto this disk, ~1 s into RAM): 2 GiB free in
# /dev/shm, and 4 GiB of memory available, since a 2 GiB VM guest may run beside this test.
parent=$TMP
if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]] &&
        (($(df -Pk /dev/shm | awk 'NR == 2 {print $4}') > 2 * 1024 * 1024)) &&
        (($(awk '$1 == "MemAvailable:" {print $2}' /proc/meminfo) > 4 * 1024 * 1024)); then
        parent=/dev/shm
fi
work=$(mktemp -d "$parent/r8t-system.XXXXXX")
root=$work/root
mkdir "$root"
cleanup_hooks+=("machine_cleanup")
tar --numeric-owner --xattrs --xattrs-include='*' -I 'zstd -q' -C "$root" -xpf "$tarball"
exec {lockfd}>&- # unlocks; the machine's processes must not inherit it
step_done "$root_how ($(du -sh "$tarball" | cut -f1)), unpacked into $parent"

########## What the test puts into the machine
fx=$(fixture "$fixture_name")
orig_gro=$(cat "$fx/sys/class/net/$ifname/gro_flush_timeout")
systemd-id128 new >"$root/etc/machine-id"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/etc/systemd/system/r8169-tuned.service.d" \
        "$root/etc/r8169-tuned/r8169-tuned.conf.d" "$root$fx_in" "$root/srv/debs"
cp "$TMP/debs"/*.deb "$root/srv/debs/"
# The stand-in for the Realtek NIC's interface, there at every boot before the daemon starts.
cat >"$root/etc/systemd/system/r8t-test-veth.service" <<EOF
[Unit]
Description=Test: a veth named like the fixture NIC's interface
Before=r8169-tuned.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/sbin/ip link add $ifname type veth peer name peer0
ExecStart=/sbin/ip link set $ifname up

[Install]
WantedBy=multi-user.target
EOF
ln -s ../r8t-test-veth.service "$root/etc/systemd/system/multi-user.target.wants/r8t-test-veth.service"
# The daemon pointed at the fixture: the only change to the unit. The fixture's sysfs stands
# in for /sys/devices, the unit's only writable part of /sys, hence ReadWritePaths.
cat >"$root/etc/systemd/system/r8169-tuned.service.d/fixture.conf" <<EOF
[Service]
ExecStart=
ExecStart=/usr/sbin/r8169-tuned --sysfs $fx_in/sys --kernel-log $fx_in/kernel.log daemon
ReadWritePaths=$fx_in/sys
EOF
local_conf() { # local_conf VALUE: the local configuration, as an admin writes it
        printf '[device this-desktop]\nmatch-slot = %s\ngro_flush_timeout = %s\n' "$slot" "$1" \
                >"$root/etc/r8169-tuned/r8169-tuned.conf.d/50-local.conf"
}
local_conf 30000
# The metrics for node_exporter, in its directory on Debian (made here as its package would): the
# unit's ReadWritePaths= must let the service write there under ProtectSystem=strict.
textdir=/var/lib/prometheus/node-exporter
mkdir -p "$root$textdir"
printf '[global]\nmetrics-textfile = %s/r8169-tuned.prom\n' "$textdir" >"$root/etc/r8169-tuned/r8169-tuned.conf.d/40-metrics.conf"
published() { grep -qx "r8169_tuned_running $1" "$root$textdir/r8169-tuned.prom" 2>/dev/null; }

########## The machine
cgroups=()
find_cgroups() { # the host's cgroup2 and name=systemd hierarchies: nspawn runs in a cgroup of ours
        awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo
        awk '$9 == "cgroup" && $NF ~ /(^|,)name=systemd(,|$)/ { print $5; exit }' /proc/self/mountinfo
}
make_cgroups() { # one cgroup per boot, under ours, in each hierarchy; removed at the end
        local mnt own d
        cgroups_now=()
        while read -r mnt; do
                [[ -n $mnt ]] || continue
                if [[ $(stat -f -c %T "$mnt") == cgroup2fs ]]; then
                        own=$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup)
                else
                        own=$(awk -F: '$2 == "name=systemd" { print $3; exit }' /proc/self/cgroup)
                fi
                d=$mnt${own%/}/r8t-system.$$.$boots
                mkdir "$d"
                cgroups+=("$d")
                cgroups_now+=("$d")
        done < <(find_cgroups)
}
nspawn_pid=""
leader=""
boots=0
boot() {
        local runtmp=/run t0 i c exe
        boots=$((boots + 1))
        make_cgroups
        [[ -d /run/systemd ]] && runtmp=/run/systemd
        echo "==== boot $boots" >>"$TMP/console.log"
        # A private mount namespace with a tmpfs over /run/systemd: without systemd as the
        # host's PID 1 (--register=no --keep-unit), nspawn would leave its files in the host's.
        (
                for d in "${cgroups_now[@]}"; do echo "$BASHPID" >"$d/cgroup.procs"; done
                export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1
                # shellcheck disable=SC2016
                exec unshare --mount --propagation private -- sh -c \
                        'mount -t tmpfs -o mode=755,nosuid,nodev tmpfs "$1" && shift && exec systemd-nspawn "$@"' \
                        sh "$runtmp" --quiet --register=no --keep-unit --machine="r8t-system-$$" \
                        --directory="$root" --link-journal=no --timezone=off --resolv-conf=off \
                        --boot --private-network --console=pipe --bind="$fx:$fx_in"
        ) </dev/null >>"$TMP/console.log" 2>&1 &
        nspawn_pid=$!
        leader=""
        for ((i = 0; i < 600; i++)); do
                [[ -z $leader ]] || break
                kill -0 "$nspawn_pid" 2>/dev/null || break
                for c in $(cat "/proc/$nspawn_pid/task/$nspawn_pid/children" 2>/dev/null); do
                        exe=$(readlink "/proc/$c/exe" 2>/dev/null) || continue
                        [[ $exe == */systemd && $(readlink "/proc/$c/ns/pid") != $(readlink /proc/self/ns/pid) ]] &&
                                leader=$c
                done
                [[ -n $leader ]] || sleep 0.05
        done
        [[ -n $leader ]] || return 1
        for ((i = 0; i < 600; i++)); do
                case $(inside_quiet systemctl is-system-running) in running|degraded) return 0 ;; esac
                kill -0 "$nspawn_pid" 2>/dev/null || return 1
                sleep 0.1
        done
        return 1
}
inside_quiet() { # a command as root in the machine (a console login's environment), its output
        timeout -k 5 60 nsenter --target "$leader" --all --root --wd -- /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
                PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin SYSTEMD_PAGER= SYSTEMD_COLORS=0 \
                DEBIAN_FRONTEND=noninteractive "$@" </dev/null 2>&1
}
inside() { # the same, into the transcript; sets out and rc
        set +e; out=$(inside_quiet "$@"); rc=$?; set -e
        { printf '# %s\n' "$*"; [[ -n $out ]] && printf '%s\n' "$out"; printf '[rc %s]\n' "$rc"; } >>"$TMP/transcript.log"
}
poweroff_machine() { # $1: how long to wait for a clean power-off
        local i
        [[ -n $nspawn_pid ]] || return 0
        kill -TERM "$nspawn_pid" 2>/dev/null || true     # nspawn asks the machine to power off
        for ((i = 0; i < ${1:-30} * 10; i++)); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$nspawn_pid" 2>/dev/null && { [[ -n $leader ]] && kill -KILL "$leader"; kill -KILL "$nspawn_pid"; }
        wait "$nspawn_pid" 2>/dev/null || true
        nspawn_pid=""; leader=""
}
machine_cleanup() {
        local d p pass
        poweroff_machine 10
        # Anything still running with its root in ours (none, normally), then the cgroups.
        for d in /proc/[0-9]*; do
                [[ $(readlink "$d/root" 2>/dev/null) == "$root"* ]] && kill -KILL "${d#/proc/}" 2>/dev/null
        done
        for d in "${cgroups[@]+"${cgroups[@]}"}"; do
                for pass in 1 2 3; do
                        p=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u)
                        [[ -n $p ]] || break
                        # shellcheck disable=SC2086 # PIDs in our own cgroup
                        kill -KILL $p 2>/dev/null; sleep 0.5
                done
                find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
        done
        if awk -v r="$work" 'index($5, r) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
                echo "WARNING: mounts left under $work; not removing it" >&2
        else
                rm -rf --one-file-system "$work"
        fi
}
dump_machine() { # what to look at when a step failed
        echo "---- systemd-nspawn's console (last 30 lines)" >&2
        tail -n 30 "$TMP/console.log" >&2 2>/dev/null || true
        [[ -n $leader ]] || return 0
        echo "---- the machine: state, jobs, failed units" >&2
        inside_quiet sh -c 'systemctl is-system-running; systemctl list-jobs --no-pager; systemctl --failed --no-pager' >&2 || true
        echo "---- journalctl -u r8169-tuned (this boot)" >&2
        inside_quiet journalctl -u r8169-tuned -b --no-pager -n 40 >&2 || true
        echo "---- journalctl (this boot, last 30 lines)" >&2
        inside_quiet journalctl -b --no-pager -n 30 >&2 || true
        echo "---- transcript (last 40 lines)" >&2
        tail -n 40 "$TMP/transcript.log" >&2 2>/dev/null || true
}

prop() { inside_quiet systemctl show -P "$1" r8169-tuned.service; }
feature() { inside_quiet ethtool -k "$ifname" | awk -v n="$2:" '$1 == n {print $2}'; }
gro() { cat "$fx/sys/class/net/$ifname/gro_flush_timeout"; }
tuned() { [[ $(feature "$ifname" tcp-segmentation-offload) == off && $(feature "$ifname" scatter-gather) == off &&
        $(gro) == "$1" ]]; }
untuned() { [[ $(feature "$ifname" tcp-segmentation-offload) == on && $(feature "$ifname" scatter-gather) == on &&
        $(gro) == "$orig_gro" ]]; }
running_enabled() { # the service as a user expects it after an install
        eq "$1: enabled" enabled "$(inside_quiet systemctl is-enabled r8169-tuned.service)"
        eq "$1: active" active "$(prop ActiveState)"
        eq "$1: no restarts" 0 "$(prop NRestarts)"
        [[ -e $root/etc/systemd/system/r8169-tuned.service ]] && fail "$1: masked" || ok
}
stopped_restored() { # what remove and purge must leave: no daemon, originals back, no mask
        eq "$1: inactive" inactive "$(prop ActiveState)"
        eq "$1: no daemon left" "" "$(inside_quiet pgrep -x r8169-tuned || true)"
        wait_for 5 untuned && ok || fail "$1: originals not restored (tso $(feature "$ifname" tcp-segmentation-offload), sg $(feature "$ifname" scatter-gather), gro_flush_timeout $(gro))"
        [[ -e $root/etc/systemd/system/r8169-tuned.service ]] && fail "$1: left masked" || ok
        contains "$1: the stop restored and said so" " restored, " \
                "$(inside_quiet journalctl -u r8169-tuned -b -o cat --no-pager | grep '^Stopped:' | tail -1)"
}
changes_this_boot() { inside_quiet journalctl -b -o cat --no-pager MESSAGE_ID=b926363d80b442b9a3ac8323c6888e8c KNOB=tso | wc -l; }

step boot
boot || die "the machine did not boot"
failed=$(inside_quiet systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')
eq "booted: the veth is there" "$ifname" "$(inside_quiet ip -br link show "$ifname" | awk '{sub(/@.*/, "", $1); print $1}')"
step_done "$(inside_quiet systemctl --version | head -1 | cut -d' ' -f1-2) as PID 1 ($(inside_quiet systemd-detect-virt)); failed units: ${failed:-none}"

########## install
step install
inside apt-get install -y "/srv/debs/$deb1"
eq "install: apt rc" 0 "$rc"
[[ $rc -eq 0 ]] || { printf '%s\n' "$out" | tail -n 20 >&2; die "apt install failed"; }
wait_for 10 tuned 30000 && ok || fail "install: not tuned (tso $(feature "$ifname" tcp-segmentation-offload), sg $(feature "$ifname" scatter-gather), gro_flush_timeout $(gro))"
running_enabled install
pid=$(prop MainPID)
# The change was made by the service itself, in its sandbox, and journaled as such.
contains "install: the unit made the change" "\"_SYSTEMD_UNIT\":\"r8169-tuned.service\"" \
        "$(inside_quiet journalctl -o json --no-pager MESSAGE_ID=b926363d80b442b9a3ac8323c6888e8c KNOB=tso | tail -1 | tr -d ' ')"
eq "install: the sandbox" "strict yes" "$(prop ProtectSystem) $(prop NoNewPrivileges)"
[[ -n $(inside_quiet sh -c 'ls /run/r8169-tuned/') ]] && ok || fail "install: no undo journal in /run/r8169-tuned"
exposure=$(inside_quiet systemd-analyze security --no-pager r8169-tuned.service |
        sed -n 's/.*Overall exposure level for [^:]*: *\([0-9.]*\).*/\1/p')
awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 1.4) }' && ok || fail "install: exposure '$exposure' above 1.4"
# The experiment's iperf3 user, made by the package's postinst (systemd-sysusers), nobody else's uid.
iperf_user=$(inside_quiet getent passwd _r8169-tuned-iperf)
iperf_uid=$(cut -d: -f3 <<<"$iperf_user")
[[ $iperf_uid =~ ^[0-9]+$ && $iperf_uid -gt 0 && $iperf_uid -lt 1000 ]] && ok || fail "install: no system user _r8169-tuned-iperf ($iperf_user)"
eq "install: the iperf3 user's shell" /usr/sbin/nologin "$(cut -d: -f7 <<<"$iperf_user")"
eq "install: the iperf3 user's uid, its own" 1 "$(inside_quiet getent passwd | awk -F: -v u="$iperf_uid" '$3 == u' | wc -l)"
wait_for 5 published 1 && ok || fail "install: no metrics in $textdir (the unit's sandbox: $(inside_quiet journalctl -u r8169-tuned -b -o cat --no-pager | grep 'Cannot publish' | head -1))"
eq "install: the metrics file is root's, 0644" "644 0" "$(stat -c '%a %u' "$root$textdir/r8169-tuned.prom")"
step_done "enabled, active (pid $pid); tso, sg off; gro_flush_timeout $orig_gro -> 30000; exposure $exposure; metrics published"

########## reload
step reload
local_conf 40000
inside systemctl reload r8169-tuned.service
eq "reload: rc" 0 "$rc"
wait_for 10 tuned 40000 && ok || fail "reload: gro_flush_timeout $(gro), not 40000"
eq "reload: same process" "$pid" "$(prop MainPID)"
eq "reload: active" active "$(prop ActiveState)"
contains "reload: logged" "Configuration reloaded." "$(inside_quiet journalctl -u r8169-tuned -b -o cat --no-pager)"
# A broken drop-in: the reload fails (systemctl exits non-zero, the error names file:line)
# and the configuration in force stays, applied.
bad=/etc/r8169-tuned/r8169-tuned.conf.d/60-typo.conf
printf '[device typo]\nmatch-slot = %s\ngro_flush_timeout = 4x\n' "$slot" >"$root$bad"
inside systemctl reload r8169-tuned.service
[[ $rc -ne 0 ]] && ok || fail "reload of a broken file: systemctl reload exited 0"
contains "reload refused: file:line in the journal" "$bad:3:" "$(inside_quiet journalctl -u r8169-tuned -b -o cat --no-pager)"
eq "reload refused: still active" active "$(prop ActiveState)"
eq "reload refused: same process" "$pid" "$(prop MainPID)"
eq "reload refused: value kept" 40000 "$(gro)"
rm -f "$root$bad"
step_done "same pid $pid; gro_flush_timeout 30000 -> 40000; a broken drop-in: reload exit $rc, kept"

########## link power
# Dynamic link power's wake socket (AF_PACKET, CAP_NET_RAW) is not the shipped unit's: asked for
# without the unit's drop-in, the service says how to grant it and opens nothing; with the
# drop-in linked in as r8169-tuned.conf(5) prints it (run here as printed), the socket opens
# under the unit's own sandbox and seccomp filter. The fixture's link gets ASPM attributes, a
# drop-in asks for it, the veth gets carrier. Then it goes again, and with it the socket.
step "link power"
dev=$(readlink -f "$fx/sys/bus/pci/devices/$slot")
mkdir -p "$dev/link"
for a in l1_aspm l1_1_aspm l1_2_aspm l1_1_pcipm l1_2_pcipm; do echo 0 >"$dev/link/$a"; done
lp_conf=/etc/r8169-tuned/r8169-tuned.conf.d/55-link-power.conf
printf '[device this-desktop-link]\nmatch-slot = %s\nlink-power = dynamic\n' "$slot" >"$root$lp_conf"
inside ip link set peer0 up
inside systemctl reload r8169-tuned.service
eq "link power: reload rc" 0 "$rc"
wake_socket() { inside_quiet ss -0 -p | grep -q '"r8169-tuned"'; }
lp_advice() { inside_quiet journalctl -u r8169-tuned -b -o cat --no-pager | grep -F 'dynamic link power needs a packet socket'; }
wait_for 10 lp_advice && ok || fail "link power without the drop-in: no advice in the journal"
contains "link power without the drop-in: names the drop-in" \
        "link /usr/share/r8169-tuned/systemd/link-power.conf into /etc/systemd/system/r8169-tuned.service.d/" "$(lp_advice)"
wake_socket && fail "link power without the drop-in: a wake socket" || ok
contains "link power without the drop-in: status says why" \
        "link power: dynamic, off for this link: the service may not open a packet socket" \
        "$(inside_quiet r8169-tuned --sysfs "$fx_in/sys" --kernel-log "$fx_in/kernel.log" status)"
block=$(sed -n '/^\.Sh DYNAMIC LINK POWER/,/^\.Ed/p' "$SRCDIR/man/r8169-tuned.conf.5" | sed -n '/^\.Bd -literal/,/^\.Ed/p' | sed '1d;$d')
[[ $block == *"ln -sf /usr/share/r8169-tuned/systemd/link-power.conf"* ]] && ok ||
        fail "r8169-tuned.conf(5): no drop-in block under DYNAMIC LINK POWER"
inside bash -euo pipefail -c "$block"
eq "link power: the man page's block, as printed: rc" 0 "$rc"
pid=$(prop MainPID)
wait_for 10 wake_socket && ok || fail "link power: no wake socket under the unit's sandbox: $(inside_quiet ss -0 -p)"
eq "link power: L1 on, the link quiet" 1 "$(cat "$dev/link/l1_aspm")"
eq "link power: no socket error" "" \
        "$(inside_quiet journalctl -u r8169-tuned -b -o cat --no-pager _PID="$pid" | grep 'packet socket' || true)"
lp_exposure=$(inside_quiet systemd-analyze security --no-pager r8169-tuned.service |
        sed -n 's/.*Overall exposure level for [^:]*: *\([0-9.]*\).*/\1/p')
grep -q "rates its exposure $exposure, and $lp_exposure with the drop-in" "$SRCDIR/man/r8169-tuned.8" && ok ||
        fail "link power: exposure $exposure, $lp_exposure with the drop-in, not as r8169-tuned(8) says"
rm -f "$root$lp_conf"
inside systemctl reload r8169-tuned.service
no_wake_socket() { ! wake_socket; }
wait_for 10 no_wake_socket && ok || fail "link power: the wake socket stays after link power went"
eq "link power: same process" "$pid" "$(prop MainPID)"
rm -f "$root/etc/systemd/system/r8169-tuned.service.d/link-power.conf"
inside systemctl daemon-reload
inside systemctl restart r8169-tuned.service
pid=$(prop MainPID)
step_done "without the drop-in: said, no socket; with it (the man page's block): a wake socket under the sandbox (ss -0 -p), L1 on, exposure $lp_exposure; gone with the configuration"

########## reboot
step reboot
inside_quiet systemctl reboot >/dev/null || true
for ((i = 0; i < 300; i++)); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
set +e; wait "$nspawn_pid"; nspawn_rc=$?; set -e
nspawn_pid=""; leader=""
eq "reboot: nspawn's exit for a reboot" 133 "$nspawn_rc"
# Shut down: the daemon restored what it had changed (the veth went with the old namespace).
eq "reboot: the shutdown restored gro_flush_timeout" "$orig_gro" "$(gro)"
boot || die "the machine did not come back"
wait_for 10 tuned 40000 && ok || fail "reboot: not tuned at boot"
running_enabled reboot
# Each stop of the previous boot restored: the link power step's two restarts and the shutdown's.
stops=$(inside_quiet journalctl -u r8169-tuned -b -1 -o cat --no-pager | grep '^Stopped: ' || true)
eq "reboot: the previous boot's stops, each restored" "3 3" "$(grep -c . <<<"$stops") $(grep -c ' restored' <<<"$stops")"
(($(changes_this_boot) >= 1)) && ok || fail "reboot: no change logged this boot"
step_done "$(inside_quiet systemctl is-system-running); active (pid $(prop MainPID)), tuned at boot"

########## hotplug
step hotplug
n=$(changes_this_boot)
inside ip link del "$ifname"
inside ip link add "$ifname" type veth peer name peer0
inside ip link set "$ifname" up
wait_for 10 tuned 40000 && ok || fail "hotplug: the new $ifname is not tuned"
(($(changes_this_boot) > n)) && ok || fail "hotplug: no new change logged"
step_done "deleted and made again: tuned again"

########## remove
step remove
inside apt-get remove -y r8169-tuned
eq "remove: apt rc" 0 "$rc"
stopped_restored remove
eq "remove: config files kept" "deinstall ok config-files" "$(inside_quiet dpkg-query -W -f '${Status}' r8169-tuned)"
# The service's last words would say "stopped" for good on a machine without it: postrm removes them.
[[ ! -e $root$textdir/r8169-tuned.prom ]] && ok || fail "remove: the metrics file stays ($(head -c 300 "$root$textdir/r8169-tuned.prom"))"
eq "remove: the unit is gone" not-found "$(prop LoadState)"
step_done "stopped, originals back (tso, sg on; gro_flush_timeout $orig_gro), not masked; the metrics file gone"

########## reinstall, after a mask such as earlier packages' postrm left
step reinstall
inside deb-systemd-helper mask r8169-tuned.service
inside apt-get install -y "/srv/debs/$deb1"
eq "reinstall: apt rc" 0 "$rc"
wait_for 10 tuned 40000 && ok || fail "reinstall: not tuned"
running_enabled reinstall
pid=$(prop MainPID)
step_done "enabled, active (pid $pid), not masked, tuned"

########## upgrade
step upgrade
inside apt-get install -y "/srv/debs/$deb2"
eq "upgrade: apt rc" 0 "$rc"
eq "upgrade: version" "$next" "$(inside_quiet dpkg-query -W -f '${Version}' r8169-tuned)"
wait_for 10 tuned 40000 && ok || fail "upgrade: not tuned"
running_enabled upgrade
[[ $(prop MainPID) != "$pid" && $(prop MainPID) != 0 ]] && ok || fail "upgrade: not restarted (pid $(prop MainPID))"
step_done "$version -> $next: restarted (pid $pid -> $(prop MainPID)), tuned"

########## ansible: the shipped playbook, against this machine (ansible-core runs in it, connection local)
step ansible
playbook=/usr/share/doc/r8169-tuned/examples/r8169-tuned.yml
site() { # site DROP-IN-TEXT: the play's variables, as an admin's site.yml holds them
        python3 -c 'import json, sys; print(json.dumps({"r8169_tuned_deb": sys.argv[1], "r8169_tuned_dropin": sys.argv[2]}))' \
                "/srv/debs/$deb2" "$1" >"$root/srv/site.yml"
}
play() { inside env ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local "$playbook" -e @/srv/site.yml "$@"; }
recap() { sed -n 's/^localhost *: *//p' <<<"$out" | awk '{print $2, $4}'; } # changed=N failed=N
# A knob 50-local.conf does not set (50-ansible.conf sorts before it: the admin's own file wins).
napi=$fx/sys/class/net/$ifname/napi_defer_hard_irqs
orig_napi=$(cat "$napi")
site $'[device fleet]\nmatch-slot = '"$slot"$'\nnapi_defer_hard_irqs = 3\n'
play
eq "ansible, first run: changes (the drop-in, the reload)" "0 changed=2 failed=0" "$rc $(recap)"
[[ $rc -eq 0 ]] || printf '%s\n' "$out" | tail -n 30 >&2
wait_for 5 test "$(cat "$napi")" = 3 && ok || fail "ansible: the drop-in's value is not in force (napi_defer_hard_irqs $(cat "$napi"))"
play
eq "ansible, second run: no change" "0 changed=0 failed=0" "$rc $(recap)"
play --check
eq "ansible, --check: no change, verified" "0 changed=0 failed=0" "$rc $(recap)"
echo 7 >"$napi"   # by hand, behind the service's back
play
eq "ansible, a knob changed by hand: the play fails" "2 failed=1" "$rc $(recap | awk '{print $2}')"
contains "ansible, a knob changed by hand: verify's difference" "Not as planned: [{" "$out"
contains "ansible, a knob changed by hand: the knob" "napi_defer_hard_irqs" "$(grep -F 'Not as planned' <<<"$out")"
play --check
eq "ansible, --check: the hand change fails it too" "2 failed=1" "$rc $(recap | awk '{print $2}')"
site $'[device fleet]\nmatch-slot = '"$slot"$'\nnapi_defer_hard_irqs = fast\n'
play
eq "ansible, a broken drop-in: the play fails" "2 failed=1" "$rc $(recap | awk '{print $2}')"
# check-config's file:line on ansible's temporary copy (2.14 names it "source", 2.19 ".source.conf").
contains "ansible, a broken drop-in: check-config's message" ':3: bad value \"fast\" for napi_defer_hard_irqs' "$out"
contains "ansible, a broken drop-in: the old one kept" "napi_defer_hard_irqs = 3" \
        "$(cat "$root/etc/r8169-tuned/r8169-tuned.conf.d/50-ansible.conf")"
rm -f "$root/etc/r8169-tuned/r8169-tuned.conf.d/50-ansible.conf" "$root/srv/site.yml"
inside systemctl reload r8169-tuned.service
wait_for 10 tuned 40000 && ok || fail "ansible: the drop-in removed, not tuned as before"
step_done "$(inside_quiet ansible-playbook --version | head -1): changed 2, then 0; fails on a hand change and a broken drop-in"

########## purge
step purge
rm -f "$root/etc/r8169-tuned/r8169-tuned.conf.d/50-local.conf" # the admin's own file
rm -f "$root/etc/r8169-tuned/r8169-tuned.conf.d/40-metrics.conf"
rmdir "$root/etc/r8169-tuned/r8169-tuned.conf.d"
inside apt-get purge -y r8169-tuned
eq "purge: apt rc" 0 "$rc"
stopped_restored purge
status=$(inside_quiet sh -c "dpkg-query -W -f '\${Status}' r8169-tuned 2>/dev/null" || true)
[[ -z $status || $status == *not-installed ]] && ok || fail "purge: dpkg says '$status'"
for gone in /etc/r8169-tuned /run/r8169-tuned /var/lib/r8169-tuned /var/lib/systemd/deb-systemd-helper-enabled/r8169-tuned.service.dsh-also \
        /var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/r8169-tuned.service \
        /etc/systemd/system/multi-user.target.wants/r8169-tuned.service /var/lib/systemd/deb-systemd-helper-masked/r8169-tuned.service; do
        eq "purge: $gone gone" "" "$(inside_quiet sh -c "ls -d $gone 2>/dev/null" || true)"
done
step_done "conffile, /run/r8169-tuned and enable state gone"

step poweroff
poweroff_machine 30
step_done "clean"

{
        echo "system test: r8169-tuned's Debian package under systemd as PID 1 (systemd-nspawn, Debian ${release:-?})"
        printf '%s\n' "${report[@]}"
        echo "total $((SECONDS - t_start)) s; $checks checks, $failures failures"
} | tee "$TMP/report.txt"
mkdir -p "$BUILDDIR/Testing" && cp "$TMP/report.txt" "$BUILDDIR/Testing/system-package.txt"
((failures == 0)) || dump_machine
finish
