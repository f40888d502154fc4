#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""validate-json.py [--unseen] SCHEMA DEF [FILE...]: validates each FILE (or stdin) against $defs/DEF of SCHEMA.

Prints one line per error (the JSON path and the message) and exits 1 if any file fails.
With --unseen, also each key the definition declares that none of the files holds
(".nics[].knobs.*.errno"), so that the schema and what the program writes are held to each
other both ways: a key the program writes and the schema lacks fails validation, a key the
schema keeps and no output writes any more is named."""
import json
import sys

import jsonschema


def alternatives(defs, node):
    """node with its $ref resolved and its oneOf/anyOf/allOf branches, flattened."""
    if not isinstance(node, dict):
        return []
    if "$ref" in node:
        return alternatives(defs, defs[node["$ref"].split("/")[-1]])
    out = [node]
    for k in ("oneOf", "anyOf", "allOf"):
        for sub in node.get(k, []):
            out += alternatives(defs, sub)
    return out


def declared(defs, node, prefix, out, depth=0):
    """Every key path the schema node declares: ".a.b", "[]" for an array's items, ".*" for a map's values."""
    if depth > 12:  # a recursive definition: deep enough for any output's shape
        return
    for alt in alternatives(defs, node):
        for k, v in alt.get("properties", {}).items():
            out.add(prefix + "." + k)
            declared(defs, v, prefix + "." + k, out, depth + 1)
        if "items" in alt:
            declared(defs, alt["items"], prefix + "[]", out, depth + 1)
        if isinstance(alt.get("additionalProperties"), dict):
            declared(defs, alt["additionalProperties"], prefix + ".*", out, depth + 1)


def written(defs, node, doc, prefix, out):
    """The declared key paths that doc holds."""
    for alt in alternatives(defs, node):
        if isinstance(doc, dict):
            for k, v in doc.items():
                if k in alt.get("properties", {}):
                    out.add(prefix + "." + k)
                    written(defs, alt["properties"][k], v, prefix + "." + k, out)
                elif isinstance(alt.get("additionalProperties"), dict):
                    out.add(prefix + ".*")
                    written(defs, alt["additionalProperties"], v, prefix + ".*", out)
        elif isinstance(doc, list) and "items" in alt:
            for v in doc:
                written(defs, alt["items"], v, prefix + "[]", out)


def main():
    args = sys.argv[1:]
    unseen = args[:1] == ["--unseen"]
    if unseen:
        args = args[1:]
    schema_path, definition, files = args[0], args[1], args[2:] or ["-"]
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
    seen = set()
    for path in files:
        text = sys.stdin.read() if path == "-" else open(path).read()
        try:
            doc = json.loads(text)
        except ValueError as e:
            print(f"{path}: not JSON: {e}")
            bad += 1
            continue
        written(schema["$defs"], schema["$defs"][definition], doc, "", seen)
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            loc = "".join(f"[{p!r}]" for p in err.absolute_path) or "(top)"
            print(f"{path}: {loc}: {err.message}")
            bad += 1
    if unseen:
        keys = set()
        declared(schema["$defs"], schema["$defs"][definition], "", keys)
        for k in sorted(keys - seen):
            print(f"{definition}: no output writes {k}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
