/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/confparse.h"
#include "decide/match.h"
#include "decide/quirks.h"
#include "kernel/knob.h"
#include "kernel/nic.h"

/*
 * What r8169 itself does, per chip (RTL_GIGA_MAC_VER as 7.1 numbers them) and knob, by kernel
 * release: conf/kernel-defaults.conf, read with the quirk database's reader. A row holds for
 * its releases; rows of one knob and chip never overlap (the loader says so where they do).
 */
#define KERNEL_DEFAULTS_MAC_MAX 128

typedef struct KernelDefault {
        char *id;
        const char *file; /* owned by the table */
        unsigned line;
        char *knob;       /* a knob's name, or eee_2500, eee_5000, ltr (shown only) */
        int knob_id;      /* KnobId, or -1 for those shown only */
        bool mac[KERNEL_DEFAULTS_MAC_MAX];
        KernelRange *kernels;
        size_t n_kernels;
        char *value;      /* as the file writes it */
        uint64_t knob_value; /* parsed, for a knob of r8169-tuned */
        char *unless, *commit, *landed, *source, *note;
        /* A change after 6.1, decided: the entries that do it on the releases before (ids), or
         * the r8169-tuned-problems(7) paragraph that says why none does. */
        char *backport, *not_backported;
} KernelDefault;

typedef struct KernelDefaults {
        KernelDefault *rows;
        size_t n;
        char *file;
} KernelDefaults;

/* The installed file, or beside a --quirks directory (DIR/../kernel-defaults.conf). */
const char *kernel_defaults_path(const char *quirks_dir, char *buf, size_t size);
/* Reads path; -ENOENT (no complaint) when it does not exist, else 0 and every problem in d. */
int kernel_defaults_load(KernelDefaults *kd, const char *path, Diagnostics *d);
void kernel_defaults_done(KernelDefaults *kd);
/* The rows that hold for a chip on a release, in file order; n_ret of at most size. */
size_t kernel_defaults_for(const KernelDefaults *kd, unsigned mac, const KernelVersion *v, const KernelDefault **ret, size_t size);
/* "5.17..6.1.53 6.2..6.4.16" as the releases of a row. */
const char *kernel_default_releases(const KernelDefault *row, char *buf, size_t size);
/* "46 48 51" as the MAC versions of a row. */
const char *kernel_default_macs(const KernelDefault *row, char *buf, size_t size);
/*
 * Checks entries of confidence kernel against the data, each problem at the entry's file:line:
 * where its match-kernel ranges end, and from its kernel-default-since on, r8169 must do what it
 * asks on every chip it matches that the data knows.
 */
void kernel_defaults_lint_quirks(const KernelDefaults *kd, const QuirkDb *db, Diagnostics *d);
