/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <fnmatch.h>

#include "base/confparse.h"
#include "decide/match.h"

/* "ext:0", "ext:0/7fffffff": an extended chip's id, a row of the extended table when only a value. */
static int xid_match_parse_ext(const char *s, XidMatch *ret) {
        char v[9] = "", m[9] = "";
        const char *slash = strchr(s, '/');
        uint32_t value, mask = UINT32_MAX >> 1;
        const ChipInfo *row;

        if ((slash ? (size_t) (slash - s) : strlen(s)) >= sizeof(v) || (slash && strlen(slash + 1) >= sizeof(m)))
                return -EINVAL;
        memcpy(v, s, slash ? (size_t) (slash - s) : strlen(s));
        if (slash)
                strcpy(m, slash + 1);
        if (chip_parse_xid2(v, &value) < 0 || (slash && chip_parse_xid2(m, &mask) < 0))
                return -EINVAL;
        if (!slash) {
                /* One id: the extended row the kernel resolves it to, if any; else that id exactly. */
                row = chip_ext_row(value);
                if (row) {
                        *ret = (XidMatch) { row->val, row->mask, true, true };
                        return 0;
                }
                mask = UINT32_MAX >> 1;
        }
        if (value & ~mask)
                return -ERANGE;
        *ret = (XidMatch) { value, mask, chip_is_ext_row(mask, value), true };
        return 0;
}

int xid_match_parse(const char *s, XidMatch *ret) {
        char v[4], m[4];
        uint16_t value, mask;

        if (s && strncmp(s, "ext:", 4) == 0)
                return xid_match_parse_ext(s + 4, ret);
        if (!s || strlen(s) != 7 || s[3] != '/')
                return -EINVAL;
        memcpy(v, s, 3);
        v[3] = '\0';
        memcpy(m, s + 4, 3);
        m[3] = '\0';
        if (chip_parse_xid(v, &value) < 0 || chip_parse_xid(m, &mask) < 0)
                return -EINVAL;
        if (value & ~mask)
                return -ERANGE; /* a value bit outside the mask can never match */
        *ret = (XidMatch) { value, mask, chip_is_row(mask, value), false };
        return 0;
}

const char *xid_match_to_string(const XidMatch *m, char *buf, size_t size) {
        if (m->extended)
                snprintf(buf, size, "ext:%x/%x", m->value, m->mask);
        else
                snprintf(buf, size, "%03x/%03x", m->value, m->mask);
        return buf;
}

bool xid_match_test_ext(const XidMatch *m, uint32_t xid2) {
        const ChipInfo *row;

        if (!m->extended || xid2 == CHIP_XID2_INVALID)
                return false;
        if (!m->kernel_row)
                return (xid2 & m->mask) == m->value;
        row = chip_ext_row(xid2);
        return row && row->mask == m->mask && row->val == m->value;
}

bool xid_match_test(const XidMatch *m, uint16_t xid) {
        const ChipInfo *row;

        if (m->extended)
                return false;
        if (!m->kernel_row)
                return (xid & m->mask) == m->value;
        /* A kernel row matches exactly the XIDs the kernel resolves to it. */
        row = chip_row(xid);
        return row && row->mask == m->mask && row->val == m->value;
}

static int id_match_parse(const char *s, bool allow_any, IdMatch *ret) {
        unsigned v, d;
        int n = 0;

        /* Exactly "xxxx:xxxx" or "xxxx:*": sscanf's %x would also take a sign or 0x. */
        for (size_t i = 0; s[i]; i++)
                if (i == 4 ? s[i] != ':' : !(isxdigit((unsigned char) s[i]) || (allow_any && i == 5 && s[i] == '*')))
                        return -EINVAL;

        if (allow_any && sscanf(s, "%4x:*%n", &v, &n) == 1 && n == 6 && strlen(s) == 6) {
                *ret = (IdMatch) { (uint16_t) v, 0, true };
                return 0;
        }
        if (sscanf(s, "%4x:%4x%n", &v, &d, &n) != 2 || n != 9 || strlen(s) != 9)
                return -EINVAL;
        *ret = (IdMatch) { (uint16_t) v, (uint16_t) d, false };
        return 0;
}

