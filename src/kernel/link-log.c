/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <stdio.h>

#include "kernel/kernel-log.h"
#include "kernel/link-log.h"

unsigned link_log_parse_speed(const char *s) {
        unsigned whole = 0, tenths = 0;
        bool digits = false;

        for (; *s >= '0' && *s <= '9'; s++, digits = true)
                whole = whole * 10 + (unsigned) (*s - '0');
        if (*s == '.' && s[1] >= '0' && s[1] <= '9') {
                tenths = (unsigned) (s[1] - '0');
                s += 2;
        }
        if (!digits || whole > 1000000)
                return 0;
        if (strncmp(s, "Gbps", 4) == 0)
                return whole * 1000 + tenths * 100;
        if (strncmp(s, "Mbps", 4) == 0)
                return whole;
        return 0;
}

void link_log_line(LinkLog *l, const char *line) {
        const char *p;

        /* phy_print_status(): "Link is Up - 100Mbps/Full (downshifted) - flow control off" */
        if ((p = strstr(line, "Link is Up - "))) {
                l->up_mbps = link_log_parse_speed(p + strlen("Link is Up - "));
                l->up_downshifted = strstr(p, "(downshifted)") != NULL;
        }
        /* phy_check_downshift(), since 5.7: the PHY's own line, on its MDIO device */
        if ((p = strstr(line, "Downshift occurred from negotiated speed "))) {
                const char *to = strstr(p, " to actual speed ");
                unsigned neg = link_log_parse_speed(p + strlen("Downshift occurred from negotiated speed "));
                unsigned act = to ? link_log_parse_speed(to + strlen(" to actual speed ")) : 0;
                if (neg > 0 && act > 0) {
                        l->negotiated_mbps = neg;
                        l->actual_mbps = act;
                }
        }
}

/*
 * The kernel's own words when the OS does not control ASPM (drivers/pci/pcie/aspm.c,
 * drivers/acpi/pci_root.c): then the link/ attributes are hidden, or the group is not there.
 */
static const struct {
        const char *text, *why;
} aspm_lines[] = {
        { "pcie_aspm=off", "the kernel command line has pcie_aspm=off" },
        { "PCIe ASPM is disabled", "ASPM is disabled on the kernel command line (pcie_aspm=off)" },
        { "FADT declares the system doesn't support PCIe ASPM",
          "the firmware's ACPI FADT says the platform does not support ASPM, so the kernel leaves it as the BIOS set it" },
        { "FADT indicates ASPM is unsupported", "the firmware's ACPI FADT says the platform does not support ASPM" },
        { "platform retains control of PCIe features",
          "the firmware kept control of PCIe features (ACPI _OSC), ASPM among them" },
        { "_OSC failed", "the firmware's ACPI _OSC failed, so the kernel does not control ASPM" },
        { "OS doesn't have ASPM control", "the OS has no ASPM control here (r8169 says so at probe)" },
};

void aspm_control_log_line(AspmControlLog *a, const char *line) {
        if (a->why)
                return;
        for (size_t i = 0; i < ELEMENTSOF(aspm_lines); i++) {
                if (!strstr(line, aspm_lines[i].text))
                        continue;
                /* A command line that merely mentions it elsewhere does not count: the parameter itself. */
                if (i == 0 && !strstr(line, "ommand line:"))
                        continue;
                a->why = aspm_lines[i].why;
                snprintf(a->line, sizeof(a->line), "%s", line);
                return;
        }
}

const char *nic_link_attrs_missing(const Sysroot *root, const Nic *n, const AspmControlLog *aspm, const char **line) {
        _cleanup_dir_names_ DirNames d = { .fd = -EBADF };
        char dir[64];
        size_t attrs = 0;
        int fd;

        *line = NULL;
        if (!n->link.pcie)
                return NULL;
        snprintf(dir, sizeof(dir), "bus/pci/devices/%s/link", n->slot);
        if (sysroot_dir_names(root, dir, &d) >= 0)
                for (const char *e; (e = dir_names_next(&d));)
                        attrs += e[0] != '.';
        if (attrs > 0)
                return NULL;
        if (aspm && aspm->why) {
                *line = aspm->line;
                return aspm->why;
        }
        /* CONFIG_PCIEASPM=y is what gives the pcie_aspm.policy parameter. */
        fd = sysroot_open_dir(root, "module/pcie_aspm");
        if (fd == -ENOENT)
                return "this kernel is built without CONFIG_PCIEASPM";
        if (fd >= 0)
                close(fd);
        return "the kernel shows no ASPM attributes for this link, and its log does not say why (firmware-owned ASPM, "
               "or pcie_aspm=off, before the kernel log began)";
}

bool nic_kernel_line_is_ours(const Nic *n, const char *line) {
        unsigned dom, bus, dev, fn;
        char mdio[40];

        if (strstr(line, n->slot))
                return true;
        /* r8169 names its MDIO bus r8169-<domain>-<bus<<8 | devfn>, in hex. */
        if (sscanf(n->slot, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4) {
                snprintf(mdio, sizeof(mdio), "r8169-%x-%x:", dom, bus << 8 | dev << 3 | fn);
                if (strstr(line, mdio))
                        return true;
        }
        for (size_t i = 0; i < n->n_ifnames; i++) {
                char watchdog[64];
                snprintf(watchdog, sizeof(watchdog), "NETDEV WATCHDOG: %s ", n->ifnames[i]);
                if (strstr(line, watchdog))
                        return true;
        }
        return false;
}

bool nic_kernel_device_is_ours(const Nic *n, const char *device, size_t len) {
        char want[64], line[128];

        if (len == 0 || len >= sizeof(line))
                return false;
        snprintf(want, sizeof(want), "+pci:%s", n->slot);
        if (len == strlen(want) && memcmp(device, want, len) == 0)
                return true;
        /* The PHY's lines: "+mdio_bus:r8169-0-300:00" */
        memcpy(line, device, len);
        line[len] = '\0';
        return strncmp(line, "+mdio_bus:", 10) == 0 && nic_kernel_line_is_ours(n, line + 10);
}

typedef struct LinkLogScan {
        const Nic *const *nics;
        size_t n;
        LinkLog *ret;
        AspmControlLog *aspm;
} LinkLogScan;

static void scan_line(const char *line, size_t len, void *userdata) {
        LinkLogScan *s = userdata;

        (void) len;
        aspm_control_log_line(s->aspm, line);
        for (size_t i = 0; i < s->n; i++)
                if (nic_kernel_line_is_ours(s->nics[i], line))
                        link_log_line(&s->ret[i], line);
}

static void scan_device_line(const char *line, size_t len, const char *device, size_t dlen, void *userdata) {
        LinkLogScan *s = userdata;

        (void) len;
        aspm_control_log_line(s->aspm, line);
        for (size_t i = 0; i < s->n; i++)
                if (nic_kernel_line_is_ours(s->nics[i], line) || nic_kernel_device_is_ours(s->nics[i], device, dlen))
                        link_log_line(&s->ret[i], line);
}

int link_log_read(const char *path, const Nic *const *nics, size_t n, LinkLog *ret, AspmControlLog *aspm) {
        LinkLogScan s = { nics, n, ret, aspm };

        for (size_t i = 0; i < n; i++)
                ret[i] = (LinkLog) {};
        *aspm = (AspmControlLog) {};
        return path ? kernel_log_for_each_line(path, scan_line, &s) : kernel_log_this_boot(scan_device_line, &s);
}
