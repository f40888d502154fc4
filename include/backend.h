/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "ethtool-nl.h"
#include "knob.h"
#include "nic.h"
#include "sysroot.h"

/* What the knob backends need: the sysfs root and an ethtool netlink socket. */
typedef struct Backend {
        const Sysroot *root;
        EthtoolNl *nl;   /* NULL when ethtool netlink is unavailable */
        int nl_error;    /* why it is unavailable */
} Backend;

int backend_init(Backend *b, const Sysroot *root);
void backend_done(Backend *b);

/* Reads every knob of a NIC (one FEATURES_GET and one COALESCE_GET at most). */
void backend_read_all(Backend *b, const Nic *n, KnobReading out[_KNOB_MAX]);

/* Pure: the state of a feature knob from the kernel's feature list. */
void backend_feature_reading(const EthtoolFeatures *f, KnobId id, KnobReading *ret);
