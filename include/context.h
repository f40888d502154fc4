/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "backend.h"
#include "nic.h"
#include "sysroot.h"

/* Global options, as the command line gave them. */
typedef struct Options {
        const char *sysfs;       /* default "/sys" */
        const char *kernel_log;  /* NULL: this boot's journal */
        const char *config;      /* NULL: /etc/r8169-tuned/r8169-tuned.conf + drop-ins */
        const char *quirks;      /* NULL: shipped + /etc overrides */
        const char *state_dir;   /* default /run/r8169-tuned */
        const char *profile;     /* overrides the configured profile */
        bool json;
        char **args;             /* the command's own arguments */
        int n_args;
} Options;

/* What every command starts from: the machine's Realtek NICs, identified. */
typedef struct Context {
        const Options *opts;
        Sysroot *root;
        Backend backend;
        NicList nics;
} Context;

int context_open(Context *c, const Options *o);
void context_done(Context *c);
