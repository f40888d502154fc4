/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "decide/quirks.h"

/* Checks the database as a whole: duplicate ids, overlapping entries that contradict each other. */
void quirk_db_lint(const QuirkDb *db, Diagnostics *d);
