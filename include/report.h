/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "backend.h"
#include "nic.h"

typedef struct NicStatus {
        Nic *nic;
        KnobReading knobs[_KNOB_MAX];
} NicStatus;

void report_status_text(FILE *f, const NicStatus *s, size_t n);
void report_status_json(FILE *f, const NicStatus *s, size_t n);
/* A NIC's identity as JSON members (no braces), shared by every JSON report. */
void report_nic_json_members(FILE *f, const Nic *n);
/* "RTL8168h/8111h (XID 541, from kernel-log)" or why there is no chip. */
const char *report_chip_line(const Nic *n, char *buf, size_t size);
