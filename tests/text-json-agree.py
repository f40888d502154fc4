#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""text-json-agree.py COMMAND TEXT JSON [COMMAND TEXT JSON...]: the text and the --json output of one command, run on the
same machine, say the same things (the two are written by separate code: this is the drift check).

status: every knob line's value is the JSON knob's value; plan: each NIC's table (keep, change, skip,
suggest, held back, guarded) is the JSON's items, suggested, held_back and guarded; quirks: every
entry, and each of its match-* lines, is in the JSON's match object with the same words.
Prints one line per disagreement and exits 1 if there is any."""
import json
import re
import sys


def nic_blocks(text):
    """The text split at each NIC's header line ("0000:01:00.0  enp1s0  ..."), by slot."""
    blocks, slot = {}, None
    for line in text.splitlines():
        m = re.match(r"^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])\s", line)
        if m:
            slot = m.group(1)
            blocks[slot] = []
        elif slot:
            blocks[slot].append(line)
    return blocks


def text_value(v):
    return {True: "1", False: "0"}.get(v, str(v))


def status(text, doc):
    bad = []
    blocks = nic_blocks(text)
    for nic in doc["nics"]:
        lines = blocks.get(nic["slot"])
        if lines is None:
            bad.append(f"{nic['slot']}: in JSON, not in text")
            continue
        seen = 0
        for line in lines:
            m = re.match(r"^    ([a-z0-9_]+)\s+(\S+)", line)
            if not m or m.group(1) not in nic["knobs"]:
                continue
            seen += 1
            want = text_value(nic["knobs"][m.group(1)]["value"])
            if m.group(2) != want:
                bad.append(f"{nic['slot']} {m.group(1)}: text {m.group(2)}, JSON {want}")
        if seen == 0 and not nic.get("ignored"):
            bad.append(f"{nic['slot']}: no knob line in the text")
    return bad


def plan(text, doc):
    bad = []
    blocks = nic_blocks(text)
    for nic in doc["nics"]:
        lines = blocks.get(nic["slot"], [])
        got = sorted((m.group(1), m.group(2)) for m in (re.match(r"^  (keep|change|skip|suggest|held back|guarded)\s+([a-z0-9_]+)\s", l)
                                                        for l in lines) if m)
        want = sorted([(i["action"], i["knob"]) for i in nic["items"]] + [("suggest", i["knob"]) for i in nic["suggested"]] +
                      [("held back", i["knob"]) for i in nic["held_back"]] + [("guarded", i["knob"]) for i in nic["guarded"]])
        if got != want:
            bad.append(f"{nic['slot']}: text {got}, JSON {want}")
    return bad


def quirks(text, doc):
    bad, entries, cur = [], {}, None
    for line in text.splitlines():
        m = re.match(r"^\[([^\]]+)\]", line)
        if m:
            cur = entries.setdefault(m.group(1), {})
            continue
        m = re.match(r"^  (match-[a-z0-9-]+) = (.*)$", line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2)
    # A list condition is an array of its words in JSON, any other (a glob, on/off) the string the text shows.
    js = {q["id"]: {k: " ".join(v) if isinstance(v, list) else v for k, v in q["match"].items()} for q in doc["quirks"]}
    if sorted(entries) != sorted(js):
        bad.append(f"entries: text {sorted(entries)}, JSON {sorted(js)}")
    for qid, conds in entries.items():
        if qid in js and conds != js[qid]:
            bad.append(f"{qid}: text {conds}, JSON {js[qid]}")
    return bad


def main():
    args, n_bad = sys.argv[1:], 0
    for i in range(0, len(args) - 2, 3):
        cmd, text_path, json_path = args[i:i + 3]
        with open(text_path) as f:
            text = f.read()
        with open(json_path) as f:
            doc = json.load(f)
        bad = {"status": status, "plan": plan, "quirks": quirks}[cmd](text, doc)
        for b in bad:
            print(f"{cmd} {text_path}: {b}")
        n_bad += len(bad)
    return 1 if n_bad or len(args) % 3 else 0


if __name__ == "__main__":
    sys.exit(main())
