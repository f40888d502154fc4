#!/usr/bin/env bash
# The Debian package as Debian's own tools check one, on this machine's release:
#   lintian     --pedantic, experimental tags too, on the source and binary upload (.changes) of
#               each release, with that release's lintian (Debian 12's on the bookworm
#               backport, 13's on trixie's): no tag but those conf/debian overrides, each with
#               its reason
#   piuparts    install and purge in a minimal root (nothing left behind, nothing changed
#               outside the package), and the upgrade from the version before (apt finds it in
#               a local repository, then dpkg -i of the new one), as Debian's piuparts.d.o does
#   autopkgtest the package's own tests (conf/debian/tests/control) in a testbed made from the
#               same minimal root (the chroot runner, in a mount namespace of its own with /proc,
#               /sys read-only and /dev: the package never touches this machine, which the null runner
#               would install it on; the unshare runner needs subordinate ids for root). The
#               "service" test needs a machine: the VM matrix runs it.
# The packages are tests/build-deb.sh's (the changelog's version, and +test1 above it). The root
# is debootstrapped once and cached (R8T_SYSTEM_CACHE, default /var/cache/r8169-tuned-tests).
# Each tool's summary goes to $BUILDDIR/Testing/debian-tools.txt, which .ci/run prints.
source "$SRCDIR/tests/lib.sh"

[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit 77; }
for t in dpkg-buildpackage dh lintian piuparts autopkgtest autopkgtest-virt-chroot dpkg-scanpackages debootstrap unshare; do
        command -v "$t" >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
