/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <fnmatch.h>

#include "confparse.h"
#include "match.h"

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

void match_done(NicMatch *m) {
        free(m->interface);
        free(m->slot);
        free(m->mac);
        free(m->chip);
        free(m->xids);
        free(m->pci_ids);
        free(m->subsystems);
        for (int f = 0; f < _DMI_FIELD_MAX; f++)
                free(m->dmi[f]);
        strv_free(m->drivers, m->n_drivers);
        free(m->kernels);
        *m = (NicMatch) {};
}

typedef enum MatchKey {
        MATCH_INTERFACE,
        MATCH_SLOT,
        MATCH_MAC,
        MATCH_CHIP,
        MATCH_XID,
        MATCH_PCI_ID,
        MATCH_SUBSYSTEM,
        MATCH_DRIVER,
        MATCH_KERNEL,
        MATCH_DMI_FIRST, /* + DmiField */
        _MATCH_KEY_MAX = MATCH_DMI_FIRST + _DMI_FIELD_MAX,
} MatchKey;

static const struct {
        const char *name;
        const char *legacy; /* the quirk files' spelling before the vocabulary was one */
        const char *syntax;
} match_keys[_MATCH_KEY_MAX] = {
        [MATCH_INTERFACE] = { "match-interface", NULL, "a glob over interface names, like enp*" },
        [MATCH_SLOT] = { "match-slot", NULL, "a PCI address like 0000:01:00.0 (or lspci's 01:00.0)" },
        [MATCH_MAC] = { "match-mac", NULL, "xx:xx:xx:xx:xx:xx" },
        [MATCH_CHIP] = { "match-chip", NULL, "a glob over chip names, like RTL8168h*" },
        [MATCH_XID] = { "match-xid", "xid", "XIDs like 541, or VALUE/MASK in 3 hex digits each, like 3c0/7c8; ext:ID[/MASK] for an extended chip's id (7.1), like ext:0" },
        [MATCH_PCI_ID] = { "match-pci-id", "pci-id", "vendor:device like 10ec:8168" },
        [MATCH_SUBSYSTEM] = { "match-subsystem", "subsystem", "vendor:device or vendor:*" },
        [MATCH_DRIVER] = { "match-driver", NULL, "driver names like r8169 or r8168 (globs)" },
        [MATCH_KERNEL] = { "match-kernel", NULL, "kernel release ranges FROM..TO (TO not included), like 5.17..6.1.53 6.4" },
        [MATCH_DMI_FIRST + DMI_SYS_VENDOR] = { "match-dmi-sys-vendor", "dmi-sys-vendor", "a glob" },
        [MATCH_DMI_FIRST + DMI_PRODUCT_NAME] = { "match-dmi-product-name", "dmi-product-name", "a glob" },
        [MATCH_DMI_FIRST + DMI_BOARD_VENDOR] = { "match-dmi-board-vendor", "dmi-board-vendor", "a glob" },
        [MATCH_DMI_FIRST + DMI_BOARD_NAME] = { "match-dmi-board-name", "dmi-board-name", "a glob" },
};

static int match_key_from_string(const char *key) {
        for (int i = 0; i < _MATCH_KEY_MAX; i++)
                if (streq(key, match_keys[i].name) || (match_keys[i].legacy && streq(key, match_keys[i].legacy)))
                        return i;
        return -ENOENT;
}

const char *match_key_canonical(const char *key) {
        int i = match_key_from_string(key);
        return i < 0 ? NULL : match_keys[i].name;
}

