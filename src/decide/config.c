/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <inttypes.h>
#include <search.h>
#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

#include "base/log.h"
#include "decide/config.h"
#include "decide/keys.h"
#include "decide/linkpower.h"

void config_defaults(Config *c) {
        *c = (Config) {
                .profile = PROFILE_BALANCED,
                .restore_on_exit = true,
                .log_level = LOG_INFO,
                .drift = DRIFT_REASSERT,
                .link_power = { .mode = LINK_POWER_STATIC },
                .suggestions = { .apply = 0 },
                .link_power_busy_pps = LINK_POWER_BUSY_PPS,
                .link_power_quiet_s = 0, /* auto */
                .metrics_interval_s = CONFIG_METRICS_INTERVAL_S,
        };
}

static void device_done(ConfigDevice *d) {
        free(d->name);
        match_done(&d->match);
}

void config_done(Config *c) {
        for (size_t i = 0; i < c->n_devices; i++)
                device_done(&c->devices[i]);
        free(c->devices);
        free(c->claims);
        strv_free(c->files, c->n_files);
        free(c->metrics_textfile);
        config_defaults(c);
}

typedef enum Section {
        SECTION_NONE,
        SECTION_GLOBAL,
        SECTION_DEVICE,
        SECTION_BAD,
} Section;

typedef struct SeenSection {
        char *name;
        unsigned line;
} SeenSection;

typedef struct Loader {
        Config *c;
        const char *file;
        Section section;
        size_t dev_index;
        SeenKeys seen;          /* keys of the current section, with their lines */
        void *sections;         /* tsearch(3) tree of this file's sections (SeenSection) */
} Loader;

/* A key's parser: the value is checked and stored, or a complaint is added. */
typedef void (*config_parser)(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d);

typedef struct ConfigKey {
        const char *key;
        Section section;
        config_parser parse;
        size_t offset; /* into Config ([global]) or ConfigDevice ([device]) */
} ConfigKey;

static void parse_profile(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        Profile p = profile_from_string(value);
        if (p < 0)
                diag_add(d, l->file, line, "bad profile \"%s\": expected performance, balanced, powersave or auto", value);
        else {
                *(Profile *) dest = p;
                l->c->profile_origin = (Origin) { l->file, line };
        }
}

static void parse_yes_no(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        if (parse_bool(value, dest) < 0)
                diag_add(d, l->file, line, "bad %s \"%s\": expected yes or no", key, value);
}

static void parse_log_level(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        int r = log_level_from_string(value);
        if (r < 0)
                diag_add(d, l->file, line, "bad log-level \"%s\": expected err, warning, notice, info or debug", value);
        else
                *(int *) dest = r;
}

static const char *const drift_names[_DRIFT_POLICY_MAX] = {
        [DRIFT_REASSERT] = "reassert",
        [DRIFT_LEAVE] = "leave",
};

/* "reassert" or "leave". */
static DriftPolicy drift_policy_from_string(const char *s) {
        return (DriftPolicy) string_table_lookup(drift_names, _DRIFT_POLICY_MAX, s);
}

static void parse_drift(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        DriftPolicy p = drift_policy_from_string(value);

        if (p < 0)
                diag_add(d, l->file, line, "bad drift \"%s\": expected reassert or leave", value);
        else
                *(DriftPolicy *) dest = p;
}

static void parse_ignore(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        ConfigDevice *dev = &l->c->devices[l->dev_index];
        bool b;

        if (parse_bool(value, &b) < 0)
                diag_add(d, l->file, line, "bad ignore \"%s\": expected yes or no", value);
        else {
                dev->ignore = b;
                dev->ignore_origin = (Origin) { l->file, line };
        }
}

