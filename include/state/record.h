/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdio.h>

/*
 * A record the program keeps for itself (the undo journal, guard and link-power records), opened
 * as state/record.c says: the fd or -errno; record_fopen() says a refusal as a warning;
 * record_refusal() says why one was refused (NULL for an error that is not a refusal).
 */
int record_open(const char *path);
FILE *record_fopen(const char *path);
const char *record_refusal(int error);
