/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "context.h"

/* Each returns the process exit code. */
int cmd_status(const Options *o);
