/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A quirk entry as its file says it (text) or as schema 1 has it (JSON), and its grounds. */
#include "decide/quirks.h"
#include "show/out.h"
#include "show/report.h"

void report_quirk_show(Out *o, const Quirk *q);
/* A quirk's grounds, wrapped: its reason after first, then its evidence, counter-evidence and references. */
void report_quirk_grounds_text(Out *o, const Quirk *q, const char *first);

