/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/messages.h"
#include "decide/plan.h"
#include "kernel/knob.h"
#include "kernel/nic.h"

/*
 * One message about one knob of one NIC, with the structured fields every
 * such journal entry carries: MESSAGE_ID, INTERFACE, PCI_SLOT, CHIP, XID,
 * KNOB, OLD_VALUE, NEW_VALUE and the quirk or config line behind it.
 * Returns -abs(error).
 */
/* What a message about one knob says of it: the knob, its value before and after, and why. */
typedef struct KnobChange {
        KnobId knob;
        const char *old_value, *new_value; /* NULL: not said */
        const Provenance *why;             /* NULL: none */
} KnobChange;

/* c NULL: a message of the NIC without a knob (tuned, ignored, gone), as log_nic() says it. */
int log_nic_knob(int level, const char *message_id, const Nic *n, const KnobChange *c, int error, const char *fmt, ...)
        _printf_(6, 7);
#define log_nic(level, message_id, n, error, ...) log_nic_knob(level, message_id, n, NULL, error, __VA_ARGS__)
