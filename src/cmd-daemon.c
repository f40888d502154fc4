/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "commands.h"
#include "manager.h"

int cmd_daemon(const Options *o) {
        return manager_run(o);
}
