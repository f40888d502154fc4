#!/usr/bin/env bash
# plan against the real kernel: with the seed machines' interfaces present as veths, the
# ethtool knobs are compared with what the kernel has, so the plan holds exactly the change.
source "$SRCDIR/tests/lib.sh"
need_root
Q="$SRCDIR/conf/quirks.d"
: >"$TMP/empty.conf"

printf '[global]\nsuggestions = apply\n' >"$TMP/apply.conf"
plan() { # plan NS FIXTURE PROFILE [CONFIG] [KERNEL]: on Debian 12's kernel unless KERNEL says
        local fx; fx=$(fixture "$2")
        ip netns exec "$1" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" \
                --config "${4:-$TMP/empty.conf}" --profile "$3" --kernel-release "${5:-6.1.158}" --json plan
}
changes() { jq -r '[.nics[].items[] | select(.action == "change") | "\(.knob)=\(.desired)"] | sort | join(" ")'; }

# ThinkPad E480 on 5.18: SG/TSO off by default, no software coalescing.
netns_new ns
ip -n "$ns" link add enp3s0 type veth peer name peer0
ip netns exec "$ns" ethtool -K enp3s0 sg off tso off >/dev/null
# Debian 12's 6.1 lacks the kernel's own software coalescing (6.2): planned; SG/TSO on only suggested.
eq "e480 performance" "gro_flush_timeout=20000 napi_defer_hard_irqs=1" "$(plan "$ns" thinkpad-e480-8168gu performance | changes)"
eq "e480 performance: suggested, with the kernel's own values to compare" "sg=true tso=true" \
        "$(plan "$ns" thinkpad-e480-8168gu performance | jq -r '[.nics[0].suggested[] | select(.current.value == false) | "\(.knob)=\(.desired)"] | sort | join(" ")')"
eq "e480 performance, suggestions accepted" "gro_flush_timeout=20000 napi_defer_hard_irqs=1 sg=true tso=true" \
        "$(plan "$ns" thinkpad-e480-8168gu performance "$TMP/apply.conf" | changes)"
eq "e480 on Debian 13's 6.12: the kernel coalesces itself" "" "$(plan "$ns" thinkpad-e480-8168gu performance "" 6.12.30 | changes)"
# SG goes on before TSO (the kernel drops TSO without SG)
eq "e480 order" "sg tso" "$(plan "$ns" thinkpad-e480-8168gu performance "$TMP/apply.conf" | jq -r '[.nics[0].items[] | select(.knob == "sg" or .knob == "tso") | .knob] | join(" ")')"
eq "e480 powersave" "" "$(plan "$ns" thinkpad-e480-8168gu powersave | changes)"
# SG/TSO already on by hand, on 6.12: nothing to change, and plan says which entries are for
# this chip and why each asks for nothing, not "nothing known" (issue 45 M6).
ip netns exec "$ns" ethtool -K enp3s0 sg on tso on >/dev/null
fx=$(fixture thinkpad-e480-8168gu)
text=$(ip netns exec "$ns" "$R8T" --sysfs "$fx/sys" --kernel-log "$fx/kernel.log" --quirks "$Q" --config "$TMP/empty.conf" \
        --profile performance --kernel-release 6.12.48 plan)
not_contains "e480 6.12, SG/TSO on: not 'nothing known'" "nothing known to tune" "$text"
contains "e480 6.12: the entries said" "nothing to change; the entries for this chip ask for nothing here:" "$text"
contains "e480 6.12: SG/TSO already so" "rtl8168g-sg-tso: already so" "$text"
contains "e480 6.12: the coalescing is the kernel's" "rtl8168g-sw-coalesce: the kernel does it itself since 6.2" "$text"
ip netns exec "$ns" ethtool -K enp3s0 sg off tso off >/dev/null

# RTL8168c: the kernel has TSO/SG on (veth default): both go off, in every profile.
netns_new ns2
ip -n "$ns2" link add enp2s0 type veth peer name peer0
eq "8168c performance" "sg=false tso=false" "$(plan "$ns2" desktop-8168c performance | changes)"
eq "8168c powersave" "sg=false tso=false" "$(plan "$ns2" desktop-8168c powersave | changes)"
# TSO goes off before SG
eq "8168c order" "tso sg" "$(plan "$ns2" desktop-8168c performance | jq -r '[.nics[0].items[] | select(.knob == "sg" or .knob == "tso") | .knob] | join(" ")')"
# Already off: nothing to change.
ip netns exec "$ns2" ethtool -K enp2s0 tso off sg off >/dev/null
eq "8168c already right" "" "$(plan "$ns2" desktop-8168c performance | changes)"
eq "8168c keep" "keep keep" "$(plan "$ns2" desktop-8168c performance | jq -r '[.nics[0].items[] | select(.knob == "sg" or .knob == "tso") | .action] | join(" ")')"

finish
