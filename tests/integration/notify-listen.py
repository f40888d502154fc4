#!/usr/bin/env python3
"""Listens on a NOTIFY_SOCKET like systemd does and appends each datagram, one per line
(its fields joined by ';', then RECEIVED=<seconds>, the kernel's CLOCK_REALTIME stamp of its
arrival: not when this listener got round to it), to a file. Runs until killed."""
import os
import socket
import struct
import sys

path, out = sys.argv[1], sys.argv[2]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Python 3.11 (Debian 12) does not name it
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
s.bind(path)
with open(out, "a", buffering=1) as f:
    while True:
        data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16))
        stamp = 0.0
        for level, kind, value in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                sec, nsec = struct.unpack("qq", value[:16])
                stamp = sec + nsec / 1e9
        fields = data.decode(errors="replace").strip().split("\n")
        f.write(";".join(fields + [f"RECEIVED={stamp:.6f}"]) + "\n")
