#!/usr/bin/env python3
"""Raises a uevent in the caller's network namespace through the kernel, as a driver would:

    uevent-inject.py ACTION DEVPATH SUBSYSTEM [KEY=VALUE...]

The kernel's NETLINK_KOBJECT_UEVENT socket takes a uevent from a process with CAP_SYS_ADMIN
over the namespace (Linux 4.18, "netns: send uevent messages"), adds a SEQNUM and
broadcasts it to the namespace as its own: systemd-udevd there processes it like any
kernel uevent and passes it on to udev monitors. For devices that cannot exist here (no
battery or AC adapter in a VM): the event path is the real one, only its origin is not.
Exits 0 once the kernel has acknowledged the message."""
import socket
import struct
import sys

NETLINK_KOBJECT_UEVENT = 15
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLMSG_ERROR = 0x2
NLMSG_MIN_TYPE = 0x10  # the kernel hands lower types to netlink itself

if len(sys.argv) < 4:
    sys.exit(__doc__)
action, devpath, subsystem = sys.argv[1:4]
env = ["ACTION=" + action, "DEVPATH=" + devpath, "SUBSYSTEM=" + subsystem] + sys.argv[4:]
payload = (action + "@" + devpath + "\0" + "".join(e + "\0" for e in env)).encode()
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_KOBJECT_UEVENT)
s.bind((0, 0))
s.sendto(struct.pack("=IHHII", 16 + len(payload), NLMSG_MIN_TYPE, NLM_F_REQUEST | NLM_F_ACK, 1, 0) + payload, (0, 0))
reply = s.recv(4096)
if struct.unpack_from("=H", reply, 4)[0] != NLMSG_ERROR:
    sys.exit("uevent-inject: unexpected reply from the kernel")
err = struct.unpack_from("=i", reply, 16)[0]
if err:
    sys.exit("uevent-inject: the kernel refused the uevent: errno %d" % -err)
