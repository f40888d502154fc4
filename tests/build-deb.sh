#!/usr/bin/env bash
# build-deb.sh SUITE OUTDIR — r8169-tuned's Debian packages for a release (bookworm, trixie),
# built as Debian builds them: the source as git would check it out, conf/debian as its debian/,
# `dpkg-buildpackage -us -uc` (source and binary; dpkg-checkbuilddeps first), against that
# release's libraries: on this machine when it runs that release, else in a root of that release
# (debootstrap with the build dependencies and lintian, cached as a tarball keyed by its package
# list under R8T_SYSTEM_CACHE, default /var/cache/r8169-tuned-tests) entered with chroot.
#  - The changelog's version, VERSION, targets unstable and so the current stable, trixie. For
#    an older release the upload Debian would ship there is a backport (as `dch --bpo` makes it):
#    VERSION~bpo12+1 for bookworm-backports, built from the same tree with that changelog entry
#    on top, source and binary.
#  - Then once more as a higher version, VERSION+test1 (an entry added to the changelog, binary
#    only, the build tree kept): for upgrade tests.
#  - Then that release's own lintian (--pedantic -I -E --show-overrides) on the release's upload
#    (the backport's .changes on bookworm, VERSION's on trixie), where the build ran: its output
#    in OUTDIR/lintian.txt, its version in OUTDIR/lintian-version.txt. (On this machine only when
#    lintian is installed: without it neither file is written.)
# OUTDIR gets the .dsc, .tar.xz, and per version the .deb, -dbgsym .deb, .buildinfo, .changes.
# Several tests need the packages of one tree: they are kept under $BUILDDIR/debs (when set),
# keyed by the suite and a sha256 of every source file, and built once per key.
# Prints the .deb's path and how it was built.
set -euo pipefail
suite=$1 out=$2
src=$(cd "$(dirname "$0")/.." && pwd)
host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
cache=${R8T_SYSTEM_CACHE:-/var/cache/r8169-tuned-tests}
arch=$(dpkg --print-architecture)
version=$(dpkg-parsechangelog -l "$src/conf/debian/changelog" -S Version)
deb=$out/r8169-tuned_${version}_$arch.deb   # the changelog's version (+test1 is beside it)
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/r8t-deb.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT

# The source as git would check it out: its tracked files and new ones it does not ignore (so
# no build trees, no debian/ or obj-* left by building in the checkout, README's Quick start),
# or, where there is no git (a fresh machine), every file but those.
source_files() {
        if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
                git -C "$src" ls-files -z -co --exclude-standard |
                        while IFS= read -r -d '' f; do [[ -e $src/$f ]] && printf '%s\0' "$f"; done
        else
                (cd "$src" && find . \( -path './build*' -o -path ./.git -o -path ./debian -o -path './obj-*' \) -prune \
                        -o -type f -print0)
        fi
}
source_tar() { source_files | tar -C "$src" --null -T - -cf -; }

keep=""
if [[ -n ${BUILDDIR:-} ]]; then
        # What the files hold, whatever their times: an edit that keeps a file's size is a new key.
        key=$(source_files | (cd "$src" && xargs -0 sha256sum) | LC_ALL=C sort -k2 | sha256sum | cut -c1-16)
        keep=$BUILDDIR/debs/$suite-$key
        mkdir -p "$BUILDDIR/debs"
        exec {keepfd}>"$BUILDDIR/debs/.lock-$suite"
        flock "$keepfd"
        if [[ -s $keep/how ]]; then
                cp "$keep"/r8169-tuned* "$out/"
                rm -f "$out"/lintian*.txt
                cp "$keep"/lintian*.txt "$out/" 2>/dev/null || true
                echo "$deb $(cat "$keep/how"), built earlier in this build tree"
                exit 0
        fi
fi

# The backport's version suffix and distribution, for a release older than the one the
# changelog targets (unstable, which becomes trixie).
case $suite in
bookworm) bpo="~bpo12+1 bookworm-backports" ;;
*) bpo="" ;;
esac

