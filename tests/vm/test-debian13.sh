#!/usr/bin/env bash
# The VM matrix on Debian 13: its package, its kernel 6.12 (see matrix.sh).
exec bash "$SRCDIR/tests/vm/matrix.sh" trixie