static void parse_link_power(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        LinkPowerSetting *s = dest;

        if (!streq(value, "static") && !streq(value, "dynamic")) {
                diag_add(d, l->file, line, "bad link-power \"%s\": expected static or dynamic", value);
                return;
        }
        s->mode = streq(value, "static") ? LINK_POWER_STATIC : LINK_POWER_DYNAMIC;
        s->origin = (Origin) { l->file, line };
}

static void parse_suggestions(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        SuggestionsSetting *s = dest;

        if (!streq(value, "show") && !streq(value, "apply")) {
                diag_add(d, l->file, line, "bad suggestions \"%s\": expected show (the default: plan lists them with the "
                         "experiment that measures them) or apply", value);
                return;
        }
        s->apply = streq(value, "apply");
        s->origin = (Origin) { l->file, line };
}

static void parse_assume_xid(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        ConfigDevice *dev = &l->c->devices[l->dev_index];
        uint16_t xid;

        if (chip_parse_xid(value, &xid) < 0)
                diag_add(d, l->file, line, "bad assume-xid \"%s\": expected an XID of three hex digits, like 541", value);
        else if (!chip_lookup(xid, CHIP_XID2_INVALID, 0x10ec, 0x8168))
                diag_add(d, l->file, line, "assume-xid %03x is no chip in r8169's table (r8169-tuned quirks --json lists them)", xid);
        else {
                dev->assume_xid = xid;
                dev->assume_origin = (Origin) { l->file, line };
        }
}

/* A number from min to max, of what unit says. */
static void parse_in_range(Loader *l, unsigned line, const char *key, const char *value, void *dest, uint64_t min, uint64_t max,
                           const char *unit, Diagnostics *d) {
        uint64_t v;
        if (parse_u64(value, &v) < 0 || v < min || v > max)
                diag_add(d, l->file, line, "bad %s \"%s\": expected %s from %" PRIu64 " to %" PRIu64, key, value, unit, min, max);
        else
                *(uint64_t *) dest = v;
}

static void parse_busy(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        parse_in_range(l, line, key, value, dest, 1, 1000000, "packets per second", d);
}

static void parse_quiet(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        uint64_t v;
        if (streq(value, "auto"))
                *(uint64_t *) dest = 0;
        else if (parse_u64(value, &v) < 0 || v < 1 || v > 3600)
                diag_add(d, l->file, line, "bad %s \"%s\": expected auto (the default: learnt from the traffic) or seconds from 1 to 3600", key, value);
        else
                *(uint64_t *) dest = v;
}

/*
 * metrics-textfile = PATH: an absolute path to a file named *.prom (node_exporter's textfile
 * collector reads no other), or no (a drop-in turns it off again).
 */
static void parse_textfile(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        Config *c = l->c;
        size_t n = strlen(value);
        bool b = true;
        char *copy;

        if (parse_bool(value, &b) >= 0 && !b) {
                free(c->metrics_textfile);
                c->metrics_textfile = NULL;
                c->metrics_textfile_origin = (Origin) { l->file, line };
                return;
        }
        if (value[0] != '/' || n < strlen("/x.prom") || !streq(value + n - strlen(".prom"), ".prom") || n >= PATH_MAX ||
            strstr(value, "/../") || strstr(value, "/./") || value[n - strlen(".prom") - 1] == '/')
                diag_add(d, l->file, line, "bad %s \"%s\": expected no, or an absolute path of a file named *.prom, "
                         "as node_exporter's textfile collector reads (/var/lib/prometheus/node-exporter/r8169-tuned.prom)", key, value);
        else if (!(copy = strdup(value)))
                diag_add(d, l->file, line, "out of memory");
        else {
                free(c->metrics_textfile);
                c->metrics_textfile = copy;
                c->metrics_textfile_origin = (Origin) { l->file, line };
        }
}

static void parse_interval(Loader *l, unsigned line, const char *key, const char *value, void *dest, Diagnostics *d) {
        parse_in_range(l, line, key, value, dest, 1, 3600, "seconds", d);
}

