/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/confparse.h"
#include "base/json.h"
#include "decide/linkpower.h"
#include "kernel/backend.h"
#include "kernel/nic.h"

/* The version of every --json output's shape ("schema" at the top); see r8169-tuned(8). */
#define REPORT_JSON_SCHEMA 1

/* Dynamic link power as the daemon keeps it: one line of text, or a JSON object (null: none). */
void report_link_power_text(FILE *f, const LinkPowerRecord *rec);
void report_link_power_json(JsonWriter *w, const LinkPowerRecord *rec);
/* What to do about a chip r8169-tuned cannot identify or does not know (text, wrapped). */
void report_unknown_chip_advice(FILE *f, const Nic *n);
/* "config_problems": [{file, line, message}], and the same as text (nothing when there are none). */
void report_config_problems_json(JsonWriter *w, const Diagnostics *d);
void report_config_problems_text(FILE *f, const Diagnostics *d);
/* A NIC's identity as JSON members of the object being written, shared by every JSON report. */
void report_nic_json_members(JsonWriter *w, const Nic *n);
/* "none", "L0s", "L1", "L0s L1" for LnkCap/LnkCtl ASPM bits. */
const char *report_aspm_states(uint8_t bits);
/* A knob's value as JSON: true/false for on/off knobs, a number otherwise. */
void report_knob_value_json(JsonWriter *w, KnobId k, uint64_t v);
/* The knob object of schema 1: {"value","status","errno","message","partial","fixed"}. */
void report_knob_reading_json(JsonWriter *w, KnobId k, const KnobReading *r);
/* "knobs": every knob by name, each a knob object. */
void report_knobs_json(JsonWriter *w, const KnobReading knobs[_KNOB_MAX]);
/* A knob's reading in words: its value ("1", "on", "20000"), "partial", or its status ("not-present"). */
const char *report_reading_text(KnobId k, const KnobReading *r, char *buf, size_t size);
/* "ENODEV" for -ENODEV or ENODEV; NULL for 0. */
const char *report_errno_name(int error);
/* "key":{…} for one end of a PCIe link. */
void report_link_json(JsonWriter *w, const char *key, const PciLink *l);
/* "RTL8168h/8111h (XID 541, from kernel-log)" or why there is no chip. */
const char *report_chip_line(const Nic *n, char *buf, size_t size);

/* text after first, wrapped to the terminal (80 columns when not one), further lines after indent. */
void report_print_wrapped(FILE *f, const char *first, const char *indent, const char *text);