arch=$(dpkg --print-architecture)
cache=${R8T_SYSTEM_CACHE:-/var/cache/r8169-tuned-tests}
mirror=$(apt-get --print-uris update 2>/dev/null | sed -n "s|^'\(.*\)/dists/$suite/InRelease'.*|\1|p" | head -1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
report=()
said() { report+=("$(printf '%-12s %s' "$1" "$2")"); echo "   $1: $2"; }

debs=$TMP/debs-$suite
bash "$SRCDIR/tests/build-deb.sh" "$suite" "$debs" >/dev/null || { fail "tests/build-deb.sh $suite"; finish; exit 1; }
version=$(dpkg-parsechangelog -l "$SRCDIR/conf/debian/changelog" -S Version)
deb1=$debs/r8169-tuned_${version}_$arch.deb
deb2=$debs/r8169-tuned_${version}+test1_$arch.deb

########## lintian: each release's own, on what Debian would ship to that release
# A tag one release's lintian knows and the other's does not (an override that is an error on
# one, a Standards-Version the other has not heard of) can only be seen by running both:
# tests/build-deb.sh runs the release's lintian where it built for it (here, or in that
# release's build root). bookworm's upload is the backport (VERSION~bpo12+1), trixie's VERSION.
for release in bookworm trixie; do
        echo "== lintian ($release)"
        t0=$SECONDS
        [[ $release == "$suite" ]] || bash "$SRCDIR/tests/build-deb.sh" "$release" "$TMP/debs-$release" >/dev/null ||
                { fail "tests/build-deb.sh $release"; continue; }
        lint=$TMP/debs-$release/lintian.txt
        [[ -f $lint ]] || { fail "lintian ($release): not run (tests/build-deb.sh wrote no lintian.txt)"; continue; }
        lv=$(cat "$TMP/debs-$release/lintian-version.txt")
        sed 's/^/  | /' "$lint"
        tags=$(grep -E '^[EWIPX]: ' "$lint" || true)
        eq "lintian ($lv, $release) --pedantic: no tag that conf/debian does not override" "" "$tags"
        # The overrides are read (the fuzzer's saved input, both; the init.d tag, bookworm's).
        overridden=$(grep -c '^O: ' "$lint" || true)
        want=1
        [[ $release == bookworm ]] && want=2
        eq "lintian ($release): the overrides for $release read and used" "$want" "$overridden"
        said "lintian" "$lv on the $release upload, --pedantic -I -E: ${tags:-no tags}; $overridden overridden ($((SECONDS - t0)) s)"
done

########## The minimal root for piuparts and autopkgtest: cached
base=$cache/piuparts-$suite-$arch.tgz
key="r8169-tuned piuparts root 1: piuparts -d $suite ($(piuparts --version 2>&1 | head -1))"
mkdir -p "$cache"
exec {lockfd}>"$cache/.lock-piuparts-$suite"
flock "$lockfd"
if [[ ! -s $base || "$(cat "$base.key" 2>/dev/null)" != "$key" ]]; then
        # piuparts makes it (debootstrap, as piuparts.d.o) on a plain install and purge of the
        # package, before any local repository is added to its sources.
        echo "== a minimal $suite root for piuparts (once; cached in $base)"
        rm -f "$base"
        piuparts -d "$suite" -m "$mirror" -s "$base" --no-upgrade-test -l "$TMP/piuparts-base.log" "$deb1" >/dev/null 2>&1 ||
                { tail -n 40 "$TMP/piuparts-base.log"; fail "piuparts: making the $suite root"; finish; exit 1; }
        echo "$key" >"$base.key"
fi
exec {lockfd}>&-

########## piuparts: install and purge, and the upgrade from the version before
echo "== piuparts"
t0=$SECONDS
repo=$TMP/repo   # the version before, where apt in the root finds it
mkdir -p "$repo"
cp "$deb1" "$repo/"
(cd "$repo" && dpkg-scanpackages . /dev/null >Packages 2>/dev/null)
set +e
piuparts -d "$suite" -m "$mirror" -b "$base" --bindmount="$repo" \
        --extra-repo="deb [trusted=yes] file://$repo ./" -l "$TMP/piuparts.log" "$deb2" >/dev/null 2>&1
rc=$?
set -e
summary=$(grep -E ' (INFO|ERROR|FAIL): ' "$TMP/piuparts.log" | grep -v -E 'FAQ|-----|scroll down|contact us|Running on|Command line' | sed 's/^[0-9m.s]* //' || true)
printf '%s\n' "$summary" | sed 's/^/  | /'
[[ $rc -eq 0 ]] && ok || { grep -E 'ERROR|FAIL' -A20 "$TMP/piuparts.log" | head -60; fail "piuparts: exit $rc"; }
contains "piuparts: installed and purged, nothing left" "PASS: Installation and purging test." "$summary"
contains "piuparts: upgraded from the version before" "PASS: Installation, upgrade and purging tests." "$summary"
grep -q "Unpacking r8169-tuned (${version}+test1) over (${version})" "$TMP/piuparts.log" && ok ||
        fail "piuparts: no upgrade from $version to $version+test1 in its log"
said piuparts "install/purge of $version+test1, upgrade $version -> $version+test1 in a minimal $suite root: $(grep -o 'PASS: All tests.' <<<"$summary" || echo FAILED) ($((SECONDS - t0)) s)"

########## autopkgtest: the package's own tests, in a testbed made from the minimal root
echo "== autopkgtest"
t0=$SECONDS
testbed=$TMP/testbed
mkdir "$testbed"
# However piuparts packed it: gzip by 1.1 (Debian 12), not gzip by 1.6 (Debian 13: "not in gzip
# format" for tar -z); tar tells by itself.
tar -C "$testbed" -xf "$base"
cp /etc/resolv.conf "$testbed/etc/" 2>/dev/null || true
set +e
unshare --mount --propagation private sh -c '
        mount -t proc proc "$1/proc" && mount --rbind /sys "$1/sys" && mount -o remount,bind,ro "$1/sys" &&
        mount --rbind /dev "$1/dev" &&
        autopkgtest --no-built-binaries --setup-commands="apt-get update -q" -o "$2" "$3" "$4" -- chroot "$1"' sh \
        "$testbed" "$TMP/autopkgtest" "$debs/r8169-tuned_$version.dsc" "$deb1" >"$TMP/autopkgtest.log" 2>&1
rc=$?
set -e
# Its summary: a line per test, name and verdict (written twice at times).
summary=$(grep -E '^[a-z0-9.+-]+ +(PASS|FAIL|SKIP|FLAKY|NEUTRAL)( |$)' "$TMP/autopkgtest.log" | sort -u || true)
printf '%s\n' "$summary" | sed 's/^/  | /'
# 0: all passed; 2: some skipped (the service test needs a machine), none failed.
[[ $rc -eq 0 || $rc -eq 2 ]] && ok || { tail -n 60 "$TMP/autopkgtest.log"; fail "autopkgtest: exit $rc"; }
contains "autopkgtest: smoke passed" "smoke                PASS" "$summary"
contains "autopkgtest: service skipped here (needs a machine)" "service              SKIP" "$summary"
said autopkgtest "$(awk '{ printf "%s%s %s", (NR > 1 ? "; " : ""), $1, $2 }' <<<"$summary") (service: needs a machine, run in the VM matrix) ($((SECONDS - t0)) s)"

mkdir -p "$BUILDDIR/Testing"
{ echo "Debian's tools on r8169-tuned $version ($suite):"; printf '%s\n' "${report[@]}"; } | tee "$BUILDDIR/Testing/debian-tools.txt"
finish
