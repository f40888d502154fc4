#!/usr/bin/env bash
# status against the real kernel: a veth named like the fixture's interface gives real
# ethtool netlink answers (features; EOPNOTSUPP for coalescing and the register dump).
source "$SRCDIR/tests/lib.sh"
# One kernel, whatever the host runs: the lenovo-8168h fixture's plan (and so the writes counted
# below) depends on the release. 7.3 turns EEE off on this chip itself, so no entry asks it of
# the veth, which has no EEE: the plan is the seed's own (clkpm, L1.2) and the knobs below.
KR=(--kernel-release 7.3)
DAEMON_ARGS=("${KR[@]}")
need_root
command -v ethtool >/dev/null || { echo "SKIP: ethtool missing"; exit 77; }

fx=$(fixture lenovo-8168h)
netns_new ns
ip -n "$ns" link add enp1s0 type veth peer name peer0
ip -n "$ns" link set enp1s0 up
ip -n "$ns" link set peer0 up
in_ns() { ip netns exec "$ns" "$@"; }
status() { in_ns "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --json status | jq -c .nics[0]; }

# ethtool -k's long names for our short ones, as ethtool prints them
declare -A long=([tso]=tcp-segmentation-offload [sg]=scatter-gather [gso]=generic-segmentation-offload
                 [gro]=generic-receive-offload [tx]=tx-checksumming [rx]=rx-checksumming)
check_features() {
        local nic=$1 k want
        for k in "${!long[@]}"; do
                want=$(in_ns ethtool -k enp1s0 | awk -v n="${long[$k]}:" '$1 == n {print $2}')
                eq "$2: $k agrees with ethtool -k" "$want" "$(jq -r --arg k "$k" '.knobs[$k] | if .partial then "partial" elif .value == true then "on" elif .value == false then "off" else .value end' <<<"$nic")"
        done
}

nic=$(status)
# veth has no register dump: the kernel's EOPNOTSUPP is noted and the probe line answers.
eq "xid source" kernel-log "$(jq -r .xid_source <<<"$nic")"
contains "regs refused by veth" "regs: enp1s0: Operation not supported" "$(jq -r .xid_notes <<<"$nic")"
check_features "$nic" "initial"
# veth has no coalescing: not supported, with the kernel's errno
for k in rx-usecs rx-frames tx-usecs tx-frames; do
        eq "$k status" not-supported "$(jq -r ".knobs.\"$k\".status" <<<"$nic")"
        eq "$k errno" "EOPNOTSUPP" "$(jq -r ".knobs.\"$k\".errno" <<<"$nic")"
