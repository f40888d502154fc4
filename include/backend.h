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

/* Reads one knob (for read-back after a write). */
void backend_read_knob(Backend *b, const Nic *n, KnobId id, KnobReading *ret);
/* Writes a link, netdev or coalesce knob; err gets the kernel's errno and extack. */
int backend_write(Backend *b, const Nic *n, KnobId id, uint64_t value, EthtoolError *err);
/* The kernel's feature list for the NIC's interface. */
int backend_features_get(Backend *b, const Nic *n, EthtoolFeatures *ret, EthtoolError *err);
/* Sets kernel features by name in one request; refused lists what the kernel left different. */
int backend_features_set(Backend *b, const Nic *n, const char *const *names, const bool *values, size_t count,
                         EthtoolFeatures *refused, EthtoolError *err);
