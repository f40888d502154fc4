/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ethtool netlink reply and notification parsers: any bytes as a kernel message. */
#include <net/if.h>

#include "kernel/backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        /* Netlink messages are 4-byte aligned in the kernel's buffers: keep that property. */
        uint32_t *copy = malloc(size + 4);
        /* A small string set: compact bitsets are decoded with it, verbose ones as before. */
        static char names[3][ETH_GSTRING_LEN] = { "tx-scatter-gather", "", "tx-tcp-segmentation" };
        const EthtoolStrings set = { names, 3 };
        EthtoolStrings s;
        EthtoolFeatures f;
        EthtoolAttrs c;
        char ifname[IFNAMSIZ];
        uint8_t cmd;

        if (!copy)
                return 0;
        memcpy(copy, data, size);
        if (ethtool_nl_parse_features(copy, size, NULL, &f) >= 0)
                ethtool_features_done(&f);
        if (ethtool_nl_parse_features(copy, size, &set, &f) >= 0)
                ethtool_features_done(&f);
        if (ethtool_nl_parse_strings(copy, size, ETH_SS_FEATURES, &s) >= 0)
                ethtool_strings_done(&s);
        for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                if (knob_backends[b].get_cmd)
                        (void) backend_parse_group_reply(&knob_backends[b], copy, size, &c);
        (void) ethtool_nl_parse_notification(copy, size, &cmd, ifname, sizeof(ifname));
        free(copy);
        return 0;
}