done
# netdev attributes still come from the fixture tree, not from the veth
eq "gro_flush_timeout from fixture" 20000 "$(jq -r .knobs.gro_flush_timeout.value <<<"$nic")"
# In the text, what cannot be read stands with the knob list, before the suggestions, not
# under a suggestion's "measure it" line (ux-findings L4).
text=$(in_ns "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config /dev/null status)
eq "text: not-supported with the knobs, then the suggestion" "not-supported suggested" \
        "$(grep -oE '^    not-supported:|^  suggested:' <<<"$text" | tr -d ' :' | tr '\n' ' ' | sed 's/ $//')"

# Changed behind our back with ethtool: status follows the kernel.
in_ns ethtool -K enp1s0 tso off sg off gro on
nic=$(status)
check_features "$nic" "after ethtool -K"
eq "tso off" false "$(jq -r .knobs.tso.value <<<"$nic")"
eq "gro on" true "$(jq -r .knobs.gro.value <<<"$nic")"

# One TSO flavour on, the others off: reported as partial, not as on or off.
in_ns ethtool -K enp1s0 sg on tso off
in_ns ethtool -K enp1s0 tx-tcp6-segmentation on
nic=$(status)
eq "tso partial" true "$(jq -r .knobs.tso.partial <<<"$nic")"

# Without CAP_NET_ADMIN the register dump is refused; that is noted and the next source answers.
if command -v setpriv >/dev/null; then
        nic=$(in_ns setpriv --bounding-set -net_admin "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" \
                --json status | jq -c .nics[0])
        contains "no CAP_NET_ADMIN: regs refused" "Operation not permitted" "$(jq -r .xid_notes <<<"$nic")"
        eq "no CAP_NET_ADMIN: still identified" 541 "$(jq -r .xid <<<"$nic")"
        # reads are unprivileged: features still there
        eq "no CAP_NET_ADMIN: features readable" ok "$(jq -r .knobs.sg.status <<<"$nic")"
fi

# diagnose gives ethtool's view too: link state and settings, every named feature as ethtool -k has it.
d=$(in_ns "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --json diagnose 2>/dev/null)
eq "diagnose: link detected" true "$(jq -r .nics[0].ethtool.link_detected <<<"$d")"
eq "diagnose: speed is a number" number "$(jq -r '.nics[0].ethtool.speed_mbps | type' <<<"$d")"
eq "diagnose: no unnamed feature" 0 "$(jq '[.nics[0].ethtool.features[] | select(.name == "")] | length' <<<"$d")"
eq "diagnose: tx-scatter-gather as ethtool -k" \
        "$(in_ns ethtool -k enp1s0 | awk '$1 == "tx-scatter-gather:" {print $2}')" \
        "$(jq -r '.nics[0].ethtool.features[] | select(.name == "tx-scatter-gather") | if .active then "on" else "off" end' <<<"$d")"
if python3 -c 'import jsonschema' 2>/dev/null; then
        # Against the kernel, with real ethtool answers, status and diagnose still fit the schema.
        printf '%s\n' "$d" >"$TMP/d.json"
        in_ns "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --json status >"$TMP/s.json"
        for def in diagnose status; do
                out=$(python3 "$SRCDIR/tests/validate-json.py" "$SRCDIR/conf/r8169-tuned.schema.json" $def "$TMP/${def:0:1}.json" 2>&1) &&
                        ok || fail "schema, $def on a veth: $out"
        done
fi
md=$(in_ns "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" diagnose 2>/dev/null)
contains "diagnose: link line" "- link detected: yes" "$md"
contains "diagnose: feature table" "| tx-scatter-gather |" "$md"

# A write the kernel refuses in part: TSO on without SG. What apply says the kernel kept is
# what ethtool -k shows (the read-back comes from the write's own reply, not a second read),
# and a write it takes is reported as done.
in_ns ethtool -K enp1s0 sg off tso off
printf '[device t]\nmatch-interface = enp1s0\ntso = on\n' >"$TMP/tso-on.conf"
out=$(in_ns "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/tso-on.conf" --state-dir "$TMP/st" \
        --profile powersave apply 2>&1) || true
nic=$(status)
case $(jq -r 'if .knobs.tso.partial then "partial" elif .knobs.tso.value then "on" else "off" end' <<<"$nic") in
partial) contains "refused in part: said so" "asked for tso on, the kernel kept some of its features as they were" "$out" ;;
off) contains "refused: said so" "asked for tso on, the kernel kept off" "$out" ;;
*) fail "TSO on without SG: the kernel took it, nothing refused to test ($out)" ;;
esac
# ethtool -k's TSO line says on when any flavour is: compare with the flavours themselves.
flavours=$(in_ns ethtool -k enp1s0 | awk '$1 ~ /^tx-tcp.*-segmentation:$/ {print $2}' | sort -u | tr '\n' ' ')
case $flavours in
"off ") want=off ;; "on ") want=on ;; *) want=partial ;;
esac
eq "after a refused write: tso as ethtool -k's flavours ($flavours)" "$want" \
        "$(jq -r 'if .knobs.tso.partial then "partial" elif .knobs.tso.value then "on" else "off" end' <<<"$nic")"
printf '[device t]\nmatch-interface = enp1s0\nsg = on\ntso = on\n' >"$TMP/tso-on.conf"
out=$(in_ns "$R8T" "${KR[@]}" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" --config "$TMP/tso-on.conf" --state-dir "$TMP/st" \
        --profile powersave apply 2>&1) || true
contains "taken: tso" "tso " "$(grep -- '-> on' <<<"$out")"
eq "taken: nothing failed" 0 "$(grep -c 'the kernel kept' <<<"$out")"
check_features "$(status)" "after a write taken"

# 6.13's SG and TSO on, back-ported (issue 48): on Debian 13's 6.12 the plan turns them on with
# the entry's tier; on 6.13 and later, where the kernel does it, a veth that has them on keeps
# them as the kernel's, and one a user turned off is left alone.
tsoplan() { in_ns "$R8T" --kernel-release "$1" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$SRCDIR/conf/quirks.d" \
        --config "$TMP/empty.conf" --profile performance --json plan |
        jq -r '[.nics[0].items[] | select(.knob == "tso" or .knob == "sg") |
                "\(.knob)=\(.action):\(.desired):\(.quirk):\(.confidence):\(.kernel_default_since)"] | sort | join(" ")'; }
: >"$TMP/empty.conf"
in_ns ethtool -K enp1s0 sg off tso off 2>/dev/null || true
eq "6.12, SG/TSO off: the back-port turns them on" \
        "sg=change:true:r8169-sg-tso-6.13:kernel:null tso=change:true:r8169-sg-tso-6.13:kernel:null" "$(tsoplan 6.12.30)"
eq "6.13, SG/TSO off (a user's): left alone" "" "$(tsoplan 6.13)"
in_ns ethtool -K enp1s0 sg on tso on
eq "7.1, SG/TSO on: the kernel already does this" \
        "sg=keep:true:r8169-sg-tso-6.13:kernel:6.13 tso=keep:true:r8169-sg-tso-6.13:kernel:6.13" "$(tsoplan 7.1)"

# The interface vanishes: ethtool knobs say no-interface, the command still succeeds.
ip -n "$ns" link del enp1s0
nic=$(status)
eq "vanished: tso" no-interface "$(jq -r .knobs.tso.status <<<"$nic")"
eq "vanished: still identified" 541 "$(jq -r .xid <<<"$nic")"

finish
