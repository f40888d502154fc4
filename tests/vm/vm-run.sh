#!/usr/bin/env bash
# vm-run.sh — run one command as root inside a real Debian VM (QEMU q35, Debian's own kernel,
# systemd as PID 1) and exit with its status. Works without /dev/kvm (TCG software emulation);
# uses KVM when /dev/kvm is usable. Taken over from the team's prototype (shared/tools/vm-run.sh,
# measured in shared/tools/vm-NOTES.md); changes: the cache beside the system test's, the
# mirror apt uses here, the guest packages r8169-tuned's .deb depends on.
#
# Usage: vm-run.sh [options] -- COMMAND [ARG...]
#   --kernel K        6.1 (Debian 12 bookworm, default) or 6.12 (Debian 13 trixie)
#   --share DIR       mount host DIR read-write in the guest at the same path (9p); repeatable.
#                     COMMAND runs in the current directory if it lies inside a share, else in /
#   --packages LIST   extra Debian packages baked into the image (comma-separated; part of the
#                     cache key), e.g. libpci3,libnl-3-200,libnl-genl-3-200,libinih1
#   --timeout SEC     kill the VM after SEC seconds (default 1200); exit status 124
#   --hotplug MODE    pciehp (default: native PCIe hotplug, as on real machines; QEMU's
#                     ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off) or acpi (QEMU 7.2's q35
#                     default: acpiphp drives the root ports; the NIC is then named enp1s0 and
#                     device_del takes effect at once instead of after pciehp's 5 s button delay)
#   --mem MB          guest memory (default 2048)      --smp N   guest CPUs (default 2)
#   --console         copy the guest's serial console (kernel + systemd) to stderr, live
#   --keep            keep the run folder (console.log, ctl/, qmp.sock path) and print its path
#   --shell           no COMMAND: interactive root shell on the serial console (needs a tty)
#   --rebuild         build the cached image again
#   -h, --help
# Environment: R8T_VM_ACCEL (tcg, the default, or kvm), R8T_VM_CACHE (default /var/cache/r8169-tuned-tests/vm), R8T_VM_MIRROR (default:
#   the Debian mirror apt uses here), R8T_VM_QEMU_ARGS (extra QEMU arguments, word-split),
#   R8T_VM_APPEND (extra guest kernel parameters, e.g. "loglevel=7 no_console_suspend").
#
# Exit status: COMMAND's status; 124 timeout; 125 the harness or the VM failed (no status came
# back: see the console tail printed on stderr).
#
# The VM: machine q35, virtio-blk root (the cached ext4 image, opened snapshot=on so every run
# starts from the same pristine disk), serial console on ttyS0 (kept in RUN/console.log),
# COMMAND's stdout+stderr on ttyS1 (through a pipe, so not a tty; streamed to this script's
# stdout and RUN/out.log), its exit status on ttyS2 (RUN/status), and the PCIe topology a
# network-tuning daemon cares about:
#   rp1 (pcie-root-port, chassis 1, hotplug=off like an onboard slot) -> e1000e "nic1"
#       (netdev user, restrict=on: no outside access; the guest names it enp1s0)
#   rp2, rp3 (pcie-root-ports, chassis 2/3, hotplug) -> empty: device_add driver=e1000e bus=rp2
# The 9p shares (the control share and --share) do NOT survive suspend/resume: 9pnet_virtio has
# no PM restore, so after S3 any access to them blocks for ever in D state (even `timeout`
# cannot kill it). A suspend test must cd /, copy what it needs to /run first and report on
# stdout (vm-run.sh's own output and status channels are serial ports and do survive).
# ACPI S3 is enabled (ICH9-LPC.disable_s3=0) so the guest can suspend to RAM.
#
# Inside the guest (helpers baked into the image):
#   r8t-qmp [--delay SEC] [--when-suspended] [--nowait] QMP-COMMAND [key=value...]
#       asks this script (the host) to run a QMP command on the VM and prints the JSON reply,
#       e.g.  r8t-qmp device_add driver=e1000e bus=rp2 id=hot1   /   r8t-qmp device_del id=hot1
#       --delay: the host waits SEC seconds first; --when-suspended: the host first waits (up
#       to 300 s) until the guest has entered S3; --nowait: do not wait for the reply. S3 test:
#       `r8t-qmp --when-suspended --delay 2 --nowait system_wakeup; echo mem > /sys/power/state`
#       (or `rtcwake -m mem -s 5`: the emulated RTC alarm also wakes the guest).
#
# Needs root (debootstrap, /var/cache), qemu-system-x86 qemu-utils debootstrap e2fsprogs (>=1.43
# for mkfs.ext4 -d) python3 (QMP relay). The image is built without loop mounts.
set -euo pipefail

