/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the daemon keeps of one knob between applies: the failure's text, the one part it owns. */
#include <stdarg.h>

#include "apply/apply.h"
#include "base/log.h"

void knob_state_clear_failure(KnobState *s) {
        free(s->failure);
        s->failure = NULL;
}

void knob_state_set_failure(KnobState *s, const char *format, ...) {
        char why[KNOB_FAILURE_MAX];
        va_list ap;
        int n;

        va_start(ap, format);
        n = vsnprintf(why, sizeof(why), format, ap);
        va_end(ap);
        if (n >= (int) sizeof(why))
                log_debug("the failure kept for Nic.Failures is cut at %zu bytes", sizeof(why) - 1);
        free(s->failure);
        /* No memory: no text for Nic.Failures (the journal has the message whole). */
        s->failure = strdup(why);
}

void knob_states_done(KnobState knobs[_KNOB_MAX]) {
        for (int k = 0; k < _KNOB_MAX; k++)
                knob_state_clear_failure(&knobs[k]);
}
