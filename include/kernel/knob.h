/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/util.h"

/*
 * The one vocabulary of r8169-tuned. Names are the kernel's and ethtool's own,
 * so a line from a bug report can be pasted into a config file.
 *
 * Two static tables drive everything else: one row per knob (knob.c) and one
 * descriptor per backend (backend.c). Config and quirk keys, the sysfs write
 * allowlist, the undo journal's kinds, the write order, status, plan, drift
 * and restore all come from them. Adding a knob is one row here and, at most,
 * one backend descriptor; the unit tests refuse a row whose backend is not
 * complete.
 */
typedef enum KnobId {
        KNOB_CLKPM,
        KNOB_L0S_ASPM,
        KNOB_L1_ASPM,
        KNOB_L1_1_ASPM,
        KNOB_L1_2_ASPM,
        KNOB_L1_1_PCIPM,
        KNOB_L1_2_PCIPM,
        KNOB_TSO,
        KNOB_SG,
        KNOB_GSO,
        KNOB_GRO,
        KNOB_TX,
        KNOB_RX,
        KNOB_RX_USECS,
        KNOB_RX_FRAMES,
        KNOB_TX_USECS,
        KNOB_TX_FRAMES,
        KNOB_EEE,
        KNOB_GRO_FLUSH_TIMEOUT,
        KNOB_NAPI_DEFER_HARD_IRQS,
        KNOB_RUNTIME_PM,
        _KNOB_MAX,
        _KNOB_INVALID = -EINVAL,
} KnobId;

typedef enum KnobBackendId {
        KNOB_BACKEND_LINK,     /* <sysfs>/bus/pci/devices/<BDF>/link/<name> */
        KNOB_BACKEND_FEATURE,  /* ethtool netlink FEATURES, by name pattern */
        KNOB_BACKEND_COALESCE, /* ethtool netlink COALESCE, one attribute per knob */
        KNOB_BACKEND_NETDEV,   /* <sysfs>/class/net/<if>/<name> */
        KNOB_BACKEND_EEE,      /* ethtool netlink EEE, one attribute per knob */
        KNOB_BACKEND_RUNTIME_PM, /* <sysfs>/bus/pci/devices/<BDF>/power/control: on or auto */
        _KNOB_BACKEND_MAX,
        _KNOB_BACKEND_INVALID = -EINVAL,
} KnobBackendId;

typedef enum KnobType {
        KNOB_TYPE_BOOL, /* accepts 0/1/on/off/yes/no/true/false; printed in the backend's words */
        KNOB_TYPE_UINT, /* decimal, 0..max */
} KnobType;

typedef struct KnobBackend KnobBackend; /* backend.h */

typedef struct Knob {
        const char *name;
        const KnobBackend *backend;
        KnobType type;
        uint64_t max;          /* KNOB_TYPE_UINT */
        const char *pattern;   /* KNOB_BACKEND_FEATURE: fnmatch(3) pattern over kernel feature names */
        const char *sysfs_attr; /* a sysfs backend's attribute, where it is not named as the knob ("control") */
        uint16_t nl_attr;      /* ethtool attribute groups: the ETHTOOL_A_* of this knob (u8 if bool, else u32) */
        /*
         * Write order within a NIC, as {turning off (0), turning on (non-zero)};
         * lower first. Equal ranks keep table order.
         */
        uint8_t order[2];
        /* The tx-timeout guard: L1 states are never turned on for a link that timed out, and
         * where the kernel did not, L0s and L1 are turned off, as 6.3+ does itself. */
        bool l1;
        bool off_after_tx_timeout;
        const char *summary;
} Knob;

const Knob *knob_get(KnobId id);
KnobId knob_from_name(const char *name);
/* The sysfs attribute a sysfs knob reads and writes: its sysfs_attr, else its name. */
const char *knob_sysfs_attr(KnobId id);
/* The feature knob whose pattern covers a kernel feature name ("tx-tcp6-segmentation" -> tso). */
KnobId knob_from_feature(const char *feature);
const char *knob_backend_to_string(const KnobBackend *b);
/* The write rank of setting a knob to v (the table's order column). */
unsigned knob_write_rank(KnobId id, uint64_t v);

/* Parses a value as a user writes it; -EINVAL or -ERANGE on bad input. */
int knob_parse_value(KnobId id, const char *s, uint64_t *ret);
/* Canonical text in the backend's words ("0"/"1", "off"/"on"), decimal otherwise. */
const char *knob_format_value(KnobId id, uint64_t v, char *buf, size_t size);
/* What a value may be, for messages: "on/off or 1/0", "0..4294967295". */
const char *knob_value_syntax(KnobId id, char *buf, size_t size);
#define KNOB_VALUE_MAX 24

/* Why a knob has no current value. */
typedef enum KnobStatus {
        KNOB_STATUS_OK,
        KNOB_STATUS_ABSENT,        /* the attribute or feature does not exist here */
        KNOB_STATUS_UNSUPPORTED,   /* the driver refuses it (EOPNOTSUPP) */
        KNOB_STATUS_NO_PERMISSION, /* EPERM/EACCES */
        KNOB_STATUS_NO_INTERFACE,  /* no network interface bound, or it vanished */
        KNOB_STATUS_ERROR,         /* anything else: see error and message */
        _KNOB_STATUS_MAX,
} KnobStatus;

const char *knob_status_to_string(KnobStatus s);
KnobStatus knob_status_from_errno(int error);

/* What reading one knob of one NIC gave. */
typedef struct KnobReading {
        KnobStatus status;
        int error;           /* negative errno when status != OK */
        uint64_t value;      /* when status == OK */
        bool partial;        /* features: some matching changeable features on, some off */
        bool fixed;          /* features: none of the matching features can be changed */
        char message[160];   /* the kernel's extack text, if any */
} KnobReading;

void knob_reading_fail(KnobReading *r, int error, const char *message);
/* Whether the reading is v, read whole (not a feature set partly on). */
static inline bool knob_reading_holds(const KnobReading *r, uint64_t v) {
        return r->status == KNOB_STATUS_OK && !r->partial && r->value == v;
}
