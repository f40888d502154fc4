/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Text from outside the program (journal lines any local user may have written, the kernel
 * log, sysfs and ethtool strings) made safe to print to a terminal and to paste as Markdown
 * (security review R1). Control characters (C0, DEL, UTF-8's C1 and bytes that are no UTF-8)
 * become visible escapes: \n, \r, \t, the rest \xHH. QUOTE_MARKDOWN_INLINE also
 * puts a backslash before what Markdown reads inline (\ ` * [ ] < > | ~, and _ where it could
 * end emphasis: before a space, punctuation or the end), for a table cell or a list item. NULL in, "" out. The result is malloc'd; NULL only when memory runs out.
 */
typedef enum QuoteMode {
        QUOTE_CONTROLS,        /* for a fenced code block, or a terminal */
        QUOTE_MARKDOWN_INLINE, /* for a table cell or a list item */
} QuoteMode;

char *quote_text(const char *s, QuoteMode mode);

/* One step of it: the piece the character at s (not its end) is shown as; returns the bytes of s
 * it stands for. printable() builds on it. */
#define QUOTE_PIECE_MAX 8
size_t quote_next(const char *s, QuoteMode mode, char piece[QUOTE_PIECE_MAX], size_t *piece_len);

/* The fence for a code block holding these (already quoted) lines: one backtick longer than the
 * longest run of backticks in them, and at least three, so no line can close it (CommonMark). */
size_t quote_fence_length(const char *const *lines, size_t n);
void quote_fence(FILE *out, size_t length);
