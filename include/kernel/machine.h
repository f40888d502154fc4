/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/util.h"
#include "kernel/sysroot.h"

typedef enum Profile {
        PROFILE_PERFORMANCE,
        PROFILE_BALANCED,  /* performance on AC or without a battery, powersave on battery */
        PROFILE_POWERSAVE,
        PROFILE_AUTO,      /* the desktop's power profile (power-profiles-daemon), else as balanced */
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

/*
 * The DMI fields the machine is read for, and that [device] sections and quirk entries can
 * match on: X(ID, sysfs attribute under class/dmi/id, match key, the key's old spelling).
 * A line here is the whole of a new DMI condition, but for its line in r8169-tuned.conf(5).
 */
#define DMI_FIELDS(X)                                                                          \
        X(SYS_VENDOR, "sys_vendor", "match-dmi-sys-vendor", "dmi-sys-vendor")                   \
        X(PRODUCT_NAME, "product_name", "match-dmi-product-name", "dmi-product-name")           \
        X(PRODUCT_FAMILY, "product_family", "match-dmi-product-family", NULL)                   \
        X(BOARD_VENDOR, "board_vendor", "match-dmi-board-vendor", "dmi-board-vendor")           \
        X(BOARD_NAME, "board_name", "match-dmi-board-name", "dmi-board-name")

typedef enum DmiField {
#define DMI_ENUM(id, attr, key, old) DMI_##id,
        DMI_FIELDS(DMI_ENUM)
#undef DMI_ENUM
        _DMI_FIELD_MAX,
} DmiField;

const char *dmi_field_to_string(DmiField f); /* sysfs attribute name, e.g. "sys_vendor" */

/* Facts about the machine the NICs sit in. */
/* An upstream kernel release, "6.1.53": what quirk entries are conditioned on. */
typedef struct KernelVersion {
        unsigned major, minor, patch;
        bool known;
} KernelVersion;

/* Exactly X.Y or X.Y.Z, nothing after: what a user or an entry writes. */
int kernel_version_parse_strict(const char *s, KernelVersion *ret);
int kernel_version_compare(const KernelVersion *a, const KernelVersion *b);
/* The release v grew from: X.Y.Z from X.Y.(Z-1), X.Y from X.(Y-1); 6.0 and 7.0 came after X.19. */
KernelVersion kernel_version_before(const KernelVersion *v);
const char *kernel_version_to_string(const KernelVersion *v, char *buf, size_t size);

typedef struct Machine {
        char dmi[_DMI_FIELD_MAX][128]; /* "" when absent */
        PowerSource power;
        KernelVersion kernel;          /* the running kernel's upstream release, or --kernel-release */
        char kernel_source[64];        /* where it came from: "--kernel-release", "/proc/version (Debian)", "uname" */
        char aspm_policy[16];          /* pcie_aspm.policy in force ("default", "performance", ...); "": not known */
} Machine;

/* The pcie_aspm.policy in force, "default" of "[default] performance ...", into buf; "" when there is none. */
void aspm_policy_read(const Sysroot *root, char *buf, size_t size);
/* The same through an fd kept open (aspm_policy_open(): the fd, or -errno when there is none):
 * each aspm_policy_reread() one pread(), the kernel's show() again; 0, or the read's -errno. */
int aspm_policy_open(const Sysroot *root);
int aspm_policy_reread(int fd, char *buf, size_t size);
/* kernel_release: --kernel-release, or NULL for the running kernel. */
void machine_read(const Sysroot *root, const char *kernel_release, Machine *ret);
/* Pure: what a configured profile means on this power source. */
Profile profile_resolve(Profile configured, PowerSource power);
