/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * verify's answer: is the plan in force? Every knob of the NICs verified that is not as planned
 * (a Difference), the NICs verified and how the service holds them, the configuration problems.
 * Gathered here (r8169-tuned verify without the service) or from the service (client/service.h).
 */
#include <net/if.h>

#include "base/confparse.h"
#include "decide/plan.h"
#include "kernel/knob.h"
#include "kernel/nic.h"

typedef struct Difference {
        char slot[PCI_SLOT_LEN], ifname[IFNAMSIZ], knob[32], planned[KNOB_VALUE_MAX], found[64], source[160];
} Difference;

/* A NIC verified: its slot, interface and, through the service, how the service holds it. */
typedef struct Checked {
        char slot[PCI_SLOT_LEN], ifname[IFNAMSIZ], state[16];
} Checked;

typedef struct Verification {
        Difference *v;
        size_t n;
        Diagnostics problems;
        const char *profile;  /* NULL: not known (the service answered) */
        Checked *nics;
        size_t n_nics;
} Verification;

int verification_add(Verification *vd, const char *slot, const char *ifname, const char *knob, const char *planned, const char *found,
                const char *source);
int verification_add_nic(Verification *vd, const char *slot, const char *ifname, const char *state);
/* The NIC of a plan made against what it holds, and each knob the plan would change (not those
 * yielded[knob], when given): the one rule of what differs, for verify, status and the service. */
int verification_add_plan(Verification *vd, const NicPlan *p, const bool *yielded);
void verification_done(Verification *vd);
/* How many NICs the service gave back (restore) and leaves alone until apply. */
size_t verification_given_back(const Verification *vd);
/* Every knob as planned, no NIC given back, no problem. */
bool verification_ok(const Verification *vd);
/* "N knobs differ from the plan, N NICs given back and N configuration problems": the parts that are not zero. */
void verification_parts(char *buf, size_t size, size_t differ, size_t given_back, size_t problems);
/* verify's output, as text or as --json. */
void verification_print(const Verification *vd, bool json);