/* Configuration keys as a table, as networkd and timesyncd keep theirs; knob and match-* keys come from their own tables. */
static const ConfigKey config_keys[] = {
        { "profile", SECTION_GLOBAL, parse_profile, offsetof(Config, profile) },
        { "restore-on-exit", SECTION_GLOBAL, parse_yes_no, offsetof(Config, restore_on_exit) },
        { "log-level", SECTION_GLOBAL, parse_log_level, offsetof(Config, log_level) },
        { "drift", SECTION_GLOBAL, parse_drift, offsetof(Config, drift) },
        { "link-power", SECTION_GLOBAL, parse_link_power, offsetof(Config, link_power) },
        { "link-power-busy", SECTION_GLOBAL, parse_busy, offsetof(Config, link_power_busy_pps) },
        { "link-power-quiet", SECTION_GLOBAL, parse_quiet, offsetof(Config, link_power_quiet_s) },
        { "suggestions", SECTION_GLOBAL, parse_suggestions, offsetof(Config, suggestions) },
        { "metrics-textfile", SECTION_GLOBAL, parse_textfile, 0 },
        { "metrics-interval", SECTION_GLOBAL, parse_interval, offsetof(Config, metrics_interval_s) },
        { "ignore", SECTION_DEVICE, parse_ignore, 0 },
        { "link-power", SECTION_DEVICE, parse_link_power, offsetof(ConfigDevice, link_power) },
        { "assume-xid", SECTION_DEVICE, parse_assume_xid, 0 },
        { "suggestions", SECTION_DEVICE, parse_suggestions, offsetof(ConfigDevice, suggestions) },
};

static void on_device_knob(Loader *l, unsigned line, KnobId k, const char *key, const char *value, Diagnostics *d) {
        ConfigDevice *dev = &l->c->devices[l->dev_index];

        if (keys_knob_value(d, l->file, line, k, key, value, &dev->value[k]) < 0)
                return;
        dev->set[k] = true;
        dev->knob_origin[k] = (Origin) { l->file, line };
}

static void on_key(Loader *l, unsigned line, const char *key, const char *value, Diagnostics *d) {
        const char *section_name = l->section == SECTION_GLOBAL ? "global" : l->c->devices[l->dev_index].name;
        const char *canonical = match_key_canonical(key) ?: key, *own[ELEMENTSOF(config_keys)];
        char section_label[80];
        size_t n_own = 0;
        KnobId k;

        snprintf(section_label, sizeof(section_label), "%s%s", l->section == SECTION_GLOBAL ? "" : "device ", section_name);
        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++) {
                const ConfigKey *ck = &config_keys[i];
                if (ck->section != l->section || !streq(ck->key, key))
                        continue;
                if (keys_repeated(&l->seen, d, l->file, line, key, section_label))
                        return;
                ck->parse(l, line, key, value,
                          (char *) (l->section == SECTION_GLOBAL ? (void *) l->c : (void *) &l->c->devices[l->dev_index]) + ck->offset,
                          d);
                return;
        }
        if (l->section == SECTION_DEVICE) {
                ConfigDevice *dev = &l->c->devices[l->dev_index];
                char err[256];
                int r;

                k = knob_from_name(key);
                if (k >= 0) {
                        if (!keys_repeated(&l->seen, d, l->file, line, key, section_label))
                                on_device_knob(l, line, k, key, value, d);
                        return;
                }
                if (match_key_canonical(key)) {
                        if (keys_repeated(&l->seen, d, l->file, line, canonical, section_label))
                                return;
                        r = match_parse(&dev->match, key, value, err, sizeof(err));
                        if (r < 0)
                                diag_add(d, l->file, line, "%s", r == -ENOMEM ? strerror(ENOMEM) : err);
                        return;
                }
        }
        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++)
                if (config_keys[i].section == l->section)
                        own[n_own++] = config_keys[i].key;
        keys_unknown(d, l->file, line, key, section_label, own, n_own, l->section == SECTION_DEVICE);
}

