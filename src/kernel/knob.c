/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fnmatch.h>
#include <inttypes.h>
#include <strings.h>
#include <linux/ethtool_netlink.h>

#include "kernel/backend.h"
#include "kernel/knob.h"

#define LINK (&knob_backends[KNOB_BACKEND_LINK])
#define FEATURE (&knob_backends[KNOB_BACKEND_FEATURE])
#define COALESCE (&knob_backends[KNOB_BACKEND_COALESCE])
#define NETDEV (&knob_backends[KNOB_BACKEND_NETDEV])
#define EEE (&knob_backends[KNOB_BACKEND_EEE])
#define RUNTIME_PM (&knob_backends[KNOB_BACKEND_RUNTIME_PM])

/*
 * After a tx timeout, 6.3+ (and 5.10.203, 5.15.142) calls pci_disable_link_state(L0S | L1)
 * and logs "ASPM disabled on Tx timeout" (80c0576ef179, "r8169: disable ASPM in case of tx
 * timeout"); turning L1 back on undoes that. The l1 and off_after_tx_timeout columns are the
 * guard's (see plan.c): the substates are turned off explicitly, deepest first, since writing
 * 0 to l1_aspm did not mask them on kernels before the L1 substate fix of Aug 2023.
 *
 * Write order (the order column, {off, on}): link states are turned off deepest
 * first (L1.2 before L1.1 before L1) and on shallowest first, so that no write
 * re-enables a state another write just turned off: writing 0 to l1_aspm also
 * disables the substates, writing 1 to l1_1_aspm also enables L1
 * (drivers/pci/pcie/aspm.c, aspm_attr_store_common(); the L1 substate fix of
 * Aug 2023, <6ba7dd79-9cfe-4ed0-a002-d99cb842f361@gmail.com>). SG goes on
 * before TSO and off after it, since the kernel drops TSO without SG
 * (netdev_fix_features()).
 *
 * Feature patterns are ethtool's own short-name expansions (ethtool.c off-flag
 * table): "tso" must match every tx-tcp*-segmentation the running kernel has,
 * including 6.18's tx-tcp-accecn-segmentation.
 */
