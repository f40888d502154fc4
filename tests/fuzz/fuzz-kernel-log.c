/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel-log XID parser, and the chip lookup of whatever it finds. */
#include "kernel/nic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char *const slots[] = { "0000:01:00.0", "0000:03:00.0", "0000:04:00.0" };
        char *line = strndup((const char *) data, size);
        LogXid id;

        if (!line)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(slots); i++)
                if (xid_parse_kernel_line(line, slots[i], &id) >= 0)
                        (void) chip_lookup(id.xid, id.xid2, 0x10ec, i == 0 ? 0x8136 : 0x8168);
        free(line);
        return 0;
}
