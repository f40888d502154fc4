/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Idle package power, for the candidates that change link power: powercap's RAPL energy
 * counters (intel-rapl zones, also on AMD) over a few seconds of an idle link, wraps included.
 */
#include <dirent.h>

#include "experiment/power.h"

/* Package energy counters: powercap's intel-rapl zones (also on AMD), top level only. */
void idle_power_find(Experiment *e) {
        const Sysroot *root = e->c.root;
        _cleanup_dir_names_ DirNames d = { .fd = -EBADF };
        const char *zname;

        e->rapl.why = "no RAPL energy counter (/sys/class/powercap)";
        if (sysroot_dir_names(root, "class/powercap", &d) < 0)
                return;
        while (e->rapl.n < RAPL_ZONES_MAX && (zname = dir_names_next(&d))) {
                char dir[64], name[64];
                uint64_t uj, range;
                unsigned zone;
                int end = 0;

                if (sscanf(zname, "intel-rapl:%u%n", &zone, &end) != 1 || zname[end])
                        continue; /* intel-rapl:0:1 is a part of package 0 */
                snprintf(dir, sizeof(dir), "class/powercap/%.40s", zname); /* intel-rapl:N: short */
                if (sysroot_read(root, dir, "name", name, sizeof(name)) < 0 || strncmp(name, "package", 7) != 0)
                        continue;
                if (sysroot_read_u64(root, dir, "energy_uj", &uj) < 0) {
                        e->rapl.why = "the RAPL energy counters cannot be read (they are root's since 5.10)";
                        continue;
                }
                if (sysroot_read_u64(root, dir, "max_energy_range_uj", &range) < 0 || range == 0)
                        continue;
                snprintf(e->rapl.dirs[e->rapl.n], sizeof(e->rapl.dirs[0]), "%s", dir);
                e->rapl.range[e->rapl.n++] = range;
        }
        if (e->rapl.n > 0)
                e->rapl.why = NULL;
}

static int idle_power_read(Experiment *e, uint64_t uj[RAPL_ZONES_MAX]) {
        for (size_t i = 0; i < e->rapl.n; i++) {
                int r = sysroot_read_u64(e->c.root, e->rapl.dirs[i], "energy_uj", &uj[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Package power with the link idle: the counters over idle_seconds, wraps included. */
int idle_power_sample(Experiment *e, double *ret) {
        uint64_t a[RAPL_ZONES_MAX], b[RAPL_ZONES_MAX], t0, t1;
        double uj = 0;
        int r;

        /* Let the last test's traffic and interrupts die down first. */
        r = experiment_pause_ms(1000);
        if (r >= 0)
                r = idle_power_read(e, a);
        t0 = now_monotonic_usec();
        if (r >= 0)
                r = experiment_pause_ms(e->idle_seconds * 1000);
        if (r >= 0)
                r = idle_power_read(e, b);
        t1 = now_monotonic_usec();
        if (r < 0)
                return r;
        for (size_t i = 0; i < e->rapl.n; i++)
                uj += (double) (b[i] >= a[i] ? b[i] - a[i] : e->rapl.range[i] - a[i] + b[i]);
        *ret = uj / (double) (t1 - t0); /* µJ per µs: watts */
        return 0;
}