static bool id_match_test(const IdMatch *m, size_t n, uint16_t vendor, uint16_t device) {
        if (n == 0)
                return true;
        for (size_t i = 0; i < n; i++)
                if (m[i].vendor == vendor && (m[i].any_device || m[i].device == device))
                        return true;
        return false;
}

static bool mac_valid(const char *s) {
        if (strlen(s) != 17)
                return false;
        for (int i = 0; i < 17; i++)
                if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char) *(s + i)))
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

static int add_xid(NicMatch *m, const char *w) {
        XidMatch x, *n;
        uint16_t v;

        if (xid_match_parse(w, &x) < 0) {
                if (chip_parse_xid(w, &v) < 0)
                        return -EINVAL;
                x = (XidMatch) { v, 0xfcf, false, false }; /* one XID: every bit the kernel's table can look at */
        }
        n = reallocarray(m->xids, m->n_xids + 1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        m->xids = n;
        m->xids[m->n_xids++] = x;
        return 0;
}

static int add_id(IdMatch **list, size_t *count, const char *w, bool allow_any) {
        IdMatch id, *n;

        if (id_match_parse(w, allow_any, &id) < 0)
                return -EINVAL;
        n = reallocarray(*list, *count + 1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        *list = n;
        (*list)[(*count)++] = id;
        return 0;
}

int kernel_range_parse(const char *s, KernelRange *ret) {
        const char *dots = strstr(s, "..");
        KernelRange r = {};

        if (!dots) {
                /* "6.4": the whole 6.4.y series */
                if (kernel_version_parse_strict(s, &r.from) < 0 || strchr(strchr(s, '.') + 1, '.'))
                        return -EINVAL;
                r.to = (KernelVersion) { r.from.major, r.from.minor + 1, 0, true };
        } else {
                char from[32];
                if ((size_t) (dots - s) >= sizeof(from))
                        return -EINVAL;
                memcpy(from, s, (size_t) (dots - s));
                from[dots - s] = '\0';
                if ((from[0] && kernel_version_parse_strict(from, &r.from) < 0) ||
                    (dots[2] && kernel_version_parse_strict(dots + 2, &r.to) < 0))
                        return -EINVAL;
                if (!r.from.known && !r.to.known)
                        return -EINVAL;
                if (r.from.known && r.to.known && kernel_version_compare(&r.from, &r.to) >= 0)
                        return -ERANGE; /* empty */
        }
        /* Only digits and dots: "6.1.0-18" is what uname says, not what an entry names. */
        for (const char *p = s; *p; p++)
                if (!isdigit((unsigned char) *p) && *p != '.')
                        return -EINVAL;
        *ret = r;
        return 0;
}

bool kernel_range_test(const KernelRange *r, const KernelVersion *v) {
        if (!v || !v->known)
                return false;
        return (!r->from.known || kernel_version_compare(v, &r->from) >= 0) &&
               (!r->to.known || kernel_version_compare(v, &r->to) < 0);
}

const char *kernel_range_to_string(const KernelRange *r, char *buf, size_t size) {
        char a[24] = "", b[24] = "";

        if (r->from.known)
                kernel_version_to_string(&r->from, a, sizeof(a));
        if (r->to.known)
                kernel_version_to_string(&r->to, b, sizeof(b));
        snprintf(buf, size, "%s..%s", a, b);
        return buf;
}

bool kernel_ranges_overlap(const KernelRange *a, size_t na, const KernelRange *b, size_t nb) {
        if (na == 0 || nb == 0)
                return true;
        for (size_t i = 0; i < na; i++)
                for (size_t j = 0; j < nb; j++) {
                        /* [a.from, a.to) and [b.from, b.to) meet unless one ends before the other starts */
                        bool a_before = a[i].to.known && b[j].from.known && kernel_version_compare(&a[i].to, &b[j].from) <= 0;
                        bool b_before = b[j].to.known && a[i].from.known && kernel_version_compare(&b[j].to, &a[i].from) <= 0;
                        if (!a_before && !b_before)
                                return true;
                }
        return false;
}

static int add_kernel(NicMatch *m, const char *w) {
        KernelRange r, *n;
        int k = kernel_range_parse(w, &r);

        if (k < 0)
                return k;
        n = reallocarray(m->kernels, m->n_kernels + 1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        m->kernels = n;
        m->kernels[m->n_kernels++] = r;
        return 0;
}

/*
 * The conditions, one row each, as systemd's condition_tests[]: a row gives its key, what
 * it accepts, how it parses a value (a list: each word), tests a NIC, prints itself back and
 * frees itself. Parsing, matching, emptiness, the quirk printer and the key lists of both
 * files and of the man page test all come from here; a DMI condition also names the
 * attribute it reads (machine.h's DMI_FIELDS, which the sysfs read allowlist follows).
 */
typedef struct MatchCondition MatchCondition;
struct MatchCondition {
        const char *name;
        const char *legacy; /* the quirk files' spelling before the vocabulary was one */
        const char *syntax;
        bool list;          /* whitespace-separated words, any of which matches */
        bool driver;        /* the bound driver: match_test_but_driver() leaves it out */
        size_t offset;      /* of the member in NicMatch (a char *, or a list's pointer) */
        size_t count;       /* of a list's count in NicMatch */
        int dmi;            /* DmiField of a DMI condition, else -1 */
        int (*add)(NicMatch *m, const MatchCondition *c, const char *word);
        bool (*test)(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine);
        size_t (*print)(const NicMatch *m, const MatchCondition *c, char *buf, size_t size);
        void (*done)(NicMatch *m, const MatchCondition *c);
};

#define MEMBER(m, c, type) ((type *) ((char *) (m) + (c)->offset))
#define CMEMBER(m, c, type) ((const type *) ((const char *) (m) + (c)->offset))
#define COUNT(m, c) ((size_t *) ((char *) (m) + (c)->count))
#define CCOUNT(m, c) (*(const size_t *) ((const char *) (m) + (c)->count))

static bool is_set(const NicMatch *m, const MatchCondition *c) {
        return c->list ? CCOUNT(m, c) > 0 : *CMEMBER(m, c, char *) != NULL;
}

/* One string: a glob, a slot, a MAC. */
static int add_glob(NicMatch *m, const MatchCondition *c, const char *w) {
        return !*w ? -EINVAL : set_string(MEMBER(m, c, char *), w);
}

/* An interface name is at most IFNAMSIZ - 1 characters: a longer glob is a typo, said so. */
static int add_ifname_glob(NicMatch *m, const MatchCondition *c, const char *w) {
        return strlen(w) > 64 ? -EINVAL : add_glob(m, c, w);
}

static int add_slot(NicMatch *m, const MatchCondition *c, const char *w) {
        char slot[PCI_SLOT_LEN];
        return pci_slot_normalize(w, slot) < 0 ? -EINVAL : set_string(MEMBER(m, c, char *), slot);
}

static int add_mac(NicMatch *m, const MatchCondition *c, const char *w) {
        char mac[18];

        if (!mac_valid(w))
                return -EINVAL;
        for (size_t i = 0; i < sizeof(mac); i++)
                mac[i] = (char) tolower((unsigned char) w[i]);
        return set_string(MEMBER(m, c, char *), mac);
}

static size_t print_string(const NicMatch *m, const MatchCondition *c, char *buf, size_t size) {
        return (size_t) snprintf(buf, size, "%s", *CMEMBER(m, c, char *));
}

static void done_string(NicMatch *m, const MatchCondition *c) {
        char **s = MEMBER(m, c, char *);
        free(*s);
        *s = NULL;
}

static void done_list(NicMatch *m, const MatchCondition *c) {
        void **v = MEMBER(m, c, void *);
        free(*v);
        *v = NULL;
        *COUNT(m, c) = 0;
}

static bool test_interface(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        for (size_t i = 0; i < n->n_ifnames; i++)
                if (fnmatch(m->interface, n->ifnames[i], 0) == 0)
                        return true;
        return false;
}

static bool test_slot(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        return streq(m->slot, n->slot);
}

static bool test_mac(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        return streq(m->mac, n->perm_mac);
}

static bool test_chip(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        return n->chip && fnmatch(m->chip, n->chip->name, 0) == 0;
}

static int add_link_l1(NicMatch *m, const MatchCondition *c, const char *w) {
        return streq(w, "on") || streq(w, "off") ? set_string(MEMBER(m, c, char *), w) : -EINVAL;
}

/*
 * ASPM L1 as the link's control register (LnkCtl) held it when the NIC was found: a fix that
 * acts only in L1 (clock PM) matters where it is on. Unknown (config space not readable past
 * 64 bytes, or not PCIe) matches neither.
 */
static bool test_link_l1(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        if (n->link.truncated || !n->link.pcie)
                return false;
        return streq(m->link_l1, (n->link.aspm_control & 2) ? "on" : "off");
}

static bool test_dmi(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        const char *v = machine ? machine->dmi[c->dmi] : "";
        return v[0] && fnmatch(m->dmi[c->dmi], v, 0) == 0;
}

static int add_xid_word(NicMatch *m, const MatchCondition *c, const char *w) { return add_xid(m, w); }

static bool test_xid(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        for (size_t i = 0; i < m->n_xids; i++)
                if (n->xid != CHIP_XID_INVALID &&
                    (xid_match_test(&m->xids[i], n->xid) || xid_match_test_ext(&m->xids[i], n->xid2)))
                        return true;
        return false;
}

static size_t print_xids(const NicMatch *m, const MatchCondition *c, char *buf, size_t size) {
        size_t n = 0;
        for (size_t i = 0; i < m->n_xids && n < size; i++) {
                char x[32];
                n += (size_t) snprintf(buf + n, size - n, "%s%s", i ? " " : "", xid_match_to_string(&m->xids[i], x, sizeof(x)));
        }
        return n;
}

static int add_pci_id(NicMatch *m, const MatchCondition *c, const char *w) {
        return add_id(MEMBER(m, c, IdMatch *), COUNT(m, c), w, false);
}

static int add_subsystem(NicMatch *m, const MatchCondition *c, const char *w) {
        return add_id(MEMBER(m, c, IdMatch *), COUNT(m, c), w, true);
}

static bool test_pci_id(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        return id_match_test(m->pci_ids, m->n_pci_ids, n->vendor, n->device);
}

static bool test_subsystem(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        return id_match_test(m->subsystems, m->n_subsystems, n->subsys_vendor, n->subsys_device);
}

static size_t print_ids(const NicMatch *m, const MatchCondition *c, char *buf, size_t size) {
        const IdMatch *ids = *CMEMBER(m, c, IdMatch *);
        size_t n = 0;

        for (size_t i = 0; i < CCOUNT(m, c) && n < size; i++)
                n += ids[i].any_device ? (size_t) snprintf(buf + n, size - n, "%s%04x:*", i ? " " : "", ids[i].vendor)
                                       : (size_t) snprintf(buf + n, size - n, "%s%04x:%04x", i ? " " : "", ids[i].vendor,
                                                           ids[i].device);
        return n;
}

static int add_driver(NicMatch *m, const MatchCondition *c, const char *w) {
        return strlen(w) < 64 ? strv_push(&m->drivers, &m->n_drivers, strdup(w)) : -EINVAL;
}

static bool test_driver(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        for (size_t i = 0; i < m->n_drivers; i++)
                if (fnmatch(m->drivers[i], n->driver, 0) == 0)
                        return true;
        return false;
}

static size_t print_drivers(const NicMatch *m, const MatchCondition *c, char *buf, size_t size) {
        size_t n = 0;
        for (size_t i = 0; i < m->n_drivers && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "%s%s", i ? " " : "", m->drivers[i]);
        return n;
}

static void done_drivers(NicMatch *m, const MatchCondition *c) {
        strv_free(m->drivers, m->n_drivers);
        m->drivers = NULL;
        m->n_drivers = 0;
}

static int add_kernel_word(NicMatch *m, const MatchCondition *c, const char *w) { return add_kernel(m, w); }

static bool test_kernel(const NicMatch *m, const MatchCondition *c, const Nic *n, const Machine *machine) {
        for (size_t i = 0; i < m->n_kernels; i++)
                if (machine && kernel_range_test(&m->kernels[i], &machine->kernel))
                        return true;
        return false;
}

static size_t print_kernels(const NicMatch *m, const MatchCondition *c, char *buf, size_t size) {
        size_t n = 0;
        for (size_t i = 0; i < m->n_kernels && n < size; i++) {
                char range[64];
                n += (size_t) snprintf(buf + n, size - n, "%s%s", i ? " " : "",
                                       kernel_range_to_string(&m->kernels[i], range, sizeof(range)));
        }
        return n;
}

#define STRING(field) .offset = offsetof(NicMatch, field), .dmi = -1, .print = print_string, .done = done_string
#define LIST(field) .list = true, .offset = offsetof(NicMatch, field), .count = offsetof(NicMatch, n_##field), .dmi = -1
#define DMI_CONDITION(id, attr, key, old) \
        { key, old, "a glob", .offset = offsetof(NicMatch, dmi) + DMI_##id * sizeof(char *), .dmi = DMI_##id, \
          .add = add_glob, .test = test_dmi, .print = print_string, .done = done_string },

static const MatchCondition conditions[] = {
        { "match-interface", NULL, "a glob over interface names, like enp*", STRING(interface), .add = add_ifname_glob,
          .test = test_interface },
        { "match-slot", NULL, "a PCI address like 0000:01:00.0 (or lspci's 01:00.0)", STRING(slot), .add = add_slot,
          .test = test_slot },
        { "match-mac", NULL, "xx:xx:xx:xx:xx:xx", STRING(mac), .add = add_mac, .test = test_mac },
        { "match-chip", NULL, "a glob over chip names, like RTL8168h*", STRING(chip), .add = add_glob, .test = test_chip },
        { "match-link-l1", NULL, "on or off: ASPM L1 in the link's control register when the NIC was found",
          STRING(link_l1), .add = add_link_l1, .test = test_link_l1 },
        { "match-xid", "xid",
          "XIDs like 541, or VALUE/MASK in 3 hex digits each, like 3c0/7c8; ext:ID[/MASK] for an extended chip's id (7.0), like ext:0",
          LIST(xids), .add = add_xid_word, .test = test_xid, .print = print_xids, .done = done_list },
        { "match-pci-id", "pci-id", "vendor:device like 10ec:8168", LIST(pci_ids), .add = add_pci_id, .test = test_pci_id,
          .print = print_ids, .done = done_list },
        { "match-subsystem", "subsystem", "vendor:device or vendor:*", LIST(subsystems), .add = add_subsystem,
          .test = test_subsystem, .print = print_ids, .done = done_list },
        { "match-driver", NULL, "driver names like r8169 or r8168 (globs)", LIST(drivers), .driver = true, .add = add_driver,
          .test = test_driver, .print = print_drivers, .done = done_drivers },
        { "match-kernel", NULL, "kernel release ranges FROM..TO (TO not included), like 5.17..6.1.53 6.4", LIST(kernels),
          .add = add_kernel_word, .test = test_kernel, .print = print_kernels, .done = done_list },
        DMI_FIELDS(DMI_CONDITION)
};

static const MatchCondition *condition_from_key(const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(conditions); i++)
                if (streq(key, conditions[i].name) || (conditions[i].legacy && streq(key, conditions[i].legacy)))
                        return &conditions[i];
        return NULL;
}

const char *match_key_canonical(const char *key) {
        const MatchCondition *c = condition_from_key(key);
        return c ? c->name : NULL;
}

bool match_key_is_list(const char *key) {
        const MatchCondition *c = condition_from_key(key);
        return c && c->list;
}

const char *match_keys_string(void) {
        static char buf[1024];

        if (!buf[0])
                for (size_t i = 0; i < ELEMENTSOF(conditions); i++) {
                        size_t l = strlen(buf);
                        snprintf(buf + l, sizeof(buf) - l, "%s%s", i ? ", " : "", conditions[i].name);
                }
        return buf;
}

size_t match_key_count(void) { return ELEMENTSOF(conditions); }

const char *match_key_name(size_t i) { return i < ELEMENTSOF(conditions) ? conditions[i].name : NULL; }

void match_done(NicMatch *m) {
        for (size_t i = 0; i < ELEMENTSOF(conditions); i++)
                conditions[i].done(m, &conditions[i]);
        *m = (NicMatch) {};
}

int match_parse(NicMatch *m, const char *key, const char *value, char *err, size_t size) {
        const MatchCondition *c = condition_from_key(key);
        char bad[64] = "";
        int r = 0;

        if (!c)
                return -ENOENT;
        if (!c->list)
                r = *value ? c->add(m, c, value) : -EINVAL;
        else {
                _cleanup_free_ char *copy = strdup(value);
                char *save = NULL;
                size_t words = 0;

                if (!copy)
                        return -ENOMEM;
                for (char *w = strtok_r(copy, " \t", &save); w && r >= 0; w = strtok_r(NULL, " \t", &save), words++) {
                        r = c->add(m, c, w);
                        if (r < 0)
                                snprintf(bad, sizeof(bad), "%s", w);
                }
                if (r >= 0 && words == 0)
                        r = -EINVAL;
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (!*value)
                        snprintf(err, size, "empty %s", key);
                else
                        snprintf(err, size, "bad %s \"%s\": expected %s", key, bad[0] ? bad : value, c->syntax);
                return -EINVAL;
        }
        return 0;
}

bool match_is_empty(const NicMatch *m) {
        for (size_t i = 0; i < ELEMENTSOF(conditions); i++)
                if (is_set(m, &conditions[i]))
                        return false;
        return true;
}

const char *match_drivers_string(const NicMatch *m, char *buf, size_t size) {
        buf[0] = '\0';
        for (size_t i = 0; i < m->n_drivers; i++)
                snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", m->drivers[i]);
        return buf;
}

static bool test_all(const NicMatch *m, const Nic *n, const Machine *machine, bool with_driver) {
        for (size_t i = 0; i < ELEMENTSOF(conditions); i++) {
                const MatchCondition *c = &conditions[i];
                if ((c->driver && !with_driver) || !is_set(m, c))
                        continue;
                if (!c->test(m, c, n, machine))
                        return false;
        }
        return true;
}

bool match_test(const NicMatch *m, const Nic *n, const Machine *machine) { return test_all(m, n, machine, true); }

bool match_test_but_driver(const NicMatch *m, const Nic *n, const Machine *machine) {
        return test_all(m, n, machine, false);
}

const char *match_condition_string(const NicMatch *m, size_t i, char *buf, size_t size, bool *list) {
        const MatchCondition *c = i < ELEMENTSOF(conditions) ? &conditions[i] : NULL;

        if (!c || !is_set(m, c))
                return NULL;
        c->print(m, c, buf, size);
        *list = c->list;
        return buf;
}
