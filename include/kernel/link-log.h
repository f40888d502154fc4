/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What the kernel's messages say about a NIC's link and about the machine's ASPM control:
 * the speed phylib last reported ("Link is Up - 100Mbps/Full (downshifted)"), a PHY downshift
 * ("Downshift occurred from negotiated speed 1Gbps to actual speed 100Mbps, check cabling!",
 * phy_check_downshift()), and the line that says why the OS has no ASPM control, which is why
 * a link/ group can be empty or absent (pcie_aspm=off, ACPI FADT, _OSC).
 */
#include "kernel/nic.h"
#include "kernel/sysroot.h"

typedef struct LinkLog {
        unsigned up_mbps;          /* the last "Link is Up" line's speed; 0: none */
        bool up_downshifted;       /* that line said "(downshifted)" */
        unsigned negotiated_mbps;  /* the last downshift line's; 0: none */
        unsigned actual_mbps;
} LinkLog;

/* The machine's: why the OS has no ASPM control, from the first line that says so. */
typedef struct AspmControlLog {
        const char *why; /* static text; NULL: no line said so */
        char line[200];  /* the line, cut */
} AspmControlLog;

/* A phylib speed ("100Mbps", "2.5Gbps") in Mb/s; 0 when it is none. */
unsigned link_log_parse_speed(const char *s);
/* One line known to be this NIC's (nic_kernel_line_is_ours()). */
void link_log_line(LinkLog *l, const char *line);
/* Any line: the first that explains an absent ASPM control is kept. */
void aspm_control_log_line(AspmControlLog *a, const char *line);

/*
 * Why the NIC's link/ group (the ASPM knobs) is absent or empty: NULL when it has attributes or
 * the NIC has no PCIe link; else the kernel's reason from aspm (its line in *line), a kernel built
 * without CONFIG_PCIEASPM, or that nothing says why.
 */
const char *nic_link_attrs_missing(const Sysroot *root, const Nic *n, const AspmControlLog *aspm, const char **line);

/* Is this kernel line about this NIC: its slot, its MDIO bus (the PHY's lines), or its watchdog? */
bool nic_kernel_line_is_ours(const Nic *n, const char *line);
/* The journal's _KERNEL_DEVICE of a line ("+pci:0000:03:00.0", "+mdio_bus:r8169-0-300:00"): this NIC's? */
bool nic_kernel_device_is_ours(const Nic *n, const char *device, size_t len);

/*
 * Reads the kernel's messages once, from path (--kernel-log) or, path NULL, from this boot's
 * journal: for each of the n NICs its LinkLog, and the machine's AspmControlLog. A negative
 * errno when they cannot be read (nothing is then known).
 */
int link_log_read(const char *path, const Nic *const *nics, size_t n, LinkLog *ret, AspmControlLog *aspm);
