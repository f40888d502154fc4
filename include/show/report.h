/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/confparse.h"
#include "base/json.h"
#include "decide/linkpower.h"
#include "kernel/backend.h"
#include "kernel/nic.h"
#include "show/out.h"

/* Dynamic link power as the daemon keeps it: one line of text, or a JSON object under key (null: none). */
void report_link_power(Out *o, const char *key, const LinkPowerRecord *rec);
/* What to do about a chip r8169-tuned cannot identify or does not know (text, wrapped). */
void report_unknown_chip_advice(Out *o, const Nic *n);
/* "config_problems": [{file, line, message}], in JSON only: each output's text says them its own way. */
void report_config_problems(Out *o, const Diagnostics *d);
/* A NIC's identity as JSON members of the object being written, shared by every JSON report. */
void report_nic_json_members(JsonWriter *w, const Nic *n);
/* "none", "L0s", "L1", "L0s L1" for LnkCap/LnkCtl ASPM bits. */
const char *report_aspm_states(uint8_t bits);
/* The knob object of schema 1: {"value","status","errno","message","partial","fixed"}. */
void report_knob_reading_json(JsonWriter *w, KnobId k, const KnobReading *r);
/* A knob's reading in words: its value ("1", "on", "20000"), "partial", or its status ("not-present"). */
const char *report_reading_text(KnobId k, const KnobReading *r, char *buf, size_t size);
/* "ENODEV" for -ENODEV or ENODEV; NULL for 0. */
const char *report_errno_name(int error);
/* "key":{…} for one end of a PCIe link. */
void report_link_json(JsonWriter *w, const char *key, const PciLink *l);
/* "RTL8168h/8111h (XID 541, from kernel-log)" or why there is no chip. */
const char *report_chip_line(const Nic *n, char *buf, size_t size);
