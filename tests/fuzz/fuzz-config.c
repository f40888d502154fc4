/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration parser: any bytes as /etc/r8169-tuned/r8169-tuned.conf, parsed from memory. */
#include "base/log.h"
#include "decide/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static bool init;
        Diagnostics d = {};
        Config c;

        if (!init) {
                log_set_max_level(LOG_EMERG);
                init = true;
        }
        if (size > CONF_MAX_FILE)
                return 0; /* the file reader refuses it before the parser sees it */
        config_load_buffer(&c, "/etc/r8169-tuned/r8169-tuned.conf", (const char *) data, size, &d);
        config_done(&c);
        diag_done(&d);
        return 0;
}
