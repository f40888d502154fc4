/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "kernel/machine.h"
#include "kernel/nic.h"

/*
 * One matcher for [device] sections of the configuration and for quirk
 * entries, with one vocabulary: every key a section may use to say which NICs
 * it is about starts with "match-" and means the same in both files. All
 * conditions given must hold; a list matches when any of its words does.
 */

/*
 * An XID match as the kernel's chip table writes it: value/mask, 3 hex digits each; or, with
 * "ext:", an id of TX_CONFIG_V2 (1 to 8 hex digits, /mask optional) as 7.1's extended table has it.
 */
typedef struct XidMatch {
        uint32_t value, mask;
        bool kernel_row; /* value/mask is a row of the kernel's (extended) chip table */
        bool extended;   /* matches the id of TX_CONFIG_V2, not the XID */
} XidMatch;

int xid_match_parse(const char *s, XidMatch *ret);
/* "541/7cf", "ext:0/7fffffff": the form xid_match_parse reads. */
const char *xid_match_to_string(const XidMatch *m, char *buf, size_t size);
/*
 * Whether a NIC's XID falls under value/mask as the kernel would decide: a
 * value/mask that is a row of the kernel's table matches exactly the XIDs the
 * kernel resolves to that row (first match: 3c0/7c8 is RTL_GIGA_MAC_VER_22
 * only, not the 8168c variants above it); any other value/mask matches bitwise.
 */
bool xid_match_test(const XidMatch *m, uint16_t xid);
/* The same for an extended chip's id (TX_CONFIG_V2); a plain XID match never tests it. */
bool xid_match_test_ext(const XidMatch *m, uint32_t xid2);

typedef struct IdMatch {
        uint16_t vendor, device;
        bool any_device;
} IdMatch;

/* Kernel releases from (inclusive) to (exclusive); an end not known is open. "6.4" alone is 6.4.y. */
typedef struct KernelRange {
        KernelVersion from, to;
} KernelRange;

int kernel_range_parse(const char *s, KernelRange *ret);
bool kernel_range_test(const KernelRange *r, const KernelVersion *v);
const char *kernel_range_to_string(const KernelRange *r, char *buf, size_t size);
bool kernel_ranges_overlap(const KernelRange *a, size_t na, const KernelRange *b, size_t nb);

typedef struct NicMatch {
        char *interface;            /* glob over interface names */
        char *slot;                 /* PCI address, "0000:01:00.0" */
        char *mac;                  /* permanent MAC, lower case */
        char *chip;                 /* glob over the chip name */
        char *link_l1;              /* "on" or "off": ASPM L1 in the link's control register as found */
        XidMatch *xids;
        size_t n_xids;
        IdMatch *pci_ids;           /* vendor:device */
        size_t n_pci_ids;
        IdMatch *subsystems;        /* vendor:device or vendor:* */
        size_t n_subsystems;
        char *dmi[_DMI_FIELD_MAX];  /* globs */
        char **drivers;             /* globs over the bound driver: r8169, r8168, r8125 */
        size_t n_drivers;
        KernelRange *kernels;       /* the kernel releases: any of these ranges */
        size_t n_kernels;
} NicMatch;

void match_done(NicMatch *m);
/*
 * Parses one "match-…" line into m. -ENOENT: key is not a match key; -EINVAL
 * or -ERANGE: a bad value, with the complaint (naming key as written) in err.
 */
int match_parse(NicMatch *m, const char *key, const char *value, char *err, size_t size);
/* The canonical name of a match key ("xid" is the old spelling of "match-xid"), NULL if it is none. */
const char *match_key_canonical(const char *key);
/* A key whose value is a list of words (match-xid, match-pci-id, ...): indented lines may continue it. */
bool match_key_is_list(const char *key);
bool match_is_empty(const NicMatch *m);
bool match_test(const NicMatch *m, const Nic *n, const Machine *machine);
/* The same, leaving the driver out: to say which entries were written for another driver. */
bool match_test_but_driver(const NicMatch *m, const Nic *n, const Machine *machine);
/* "r8169" or "r8168, r8125": the drivers of a match, for messages. */
const char *match_drivers_string(const NicMatch *m, char *buf, size_t size);
/* The keys, for messages and the man page test: "match-interface, match-slot, …". */
const char *match_keys_string(void);
size_t match_key_count(void);
const char *match_key_name(size_t i);
/* Condition i (match_key_name(i)) as a file would write it, in buf; NULL when m does not set it.
 * *list: the value is a list of words. */
const char *match_condition_string(const NicMatch *m, size_t i, char *buf, size_t size, bool *list);