KERNEL=6.1 HOTPLUG=pciehp TIMEOUT=1200 MEM=2048 SMP=2 CONSOLE=0 KEEP=0 SHELL_MODE=0 REBUILD=0 PKGS_EXTRA=""
SHARES=()
CACHE=${R8T_VM_CACHE:-/var/cache/r8169-tuned-tests/vm}
apt_mirror() { apt-get --print-uris update 2>/dev/null | sed -n "s|^'\(.*\)/dists/[a-z]*/InRelease'.*|\1|p" | grep -v -- -security | head -1; }
MIRROR=${R8T_VM_MIRROR:-$(apt_mirror)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
IMAGE_VERSION=2   # bump when write_guest_files changes (the project's copy: see the header)

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit "${1:-0}"; }
die() { echo "vm-run: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
  case $1 in
    --kernel) KERNEL=$2; shift 2;;
    --share) SHARES+=("$(realpath -e "$2")") || die "no such directory: $2"; shift 2;;
    --packages) PKGS_EXTRA=$2; shift 2;;
    --timeout) TIMEOUT=$2; shift 2;;
    --hotplug) HOTPLUG=$2; shift 2;;
    --mem) MEM=$2; shift 2;;
    --smp) SMP=$2; shift 2;;
    --console) CONSOLE=1; shift;;
    --keep) KEEP=1; shift;;
    --shell) SHELL_MODE=1; shift;;
    --rebuild) REBUILD=1; shift;;
    -h|--help) usage 0;;
    --) shift; break;;
    *) echo "vm-run: unknown option $1" >&2; usage 2 >&2;;
  esac
done
[ $# -gt 0 ] || [ $SHELL_MODE = 1 ] || { echo "vm-run: no COMMAND" >&2; usage 2 >&2; }
case $KERNEL in
  6.1|12|bookworm) SUITE=bookworm;;
  6.12|13|trixie) SUITE=trixie;;
  *) die "--kernel must be 6.1 or 6.12";;
esac
case $HOTPLUG in pciehp) ACPIHP=off RP1HP=off;; acpi) ACPIHP=on RP1HP=on;; *) die "--hotplug must be pciehp or acpi";; esac
[ "$(id -u)" = 0 ] || die "needs root"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: apt-get install --no-install-recommends qemu-system-x86 qemu-utils"

# ---------------------------------------------------------------- image (built once, cached)
# What r8169-tuned's package depends on (the guest has no network: dpkg -i must find them) and
# what the tests use: logind on a system bus (PrepareForSleep), jq.
BASE_PKGS=systemd-sysv,udev,linux-image-amd64,initramfs-tools,iproute2,ethtool,pciutils,kmod,util-linux,dbus,libpci3,libnl-3-200,libnl-genl-3-200,libinih1,libjson-c5,jq
PKGS=$BASE_PKGS${PKGS_EXTRA:+,$PKGS_EXTRA}
KEY=$(printf '%s\n' "$IMAGE_VERSION" "$SUITE" "$PKGS" "$MIRROR" | sha256sum | cut -c1-12)
IMGDIR=$CACHE/$SUITE-$KEY

