/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* Shared by the knob backends' files (backend.c, backend-sysfs.c), nobody else's to call. */

#include "kernel/backend.h"

/* The turn under way, if it is this NIC's (its interface's, for what goes by name). */
BackendSession *backend_session_of(Backend *b, const Nic *n);
bool knob_of_backend(KnobId k, const KnobBackend *be);
/* Every backend whose items are its knobs. */
int backend_expand_by_knob(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, EthtoolError *err);

/* backend-sysfs.c */
void sysfs_read(Backend *b, const KnobBackend *be, const Nic *n, KnobReading out[_KNOB_MAX]);
int sysfs_read_items(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, KnobReading out[_KNOB_MAX],
                     EthtoolError *err);
int sysfs_write_items(Backend *b, const KnobBackend *be, const Nic *n, const KnobBatch *batch, EthtoolError *err);