const char *match_keys_string(void) {
        static char buf[512];

        if (!buf[0])
                for (int i = 0; i < _MATCH_KEY_MAX; i++) {
                        size_t l = strlen(buf);
                        snprintf(buf + l, sizeof(buf) - l, "%s%s", i ? ", " : "", match_keys[i].name);
                }
        return buf;
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

/* lspci prints "01:00.0" without the domain: that is domain 0000. */
static int slot_normalize(const char *s, char buf[PCI_SLOT_LEN]) {
        size_t l = strlen(s);

        if (l != 7 && l != 12)
                return -EINVAL;
        if (l == 7)
                memcpy(buf, "0000:", 5);
        memcpy(buf + (l == 7 ? 5 : 0), s, l + 1); /* 12 characters and the NUL either way */
        for (char *p = buf; *p; p++)
                *p = (char) tolower((unsigned char) *p); /* sysfs writes hex in lower case */
        return pci_slot_valid(buf) ? 0 : -EINVAL;
}

int match_parse(NicMatch *m, const char *key, const char *value, char *err, size_t size) {
        int k = match_key_from_string(key), r = 0;
        char slot[PCI_SLOT_LEN], bad[64] = "";

        if (k < 0)
                return -ENOENT;
        switch (k) {
        case MATCH_INTERFACE:
                r = !*value || strlen(value) > 64 ? -EINVAL : set_string(&m->interface, value);
                break;
        case MATCH_SLOT:
                r = slot_normalize(value, slot);
                if (r >= 0)
                        r = set_string(&m->slot, slot);
                break;
        case MATCH_MAC:
                r = mac_valid(value) ? set_string(&m->mac, value) : -EINVAL;
                for (char *p = r >= 0 ? m->mac : NULL; p && *p; p++)
                        *p = (char) tolower((unsigned char) *p);
                break;
        case MATCH_CHIP:
                r = *value ? set_string(&m->chip, value) : -EINVAL;
                break;
        case MATCH_XID:
        case MATCH_PCI_ID:
        case MATCH_SUBSYSTEM:
        case MATCH_DRIVER:
        case MATCH_KERNEL: {
                _cleanup_free_ char *copy = strdup(value);
                char *save = NULL;
                size_t words = 0;

                if (!copy)
                        return -ENOMEM;
                for (char *w = strtok_r(copy, " \t", &save); w && r >= 0; w = strtok_r(NULL, " \t", &save), words++) {
                        r = k == MATCH_XID      ? add_xid(m, w)
                            : k == MATCH_PCI_ID ? add_id(&m->pci_ids, &m->n_pci_ids, w, false)
                            : k == MATCH_DRIVER ? (strlen(w) < 64 ? strv_push(&m->drivers, &m->n_drivers, strdup(w)) : -EINVAL)
                            : k == MATCH_KERNEL ? add_kernel(m, w)
                                                : add_id(&m->subsystems, &m->n_subsystems, w, true);
                        if (r < 0)
                                snprintf(bad, sizeof(bad), "%s", w);
                }
                if (r >= 0 && words == 0)
                        r = -EINVAL;
                break;
        }
        default:
                r = *value ? set_string(&m->dmi[k - MATCH_DMI_FIRST], value) : -EINVAL;
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (!*value)
                        snprintf(err, size, "empty %s", key);
                else
                        snprintf(err, size, "bad %s \"%s\": expected %s", key, bad[0] ? bad : value, match_keys[k].syntax);
                return -EINVAL;
        }
        return 0;
}

bool match_is_empty(const NicMatch *m) {
        bool dmi = false;
        for (int f = 0; f < _DMI_FIELD_MAX; f++)
                dmi = dmi || m->dmi[f];
        return !m->interface && !m->slot && !m->mac && !m->chip && m->n_xids == 0 && m->n_pci_ids == 0 &&
               m->n_subsystems == 0 && m->n_drivers == 0 && m->n_kernels == 0 && !dmi;
}

const char *match_drivers_string(const NicMatch *m, char *buf, size_t size) {
        buf[0] = '\0';
        for (size_t i = 0; i < m->n_drivers; i++)
                snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", m->drivers[i]);
        return buf;
}

static bool driver_test(const NicMatch *m, const Nic *n) {
        for (size_t i = 0; i < m->n_drivers; i++)
                if (fnmatch(m->drivers[i], n->driver, 0) == 0)
                        return true;
        return m->n_drivers == 0;
}

bool match_test(const NicMatch *m, const Nic *n, const Machine *machine) {
        return driver_test(m, n) && match_test_but_driver(m, n, machine);
}

bool match_test_but_driver(const NicMatch *m, const Nic *n, const Machine *machine) {
        if (m->slot && !streq(m->slot, n->slot))
                return false;
        if (m->mac && !streq(m->mac, n->perm_mac))
                return false;
        if (m->chip && (!n->chip || fnmatch(m->chip, n->chip->name, 0) != 0))
                return false;
        if (m->n_xids > 0) {
                bool any = false;
                for (size_t i = 0; i < m->n_xids && !any; i++)
                        any = n->xid != CHIP_XID_INVALID &&
                              (xid_match_test(&m->xids[i], n->xid) || xid_match_test_ext(&m->xids[i], n->xid2));
                if (!any)
                        return false;
        }
        if (!id_match_test(m->pci_ids, m->n_pci_ids, n->vendor, n->device))
                return false;
        if (!id_match_test(m->subsystems, m->n_subsystems, n->subsys_vendor, n->subsys_device))
                return false;
        for (int f = 0; f < _DMI_FIELD_MAX; f++)
                if (m->dmi[f] && (!machine || !machine->dmi[f][0] || fnmatch(m->dmi[f], machine->dmi[f], 0) != 0))
                        return false;
        if (m->n_kernels > 0) {
                bool any = false;
                for (size_t i = 0; i < m->n_kernels && !any; i++)
                        any = machine && kernel_range_test(&m->kernels[i], &machine->kernel);
                if (!any)
                        return false;
        }
        if (m->interface) {
                bool any = false;
                for (size_t i = 0; i < n->n_ifnames && !any; i++)
                        any = fnmatch(m->interface, n->ifnames[i], 0) == 0;
                if (!any)
                        return false;
        }
        return true;
}
