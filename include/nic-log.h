/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "knob.h"
#include "messages.h"
#include "nic.h"
#include "plan.h"

/*
 * One message about one knob of one NIC, with the structured fields every
 * such journal entry carries: MESSAGE_ID, INTERFACE, PCI_SLOT, CHIP, XID,
 * KNOB, OLD_VALUE, NEW_VALUE and the quirk or config line behind it.
 * Returns -abs(error).
 */
int log_nic_knob(int level, const char *message_id, const Nic *n, KnobId knob, const char *old_value,
                 const char *new_value, const Provenance *why, int error, const char *fmt, ...) _printf_(9, 10);
/* The same without a knob (a NIC tuned, ignored, gone). */
int log_nic(int level, const char *message_id, const Nic *n, int error, const char *fmt, ...) _printf_(5, 6);
