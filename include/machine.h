/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "sysroot.h"
#include "util.h"

typedef enum Profile {
        PROFILE_PERFORMANCE,
        PROFILE_BALANCED,  /* performance on AC or without a battery, powersave on battery */
        PROFILE_POWERSAVE,
        _PROFILE_MAX,
        _PROFILE_INVALID = -EINVAL,
} Profile;

const char *profile_to_string(Profile p);
Profile profile_from_string(const char *s);

typedef enum PowerSource {
        POWER_NO_BATTERY,
        POWER_AC,
        POWER_BATTERY,
        _POWER_SOURCE_MAX,
} PowerSource;

const char *power_source_to_string(PowerSource s);

typedef enum DmiField {
        DMI_SYS_VENDOR,
        DMI_PRODUCT_NAME,
        DMI_BOARD_VENDOR,
        DMI_BOARD_NAME,
        _DMI_FIELD_MAX,
} DmiField;

const char *dmi_field_to_string(DmiField f); /* sysfs attribute name, e.g. "sys_vendor" */

/* Facts about the machine the NICs sit in. */
typedef struct Machine {
        char dmi[_DMI_FIELD_MAX][128]; /* "" when absent */
        PowerSource power;
} Machine;

void machine_read(const Sysroot *root, Machine *ret);
/* Pure: what a configured profile means on this power source. */
Profile profile_resolve(Profile configured, PowerSource power);