# The changelog's version; the backport (if any); VERSION+test1 with the build tree kept (-nc);
# then lintian on this release's upload.
script='set -e
cd "$1"
bpo_suffix=${2%% *} bpo_dist=${2#* }
entry() { printf "r8169-tuned (%s) %s; urgency=medium\n\n  * %s\n\n -- %s  %s\n\n" \
        "$1" "$2" "$3" "$(dpkg-parsechangelog -l ../changelog -S Maintainer)" "$(date -R)"; }
rm -rf debian && cp -r conf/debian debian && cp debian/changelog ../changelog
dpkg-buildpackage -us -uc >../build.log 2>&1 || { tail -n 40 ../build.log >&2; exit 1; }
v=$(dpkg-parsechangelog -l ../changelog -S Version)
upload=../r8169-tuned_${v}_$(dpkg --print-architecture).changes
if [ -n "$bpo_suffix" ]; then
        { entry "$v$bpo_suffix" "$bpo_dist" "Rebuild for $bpo_dist."; cat ../changelog; } >debian/changelog
        # -v0: the .changes lists every entry since the version in that suite, none yet (as a
        # first backport does), so lintian sees what the backport brings.
        dpkg-buildpackage -us -uc -v0 >../build-bpo.log 2>&1 || { tail -n 40 ../build-bpo.log >&2; exit 1; }
        upload=../r8169-tuned_${v}${bpo_suffix}_$(dpkg --print-architecture).changes
fi
{ entry "$v+test1" unstable "A higher version, for upgrade tests."; cat ../changelog; } >debian/changelog
dpkg-buildpackage -b -nc -us -uc >../build2.log 2>&1 || { tail -n 40 ../build2.log >&2; exit 1; }
if command -v lintian >/dev/null; then
        lintian --version >../lintian-version.txt
        lintian --pedantic -I -E --show-overrides --color never "$upload" 2>&1 |
                grep -v "root privileges" >../lintian.txt || true
fi'

if [[ $suite == "$host" ]]; then
        mkdir "$work/src"
        source_tar | tar -C "$work/src" -xf -
        bash -c "$script" build "$work/src" "$bpo"
        how="on this $host machine"
        built=$work
else
        packages=build-essential,debhelper,cmake,pkgconf,libpci-dev,libnl-3-dev,libnl-genl-3-dev,libsystemd-dev,libinih-dev,libjson-c-dev,bash-completion,dpkg-dev
        # systemd.pc: in systemd on Debian 12 (not in a minbase root), in systemd-dev from 13.
        [[ $suite == bookworm ]] && packages+=,systemd || packages+=,systemd-dev
        key="r8169-tuned build root 3: debootstrap --variant=minbase --include=$packages $suite $arch; apt-get install lintian"
        tarball=$cache/$suite-build-$arch.tar.zst
        mkdir -p "$cache"
        exec {lockfd}>"$cache/.lock-build-$suite"
        flock "$lockfd"
        if [[ ! -s $tarball || "$(cat "$tarball.key" 2>/dev/null)" != "$key" ]]; then
                mirror=$(apt-get --print-uris update 2>/dev/null | sed -n "s|^'\(.*\)/dists/[a-z]*/InRelease'.*|\1|p" | { grep -v -- -security || true; } | head -1)
                mirror=${mirror:-http://deb.debian.org/debian}
                echo "build-deb: making a $suite build root (once; cached in $tarball)" >&2
                debootstrap --variant=minbase --include="$packages" "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
                        { tail -n 20 "$work/debootstrap.log" >&2; echo "build-deb: debootstrap $suite failed" >&2; exit 1; }
                # lintian by apt in the root: debootstrap's own resolver fails to configure its Perl
                # modules (libnet-ssleay-perl on trixie).
                mount -t proc proc "$work/root/proc"
                chroot "$work/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
                        sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends lintian' >>"$work/debootstrap.log" 2>&1 ||
                        { umount "$work/root/proc"; tail -n 20 "$work/debootstrap.log" >&2; echo "build-deb: lintian in the $suite root failed" >&2; exit 1; }
                umount "$work/root/proc"
                rm -rf "$work"/root/var/lib/apt/lists/* "$work"/root/var/cache/apt/*.bin
                tar --numeric-owner -I 'zstd -T0 -q' -C "$work/root" -cf "$tarball.tmp" .
                mv -f "$tarball.tmp" "$tarball"
                echo "$key" >"$tarball.key"
                rm -rf --one-file-system "$work/root"
                how="in a $suite root made with debootstrap"
        else
                how="in a $suite root from the cache"
        fi
        exec {lockfd}>&-
        mkdir "$work/root"
        tar --numeric-owner -I 'zstd -q' -C "$work/root" -xpf "$tarball"
        mkdir -p "$work/root/build/src"
        source_tar | tar -C "$work/root/build/src" -xf -
        chroot "$work/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
                bash -c "$script" build /build/src "$bpo"
        built=$work/root/build
fi
cp "$built"/r8169-tuned*.{deb,dsc,tar.xz,buildinfo,changes} "$out/"
rm -f "$out"/lintian*.txt
cp "$built"/lintian*.txt "$out/" 2>/dev/null || true
if [[ -n $keep ]]; then
        rm -rf "$BUILDDIR/debs/$suite"-*   # an older tree's
        mkdir -p "$keep"
        cp "$out"/r8169-tuned* "$keep/"
        cp "$out"/lintian*.txt "$keep/" 2>/dev/null || true
        echo "$how" >"$keep/how"
fi
echo "$deb built $how ($(dpkg-deb -f "$deb" Depends))"