static int seen_section_compare(const void *a, const void *b) {
        return strcmp(((const SeenSection *) a)->name, ((const SeenSection *) b)->name);
}

static void seen_section_free(void *p) {
        SeenSection *s = p;
        free(s->name);
        free(s);
}

static void on_section(Loader *l, const char *file, unsigned line, const char *section, Diagnostics *d) {
        SeenSection key = { (char *) section, line }, **seen;

        keys_reset(&l->seen);
        /* A tree, not a list: 80,000 sections cost seconds compared pairwise (security review R6). */
        seen = tsearch(&key, &l->sections, seen_section_compare);
        if (seen && *seen != &key)
                diag_add(d, file, line, "section [%s] given twice in this file (first at line %u)", section, (*seen)->line);
        else if (seen) {
                SeenSection *copy = malloc(sizeof(*copy));
                if (copy && (copy->name = strdup(section))) {
                        copy->line = line;
                        *seen = copy;
                } else {
                        free(copy);
                        tdelete(&key, &l->sections, seen_section_compare);
                }
        }
        if (streq(section, "global")) {
                l->section = SECTION_GLOBAL;
        } else if (strncmp(section, "device ", 7) == 0 && section[7] && l->c->n_devices >= CONF_MAX_SECTIONS) {
                if (!l->c->too_many_devices)
                        diag_add(d, file, line, "more than %d [device] sections: this one and those after it are ignored",
                                 CONF_MAX_SECTIONS);
                l->c->too_many_devices = true;
                l->section = SECTION_BAD;
        } else if (strncmp(section, "device ", 7) == 0 && section[7]) {
                ConfigDevice *nd = reallocarray(l->c->devices, l->c->n_devices + 1, sizeof(ConfigDevice));
                if (!nd) {
                        l->section = SECTION_BAD;
                        return;
                }
                l->c->devices = nd;
                l->dev_index = l->c->n_devices++;
                nd[l->dev_index] = (ConfigDevice) { .name = strdup(section + 7), .origin = { file, line },
                                                    .link_power = { .mode = -1 }, .suggestions = { .apply = -1 },
                                                    .assume_xid = CHIP_XID_INVALID };
                l->section = SECTION_DEVICE;
        } else {
                /* A one-word section is what a quirk entry looks like: say where those are read (ux-findings L8). */
                diag_add(d, file, line, "unknown section [%s]: expected [global] or [device NAME]%s", section,
                         strchr(section, ' ') || strcasecmp(section, "global") == 0 || strcasecmp(section, "device") == 0
                                 ? "" : "; a quirk entry? only files in a quirks.d directory are read as quirks");
                l->section = SECTION_BAD;
        }
}

