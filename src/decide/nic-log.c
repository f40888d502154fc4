/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>

#include "base/log.h"
#include "decide/nic-log.h"

typedef struct Fields {
        char buf[16][256];
        const char *v[17];
        size_t n;
} Fields;

static void _printf_(2, 3) field(Fields *f, const char *fmt, ...) {
        va_list ap;

        if (f->n >= ELEMENTSOF(f->buf))
                return;
        va_start(ap, fmt);
        vsnprintf(f->buf[f->n], sizeof(f->buf[f->n]), fmt, ap);
        va_end(ap);
        f->v[f->n] = f->buf[f->n];
        f->n++;
        f->v[f->n] = NULL;
}

static void nic_fields(Fields *f, const char *message_id, const Nic *n) {
        field(f, "MESSAGE_ID=%s", message_id);
        if (nic_ifname(n))
                field(f, "INTERFACE=%s", nic_ifname(n));
        field(f, "PCI_SLOT=%s", n->slot);
        if (n->chip)
                field(f, "CHIP=%s", n->chip->name);
        if (n->xid != CHIP_XID_INVALID)
                field(f, "XID=%03x", n->xid);
        if (n->xid2 != CHIP_XID2_INVALID)
                field(f, "XID_EXTENDED=%x", n->xid2);
        if (n->perm_mac[0])
                field(f, "PERMANENT_MAC=%s", n->perm_mac);
}

/* "enp1s0 (0000:01:00.0, RTL8168h/8111h XID 541)" */
static void nic_prefix(char *buf, size_t size, const Nic *n) {
        char chip[64] = "", xid[24];
        if (n->xid != CHIP_XID_INVALID)
                snprintf(chip, sizeof(chip), ", %s %s", n->chip ? n->chip->name : "unknown chip",
                         nic_xid_string(n, xid, sizeof(xid)));
        snprintf(buf, size, "%s (%s%s)", nic_ifname(n) ?: n->slot, n->slot, chip);
}

/* The journal fields of why a knob has its value, and the words the message ends with. */
static void provenance_fields(Fields *f, const Provenance *why, char *prov, size_t size) {
        if (!why)
                return;
        switch (why->kind) {
        case PROVENANCE_QUIRK:
                field(f, "QUIRK=%s", why->quirk->id);
                snprintf(prov, size, " (quirk %s)", why->quirk->id);
                break;
        case PROVENANCE_LINK_POWER:
                field(f, "LINK_POWER=dynamic");
                snprintf(prov, size, " (link-power dynamic)");
                break;
        case PROVENANCE_GUARD:
                field(f, "GUARD=tx-timeout");
                snprintf(prov, size, " (tx-timeout guard)");
                break;
        case PROVENANCE_WITH_L1:
                field(f, "WITH_L1=off");
                snprintf(prov, size, " (with l1_aspm 0, which masks it)");
                break;
        case PROVENANCE_CONFIG:
                field(f, "CONFIG_FILE=%s", why->origin.file);
                field(f, "CONFIG_LINE=%u", why->origin.line);
                snprintf(prov, size, " (%s:%u)", why->origin.file, why->origin.line);
                break;
        case PROVENANCE_NONE:
        case _PROVENANCE_KIND_MAX:
                break;
        }
}

int log_nic_knob(int level, const char *message_id, const Nic *n, const KnobChange *c, int error, const char *fmt, ...) {
        char msg[1024], prefix[160], prov[600] = "";
        Fields f = {};
        va_list ap;

        if (level > log_get_max_level())
                return error < 0 ? error : -error;
        nic_fields(&f, message_id, n);
        if (c) {
                field(&f, "KNOB=%s", knob_get(c->knob)->name);
                if (c->old_value)
                        field(&f, "OLD_VALUE=%s", c->old_value);
                if (c->new_value)
                        field(&f, "NEW_VALUE=%s", c->new_value);
                provenance_fields(&f, c->why, prov, sizeof(prov));
        }
        errno = error < 0 ? -error : error;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        nic_prefix(prefix, sizeof(prefix), n);
        return log_internal(level, error, f.v, "%s: %s%s", prefix, msg, prov);
}
