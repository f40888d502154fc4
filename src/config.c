/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include "config.h"
#include "log.h"


void config_defaults(Config *c) {
        *c = (Config) {
                .profile = PROFILE_BALANCED,
                .restore_on_exit = true,
                .log_level = LOG_INFO,
                .drift = DRIFT_REASSERT,
        };
}

static void device_done(ConfigDevice *d) {
        free(d->name);
        free(d->match_interface);
        free(d->match_slot);
        free(d->match_mac);
        free(d->match_chip);
}

void config_done(Config *c) {
        for (size_t i = 0; i < c->n_devices; i++)
                device_done(&c->devices[i]);
        free(c->devices);
        strv_free(c->files, c->n_files);
        config_defaults(c);
}

typedef struct Loader {
        Config *c;
        const char *file;
        enum { SECTION_NONE, SECTION_GLOBAL, SECTION_DEVICE, SECTION_BAD } section;
        ConfigDevice *dev;
        size_t dev_index;
        bool seen[_KNOB_MAX + 16];
} Loader;

static bool mac_valid(const char *s) {
        if (strlen(s) != 17)
                return false;
        for (int i = 0; i < 17; i++)
                if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char) s[i]))
                        return false;
        return true;
}

static int set_string(char **field, const char *value) {
        char *n = strdup(value);
        if (!n)
                return -ENOMEM;
        free(*field);
        *field = n;
        return 0;
}

static void on_global(Loader *l, unsigned line, const char *key, const char *value, Diagnostics *d) {
        Config *c = l->c;
        bool b;
        int r;

        if (streq(key, "profile")) {
                Profile p = profile_from_string(value);
                if (p < 0)
                        diag_add(d, l->file, line, "bad profile \"%s\": expected performance, balanced or powersave", value);
                else {
                        c->profile = p;
                        c->profile_origin = (Origin) { l->file, line };
                }
        } else if (streq(key, "restore-on-exit")) {
                if (parse_bool(value, &b) < 0)
                        diag_add(d, l->file, line, "bad restore-on-exit \"%s\": expected yes or no", value);
                else
                        c->restore_on_exit = b;
        } else if (streq(key, "log-level")) {
                r = log_level_from_string(value);
                if (r < 0)
                        diag_add(d, l->file, line, "bad log-level \"%s\": expected err, warning, notice, info or debug", value);
                else
                        c->log_level = r;
        } else if (streq(key, "drift")) {
                if (streq(value, "reassert"))
                        c->drift = DRIFT_REASSERT;
                else if (streq(value, "leave"))
                        c->drift = DRIFT_LEAVE;
                else
                        diag_add(d, l->file, line, "bad drift \"%s\": expected reassert or leave", value);
        } else
                diag_add(d, l->file, line, "unknown key \"%s\" in [global]", key);
}

static void on_device(Loader *l, unsigned line, const char *key, const char *value, Diagnostics *d) {
        ConfigDevice *dev = &l->c->devices[l->dev_index];
        KnobId k = knob_from_name(key);
        bool b;
        int r;

        if (k >= 0) {
                r = knob_parse_value(k, value, &dev->value[k]);
                if (r < 0) {
                        diag_add(d, l->file, line, "bad value \"%s\" for %s: %s", value, key,
                                 r == -ERANGE ? "out of range" : knob_get(k)->type == KNOB_TYPE_BOOL ? "expected on/off or 1/0" : "expected a decimal number");
                        return;
                }
                dev->set[k] = true;
                dev->knob_origin[k] = (Origin) { l->file, line };
        } else if (streq(key, "ignore")) {
                if (parse_bool(value, &b) < 0)
                        diag_add(d, l->file, line, "bad ignore \"%s\": expected yes or no", value);
                else {
                        dev->ignore = b;
                        dev->ignore_origin = (Origin) { l->file, line };
                }
        } else if (streq(key, "match-interface")) {
                if (!*value || strlen(value) > 64)
                        diag_add(d, l->file, line, "bad match-interface \"%s\"", value);
                else
                        (void) set_string(&dev->match_interface, value);
        } else if (streq(key, "match-slot")) {
                if (!pci_slot_valid(value))
                        diag_add(d, l->file, line, "bad match-slot \"%s\": expected a PCI address like 0000:01:00.0", value);
                else
                        (void) set_string(&dev->match_slot, value);
        } else if (streq(key, "match-mac")) {
                if (!mac_valid(value))
                        diag_add(d, l->file, line, "bad match-mac \"%s\": expected xx:xx:xx:xx:xx:xx", value);
                else {
                        (void) set_string(&dev->match_mac, value);
                        for (char *p = dev->match_mac; *p; p++)
                                *p = (char) tolower((unsigned char) *p);
                }
        } else if (streq(key, "match-chip")) {
                if (!*value)
                        diag_add(d, l->file, line, "empty match-chip");
                else
                        (void) set_string(&dev->match_chip, value);
        } else if (streq(key, "match-xid")) {
                XidMatch m;
                uint16_t x;
                if (xid_match_parse(value, &m) >= 0)
                        dev->match_xid = m;
                else if (chip_parse_xid(value, &x) >= 0)
                        dev->match_xid = (XidMatch) { x, 0xfcf, false };
                else {
                        diag_add(d, l->file, line, "bad match-xid \"%s\": expected an XID like 541, or VALUE/MASK like 3c0/7c8", value);
                        return;
                }
                dev->has_match_xid = true;
        } else
                diag_add(d, l->file, line, "unknown key \"%s\" in [device %s]", key, dev->name);
}

