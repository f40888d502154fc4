#!/usr/bin/env bash
# build-deb.sh SUITE OUTDIR — r8169-tuned's Debian packages for a release (bookworm, trixie),
# built as Debian builds them: the source as git would check it out, conf/debian as its debian/,
# `dpkg-buildpackage -us -uc` (source and binary; dpkg-checkbuilddeps first), against that
# release's libraries: on this machine when it runs that release, else in a root of that release
# (debootstrap with the build dependencies, cached as a tarball keyed by its package list under
# R8T_SYSTEM_CACHE, default /var/cache/r8169-tuned-tests) entered with chroot. Then once more as a
# higher version, VERSION+test1 (an entry added to the changelog, binary only, the build tree
# kept): for upgrade tests.
# OUTDIR gets the .dsc, .tar.xz, and per version the .deb, -dbgsym .deb, .buildinfo, .changes.
# Several tests need the packages of one tree: they are kept under $BUILDDIR/debs (when set),
# keyed by the suite and the source files' names, sizes and times, and built once per key.
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
                echo "$deb $(cat "$keep/how"), built earlier in this build tree"
                exit 0
        fi
fi

# Both versions: the changelog's, then VERSION+test1 with the build tree kept (-nc).
script='set -e
cd "$1"
rm -rf debian && cp -r conf/debian debian
dpkg-buildpackage -us -uc >../build.log 2>&1 || { tail -n 40 ../build.log >&2; exit 1; }
v=$(dpkg-parsechangelog -S Version)
{ printf "r8169-tuned (%s+test1) unstable; urgency=medium\n\n  * A higher version, for upgrade tests.\n\n -- %s  %s\n\n" \
        "$v" "$(dpkg-parsechangelog -S Maintainer)" "$(date -R)"; cat debian/changelog; } >debian/changelog.new
mv debian/changelog.new debian/changelog
dpkg-buildpackage -b -nc -us -uc >../build2.log 2>&1 || { tail -n 40 ../build2.log >&2; exit 1; }'

if [[ $suite == "$host" ]]; then
        mkdir "$work/src"
        source_tar | tar -C "$work/src" -xf -
        bash -c "$script" build "$work/src"
        how="on this $host machine"
        built=$work
else
        packages=build-essential,debhelper,cmake,pkg-config,libpci-dev,libnl-3-dev,libnl-genl-3-dev,libsystemd-dev,libinih-dev,libjson-c-dev,bash-completion,dpkg-dev
        # systemd.pc: in systemd on Debian 12 (not in a minbase root), in systemd-dev from 13.
        [[ $suite == bookworm ]] && packages+=,systemd || packages+=,systemd-dev
        key="r8169-tuned build root 2: debootstrap --variant=minbase --include=$packages $suite $arch"
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
                bash -c "$script" build /build/src
        built=$work/root/build
fi
cp "$built"/r8169-tuned*.{deb,dsc,tar.xz,buildinfo,changes} "$out/"
if [[ -n $keep ]]; then
        rm -rf "$BUILDDIR/debs/$suite"-*   # an older tree's
        mkdir -p "$keep"
        cp "$out"/r8169-tuned* "$keep/"
        echo "$how" >"$keep/how"
fi
echo "$deb built $how ($(dpkg-deb -f "$deb" Depends))"
