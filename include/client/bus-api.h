/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The service's D-Bus names (conf/dbus/io.github.r8169_tuned1.Manager.xml), for the service and its commands. */
#define BUS_NAME "io.github.r8169_tuned1"
#define BUS_PATH "/io/github/r8169_tuned1"
#define BUS_NIC_PREFIX BUS_PATH "/nic"
#define BUS_MANAGER BUS_NAME ".Manager"
#define BUS_NIC BUS_NAME ".Nic"