static const Knob knobs[_KNOB_MAX] = {
        [KNOB_CLKPM]      = { "clkpm",      LINK, KNOB_TYPE_BOOL, .order = { 6, 8 },  .summary = "PCIe clock power management (CLKREQ#)" },
        [KNOB_L0S_ASPM]   = { "l0s_aspm",   LINK, KNOB_TYPE_BOOL, .order = { 5, 9 },  .off_after_tx_timeout = true, .summary = "ASPM L0s" },
        [KNOB_L1_ASPM]    = { "l1_aspm",    LINK, KNOB_TYPE_BOOL, .order = { 4, 10 }, .l1 = true, .off_after_tx_timeout = true, .summary = "ASPM L1" },
        [KNOB_L1_1_ASPM]  = { "l1_1_aspm",  LINK, KNOB_TYPE_BOOL, .order = { 3, 11 }, .l1 = true, .off_after_tx_timeout = true, .summary = "ASPM L1.1" },
        [KNOB_L1_2_ASPM]  = { "l1_2_aspm",  LINK, KNOB_TYPE_BOOL, .order = { 1, 13 }, .l1 = true, .off_after_tx_timeout = true, .summary = "ASPM L1.2" },
        [KNOB_L1_1_PCIPM] = { "l1_1_pcipm", LINK, KNOB_TYPE_BOOL, .order = { 2, 12 }, .l1 = true, .off_after_tx_timeout = true, .summary = "PCI-PM L1.1" },
        [KNOB_L1_2_PCIPM] = { "l1_2_pcipm", LINK, KNOB_TYPE_BOOL, .order = { 0, 14 }, .l1 = true, .off_after_tx_timeout = true, .summary = "PCI-PM L1.2" },
        [KNOB_TSO] = { "tso", FEATURE, KNOB_TYPE_BOOL, .pattern = "tx-tcp*-segmentation",    .order = { 101, 101 }, .summary = "TCP segmentation offload" },
        [KNOB_SG]  = { "sg",  FEATURE, KNOB_TYPE_BOOL, .pattern = "tx-scatter-gather*",      .order = { 102, 100 }, .summary = "scatter-gather" },
        [KNOB_GSO] = { "gso", FEATURE, KNOB_TYPE_BOOL, .pattern = "tx-generic-segmentation", .order = { 110, 110 }, .summary = "generic segmentation offload" },
        [KNOB_GRO] = { "gro", FEATURE, KNOB_TYPE_BOOL, .pattern = "rx-gro",                  .order = { 110, 110 }, .summary = "generic receive offload" },
        [KNOB_TX]  = { "tx",  FEATURE, KNOB_TYPE_BOOL, .pattern = "tx-checksum-*",           .order = { 110, 110 }, .summary = "TX checksumming" },
        [KNOB_RX]  = { "rx",  FEATURE, KNOB_TYPE_BOOL, .pattern = "rx-checksum",             .order = { 110, 110 }, .summary = "RX checksumming" },
        /* r8169's IntrMitigate holds 4-bit counts; the kernel rounds and range-checks (rtl_set_coalesce()). */
        [KNOB_RX_USECS]  = { "rx-usecs",  COALESCE, KNOB_TYPE_UINT, UINT32_MAX, .nl_attr = ETHTOOL_A_COALESCE_RX_USECS,      .order = { 120, 120 }, .summary = "RX interrupt delay (µs)" },
        [KNOB_RX_FRAMES] = { "rx-frames", COALESCE, KNOB_TYPE_UINT, UINT32_MAX, .nl_attr = ETHTOOL_A_COALESCE_RX_MAX_FRAMES, .order = { 120, 120 }, .summary = "RX frames per interrupt" },
        [KNOB_TX_USECS]  = { "tx-usecs",  COALESCE, KNOB_TYPE_UINT, UINT32_MAX, .nl_attr = ETHTOOL_A_COALESCE_TX_USECS,      .order = { 120, 120 }, .summary = "TX interrupt delay (µs)" },
        [KNOB_TX_FRAMES] = { "tx-frames", COALESCE, KNOB_TYPE_UINT, UINT32_MAX, .nl_attr = ETHTOOL_A_COALESCE_TX_MAX_FRAMES, .order = { 120, 120 }, .summary = "TX frames per interrupt" },
        /*
         * r8169 supports EEE from RTL8168evl on, except RTL8402 and RTL8106e, which
         * answer EOPNOTSUPP (rtl8169_get_eee(), rtl_supports_eee()).
         */
        [KNOB_EEE] = { "eee", EEE, KNOB_TYPE_BOOL, .nl_attr = ETHTOOL_A_EEE_ENABLED, .order = { 125, 125 }, .summary = "Energy-Efficient Ethernet (802.3az)" },
        /* Nanoseconds; kept to 32 bits so a value means the same on every architecture. */
        [KNOB_GRO_FLUSH_TIMEOUT] = { "gro_flush_timeout", NETDEV, KNOB_TYPE_UINT, UINT32_MAX, .order = { 130, 130 }, .summary = "GRO flush timeout (ns)" },
        /* 6.13 made it per NAPI and refuses values above S32_MAX (net/core/net-sysfs.c). */
        [KNOB_NAPI_DEFER_HARD_IRQS] = { "napi_defer_hard_irqs", NETDEV, KNOB_TYPE_UINT, INT32_MAX, .order = { 130, 130 }, .summary = "empty NAPI polls before IRQs are re-armed" },
        /*
         * The PCI function's runtime PM (drivers/base/power/sysfs.c): "on" keeps it powered, "auto"
         * lets it suspend; r8169 suspends 10 s after the interface goes down or loses its carrier,
         * and TLP and powertop write auto on battery. Written last: nothing else depends on it.
         */
        [KNOB_RUNTIME_PM] = { "runtime-pm", RUNTIME_PM, KNOB_TYPE_BOOL, .sysfs_attr = "control", .order = { 140, 140 },
                              .summary = "runtime power management of the PCI function (on: always powered; auto: may suspend)" },
};

static const char *const status_names[_KNOB_STATUS_MAX] = {
        [KNOB_STATUS_OK] = "ok",
        [KNOB_STATUS_ABSENT] = "not-present",
        [KNOB_STATUS_UNSUPPORTED] = "not-supported",
        [KNOB_STATUS_NO_PERMISSION] = "no-permission",
        [KNOB_STATUS_NO_INTERFACE] = "no-interface",
        [KNOB_STATUS_ERROR] = "error",
};

