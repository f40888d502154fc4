#!/usr/bin/env bash
# build-deb.sh SUITE OUTDIR — r8169-tuned's .deb for a Debian release (bookworm, trixie), built
# against that release's libraries: on this machine when it runs that release, else in a root
# of that release (debootstrap with the build dependencies, cached as a tarball keyed by its
# package list under R8T_SYSTEM_CACHE, default /var/cache/r8169-tuned-tests) entered with chroot.
# Prints the .deb's path and how it was built.
set -euo pipefail
suite=$1 out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
cache=${R8T_SYSTEM_CACHE:-/var/cache/r8169-tuned-tests}
arch=$(dpkg --print-architecture)
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/r8t-deb.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT

# cmake, cpack: the same commands system/test-package.sh packages with.
script='set -e
cmake -S "$1" -B "$2" -DCMAKE_INSTALL_PREFIX=/usr -DR8T_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$2" -j"$(nproc)" >/dev/null
cd "$2" && cpack -G DEB >/dev/null'

if [[ $suite == "$host" ]]; then
        bash -c "$script" build "$src" "$work/build"
        cp "$work"/build/r8169-tuned_*.deb "$out/"
        how="on this $host machine"
else
        packages=build-essential,cmake,pkg-config,libpci-dev,libnl-3-dev,libnl-genl-3-dev,libsystemd-dev,libinih-dev,libjson-c-dev,bash-completion,file,dpkg-dev
        [[ $suite == bookworm ]] || packages+=,systemd-dev   # systemd.pc moved there in Debian 13
        key="r8169-tuned build root 1: debootstrap --variant=minbase --include=$packages $suite $arch"
        tarball=$cache/$suite-build-$arch.tar.zst
        mkdir -p "$cache"
        exec {lockfd}>"$cache/.lock-build-$suite"
        flock "$lockfd"
        if [[ ! -s $tarball || "$(cat "$tarball.key" 2>/dev/null)" != "$key" ]]; then
                mirror=$(apt-get --print-uris update 2>/dev/null | sed -n "s|^'\(.*\)/dists/[a-z]*/InRelease'.*|\1|p" | grep -v -- -security | head -1)
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
        # The source as git would check it out: no build trees, no .git.
        mkdir "$work/root/src"
        tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$work/root/src" -xf -
        chroot "$work/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
                bash -c "$script" build /src /build
        cp "$work"/root/build/r8169-tuned_*.deb "$out/"
fi
deb=$(ls "$out"/r8169-tuned_*.deb)
echo "$deb built $how ($(dpkg-deb -f "$deb" Depends))"
