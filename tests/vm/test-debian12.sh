#!/usr/bin/env bash
# The VM matrix on Debian 12: its package, its kernel 6.1 (see matrix.sh).
exec bash "$SRCDIR/tests/vm/matrix.sh" bookworm
