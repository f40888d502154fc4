#!/usr/bin/env bash
# Writes that fail — a read-only attribute, an I/O error, no permission, an attribute that
# vanishes — are each logged once, the other knobs still applied, nothing crashes, and the
# undo journal holds exactly what changed, so restore gives every original back.
source "$SRCDIR/tests/lib.sh"
if [[ "${R8T_IN_FAULTS_NS:-}" != 1 ]]; then
        need_root
        R8T_IN_FAULTS_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
Q="$SRCDIR/conf/quirks.d"
netns_new ns
ip -n "$ns" link add enp1s0 type veth peer name peer0

# Five knobs on three backends; each scenario breaks one.
cat >"$TMP/five.conf" <<'CONF'
[device lenovo]
match-slot = 0000:01:00.0
l1_1_aspm = 0
tso = off
gro_flush_timeout = 50000
napi_defer_hard_irqs = 2
CONF
base=$(fixture lenovo-8168h)
dev=devices/pci0000:00/0000:00:1c.0/0000:01:00.0
apply() { # apply FIXTURE STATE [PREFIX...] -> $out, $rc
        local fx=$1 st=$2; shift 2
        set +e
        out=$(ip netns exec "$ns" "$@" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" \
                --config "$TMP/five.conf" --profile performance --state-dir "$st" apply 2>&1)
        rc=$?
        set -e
}
restore_all() {
        set +e; ip netns exec "$ns" "$R8T" --sysfs "$1/sys" --state-dir "$2" restore >/dev/null 2>&1; set -e
}
check_rest_applied() { # check_rest_applied NAME FIXTURE BROKEN-KNOB
        local fx=$2
        [[ $3 == l1_1_aspm ]] || eq "$1: l1_1_aspm applied" 0 "$(cat "$fx/sys/$dev/link/l1_1_aspm")"
        [[ $3 == clkpm ]] || eq "$1: clkpm applied" 0 "$(cat "$fx/sys/$dev/link/clkpm")"
        [[ $3 == gro_flush_timeout ]] || eq "$1: gro_flush_timeout applied" 50000 "$(cat "$fx/sys/$dev/net/enp1s0/gro_flush_timeout")"
        [[ $3 == napi_defer_hard_irqs ]] || eq "$1: napi applied" 2 "$(cat "$fx/sys/$dev/net/enp1s0/napi_defer_hard_irqs")"
        [[ $3 == tso ]] || eq "$1: tso applied" off "$(ip netns exec "$ns" ethtool -k enp1s0 | awk '$1 == "tcp-segmentation-offload:" {print $2}')"
}

### Read-only attribute (EROFS): a read-only bind mount over link/clkpm.
fx="$TMP/ro"; cp -a "$base" "$fx"; before=$(snapshot "$fx")
mount --bind -o ro "$fx/sys/$dev/link/clkpm" "$fx/sys/$dev/link/clkpm"
apply "$fx" "$TMP/st-ro"
eq "read-only: exit 1" 1 "$rc"
eq "read-only: said once" 1 "$(grep -c 'setting clkpm' <<<"$out")"
contains "read-only: why" "setting clkpm 1 -> 0 failed: Read-only file system" "$out"
check_rest_applied "read-only" "$fx" clkpm
grep -q "^link clkpm" "$TMP/st-ro/0000:01:00.0" && fail "read-only: unchanged clkpm left in the journal" || ok
restore_all "$fx" "$TMP/st-ro"
umount "$fx/sys/$dev/link/clkpm"
eq "read-only: restore gives every original back" "$before" "$(snapshot "$fx")"

### The kernel refuses the write: a real sysfs attribute that reads fine and rejects the value
### (a scratch veth's mtu refuses 2 with EINVAL and changes nothing) stands in for napi_defer_hard_irqs.
fx="$TMP/einval"; cp -a "$base" "$fx"
ip link add r8tfault$$ type veth peer name r8tfaultp$$
cleanup_hooks+=("ip link del r8tfault$$")
mount --bind "/sys/class/net/r8tfault$$/mtu" "$fx/sys/$dev/net/enp1s0/napi_defer_hard_irqs"
before=$(snapshot "$fx")
apply "$fx" "$TMP/st-einval"
eq "refused write: exit 1" 1 "$rc"
eq "refused write: said once" 1 "$(grep -c 'napi_defer_hard_irqs' <<<"$out")"
contains "refused write: the kernel's errno" "setting napi_defer_hard_irqs 1500 -> 2 failed: Invalid argument" "$out"
check_rest_applied "refused write" "$fx" napi_defer_hard_irqs
eq "refused write: attribute unchanged" 1500 "$(cat "/sys/class/net/r8tfault$$/mtu")"
grep -q "^netdev napi_defer_hard_irqs" "$TMP/st-einval/0000:01:00.0" && fail "refused write: unchanged knob left in the journal" || ok
restore_all "$fx" "$TMP/st-einval"
eq "refused write: restore gives every original back" "$before" "$(snapshot "$fx")"
umount "$fx/sys/$dev/net/enp1s0/napi_defer_hard_irqs"

### An attribute that reads as endless data (a device bound over it) is refused, not read forever.
fx="$TMP/endless"; cp -a "$base" "$fx"
mount --bind /dev/zero "$fx/sys/$dev/net/enp1s0/napi_defer_hard_irqs"
apply "$fx" "$TMP/st-endless"
eq "endless: exit 1" 1 "$rc"
contains "endless: refused" "cannot read napi_defer_hard_irqs (File too large)" "$out"
check_rest_applied "endless" "$fx" napi_defer_hard_irqs
umount "$fx/sys/$dev/net/enp1s0/napi_defer_hard_irqs"
restore_all "$fx" "$TMP/st-endless"

### No permission for ethtool writes (no CAP_NET_ADMIN): the kernel's EPERM, said once.
fx="$TMP/eperm"; cp -a "$base" "$fx"; before=$(snapshot "$fx")
apply "$fx" "$TMP/st-eperm" setpriv --bounding-set -net_admin
eq "EPERM: exit 1" 1 "$rc"
eq "EPERM: said once" 1 "$(grep -c 'setting tso' <<<"$out")"
contains "EPERM: why" "setting tso -> off failed: Operation not permitted" "$out"
check_rest_applied "EPERM" "$fx" tso
grep -q "^feature " "$TMP/st-eperm/0000:01:00.0" && fail "EPERM: unchanged features left in the journal" || ok
restore_all "$fx" "$TMP/st-eperm"
eq "EPERM: restore gives every original back" "$before" "$(snapshot "$fx")"

### The attribute vanishes between plan and write (stopped after the first write, file removed).
fx="$TMP/gone"; cp -a "$base" "$fx"
set +e
ip netns exec "$ns" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --config "$TMP/five.conf" \
        --profile performance --state-dir "$TMP/st-gone" --fault-after-writes 1:STOP apply >"$TMP/gone.out" 2>&1 &
pid=$!
set -e
wait_for 10 bash -c "[[ \$(awk '{print \$3}' /proc/$pid/stat) == T ]]" && ok || fail "vanish: not stopped"
rm "$fx/sys/$dev/link/clkpm"
kill -CONT $pid
set +e; wait $pid; rc=$?; set -e
out=$(cat "$TMP/gone.out")
eq "vanished attribute: exit 1, no crash" 1 "$rc"
contains "vanished attribute: said" "setting clkpm 1 -> 0 failed: No such file or directory" "$out"
check_rest_applied "vanished attribute" "$fx" clkpm
restore_all "$fx" "$TMP/st-gone"
# What cannot be read back cannot be known to be ours: its original stays recorded, and only it.
eq "vanished attribute: only its original kept" "link clkpm 1 0" "$(grep -v -E '^(#|slot|mac|interface)' "$TMP/st-gone/0000:01:00.0")"
eq "vanished attribute: the rest restored" 20000 "$(cat "$fx/sys/$dev/net/enp1s0/gro_flush_timeout")"

finish
