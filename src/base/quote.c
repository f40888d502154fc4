/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"

/* The length of the UTF-8 sequence at p (1-4), or 0 when it is none (a stray or cut byte). */
static size_t utf8_length(const unsigned char *p) {
        size_t n;
        uint32_t cp;

        if (p[0] < 0x80)
                return 1;
        if ((p[0] & 0xe0) == 0xc0)
                n = 2, cp = p[0] & 0x1f;
        else if ((p[0] & 0xf0) == 0xe0)
                n = 3, cp = p[0] & 0x0f;
        else if ((p[0] & 0xf8) == 0xf0)
                n = 4, cp = p[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[i] & 0x3f);
        }
        /* Overlong forms, surrogates and what lies past U+10FFFF are no UTF-8. */
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
            cp > 0x10ffff)
                return 0;
        /* C1 controls (U+0080-U+009F): 0x9b is a terminal's CSI. */
        if (cp >= 0x80 && cp <= 0x9f)
                return 0;
        return n;
}

size_t quote_next(const char *s, QuoteMode mode, char piece[QUOTE_PIECE_MAX], size_t *piece_len) {
        const unsigned char *p = (const unsigned char *) s;
        size_t n = utf8_length(p);

        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
                /* A C1 control's bytes, or a stray byte, are escaped one at a time. */
                *piece_len = (size_t) (*p == '\n'   ? snprintf(piece, QUOTE_PIECE_MAX, "\\n") :
                                       *p == '\r' ? snprintf(piece, QUOTE_PIECE_MAX, "\\r") :
                                       *p == '\t' ? snprintf(piece, QUOTE_PIECE_MAX, "\\t") :
                                                    snprintf(piece, QUOTE_PIECE_MAX, "\\x%02x", *p));
                return 1;
        }
        *piece_len = 0;
        /* An underscore can only close emphasis before a space, punctuation or the end: one
         * inside a word (rx_missed) stays as it is. */
        if (mode == QUOTE_MARKDOWN_INLINE && n == 1 && strchr("\\`*[]<>|~", *p))
                piece[(*piece_len)++] = '\\';
        else if (mode == QUOTE_MARKDOWN_INLINE && *p == '_' && (p[1] <= ' ' || ispunct(p[1]) || p[1] == 0x7f))
                piece[(*piece_len)++] = '\\';
        memcpy(piece + *piece_len, p, n);
        *piece_len += n;
        piece[*piece_len] = 0;
        return n;
}

char *quote_text(const char *s, QuoteMode mode) {
        const char *p = s ?: "";
        char *buf = NULL, piece[QUOTE_PIECE_MAX];
        size_t size = 0, len;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        while (*p) {
                p += quote_next(p, mode, piece, &len);
                fwrite(piece, 1, len, f);
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

size_t quote_fence_length(const char *const *lines, size_t n) {
        size_t longest = 0;

        for (size_t i = 0; i < n; i++)
                for (const char *p = lines[i] ?: ""; *p;) {
                        size_t run = strspn(p, "`");
                        if (run > longest)
                                longest = run;
                        p += run ? run : 1;
                }
        return longest + 1 > 3 ? longest + 1 : 3;
}

void quote_fence(FILE *out, size_t length) {
        for (size_t i = 0; i < length; i++)
                fputc('`', out);
        fputc('\n', out);
}
