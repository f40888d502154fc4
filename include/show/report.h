/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/confparse.h"
#include "base/json.h"
#include "decide/linkpower.h"
#include "kernel/backend.h"
#include "kernel/link-log.h"
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

/* What status and diagnose say of a NIC's link beyond its knobs: its speed against the chip's, a
 * PHY downshift, and why its ASPM knobs are missing (issue 48, §5). */
typedef struct LinkExplain {
        unsigned mbps;             /* the link's speed; 0: not known */
        const char *mbps_source;   /* "ethtool" or "kernel-log" */
        LinkLog log;               /* the kernel log's lines of this NIC */
        const char *attrs_missing; /* nic_link_attrs_missing(), NULL: the link/ knobs are there */
        char attrs_line[200];      /* the kernel's line that says why; "" none */
} LinkExplain;
/* Fills e from the kernel log's facts and, where known (> 0), the speed ethtool reads now. */
void link_explain_init(LinkExplain *e, const Sysroot *root, const Nic *n, const LinkLog *log, const AspmControlLog *aspm,
                       unsigned ethtool_mbps);
/* "link_speed" and "link_attrs_missing" in JSON; in the text a line each where there is
 * something to say, every line starting with prefix ("  " in status, "- " in diagnose). */
void report_link_explain(Out *o, const Nic *n, const LinkExplain *e, const char *prefix);
/* Whether the text of report_link_explain() has a line. */
bool report_link_explain_says(const Nic *n, const LinkExplain *e);