static void on_line(void *userdata, const char *file, unsigned line, const char *section, const char *key,
                    const char *value, bool continuation, Diagnostics *d) {
        Loader *l = userdata;

        if (!key) {
                on_section(l, file, line, section, d);
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
        case SECTION_DEVICE:
                on_key(l, line, key, value, d);
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

/* assume-xid claims one slot, named exactly: a glob or a chip name could claim what is not a NIC. */
static int add_claim(Config *c, const ConfigDevice *dev, Diagnostics *d) {
        SlotClaim *v;

        if (!dev->match.slot) {
                diag_add(d, dev->assume_origin.file, dev->assume_origin.line,
                         "assume-xid needs match-slot in [device %s]: it manages the PCI function in that slot as the chip it names",
                         dev->name);
                return 0;
        }
        v = reallocarray(c->claims, c->n_claims + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        c->claims = v;
        v[c->n_claims] = (SlotClaim) { .xid = dev->assume_xid };
        strscpy(v[c->n_claims].slot, sizeof(v->slot), dev->match.slot);
        snprintf(v[c->n_claims].origin, sizeof(v->origin), "%s:%u", dev->assume_origin.file, dev->assume_origin.line);
        c->n_claims++;
        return 0;
}

/* One file, read from path or (buf) given. */
static void parse_one(Config *c, const char *path, const char *buf, size_t len, Diagnostics *d) {
        Loader l = { .c = c };
        size_t first = c->n_devices;

        if (add_file(c, path, &l.file) < 0)
                return;
        if (buf)
                conf_parse_buffer(l.file, buf, len, on_line, &l, d);
        else
                (void) conf_parse_file(l.file, on_line, &l, d);
        tdestroy(l.sections, seen_section_free);
        for (size_t i = first; i < c->n_devices; i++) {
                ConfigDevice *dev = &c->devices[i];
                if (match_is_empty(&dev->match))
                        diag_add(d, dev->origin.file, dev->origin.line, "[device %s] has no match key (one of %s)",
                                 dev->name, match_keys_string());
                if (dev->assume_xid != CHIP_XID_INVALID && add_claim(c, dev, d) < 0)
                        diag_add(d, dev->assume_origin.file, dev->assume_origin.line, "%s", strerror(ENOMEM));
        }
}

int config_load(Config *c, const char *path, bool required, Diagnostics *d) {
        return config_load_except(c, path, required, NULL, d);
}

int config_load_except(Config *c, const char *path, bool required, const Diagnostics *leave_out, Diagnostics *d) {
        _cleanup_free_ char *dropins = NULL;
        char **files;
        size_t n;
        struct stat st;
        int r;

        config_defaults(c);
        if (diag_names_file(leave_out, path))
                ;
        else if (stat(path, &st) >= 0)
                parse_one(c, path, NULL, 0, d);
        else if (errno != ENOENT || required)
                diag_add(d, path, 0, "cannot read: %m");
        if (asprintf(&dropins, "%s.d", path) < 0)
                return -ENOMEM;
        r = conf_list_dir(dropins, &files, &n);
        if (r < 0) {
                diag_add(d, dropins, 0, "cannot list: %s", strerror(-r));
                return 0;
        }
        if (r > 0)
                diag_add(d, dropins, 0, "%d more drop-ins than the %d read: those after %s are left out", r, CONF_MAX_FILES,
                         files[n - 1]);
        for (size_t i = 0; i < n; i++)
                if (!diag_names_file(leave_out, files[i]))
                        parse_one(c, files[i], NULL, 0, d);
        strv_free(files, n);
        return 0;
}

int config_load_buffer(Config *c, const char *name, const char *buf, size_t len, Diagnostics *d) {
        config_defaults(c);
        parse_one(c, name, buf, len, d);
        return 0;
}

int config_load_file(Config *c, const char *path, Diagnostics *d) {
        config_defaults(c);
        parse_one(c, path, NULL, 0, d);
        return 0;
}

bool config_device_matches(const ConfigDevice *dev, const Nic *n, const Machine *m) {
        return match_test(&dev->match, n, m);
}

const LinkPowerSetting *config_link_power(const Config *c, const Nic *n, const Machine *m, bool *ret_by_device) {
        const LinkPowerSetting *s = &c->link_power;
        bool by_device = false;

        for (size_t i = 0; i < c->n_devices; i++)
                if (c->devices[i].link_power.mode >= 0 && config_device_matches(&c->devices[i], n, m)) {
                        s = &c->devices[i].link_power;
                        by_device = true;
                }
        if (ret_by_device)
                *ret_by_device = by_device;
        return s;
}

const SuggestionsSetting *config_suggestions(const Config *c, const Nic *n, const Machine *m) {
        const SuggestionsSetting *s = &c->suggestions;

        for (size_t i = 0; i < c->n_devices; i++)
                if (c->devices[i].suggestions.apply >= 0 && config_device_matches(&c->devices[i], n, m))
                        s = &c->devices[i].suggestions;
        return s;
}
