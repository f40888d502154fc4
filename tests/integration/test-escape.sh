#!/usr/bin/env bash
# Names, slots and values that try to escape are refused with a clear message, and nothing
# outside the allowlisted attributes under the sysfs root is ever opened for writing
# (every open of the run is traced with strace).
source "$SRCDIR/tests/lib.sh"
need_root
command -v strace >/dev/null || { echo "SKIP: strace missing"; exit 77; }
Q="$SRCDIR/conf/quirks.d"
fx=$(fixture lenovo-8168h)
dev="$fx/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0"
netns_new ns
ip -n "$ns" link add enp1s0 type veth peer name peer0
run() { set +e; out=$(ip netns exec "$ns" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" \
        --state-dir "$TMP/state" "$@" 2>&1); rc=$?; set -e; }
: >"$TMP/empty.conf"

# NIC names on the command line.
for bad in ../../etc /etc/passwd "0000:01:00.0/../../../../etc" "$(printf 'x%.0s' {1..5000})"; do
        run --config "$TMP/empty.conf" apply "$bad"
        eq "argument ${bad:0:30}: refused" 1 "$rc"
        contains "argument ${bad:0:30}: says so" "No Realtek NIC" "$out"
done

# Configuration values.
printf '[device a]\nmatch-slot = ../../../etc\nmatch-interface = %s\ngro_flush_timeout = 99999999999999999999999\nnapi_defer_hard_irqs = -1\nclkpm = 1\x00 0\n' \
        "$(printf 'y%.0s' {1..300})" >"$TMP/hostile.conf"
run --config "$TMP/hostile.conf" check-config
eq "hostile config: refused" 1 "$rc"
contains "slot" "$TMP/hostile.conf:2: bad match-slot \"../../../etc\"" "$out"
contains "over-long" "$TMP/hostile.conf:3: line too long" "$out"
contains "huge number" "$TMP/hostile.conf:4: bad value \"99999999999999999999999\" for gro_flush_timeout: out of range" "$out"
contains "negative" "$TMP/hostile.conf:5: bad value \"-1\" for napi_defer_hard_irqs" "$out"
contains "embedded NUL" "$TMP/hostile.conf:6: not text" "$out"

# The tree itself tries to lead out: class/net/enp1s0 points at /etc (absolute, and by ../),
# and a knob attribute is a symlink to a file outside the root.
echo original >"$TMP/outside"
ln -sfn /etc "$fx/sys/class/net/enp1s0"
ln -sf "$TMP/outside" "$dev/link/l1_1_aspm"
cat >"$TMP/write-all.conf" <<'CONF'
[device lenovo]
match-slot = 0000:01:00.0
l1_1_aspm = 0
gro_flush_timeout = 30000
CONF
# (LeakSanitizer cannot work under ptrace: no leak check for this one traced run.)
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" strace -f -qq -yy -e trace=open,openat,openat2,creat,truncate,rename,unlink,mkdir -o "$TMP/trace" \
        ip netns exec "$ns" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" \
        --state-dir "$TMP/state" --config "$TMP/write-all.conf" --profile performance apply >"$TMP/apply.out" 2>&1 || true
eq "outside file untouched" original "$(cat "$TMP/outside")"
contains "symlinked attribute refused" "l1_1_aspm" "$(cat "$TMP/apply.out")"
ls /etc/gro_flush_timeout >/dev/null 2>&1 && fail "wrote into /etc" || ok
eq "clkpm still applied" 0 "$(cat "$dev/link/clkpm")"

# strace -yy names a descriptor by the path the kernel resolves for it, and under a chroot
# (or any other mount of this tree) that is not the path this test used: ip netns exec's
# new mount namespace sees the tree from the outermost root. Learn the difference from a
# file opened the same way, and take it off the resolved directories below.
echo here >"$TMP/where"
strace -qq -yy -e trace=openat -o "$TMP/where.trace" ip netns exec "$ns" cat "$TMP/where" >/dev/null
seen=$(sed -n 's/^.*, "[^"]*\/where", O_RDONLY[^)]*) = [0-9]*<\(.*\)>$/\1/p' "$TMP/where.trace" | tail -1)
[[ $seen == *"$TMP/where" ]] && ok || fail "strace names $TMP/where as '$seen'"
outer=${seen%"$TMP/where"}
[[ -z $outer ]] || echo "strace sees this tree under $outer"

# Every open for writing made by r8169-tuned (not by ip or ld.so): an allowlisted knob under
# the fixture root (an apply opens each it reads for writing too, for the write that may
# follow), or its own journal in the state directory.
allowed='(clkpm|l0s_aspm|l1_aspm|l1_1_aspm|l1_2_aspm|l1_1_pcipm|l1_2_pcipm|gro_flush_timeout|napi_defer_hard_irqs)'
writes=$(grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(|rename\(|unlink\(|mkdir\(' "$TMP/trace" | grep -v -E 'ENOENT|ELOOP|EEXIST' |
        grep -v '/dev/null' || true)
[[ -n "$writes" ]] && ok || fail "strace saw no write at all: the check would be vacuous"
bad=$(while IFS= read -r line; do
        # openat2(5</…/link>, "clkpm", …), openat(AT_FDCWD</cwd>, "/path", …), rename("/a", …)
        name=$(sed -n 's/^[0-9]*  *[a-z0-9]*([^"]*"\([^"]*\)".*/\1/p' <<<"$line")
        dir=$(sed -n 's/^[0-9]*  *[a-z0-9]*([A-Z_]*[0-9]*<\([^>]*\)>, ".*/\1/p' <<<"$line")
        [[ -n $outer && $dir == "$outer"/* ]] && dir=${dir#"$outer"}
        if [[ $name == /* || -z $dir ]]; then path=$name; else path="$dir/$name"; fi
        case $path in
                "$fx/sys/"*/power/control) ;; # runtime PM, the one knob not named for itself
                "$fx/sys/"*) [[ $(basename "$path") =~ ^$allowed$ ]] || echo "$line" ;;
                "$TMP/state"*) ;;
                "$TMP/sanitizer/"*) ;; # the sanitizer runtime's own report, when built with it
                *) echo "$line" ;;
        esac
done <<<"$writes")
eq "no write outside the allowlist" "" "$bad"

# A fixture names interfaces that may exist on the host: in the host's network namespace,
# ethtool settings of the interface that bears the fixture's name are never written.
host_if="r8tx$$"; host_if=${host_if:0:15}
sed "s/^interface = enp2s0$/interface = $host_if/" "$SRCDIR/tests/fixtures/desktop-8168c.fixture" >"$TMP/host.fixture"
"$SRCDIR/tests/fixtures/mkfixture" "$TMP/host.fixture" "$TMP/hostfx" >/dev/null
ip link add "$host_if" type veth peer name "${host_if:0:13}p"
cleanup_hooks+=("ip link del $host_if")
host_tso() { ethtool -k "$host_if" | awk '$1 == "tcp-segmentation-offload:" {print $2}'; }
eq "host veth: tso on before" on "$(host_tso)"
set +e
out=$("$R8T" --sysfs "$TMP/hostfx/sys" --kernel-log "$TMP/hostfx/kernel.log" --quirks "$Q" --config "$TMP/empty.conf" \
        --state-dir "$TMP/host-state" apply 2>&1); rc=$?
set -e
eq "host veth: apply exit 1" 1 "$rc"
eq "host veth: tso untouched" on "$(host_tso)"
contains "host veth: says why" "this is the host's network namespace" "$out"
grep -q "^feature " "$TMP/host-state/0000:02:00.0" 2>/dev/null && fail "host veth: nothing journalled for it" || ok
# The same from a PID namespace of its own (PID 1 there is not the host's init): still the host's network.
set +e
out=$(unshare --pid --fork --mount-proc "$R8T" --sysfs "$TMP/hostfx/sys" --kernel-log "$TMP/hostfx/kernel.log" --quirks "$Q" \
        --config "$TMP/empty.conf" --state-dir "$TMP/host-state" apply 2>&1); rc=$?
set -e
eq "host veth, own PID namespace: apply exit 1" 1 "$rc"
eq "host veth, own PID namespace: tso untouched" on "$(host_tso)"
# A network namespace and a PID namespace of its own, as the benchmark's peers run: its own veth
# is written. Only where the kernel numbers the initial network namespace (6.18+): before, from
# a PID namespace of its own, r8169-tuned cannot tell and writes nothing.
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
if ((kmaj > 6 || (kmaj == 6 && ${kmin%%[!0-9]*} >= 18))); then
netns_new pns
ip -n "$pns" link add "$host_if" type veth peer name "${host_if:0:13}p"
set +e
out=$(ip netns exec "$pns" unshare --pid --fork --mount-proc "$R8T" --sysfs "$TMP/hostfx/sys" --kernel-log "$TMP/hostfx/kernel.log" \
        --quirks "$Q" --config "$TMP/empty.conf" --state-dir "$TMP/pns-state" apply 2>&1); rc=$?
set -e
eq "own netns and PID namespace: apply exit 0" 0 "$rc"
eq "own netns and PID namespace: its veth's tso off" off \
        "$(ip netns exec "$pns" ethtool -k "$host_if" | awk '$1 == "tcp-segmentation-offload:" {print $2}')"
eq "own netns and PID namespace: host veth untouched" on "$(host_tso)"
fi

finish
