#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmarks r8169-tuned against what users do today, side by side in one run.

Runs inside the sandbox that tests/bench/run.sh sets up (its own network and mount
namespaces, a real systemd-udevd with an empty rules directory). Three ways to get the same
knobs onto a new interface - TSO off, gro_flush_timeout 20000, napi_defer_hard_irqs 1:

  r8169-tuned   the daemon, with a fixture tree of RTL8168c NICs named like the interfaces
                (it waits for udev like any consumer of sd-device; the two NAPI attributes
                go to the fixture tree, TSO to the real interface)
  .link+ATTR    udevd's net_setup_link builtin with a .link file (TCPSegmentationOffload=)
                plus an ATTR{} rule for the NAPI attributes: runs inside udevd itself
  RUN+=ethtool  a udev rule running a shell that calls ethtool and echo

Prints one table. Not part of pass/fail: numbers depend on the machine.
"""
import array
import fcntl
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

R8T = os.environ["R8T"]
SRCDIR = os.environ["SRCDIR"]
TMP = tempfile.mkdtemp(prefix="r8t-bench.")
# Undo journals live on tmpfs, as /run/r8169-tuned does under systemd (fsync is free there).
STATE = tempfile.mkdtemp(prefix="r8t-bench-state.", dir="/run")
ONE_BY_ONE = int(os.environ.get("BENCH_ONE_BY_ONE", "50"))
BURST = int(os.environ.get("BENCH_BURST", "200"))
IDLE_SECONDS = int(os.environ.get("BENCH_IDLE", "10"))
APPLY_SIZES = [int(x) for x in os.environ.get("BENCH_APPLY_SIZES", "1 10 100 1000").split()]
NICS = ONE_BY_ONE + BURST

SIOCETHTOOL = 0x8946
ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GFEATURES = 0x37, 0x1B, 0x3A
ETH_SS_FEATURES = 4


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


class Features:
    """Reads one kernel feature by name with SIOCETHTOOL, fast enough to poll every millisecond."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
        self.index = None

    def _ioctl(self, ifname, buf):
        ifr = struct.pack("16sP", ifname.encode(), buf.buffer_info()[0])
        fcntl.ioctl(self.sock, SIOCETHTOOL, ifr)

    def _resolve(self, ifname, name):
        info = array.array("B", struct.pack("IIQI", ETHTOOL_GSSET_INFO, 0, 1 << ETH_SS_FEATURES, 0))
        self._ioctl(ifname, info)
        count = struct.unpack_from("I", info, 16)[0]
        strings = array.array("B", struct.pack("III", ETHTOOL_GSTRINGS, ETH_SS_FEATURES, count) + bytes(32 * count))
        self._ioctl(ifname, strings)
        names = [bytes(strings[12 + 32 * i:12 + 32 * (i + 1)]).split(b"\0")[0].decode() for i in range(count)]
        self.index = names.index(name)
        self.blocks = (count + 31) // 32

    def active(self, ifname, name="tx-tcp-segmentation"):
        if self.index is None:
            self._resolve(ifname, name)
        buf = array.array("B", struct.pack("II", ETHTOOL_GFEATURES, self.blocks) + bytes(16 * self.blocks))
        self._ioctl(ifname, buf)
        word = struct.unpack_from("IIII", buf, 8 + 16 * (self.index // 32))
        return bool(word[2] & (1 << (self.index % 32)))  # .active


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def proc_stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])  # utime stime cutime cstime


def ctxt(pid):
    total = 0
    for line in open(f"/proc/{pid}/status"):
        if "ctxt_switches" in line:
            total += int(line.split()[1])
    return total