static void on_line(void *userdata, const char *file, unsigned line, const char *section, const char *key,
                    const char *value, bool continuation, Diagnostics *d) {
        Loader *l = userdata;

        if (!key) {
                memset(l->seen, 0, sizeof(l->seen));
                if (streq(section, "global")) {
                        l->section = SECTION_GLOBAL;
                } else if (strncmp(section, "device ", 7) == 0 && section[7]) {
                        ConfigDevice *nd = reallocarray(l->c->devices, l->c->n_devices + 1, sizeof(ConfigDevice));
                        if (!nd) {
                                l->section = SECTION_BAD;
                                return;
                        }
                        l->c->devices = nd;
                        l->dev_index = l->c->n_devices++;
                        nd[l->dev_index] = (ConfigDevice) { .name = strdup(section + 7), .origin = { file, line } };
                        l->section = SECTION_DEVICE;
                } else {
                        diag_add(d, file, line, "unknown section [%s]: expected [global] or [device NAME]", section);
                        l->section = SECTION_BAD;
                }
                return;
        }
        if (continuation) {
                diag_add(d, file, line, "values do not continue on the next line here");
                return;
        }
        switch (l->section) {
        case SECTION_NONE:
                diag_add(d, file, line, "\"%s\" outside of a section: put it under [global] or [device NAME]", key);
                break;
        case SECTION_GLOBAL:
                on_global(l, line, key, value, d);
                break;
        case SECTION_DEVICE:
                on_device(l, line, key, value, d);
                break;
        case SECTION_BAD:
                break;
        }
}

static int add_file(Config *c, const char *path, const char **ret) {
        int r = strv_push(&c->files, &c->n_files, strdup(path));
        if (r < 0)
                return r;
        *ret = c->files[c->n_files - 1];
        return 0;
}

static void parse_one(Config *c, const char *path, Diagnostics *d) {
        Loader l = { .c = c };
        size_t first = c->n_devices;

        if (add_file(c, path, &l.file) < 0)
                return;
        (void) conf_parse_file(l.file, on_line, &l, d);
        for (size_t i = first; i < c->n_devices; i++) {
                ConfigDevice *dev = &c->devices[i];
                if (!dev->match_interface && !dev->match_slot && !dev->match_mac && !dev->match_chip && !dev->has_match_xid)
                        diag_add(d, dev->origin.file, dev->origin.line,
                                 "[device %s] has no match-interface, match-slot, match-mac, match-chip or match-xid", dev->name);
        }
}

int config_load(Config *c, const char *path, bool required, Diagnostics *d) {
        _cleanup_free_ char *dropins = NULL;
        char **files;
        size_t n;
        struct stat st;
        int r;

        config_defaults(c);
        if (stat(path, &st) >= 0)
                parse_one(c, path, d);
        else if (errno != ENOENT || required)
                diag_add(d, path, 0, "cannot read: %m");
        if (asprintf(&dropins, "%s.d", path) < 0)
                return -ENOMEM;
        r = conf_list_dir(dropins, &files, &n);
        if (r < 0) {
                diag_add(d, dropins, 0, "cannot list: %s", strerror(-r));
                return 0;
        }
        for (size_t i = 0; i < n; i++)
                parse_one(c, files[i], d);
        strv_free(files, n);
        return 0;
}

bool config_device_matches(const ConfigDevice *dev, const Nic *n) {
        if (dev->match_slot && !streq(dev->match_slot, n->slot))
                return false;
        if (dev->match_mac && !streq(dev->match_mac, n->perm_mac))
                return false;
        if (dev->match_chip && (!n->chip || fnmatch(dev->match_chip, n->chip->name, 0) != 0))
                return false;
        if (dev->has_match_xid && (n->xid == CHIP_XID_INVALID || !xid_match_test(&dev->match_xid, n->xid)))
                return false;
        if (dev->match_interface) {
                bool any = false;
                for (size_t i = 0; i < n->n_ifnames && !any; i++)
                        any = fnmatch(dev->match_interface, n->ifnames[i], 0) == 0;
                if (!any)
                        return false;
        }
        return true;
}
