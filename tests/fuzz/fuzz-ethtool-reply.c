/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ethtool netlink reply and notification parsers: any bytes as a kernel message. */
#include <net/if.h>

#include "backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        /* Netlink messages are 4-byte aligned in the kernel's buffers: keep that property. */
        uint32_t *copy = malloc(size + 4);
        EthtoolFeatures f;
        EthtoolAttrs c;
        char ifname[IFNAMSIZ];
        uint8_t cmd;

        if (!copy)
                return 0;
        memcpy(copy, data, size);
        if (ethtool_nl_parse_features(copy, size, &f) >= 0)
                ethtool_features_done(&f);
        for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                if (knob_backends[b].get_cmd)
                        (void) backend_parse_group_reply(&knob_backends[b], copy, size, &c);
        (void) ethtool_nl_parse_notification(copy, size, &cmd, ifname, sizeof(ifname));
        free(copy);
        return 0;
}
