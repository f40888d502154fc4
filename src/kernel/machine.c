/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>

#include <ctype.h>
#include <sys/utsname.h>

#include "kernel/machine.h"

static const char *const profile_names[_PROFILE_MAX] = {
        [PROFILE_PERFORMANCE] = "performance",
        [PROFILE_BALANCED] = "balanced",
        [PROFILE_POWERSAVE] = "powersave",
        [PROFILE_AUTO] = "auto",
};

static const char *const power_names[_POWER_SOURCE_MAX] = {
        [POWER_NO_BATTERY] = "no-battery",
        [POWER_AC] = "ac",
        [POWER_BATTERY] = "battery",
};

static const char *const dmi_names[_DMI_FIELD_MAX] = {
#define DMI_NAME(id, attr, key, old) [DMI_##id] = attr,
        DMI_FIELDS(DMI_NAME)
#undef DMI_NAME
};

const char *profile_to_string(Profile p) { return p >= 0 && p < _PROFILE_MAX ? profile_names[p] : NULL; }
const char *power_source_to_string(PowerSource s) { return s < _POWER_SOURCE_MAX ? power_names[s] : NULL; }
const char *dmi_field_to_string(DmiField f) { return f < _DMI_FIELD_MAX ? dmi_names[f] : NULL; }

Profile profile_from_string(const char *s) { return (Profile) string_table_lookup(profile_names, _PROFILE_MAX, s); }

Profile profile_resolve(Profile configured, PowerSource power) {
        if (configured != PROFILE_BALANCED && configured != PROFILE_AUTO)
                return configured;
        return power == POWER_BATTERY ? PROFILE_POWERSAVE : PROFILE_PERFORMANCE;
}

/*
 * A battery counts only if it powers the system (scope "System" or none given):
 * a UPS or a mouse battery does not make a laptop. On battery means no mains,
 * USB-PD or other supply reports online.
 */
static PowerSource power_read(const Sysroot *root) {
        bool battery = false, online = false;
        _cleanup_dir_names_ DirNames d = { .fd = -EBADF };

        if (sysroot_dir_names(root, "class/power_supply", &d) < 0)
                return POWER_NO_BATTERY;
        for (const char *name; (name = dir_names_next(&d));) {
                char dir[320], type[32] = "", scope[32] = "";
                uint64_t on = 0;

                if (name[0] == '.' || strchr(name, '/'))
                        continue;
                snprintf(dir, sizeof(dir), "class/power_supply/%s", name);
                if (sysroot_read(root, dir, "type", type, sizeof(type)) < 0)
                        continue;
                (void) sysroot_read(root, dir, "scope", scope, sizeof(scope));
                if (streq(type, "Battery")) {
                        if (!scope[0] || streq(scope, "System"))
                                battery = true;
                } else if (sysroot_read_u64(root, dir, "online", &on) >= 0 && on > 0)
                        online = true;
        }
        if (!battery)
                return POWER_NO_BATTERY;
        return online ? POWER_AC : POWER_BATTERY;
}

/* "6.1", "6.1.53", and what uname and distributions add ("6.1.0-18-amd64"): the leading X.Y[.Z]. */
static int kernel_version_parse(const char *s, KernelVersion *ret) {
        unsigned v[3] = {};
        int n = 0, i = 0;

        if (!s)
                return -EINVAL;
        for (; i < 3; i++) {
                if (!isdigit((unsigned char) *s))
                        break;
                v[i] = (unsigned) strtoul(s, (char **) &s, 10);
                n = i + 1;
                if (*s != '.')
                        break;
                s++;
        }
        if (n < 2 || v[0] > 99 || v[1] > 999 || v[2] > 9999)
                return -EINVAL;
        *ret = (KernelVersion) { v[0], v[1], v[2], true };
        return 0;
}

