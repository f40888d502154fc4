#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""validate-json.py SCHEMA DEF [FILE...]: validates each FILE (or stdin) against $defs/DEF of SCHEMA.

Prints one line per error (the JSON path and the message) and exits 1 if any file fails."""
import json
import sys

import jsonschema


def main():
    schema_path, definition, files = sys.argv[1], sys.argv[2], sys.argv[3:] or ["-"]
    with open(schema_path) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    # The named definition, resolved against the whole document so that its $refs work.
    sub = dict(schema)
    sub.pop("oneOf", None)
    sub["$ref"] = "#/$defs/" + definition
    validator = cls(sub)
    bad = 0
    for path in files:
        text = sys.stdin.read() if path == "-" else open(path).read()
        try:
            doc = json.loads(text)
        except ValueError as e:
            print(f"{path}: not JSON: {e}")
            bad += 1
            continue
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            loc = "".join(f"[{p!r}]" for p in err.absolute_path) or "(top)"
            print(f"{path}: {loc}: {err.message}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
