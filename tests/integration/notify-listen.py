#!/usr/bin/env python3
"""Listens on a NOTIFY_SOCKET like systemd does and appends each datagram, one per line
(its fields joined by ';', then RECEIVED=<CLOCK_MONOTONIC seconds>), to a file. Runs until killed."""
import os
import socket
import sys
import time

path, out = sys.argv[1], sys.argv[2]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(out, "a", buffering=1) as f:
    while True:
        data = s.recv(4096)
        fields = data.decode(errors="replace").strip().split("\n")
        f.write(";".join(fields + [f"RECEIVED={time.monotonic():.6f}"]) + "\n")