int kernel_version_parse_strict(const char *s, KernelVersion *ret) {
        KernelVersion v;
        size_t dots = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p == '.' && (p == s || p[-1] == '.' || !p[1]))
                        return -EINVAL;
                if (*p == '.')
                        dots++;
                else if (!isdigit((unsigned char) *p))
                        return -EINVAL;
        }
        if (dots < 1 || dots > 2 || kernel_version_parse(s, &v) < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

int kernel_version_compare(const KernelVersion *a, const KernelVersion *b) {
        if (a->major != b->major)
                return a->major < b->major ? -1 : 1;
        if (a->minor != b->minor)
                return a->minor < b->minor ? -1 : 1;
        if (a->patch != b->patch)
                return a->patch < b->patch ? -1 : 1;
        return 0;
}

KernelVersion kernel_version_before(const KernelVersion *v) {
        if (v->patch > 0)
                return (KernelVersion) { v->major, v->minor, v->patch - 1, true };
        if (v->minor > 0)
                return (KernelVersion) { v->major, v->minor - 1, 0, true };
        return (KernelVersion) { v->major - 1, 19, 0, true };
}

const char *kernel_version_to_string(const KernelVersion *v, char *buf, size_t size) {
        if (!v->known)
                snprintf(buf, size, "unknown");
        else if (v->patch)
                snprintf(buf, size, "%u.%u.%u", v->major, v->minor, v->patch);
        else
                snprintf(buf, size, "%u.%u", v->major, v->minor);
        return buf;
}

/*
 * The running kernel's upstream release. uname says "6.1.0-18-amd64" on Debian, whose
 * stable base is in /proc/version ("... Debian 6.1.76-1 ..."); Ubuntu puts it last in
 * /proc/version_signature ("Ubuntu 5.15.0-91.101-generic 5.15.131"). Else uname's X.Y.Z.
 */
static void kernel_running(Machine *m) {
        char buf[512];
        FILE *f;

        f = fopen("/proc/version_signature", "re");
        if (f) {
                if (fgets(buf, sizeof(buf), f)) {
                        char *last = strrchr(strip_trailing(buf), ' ');
                        if (last && kernel_version_parse(last + 1, &m->kernel) >= 0)
                                snprintf(m->kernel_source, sizeof(m->kernel_source), "/proc/version_signature");
                }
                fclose(f);
                if (m->kernel.known)
                        return;
        }
        f = fopen("/proc/version", "re");
        if (f) {
                if (fgets(buf, sizeof(buf), f)) {
                        char *d = strstr(buf, " Debian ");
                        if (d && kernel_version_parse(d + 8, &m->kernel) >= 0)
                                snprintf(m->kernel_source, sizeof(m->kernel_source), "/proc/version (Debian)");
                }
                fclose(f);
                if (m->kernel.known)
                        return;
        }
        {
                struct utsname u;
                if (uname(&u) >= 0 && kernel_version_parse(u.release, &m->kernel) >= 0)
                        snprintf(m->kernel_source, sizeof(m->kernel_source), "uname");
        }
}

/* "[default] performance powersave powersupersave" -> "default"; "" when there is none (CONFIG_PCIEASPM=n). */
static void aspm_policy_parse(int r, char *raw, char *buf, size_t size) {
        char *a, *b;

        buf[0] = '\0';
        if (r < 0 || !(a = strchr(raw, '[')) || !(b = strchr(a, ']')))
                return;
        *b = '\0';
        snprintf(buf, size, "%s", a + 1);
}

void aspm_policy_read(const Sysroot *root, char *buf, size_t size) {
        char raw[128];

        aspm_policy_parse(sysroot_read(root, "module/pcie_aspm/parameters", "policy", raw, sizeof(raw)), raw, buf, size);
}

int aspm_policy_open(const Sysroot *root) {
        return sysroot_open_attr(root, "module/pcie_aspm/parameters", "policy");
}

int aspm_policy_reread(int fd, char *buf, size_t size) {
        char raw[128];
        int r = fd < 0 ? fd : sysroot_reread_fd(fd, raw, sizeof(raw));

        aspm_policy_parse(r, raw, buf, size);
        return r;
}

void machine_read(const Sysroot *root, const char *kernel_release, Machine *ret) {
        *ret = (Machine) {};
        if (kernel_release && kernel_version_parse_strict(kernel_release, &ret->kernel) >= 0)
                snprintf(ret->kernel_source, sizeof(ret->kernel_source), "--kernel-release");
        else
                kernel_running(ret);
        for (int i = 0; i < _DMI_FIELD_MAX; i++)
                if (sysroot_read(root, "class/dmi/id", dmi_names[i], ret->dmi[i], sizeof(ret->dmi[i])) < 0)
                        ret->dmi[i][0] = '\0';
        ret->power = power_read(root);
        aspm_policy_read(root, ret->aspm_policy, sizeof(ret->aspm_policy));
}