write_guest_files() {   # $1 = root directory of the guest
  local R=$1
  echo r8t-vm > "$R/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 r8t-vm\n' > "$R/etc/hosts"
  chroot "$R" passwd -d root >/dev/null
  echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' > "$R/etc/fstab"
  printf '9p\n9pnet\n9pnet_virtio\n' > "$R/etc/modules-load.d/r8t-9p.conf"
  # serial console: autologin root (for --shell); ttyS1 carries COMMAND's output, no getty there
  mkdir -p "$R/etc/systemd/system/serial-getty@ttyS0.service.d"
  printf '[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 %%I $TERM\n' \
    > "$R/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf"
  ln -sf /dev/null "$R/etc/systemd/system/serial-getty@ttyS1.service"
  # no VGA in this VM: the tty1-6 gettys and apt's timers only cost boot time
  ln -sf /dev/null "$R/etc/systemd/system/getty@.service"
  for t in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer fstrim.timer e2scrub_all.timer; do
    ln -sf /dev/null "$R/etc/systemd/system/$t"
  done
  # The image holds only this stub; the real guest-side script (ctl/guest-run) and helpers
  # (ctl/bin) come over the control share with every run, so they can change without a rebuild.
  cat > "$R/usr/local/sbin/r8t-guest-run" <<'EOF'
#!/bin/bash
CTL=/run/r8t-ctl
mkdir -p $CTL
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 r8tctl $CTL; then
  echo "r8t: no control share" >/dev/ttyS0; systemctl poweroff -ff
fi
exec bash $CTL/guest-run
EOF
  chmod 755 "$R/usr/local/sbin/r8t-guest-run"
  cat > "$R/etc/systemd/system/r8t-run.service" <<'EOF'
[Unit]
Description=vm-run.sh: run the test command and power off
After=multi-user.target
ConditionKernelCommandLine=r8t.run=1

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/r8t-guest-run
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOF
  ln -sf /etc/systemd/system/r8t-run.service "$R/etc/systemd/system/multi-user.target.wants/r8t-run.service"
  rm -f "$R"/boot/*.dpkg-bak "$R"/boot/*.new
  chroot "$R" apt-get clean
}

build_image() {
  command -v debootstrap >/dev/null || apt-get install -y --no-install-recommends debootstrap >&2
  local tmp; tmp=$(mktemp -d "$CACHE/.build-$SUITE.XXXXXX")
  echo "vm-run: building $SUITE image ($PKGS) in $tmp — a few minutes, once" >&2
  local t0=$SECONDS
  if ! debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$tmp/root" "$MIRROR" > "$tmp/debootstrap.log" 2>&1; then
    tail -n 20 "$tmp/debootstrap.log" >&2; die "debootstrap failed (log: $tmp/debootstrap.log)"
  fi
  write_guest_files "$tmp/root"
  cp -L "$tmp/root/vmlinuz" "$tmp/vmlinuz"; cp -L "$tmp/root/initrd.img" "$tmp/initrd.img"
  ls "$tmp/root/lib/modules" > "$tmp/kernel-release"
  local mb; mb=$(( $(du -sm "$tmp/root" | cut -f1) + 1024 ))
  mkfs.ext4 -q -F -L r8troot -d "$tmp/root" "$tmp/root.img" "${mb}M" || die "mkfs.ext4 -d failed"
  rm -rf "$tmp/root"
  printf '%s\n' "$PKGS" > "$tmp/packages"
  rm -rf "$IMGDIR"; mv "$tmp" "$IMGDIR"
  echo "vm-run: image $IMGDIR built in $((SECONDS - t0)) s (kernel $(cat "$IMGDIR/kernel-release"))" >&2
}

mkdir -p "$CACHE"
exec 9> "$CACHE/.lock-$SUITE"
flock 9
if [ $REBUILD = 1 ] || [ ! -e "$IMGDIR/root.img" ]; then build_image; fi
flock -u 9

# ---------------------------------------------------------------- one run
RUN=$(mktemp -d "${TMPDIR:-/tmp}/r8t-vm.XXXXXX")
CTL=$RUN/ctl
mkdir -p "$CTL/qmp"
QPID="" TAILPID=""
cleanup() {
  [ -n "$TAILPID" ] && kill "$TAILPID" 2>/dev/null || true
  [ -n "$QPID" ] && kill "$QPID" 2>/dev/null || true
  if [ $KEEP = 1 ]; then echo "vm-run: run folder kept: $RUN" >&2; else rm -rf "$RUN"; fi
}
trap cleanup EXIT

# TCG unless asked: on this project's machines /dev/kvm exists (nested) but -cpu host aborts
# ("failed to set MSR 0x10a") and -cpu host,-arch-capabilities never reaches the guest's
# console. R8T_VM_ACCEL=kvm tries it where it works.
if [ "${R8T_VM_ACCEL:-tcg}" = kvm ]; then ACCEL=kvm CPU=host; else ACCEL=tcg CPU=max; fi
QEMU=(qemu-system-x86_64 -name r8t-vm -machine q35,accel=$ACCEL -cpu $CPU -smp "$SMP" -m "$MEM"
  -nodefaults -no-user-config -display none -no-reboot
  -kernel "$IMGDIR/vmlinuz" -initrd "$IMGDIR/initrd.img"
  -drive "file=$IMGDIR/root.img,if=virtio,format=raw,snapshot=on,cache=unsafe"
  -virtfs "local,path=$CTL,mount_tag=r8tctl,security_model=none"
  -global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=$ACPIHP
  -device pcie-root-port,id=rp1,chassis=1,slot=1,hotplug=$RP1HP
  -netdev user,id=n1,restrict=on -device e1000e,bus=rp1,netdev=n1,id=nic1,mac=52:54:00:12:34:01
  -device pcie-root-port,id=rp2,chassis=2,slot=2
  -device pcie-root-port,id=rp3,chassis=3,slot=3
  -global ICH9-LPC.disable_s3=0
  -qmp "unix:$RUN/qmp.sock,server=on,wait=off")
CWD=/
i=0
: > "$CTL/shares"
for s in "${SHARES[@]}"; do
  QEMU+=(-virtfs "local,path=$s,mount_tag=s$i,security_model=none")
  echo "s$i $s" >> "$CTL/shares"
  case $PWD/ in "$s"/*) CWD=$PWD;; esac
  i=$((i + 1))
done
echo "$CWD" > "$CTL/cwd"
# shellcheck disable=SC2206
QEMU+=(${R8T_VM_QEMU_ARGS:-})

if [ $SHELL_MODE = 1 ]; then
  trap - EXIT; rm -rf "$RUN"
  exec "${QEMU[@]}" -append "root=/dev/vda rw console=ttyS0" -serial mon:stdio
fi

printf '%q ' "$@" > "$CTL/cmd"; echo >> "$CTL/cmd"
write_ctl_files() {
  mkdir -p "$CTL/bin"
  cat > "$CTL/guest-run" <<'EOF'
# vm-run.sh guest side (run by the image's r8t-guest-run stub once multi-user.target is reached)
# bash reads a script as it goes: run from a copy in /run, as the 9p share dies in a suspend.
if [ "$0" != /run/r8t-guest-run.sh ]; then cp "$0" /run/r8t-guest-run.sh && exec bash /run/r8t-guest-run.sh; fi
CTL=/run/r8t-ctl
O=trans=virtio,version=9p2000.L,msize=262144
{ cut -d' ' -f1 /proc/uptime
  systemctl show -P UserspaceTimestampMonotonic
  systemctl show -P ActiveEnterTimestampMonotonic multi-user.target; } > $CTL/guest-times
date +%s.%N > $CTL/t_guest_ready
while read -r tag path; do
  [ -n "$tag" ] || continue
  mkdir -p "$path" && mount -t 9p -o $O,cache=mmap "$tag" "$path" || echo "r8t: cannot mount $tag at $path" >/dev/ttyS1
done < $CTL/shares
stty -F /dev/ttyS1 raw -echo 2>/dev/null; stty -F /dev/ttyS2 raw -echo 2>/dev/null
cwd=$(cat $CTL/cwd 2>/dev/null)
cd /   # this runner stays off 9p; the command runs in $cwd
export HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$CTL/bin   # 9p last: see S3 below
# Output goes to ttyS1 and the status to ttyS2 (serial ports survive S3; the 9p shares do not:
# 9pnet_virtio has no PM restore, so after a suspend/resume any 9p access hangs).
cp $CTL/cmd /run/r8t-cmd
# through a pipe, so that COMMAND's stdout is not a tty (no colours, no pagers), as in CI
(cd "$cwd" 2>/dev/null; exec bash /run/r8t-cmd) </dev/null 2>&1 | cat >/dev/ttyS1
echo "rc=${PIPESTATUS[0]}" > /dev/ttyS2
sync & s=$!   # bounded: sync can hang on a 9p share that died in a suspend
for _ in $(seq 100); do kill -0 $s 2>/dev/null || break; sleep 0.1; done
[ -e /run/r8t-keep-running ] || systemctl poweroff -ff
EOF
  cat > "$CTL/bin/r8t-qmp" <<'EOF'
#!/bin/bash
# r8t-qmp [--delay SEC] [--when-suspended] [--nowait] COMMAND [key=value...]: have the host run a QMP command
set -e
d=/run/r8t-ctl/qmp delay=0 wait=1 when=-
while :; do case $1 in --delay) delay=$2; shift 2;; --nowait) wait=0; shift;; --when-suspended) when=suspended; shift;; *) break;; esac; done
[ $# -gt 0 ] || { echo "usage: r8t-qmp [--delay SEC] [--when-suspended] [--nowait] COMMAND [key=value...]" >&2; exit 2; }
n=$(date +%s%N)-$$
{ echo "$delay"; echo "$when"; printf '%s\n' "$@"; } > $d/.req-$n
mv $d/.req-$n $d/req-$n
[ $wait = 1 ] || exit 0
for _ in $(seq $(( (${delay%.*} + 60) * 20 ))); do
  if [ -e $d/rc-$n ]; then cat $d/rep-$n; rc=$(cat $d/rc-$n); rm -f $d/rep-$n $d/rc-$n; exit "$rc"; fi
  sleep 0.05
done
echo "r8t-qmp: no reply from the host" >&2; exit 1
EOF
  chmod 755 "$CTL/bin/r8t-qmp"
}
write_ctl_files
: > "$RUN/console.log"
if [ $CONSOLE = 1 ]; then tail -F -n +1 "$RUN/console.log" >&2 & TAILPID=$!; fi


# QMP relay: the guest's r8t-qmp drops ctl/qmp/req-N (line 1: delay, line 2: "suspended" or
# "-", then the command and key=value arguments); the reply goes to rep-N, the status to rc-N.
relay_one() {
  local n=$1; shift
  python3 - "$RUN/qmp.sock" "$@" > "$CTL/qmp/.rep-$n" 2>&1 <<'EOF'
import json, socket, sys, time
def typed(v):
    if v in ("true", "false"): return v == "true"
    try: return int(v)
    except ValueError: return v
path, delay, when, cmd, *kv = sys.argv[1:]
# QMP takes one client at a time: a delay that waits for nothing is waited out before connecting.
if when != "suspended": time.sleep(float(delay))
s = socket.socket(socket.AF_UNIX)
for _ in range(100):
    try: s.connect(path); break
    except OSError: time.sleep(0.1)   # QMP takes one client at a time
f = s.makefile("rw")
json.loads(f.readline())
def call(msg):
    f.write(json.dumps(msg) + "\n"); f.flush()
    while True:
        r = json.loads(f.readline())
        if "event" not in r: return r
call({"execute": "qmp_capabilities"})
if when == "suspended":
    t = time.time()
    while call({"execute": "query-status"})["return"]["status"] != "suspended":
        if time.time() - t > 300: print("guest never suspended"); sys.exit(1)
        time.sleep(0.1)
    time.sleep(float(delay))
msg = {"execute": cmd}
if kv: msg["arguments"] = {k: typed(v) for k, v in (a.split("=", 1) for a in kv)}
r = call(msg)
if cmd == "system_wakeup" and "error" not in r:
    # A wakeup the guest's firmware missed leaves it suspended for good: asked again, and said.
    for n in range(1, 6):
        t = time.time()
        while time.time() - t < 5 and call({"execute": "query-status"})["return"]["status"] == "suspended":
            time.sleep(0.2)
        if call({"execute": "query-status"})["return"]["status"] != "suspended": break
        print("vm-run: the guest is still suspended 5 s after system_wakeup: woken again (%d)" % n, file=sys.stderr, flush=True)
        r = call(msg)
print(json.dumps(r.get("return", r))); sys.exit(1 if "error" in r else 0)
EOF
  local rc=$?
  # What the relay had to say of itself (a wakeup made again) goes to the host's log too.
  grep '^vm-run: ' "$CTL/qmp/.rep-$n" >&2 || true
  mv "$CTL/qmp/.rep-$n" "$CTL/qmp/rep-$n"; echo $rc > "$CTL/qmp/rc-$n"
}
# One run of the guest, from boot to power-off: QRC, T0, T1.
boot() {
T0=$(date +%s.%N)
timeout -k 10 "$TIMEOUT" "${QEMU[@]}" \
  -append "root=/dev/vda rw console=ttyS0 quiet loglevel=4 systemd.show_status=0 panic=-1 sysrq_always_enabled=1 r8t.run=1 ${R8T_VM_APPEND:-}" \
  -serial "file:$RUN/console.log" -chardev "stdio,id=out,signal=off,logfile=$RUN/out.log" -serial chardev:out \
  -serial "file:$RUN/status" </dev/null &
QPID=$! QSTART=$SECONDS
quit_after=""
asked_status=""
while kill -0 $QPID 2>/dev/null; do
  # Shortly before the timeout: what QEMU says of the guest (running, suspended, ...), for the report.
  if [ -z "$asked_status" ] && [ $((SECONDS - QSTART)) -ge $((TIMEOUT - 5)) ]; then
    asked_status=1; relay_one status 0 - query-status; cp "$CTL/qmp/rep-status" "$RUN/qemu-status" 2>/dev/null || true
  fi
  # The status is in: a guest that has not powered off 30 s later (a sync that hangs on a 9p
  # share a suspend killed) is stopped from here.
  if [ -z "$quit_after" ] && grep -q '^rc=' "$RUN/status" 2>/dev/null; then quit_after=$((SECONDS + 30)); fi
  if [ -n "$quit_after" ] && [ $SECONDS -ge $quit_after ]; then
    echo "vm-run: the guest reported its status but did not power off: stopping it" >&2
    relay_one quit 0 - quit; quit_after=$((SECONDS + 3600))
  fi
  for f in "$CTL"/qmp/req-*; do
    [ -e "$f" ] || continue
    n=${f##*/req-}; mapfile -t req < "$f"; rm -f "$f"
    relay_one "$n" "${req[@]}" &
  done
  sleep 0.1
