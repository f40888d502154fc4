# Sourced by the benchmarks (SRCDIR set): bench_init PREFIX checks for root, builds a release
# binary unless R8T names one (build-bench/r8169-tuned), and makes OUT, by default
# build-bench/results/PREFIXDATE. Exports R8T and SRCDIR.
bench_init() {
        [[ $(id -u) == 0 ]] || { echo "must run as root" >&2; exit 1; }
        if [[ -z "${R8T:-}" ]]; then
                cmake -S "$SRCDIR" -B "$SRCDIR/build-bench" -DCMAKE_BUILD_TYPE=Release -DR8T_TESTS=OFF >/dev/null
                cmake --build "$SRCDIR/build-bench" -j"$(nproc)" >/dev/null
                R8T=$SRCDIR/build-bench/r8169-tuned
        fi
        export R8T SRCDIR
        OUT=${OUT:-$SRCDIR/build-bench/results/$1$(date -u +%Y%m%dT%H%M%SZ)}
        mkdir -p "$OUT"
}