const Knob *knob_get(KnobId id) {
        if (id < 0 || id >= _KNOB_MAX)
                return NULL;
        return &knobs[id];
}

KnobId knob_from_name(const char *name) {
        if (!name)
                return _KNOB_INVALID;
        for (int i = 0; i < _KNOB_MAX; i++)
                if (streq(knobs[i].name, name))
                        return (KnobId) i;
        return _KNOB_INVALID;
}

KnobId knob_from_feature(const char *feature) {
        for (int k = 0; k < _KNOB_MAX; k++)
                if (knobs[k].pattern && fnmatch(knobs[k].pattern, feature, 0) == 0)
                        return (KnobId) k;
        return _KNOB_INVALID;
}

const char *knob_backend_to_string(const KnobBackend *b) {
        return b ? b->name : NULL;
}

unsigned knob_write_rank(KnobId id, uint64_t v) {
        return knobs[id].order[v != 0];
}

const char *knob_sysfs_attr(KnobId id) {
        const Knob *k = knob_get(id);
        return k ? k->sysfs_attr ?: k->name : NULL;
}

int knob_parse_value(KnobId id, const char *s, uint64_t *ret) {
        const Knob *k = knob_get(id);
        uint64_t v;
        bool b;
        int r;

        if (!k || !s)
                return -EINVAL;
        if (k->type == KNOB_TYPE_BOOL && k->backend->words_only) {
                /* Only the kernel's own words: "off" would not say whether it means on or auto. */
                for (int i = 0; i < 2; i++)
                        if (strcasecmp(s, k->backend->words[i]) == 0) {
                                *ret = (uint64_t) i;
                                return 0;
                        }
                return -EINVAL;
        }
        if (k->type == KNOB_TYPE_BOOL) {
                r = parse_bool(s, &b);
                if (r < 0)
                        return r;
                *ret = b;
                return 0;
        }
        r = parse_u64(s, &v);
        if (r < 0)
                return r;
        if (v > k->max)
                return -ERANGE;
        *ret = v;
        return 0;
}

const char *knob_format_value(KnobId id, uint64_t v, char *buf, size_t size) {
        const Knob *k = knob_get(id);

        if (!k)
                return NULL;
        if (k->type == KNOB_TYPE_BOOL)
                return k->backend->words[v != 0];
        snprintf(buf, size, "%" PRIu64, v);
        return buf;
}

const char *knob_value_syntax(KnobId id, char *buf, size_t size) {
        const Knob *k = knob_get(id);

        if (k->type == KNOB_TYPE_BOOL && k->backend->words_only)
                snprintf(buf, size, "%s or %s", k->backend->words[1], k->backend->words[0]);
        else if (k->type == KNOB_TYPE_BOOL)
                snprintf(buf, size, "on/off, yes/no or 1/0");
        else
                snprintf(buf, size, "a decimal number from 0 to %" PRIu64, k->max);
        return buf;
}

const char *knob_status_to_string(KnobStatus s) {
        return s >= 0 && s < _KNOB_STATUS_MAX ? status_names[s] : NULL;
}

KnobStatus knob_status_from_errno(int error) {
        switch (error < 0 ? -error : error) {
        case 0:
                return KNOB_STATUS_OK;
        case ENOENT:
                return KNOB_STATUS_ABSENT;
        case EOPNOTSUPP:
                return KNOB_STATUS_UNSUPPORTED;
        case EPERM:
        case EACCES:
                return KNOB_STATUS_NO_PERMISSION;
        case ENODEV:
        case ENXIO:
                return KNOB_STATUS_NO_INTERFACE;
        default:
                return KNOB_STATUS_ERROR;
        }
}

void knob_reading_fail(KnobReading *r, int error, const char *message) {
        size_t n = message ? strnlen(message, sizeof(r->message) - 1) : 0;

        *r = (KnobReading) { .status = knob_status_from_errno(error), .error = error };
        /* snprintf("%s")'s cut, without its cost: the daemon fails every knob of an absent interface. */
        memcpy(r->message, message ?: "", n);
        r->message[n] = '\0';
}