done
set +e
wait $QPID; QRC=$?
set -e
T1=$(date +%s.%N)
QPID=""
}
boot
# A guest kernel that panicked before the command began (under TCG with two vCPUs, 6.12's boot
# has oopsed on an int3 of its own text patching, once in many runs) ran nothing of the test:
# it is booted once more, and said. A panic once the command runs is the test's result.
if [ ! -e "$CTL/t_guest_ready" ] && [ $QRC != 124 ] && [ $QRC != 137 ] && grep -q 'Kernel panic' "$RUN/console.log"; then
  echo "vm-run: the guest's kernel panicked before the command began; booting once more. Its console's tail:" >&2
  tail -n 8 "$RUN/console.log" >&2
  : > "$RUN/console.log"; : > "$RUN/status"; rm -f "$RUN/qmp.sock"
  boot
fi
if [ -e "$CTL/t_guest_ready" ]; then
  READY=$(awk -v a="$(stat -c %.Y "$CTL/t_guest_ready")" -v b="$T0" 'BEGIN { printf "%.1f", a - b }')
else READY=none; fi
GT=none
if [ -s "$CTL/guest-times" ]; then
  mapfile -t g < "$CTL/guest-times"
  GT=$(awk -v u="${g[1]:-0}" -v m="${g[2]:-0}" -v c="${g[0]:-0}" \
    'BEGIN { printf "systemd started at %.1fs, multi-user.target at %.1fs, command at %.1fs of guest uptime", u / 1e6, m / 1e6, c }')
fi
echo "vm-run: kernel $(cat "$IMGDIR/kernel-release") accel=$ACCEL; host: command started after ${READY}s, total $(awk -v a="$T1" -v b="$T0" 'BEGIN { printf "%.1f", a - b }')s; guest: $GT" >&2
if [ $QRC = 124 ] || [ $QRC = 137 ]; then
  echo "vm-run: timed out after ${TIMEOUT}s; QEMU's status then: $(cat "$RUN/qemu-status" 2>/dev/null || echo unknown); console tail:" >&2
  tail -n 30 "$RUN/console.log" >&2; exit 124
fi
RC=$(sed -n 's/^rc=\([0-9]*\).*/\1/p' "$RUN/status" 2>/dev/null | tail -n 1)
if [ -z "$RC" ]; then
  echo "vm-run: no exit status came back (qemu status $QRC); console tail:" >&2
  tail -n 40 "$RUN/console.log" >&2; exit 125
fi
exit "$RC"
