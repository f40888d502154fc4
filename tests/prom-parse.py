#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""prom-parse.py < METRICS: checks the Prometheus text exposition format strictly and prints
each sample as one line of JSON {"name", "labels", "value"}; exits 1 on the first problem.

What it checks: every sample's family has exactly one HELP and one TYPE line before its samples,
families are not interleaved, names and label names are valid, label values are quoted and
escaped as the format says, no label set repeats, values are numbers, counters end in _total
and are not negative."""
import json
import math
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


def die(n, line, why):
    print(f"line {n}: {why}: {line!r}", file=sys.stderr)
    sys.exit(1)


def labels(s, n, line):
    out, i = {}, 0
    while i < len(s):
        m = LABEL.match(s, i)
        if not m or s[m.end():m.end() + 2] != '="':
            die(n, line, "bad label")
        name, i = m.group(), m.end() + 2
        value = ""
        while True:
            if i >= len(s):
                die(n, line, "unterminated label value")
            c = s[i]
            if c == "\\":
                nxt = s[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    die(n, line, "bad escape")
                value += "\n" if nxt == "n" else nxt
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == "\n":
                die(n, line, "newline in label value")
            else:
                value += c
                i += 1
        if name in out:
            die(n, line, f"label {name} twice")
        out[name] = value
        if i < len(s):
            if s[i] != ",":
                die(n, line, "expected , between labels")
            i += 1
    return out


def main():
    helps, types, done, seen = {}, {}, set(), set()
    current = None
    text = sys.stdin.read()
    if text and not text.endswith("\n"):
        die(0, text[-40:], "no final newline")
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            kind, rest = line[2:6], line[7:]
            name, _, arg = rest.partition(" ")
            if not NAME.fullmatch(name) or not arg:
                die(n, line, "bad comment")
            table = helps if kind == "HELP" else types
            if name in table:
                die(n, line, f"second {kind} for {name}")
            if name in done:
                die(n, line, f"{name} after its samples ended")
            if kind == "TYPE" and arg not in ("counter", "gauge", "untyped", "summary", "histogram"):
                die(n, line, "bad type")
            if kind == "TYPE" and arg == "counter" and not name.endswith("_total"):
                die(n, line, "counter without _total")
            table[name] = arg
            if current and current != name:
                done.add(current)
            current = name
            continue
        if line.startswith("#") or not line.strip():
            die(n, line, "unexpected line")
        m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
        if not m:
            die(n, line, "not a sample")
        name, lab, value = m.group(1), m.group(2) or "", m.group(3)
        if name != current or name not in helps or name not in types:
            die(n, line, "sample without its HELP and TYPE just before")
        try:
            v = float(value)
        except ValueError:
            die(n, line, "value is not a number")
        if math.isnan(v) or (types[name] == "counter" and v < 0):
            die(n, line, "bad value")
        lb = labels(lab, n, line)
        key = (name, tuple(sorted(lb.items())))
        if key in seen:
            die(n, line, "duplicate series")
        seen.add(key)
        # An integral value as an integer: jq 1.7 (Debian 13) prints a float 1.0 as written, 1.6 as 1.
        print(json.dumps({"name": name, "labels": lb, "value": int(v) if v.is_integer() and abs(v) < 2**53 else v}))


if __name__ == "__main__":
    main()
