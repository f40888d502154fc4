/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "context.h"
#include "log.h"

int context_open(Context *c, const Options *o) {
        IdentifyContext ic;
        int r;

        *c = (Context) { .opts = o };
        r = sysroot_new(o->sysfs, &c->root);
        if (r < 0)
                return log_error_errno(r, "Cannot open sysfs root %s: %m", o->sysfs);
        r = nic_discover(c->root, &c->nics);
        if (r < 0)
                return log_error_errno(r, "Cannot scan PCI devices under %s: %m", o->sysfs);
        backend_init(&c->backend, c->root);
        ic = (IdentifyContext) { .root = c->root, .kernel_log = o->kernel_log };
        for (size_t i = 0; i < c->nics.n; i++)
                nic_identify(&c->nics.nics[i], &ic);
        return 0;
}

void context_done(Context *c) {
        backend_done(&c->backend);
        nic_list_done(&c->nics);
        c->root = sysroot_free(c->root);
}
