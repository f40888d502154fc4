/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fnmatch.h>
#include <inttypes.h>
#include <linux/ethtool_netlink.h>

#include "knob.h"

/*
 * Order matters only for display; the planner orders writes (L1 substates).
 * Feature patterns are ethtool's own short-name expansions (ethtool.c off-flag
 * table): "tso" must match every tx-tcp*-segmentation the running kernel has,
 * including 6.18's tx-tcp-accecn-segmentation.
 */
static const Knob knobs[_KNOB_MAX] = {
        [KNOB_CLKPM]      = { "clkpm",      KNOB_BACKEND_LINK, KNOB_TYPE_BOOL, .summary = "PCIe clock power management (CLKREQ#)" },
        [KNOB_L0S_ASPM]   = { "l0s_aspm",   KNOB_BACKEND_LINK, KNOB_TYPE_BOOL, .summary = "ASPM L0s" },
        [KNOB_L1_ASPM]    = { "l1_aspm",    KNOB_BACKEND_LINK, KNOB_TYPE_BOOL, .summary = "ASPM L1" },
        [KNOB_L1_1_ASPM]  = { "l1_1_aspm",  KNOB_BACKEND_LINK, KNOB_TYPE_BOOL, .summary = "ASPM L1.1" },
        [KNOB_L1_2_ASPM]  = { "l1_2_aspm",  KNOB_BACKEND_LINK, KNOB_TYPE_BOOL, .summary = "ASPM L1.2" },
        [KNOB_L1_1_PCIPM] = { "l1_1_pcipm", KNOB_BACKEND_LINK, KNOB_TYPE_BOOL, .summary = "PCI-PM L1.1" },
        [KNOB_L1_2_PCIPM] = { "l1_2_pcipm", KNOB_BACKEND_LINK, KNOB_TYPE_BOOL, .summary = "PCI-PM L1.2" },
        [KNOB_TSO] = { "tso", KNOB_BACKEND_FEATURE, KNOB_TYPE_BOOL, .pattern = "tx-tcp*-segmentation", .summary = "TCP segmentation offload" },
        [KNOB_SG]  = { "sg",  KNOB_BACKEND_FEATURE, KNOB_TYPE_BOOL, .pattern = "tx-scatter-gather*",   .summary = "scatter-gather" },
        [KNOB_GSO] = { "gso", KNOB_BACKEND_FEATURE, KNOB_TYPE_BOOL, .pattern = "tx-generic-segmentation", .summary = "generic segmentation offload" },
        [KNOB_GRO] = { "gro", KNOB_BACKEND_FEATURE, KNOB_TYPE_BOOL, .pattern = "rx-gro",               .summary = "generic receive offload" },
        [KNOB_TX]  = { "tx",  KNOB_BACKEND_FEATURE, KNOB_TYPE_BOOL, .pattern = "tx-checksum-*",        .summary = "TX checksumming" },
        [KNOB_RX]  = { "rx",  KNOB_BACKEND_FEATURE, KNOB_TYPE_BOOL, .pattern = "rx-checksum",          .summary = "RX checksumming" },
        /* r8169's IntrMitigate holds 4-bit counts; the kernel rounds and range-checks (kernel-facts §6.1). */
        [KNOB_RX_USECS]  = { "rx-usecs",  KNOB_BACKEND_COALESCE, KNOB_TYPE_UINT, UINT32_MAX, .nl_attr = ETHTOOL_A_COALESCE_RX_USECS,      .summary = "RX interrupt delay (µs)" },
        [KNOB_RX_FRAMES] = { "rx-frames", KNOB_BACKEND_COALESCE, KNOB_TYPE_UINT, UINT32_MAX, .nl_attr = ETHTOOL_A_COALESCE_RX_MAX_FRAMES, .summary = "RX frames per interrupt" },
        [KNOB_TX_USECS]  = { "tx-usecs",  KNOB_BACKEND_COALESCE, KNOB_TYPE_UINT, UINT32_MAX, .nl_attr = ETHTOOL_A_COALESCE_TX_USECS,      .summary = "TX interrupt delay (µs)" },
        [KNOB_TX_FRAMES] = { "tx-frames", KNOB_BACKEND_COALESCE, KNOB_TYPE_UINT, UINT32_MAX, .nl_attr = ETHTOOL_A_COALESCE_TX_MAX_FRAMES, .summary = "TX frames per interrupt" },
        /* Nanoseconds; kept to 32 bits so a value means the same on every architecture. */
        [KNOB_GRO_FLUSH_TIMEOUT] = { "gro_flush_timeout", KNOB_BACKEND_NETDEV, KNOB_TYPE_UINT, UINT32_MAX, .summary = "GRO flush timeout (ns)" },
        /* 6.13+ refuses values above S32_MAX (kernel-facts §6.3). */
        [KNOB_NAPI_DEFER_HARD_IRQS] = { "napi_defer_hard_irqs", KNOB_BACKEND_NETDEV, KNOB_TYPE_UINT, INT32_MAX, .summary = "empty NAPI polls before IRQs are re-armed" },
};

static const char *const backend_names[_KNOB_BACKEND_MAX] = {
        [KNOB_BACKEND_LINK] = "pcie-link",
        [KNOB_BACKEND_FEATURE] = "ethtool-features",
        [KNOB_BACKEND_COALESCE] = "ethtool-coalesce",
        [KNOB_BACKEND_NETDEV] = "netdev-sysfs",
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
                if (knobs[k].backend == KNOB_BACKEND_FEATURE && fnmatch(knobs[k].pattern, feature, 0) == 0)
                        return (KnobId) k;
        return _KNOB_INVALID;
}

const char *knob_backend_to_string(KnobBackend b) {
        return b >= 0 && b < _KNOB_BACKEND_MAX ? backend_names[b] : NULL;
}


int knob_parse_value(KnobId id, const char *s, uint64_t *ret) {
        const Knob *k = knob_get(id);
        uint64_t v;
        bool b;
        int r;

        if (!k || !s)
                return -EINVAL;
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
        if (k->type == KNOB_TYPE_BOOL) {
                if (k->backend == KNOB_BACKEND_FEATURE)
                        return v ? "on" : "off";
                return v ? "1" : "0";
        }
        snprintf(buf, size, "%" PRIu64, v);
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