def children(pid):
    try:
        return [int(p) for p in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        return []


def memory(pids, anon=False):
    """RSS and PSS in KiB over a set of processes (or only their anonymous PSS: their own memory)."""
    rss = pss = pss_anon = 0
    for pid in pids:
        try:
            for line in open(f"/proc/{pid}/smaps_rollup"):
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
                elif line.startswith("Pss_Anon:"):
                    pss_anon += int(line.split()[1])
        except OSError:
            pass
    return (rss, pss, pss_anon) if anon else (rss, pss)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Setup:
    name = ""
    prefix = ""

    def start(self):
        pass

    def stop(self):
        pass

    def pids(self):
        return []

    def napi_dir(self, ifname):
        return f"/sys/class/net/{ifname}"

    def tuned(self, feats, ifname):
        try:
            if feats.active(ifname):
                return False
        except OSError:
            return False
        d = self.napi_dir(ifname)
        return read(f"{d}/gro_flush_timeout") == "20000" and read(f"{d}/napi_defer_hard_irqs") == "1"


def udevd_pid():
    out = subprocess.run(["pgrep", "-x", "-P", str(os.getppid()), "systemd-udevd"], capture_output=True, text=True)
    pids = [int(p) for p in out.stdout.split()]
    if not pids:  # started by the sandbox shell, our parent's parent
        out = subprocess.run(["pgrep", "-x", "systemd-udevd"], capture_output=True, text=True)
        pids = [int(p) for p in out.stdout.split()]
    return pids[-1]


def write_rules(text, link=None):
    os.makedirs("/run/udev/rules.d", exist_ok=True)
    with open("/run/udev/rules.d/80-bench.rules", "w") as f:
        f.write(text)
    os.makedirs("/run/systemd/network", exist_ok=True)
    if link:
        with open("/run/systemd/network/10-bench.link", "w") as f:
            f.write(link)
    elif os.path.exists("/run/systemd/network/10-bench.link"):
        os.unlink("/run/systemd/network/10-bench.link")
    sh("udevadm control --reload")


class Tuned(Setup):
    name = "r8169-tuned"
    prefix = "a"

    def __init__(self):
        self.fx = os.path.join(TMP, "fx-tuned")
        desc = os.path.join(TMP, "tuned.fixture")
        write_fixture(desc, NICS, self.prefix)
        sh(f"{SRCDIR}/tests/fixtures/mkfixture {desc} {self.fx}")
        self.quirks = os.path.join(TMP, "quirks")
        os.makedirs(self.quirks, exist_ok=True)
        with open(os.path.join(self.quirks, "50-bench.conf"), "w") as f:
            f.write("[bench]\nxid = 3c0/7c8\nprofiles = performance powersave\ntso = off\n"
                    "gro_flush_timeout = 20000\nnapi_defer_hard_irqs = 1\n"
                    "reason = the knobs every setup of this benchmark applies\nreference = https://example.org/bench\n")
        self.conf = os.path.join(TMP, "empty.conf")
        open(self.conf, "w").close()

    def start(self):
        write_rules("")
        self.startup = startup_to_ready(self.fx, self.quirks, self.conf)
        self.proc, _ = start_daemon(self.fx, self.quirks, self.conf)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()

    def pids(self):
        return [self.proc.pid]

    def napi_dir(self, ifname):
        return f"{self.fx}/sys/class/net/{ifname}"


class Link(Setup):
    name = ".link+ATTR"
    prefix = "l"

    def start(self):
        write_rules('SUBSYSTEM=="net", ACTION=="add", KERNEL=="l*", IMPORT{builtin}="net_setup_link"\n'
                    'SUBSYSTEM=="net", ACTION=="add", KERNEL=="l*", ATTR{gro_flush_timeout}="20000", '
                    'ATTR{napi_defer_hard_irqs}="1"\n',
                    "[Match]\nOriginalName=l*\n\n[Link]\nTCPSegmentationOffload=false\nTCP6SegmentationOffload=false\n")

    def pids(self):
        p = udevd_pid()
        return [p] + children(p)


class Shell(Setup):
    name = "RUN+=ethtool"
    prefix = "r"

    def start(self):
        write_rules('SUBSYSTEM=="net", ACTION=="add", KERNEL=="r*", RUN+="/bin/sh -c \'ethtool -K $kernel tso off; '
                    'echo 20000 > /sys/class/net/$kernel/gro_flush_timeout; '
                    'echo 1 > /sys/class/net/$kernel/napi_defer_hard_irqs\'"\n')

    def pids(self):
        p = udevd_pid()
        return [p] + children(p)


def write_fixture(path, n, prefix):
    with open(path, "w") as f:
        f.write("[machine]\npower = none\n")
        for i in range(n):
            f.write(f"[device 0000:{1 + i // 32:02x}:{i % 32:02x}.0]\nvendor = 10ec\ndevice = 8168\n"
                    f"subsystem = 1043:82c6\ndriver = r8169\ninterface = {prefix}{i}\n"
                    f"mac = 02:00:00:00:{i // 256:02x}:{i % 256:02x}\ntxconfig = 3c400000\n"
                    "gro_flush_timeout = 0\nnapi_defer_hard_irqs = 0\n")


def start_daemon(fx, quirks, conf, notify=None):
    env = dict(os.environ)
    if notify:
        env["NOTIFY_SOCKET"] = notify
    state = tempfile.mkdtemp(dir=STATE)
    proc = subprocess.Popen([R8T, "--sysfs", f"{fx}/sys", "--quirks", quirks, "--config", conf, "--state-dir", state,
                             "--profile", "performance", "--log-target", "journal", "--log-level", "warning", "daemon"],
                            env=env)
    return proc, state


def startup_to_ready(fx, quirks, conf, runs=5):
    """exec() to READY=1 with one NIC, best of a few runs."""
    one = os.path.join(TMP, "fx-one")
    if not os.path.exists(one):
        desc = os.path.join(TMP, "one.fixture")
        write_fixture(desc, 1, "z")
        sh(f"{SRCDIR}/tests/fixtures/mkfixture {desc} {one}")
    best = None
    for _ in range(runs):
        path = os.path.join(TMP, "notify.sock")
        if os.path.exists(path):
            os.unlink(path)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(path)
        t0 = time.monotonic()
        proc, _ = start_daemon(one, quirks, conf, notify=path)
        s.settimeout(10)
        while b"READY=1" not in s.recv(4096):
            pass
        elapsed = time.monotonic() - t0
        proc.terminate()
        proc.wait()
        s.close()
        best = elapsed if best is None else min(best, elapsed)
    return best


def hotplug(setup, feats):
    """Latency from 'interface created' to 'TSO off and both NAPI attributes set', per interface."""
    one = []
    for i in range(ONE_BY_ONE):
        name = f"{setup.prefix}{i}"
        t0 = time.monotonic()
        sh(f"ip link add {name} type veth peer name p{name}")
        while not setup.tuned(feats, name):
            if time.monotonic() - t0 > 10:
                raise SystemExit(f"{setup.name}: {name} not tuned after 10 s")
            time.sleep(0.0005)
        one.append(time.monotonic() - t0)

    names = [f"{setup.prefix}{i}" for i in range(ONE_BY_ONE, ONE_BY_ONE + BURST)]
    batch = os.path.join(TMP, f"burst-{setup.prefix}")
    with open(batch, "w") as f:
        f.writelines(f"link add {n} type veth peer name p{n}\n" for n in names)
    pids = setup.pids()
    cpu0 = sum(proc_stat(p) for p in pids)
    peak_rss = peak_pss = 0
    pending, burst = set(names), {}
    t0 = time.monotonic()
    sh(f"ip -batch {batch}")
    while pending:
        for n in list(pending):
            if setup.tuned(feats, n):
                burst[n] = time.monotonic() - t0
                pending.discard(n)
        rss, pss = memory(setup.pids())
        peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
        if time.monotonic() - t0 > 120:
            raise SystemExit(f"{setup.name}: {len(pending)} interfaces not tuned after 120 s")
        time.sleep(0.001)
    time.sleep(0.5)  # let RUN+= children be reaped into cutime
    cpu = sum(proc_stat(p) for p in setup.pids()) - cpu0
    return one, list(burst.values()), cpu / os.sysconf("SC_CLK_TCK"), peak_rss, peak_pss


def idle(setup):
    time.sleep(1)
    pids = setup.pids()
    before = sum(ctxt(p) for p in pids)
    rss, pss, pss_anon = memory(pids, anon=True)
    time.sleep(IDLE_SECONDS)
    return sum(ctxt(p) for p in setup.pids()) - before, rss, pss, pss_anon


def cleanup(prefix):
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    names = [l.split(":")[1].strip().split("@")[0] for l in out.splitlines()]
    with open(os.path.join(TMP, "del"), "w") as f:
        f.writelines(f"link del {n}\n" for n in names if n.startswith(prefix) and n[1:].isdigit())
    subprocess.run(["ip", "-force", "-batch", os.path.join(TMP, "del")], capture_output=True)


def apply_cost():
    rows = []
    quirks = os.path.join(TMP, "quirks")
    conf = os.path.join(TMP, "empty.conf")
    for n in APPLY_SIZES:
        fx = os.path.join(TMP, f"fx-apply-{n}")
        desc = os.path.join(TMP, f"apply-{n}.fixture")
        write_fixture(desc, n, "x")
        sh(f"{SRCDIR}/tests/fixtures/mkfixture {desc} {fx}")
        base = [R8T, "--sysfs", f"{fx}/sys", "--quirks", quirks, "--config", conf, "--profile", "performance"]
        times = []
        for _ in range(3):
            state = tempfile.mkdtemp(dir=STATE)
            sh(f"cat $(find {fx} -type f) >/dev/null")  # warm the page cache
            t0 = time.monotonic()
            subprocess.run(base + ["--state-dir", state, "apply"], capture_output=True)
            times.append(time.monotonic() - t0)
            subprocess.run(base + ["--state-dir", state, "restore"], capture_output=True)
        state = tempfile.mkdtemp(dir=STATE)
        trace = os.path.join(TMP, f"strace-{n}")
        subprocess.run(["strace", "-f", "-c", "-o", trace] + base + ["--state-dir", state, "apply"], capture_output=True)
        calls = 0
        for line in open(trace):
            fields = line.split()
            if fields and fields[-1] == "total":  # "% seconds usecs/call calls [errors] total"
                calls = int(fields[3])
        rows.append((n, min(times), calls))
    return rows


def main():
    feats = Features()
    setups = [Tuned(), Link(), Shell()]
    results = {}
    for s in setups:
        s.start()
        time.sleep(0.5)
        idle_wakeups, idle_rss, idle_pss, idle_anon = idle(s)
        one, burst, cpu, peak_rss, peak_pss = hotplug(s, feats)
        results[s.name] = dict(one=one, burst=burst, cpu=cpu, idle_wakeups=idle_wakeups, idle_rss=idle_rss,
                               idle_pss=idle_pss, idle_anon=idle_anon, peak_rss=peak_rss, peak_pss=peak_pss,
                               startup=getattr(s, "startup", None))
        s.stop()
        cleanup(s.prefix)
    apply = apply_cost() if APPLY_SIZES else []

    ms = lambda v: f"{v * 1000:.1f}"
    print(f"\nr8169-tuned benchmark: {ONE_BY_ONE} interfaces one by one, a burst of {BURST}, "
          f"{IDLE_SECONDS} s idle; kernel {os.uname().release}, {os.cpu_count()} CPUs\n")
    print("| | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    rows = [
        ("hotplug one by one p50 / p95 / max (ms)",
         lambda r: f"{ms(statistics.median(r['one']))} / {ms(percentile(r['one'], 95))} / {ms(max(r['one']))}"),
        (f"burst of {BURST}: all tuned; p50 / p95 / max (ms)",
         lambda r: f"{len(r['burst'])}/{BURST}; {ms(statistics.median(r['burst']))} / {ms(percentile(r['burst'], 95))} / {ms(max(r['burst']))}"),
        ("CPU time for the burst (s)", lambda r: f"{r['cpu']:.2f}"),
        ("start-up to READY=1, one NIC (ms)", lambda r: ms(r["startup"]) if r["startup"] else "n/a (inside udevd)"),
        (f"wakeups in {IDLE_SECONDS} s idle", lambda r: str(r["idle_wakeups"])),
        ("RSS / PSS idle (KiB)", lambda r: f"{r['idle_rss']} / {r['idle_pss']}"),
        ("PSS of its own (anonymous) memory, idle (KiB)", lambda r: str(r["idle_anon"])),
        ("RSS / PSS peak (KiB)", lambda r: f"{r['peak_rss']} / {r['peak_pss']}"),
    ]
    for label, f in rows:
        print(f"| {label} | " + " | ".join(f(r) for r in results.values()) + " |")

    t, l, s = results["r8169-tuned"], results[".link+ATTR"], results["RUN+=ethtool"]
    print("\nTargets (ratios from this run):")
    checks = [
        ("hotplug p50 <= 2x the .link builtin's", statistics.median(t["one"]) <= 2 * statistics.median(l["one"]),
         statistics.median(t["one"]) / statistics.median(l["one"])),
        ("hotplug p50 >= 5x faster than the shell rule", statistics.median(s["one"]) >= 5 * statistics.median(t["one"]),
         statistics.median(s["one"]) / statistics.median(t["one"])),
        ("burst p95 no worse than .link's", percentile(t["burst"], 95) <= percentile(l["burst"], 95),
         percentile(t["burst"], 95) / percentile(l["burst"], 95)),
        ("zero idle wakeups", t["idle_wakeups"] == 0, t["idle_wakeups"]),
        ("PSS idle under 1 MiB", t["idle_pss"] < 1024, t["idle_pss"]),
        ("own (anonymous) PSS idle under 1 MiB", t["idle_anon"] < 1024, t["idle_anon"]),
        ("start-up under 10 ms", t["startup"] < 0.010, t["startup"] * 1000),
    ]
    for label, met, value in checks:
        print(f"- {'met' if met else 'NOT met'}: {label} ({value:.2f})")

    if apply:
        print("\nApply cost per NIC (one-shot `apply` on fixture trees; NICs without a kernel interface):\n")
        print("| NICs | time (ms) | per NIC (ms) | syscalls | per NIC |")
        print("|---|---|---|---|---|")
        for n, secs, calls in apply:
            print(f"| {n} | {secs * 1000:.1f} | {secs * 1000 / n:.3f} | {calls} | {calls / n:.1f} |")
    with open(os.path.join(os.environ.get("BENCH_OUT", TMP), "bench.json"), "w") as f:
        json.dump(dict(results=results, apply=apply), f)


if __name__ == "__main__":
    main()
