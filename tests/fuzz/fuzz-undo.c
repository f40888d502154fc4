/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The undo-journal reader: any bytes as /run/r8169-tuned/<slot>. */
#include "state/undo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Diagnostics d = {};
        UndoJournal j;

        if (undo_parse((const char *) data, size, "fuzz", &j, &d) >= 0) {
                /* Whatever parsed must be consistent: no two entries for one knob. */
                for (size_t a = 0; a < j.n; a++)
                        for (size_t b = a + 1; b < j.n; b++)
                                if (j.entries[a].kind == j.entries[b].kind && streq(j.entries[a].name, j.entries[b].name))
                                        abort();
                undo_done(&j);
        }
        diag_done(&d);
        return 0;
}
