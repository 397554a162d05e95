#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""fastroute benchmark harness: throughput over net_memif, and an RFC 2544
zero-loss search. Run through scripts/bench/throughput.sh and
scripts/bench/rfc2544.sh (this file holds the code both share).

Throughput method:
  * One generator process (build/tests/bench/pktgen/fastroute-pktgen, CPU0)
    is the memif SERVER of one port pair per DUT. Every DUT (fastroute,
    dpdk-testpmd io, dpdk-testpmd mac, DPDK l3fwd-LPM) is a memif CLIENT of
    its own pair, forwarding on CPU1, and is started once per route table:
    l3fwd takes 3 to 5 minutes to insert a million routes, and a
    memif client never reconnects once its server went away, so nothing is
    restarted between measurements. A DUT whose route load times out (l3fwd)
    is n/a for that table; the other DUTs are measured.
  * Only the DUT being measured runs. fastroute and l3fwd forward on a
    polling lcore that never sleeps: they are frozen with SIGSTOP between
    their turns (after the generator stopped sending and the rings drained,
    so no busy-cycle counter covers the stop), resumed with SIGCONT. testpmd
    runs interactively (-i) and is told "start"/"stop"; its lcore sleeps
    when stopped, and "stop" prints its own cycles per packet for the run.
  * The generator is idle (blocked on its stdin) between measurements, so
    both CPUs are free for the placement probe: build/.../fastroute-pingpong
    runs before and after every measurement; a run whose placement
    (near/far) changed, or during which other processes used more than 10%
    of the CPUs, is kept in the output but marked discarded.
  * Generator-bound runs: the generator offers what its one core can make
    (from about 6 to 25 Mpps at 64 B in the last make bench, varying from
    run to run) and counts what the DUT's port refused (ring full). Its own
    work per packet is two stores (destination, checksum) into a pre-built
    frame; the rest is the memif PMD's, and it is the same as testpmd io's:
    a copy into the ring for every frame sent and one out of it for every
    frame that comes back. So it sends alone about twice what it can send
    and receive (against testpmd rxonly about 18-24 Mpps, against io 7-13),
    and a DUT as fast as io is often generator-bound. It sends in TX
    bursts of GEN_BURST (128): what a memif TX call costs apart from its
    frames (the ring index the DUT's core wrote, a line that crosses cores)
    is then paid once for 128; at 32, testpmd io was generator-bound in
    every pair of the last runs. The DUTs' poll sizes are their own, set
    apart from the generator's burst (POLL_SIZE; the results page states
    them): fastroute takes up to 128 packets a poll (FR_RX_BURST in
    app/router.h, with its default TX rings), testpmd io and mac are
    started with --burst=128 (their default is 32) so that the I/O
    ceiling is measured at fastroute's poll size, and l3fwd polls 32 at a
    time as DPDK ships it (MAX_PKT_BURST, a compile-time constant of the
    example, which l3fwd-build.sh leaves alone). A run in
    which the port refused less than 5% of what was offered
    (GEN_BOUND_REFUSED) is generator-bound: the DUT took (nearly) all it was
    given, so its rate is the generator's, only a lower bound of the DUT's.
    Each run keeps the offered rate, the refused share and the generator's
    idle share (gen_idle) in the JSON.
  * A DUT's Mpps and cycles per packet in a row are the medians over its
    valid runs on the row's placement, generator-bound ones included (each
    proves the DUT forwarded at least that much: leaving them out would
    keep only the runs in which it fell short); the Mpps is marked >= (a
    lower bound) when the run the median falls on (either of the two
    middle ones, with an even count) was generator-bound.
  * Configurations run the DUTs interleaved, A B C D A B C D ..., for R
    rounds; ratios fastroute/io and fastroute/l3fwd are taken pair by pair
    within a round (both runs valid, same placement), then their median.
    A pair with a generator-bound run is not a measurement of the ratio: it
    is kept in the summary as a bound (numerator generator-bound: the ratio
    is at least the figure; denominator: at most; both: neither) and left
    out of the median.
  * Cycles are the DUTs' own TSC cycles in polls that received packets,
    divided by packets: fastroute's busy_cycles/rx ('show stats', read right
    before the warmup and right after the window), testpmd's
    --record-core-cycles (reset by 'start', printed by 'stop'). l3fwd counts
    none: n/a.
  * Budget on the 2-vCPU VM, as make bench runs it (--duration 1.0): about
    1.6 s per run (0.3 s warmup + 1.0 s window + probes), 168 runs (three
    tables; the 1-route table has only 1flow), plus table loads: l3fwd
    inserts 1M routes into rte_lpm in 3 to 5 minutes (181 to 274 s in make
    bench runs, while kbench loaded its own rte_lpm on CPU0; its rule insert
    scans every rule of the same length), fastroute in ~9 s: 567 s in all. The
    default window (--duration 1.5) adds about 85 s.
"""
import argparse
import ipaddress
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.path.abspath(os.environ.get("FASTROUTE_BUILD", os.path.join(ROOT, "build")))
GEN_BIN = os.path.join(BUILD, "tests", "bench", "pktgen", "fastroute-pktgen")
PING_BIN = os.path.join(BUILD, "tests", "bench", "pingpong", "fastroute-pingpong")
FR_BIN = os.path.join(BUILD, "app", "fastroute")
FRCLI_BIN = os.path.join(BUILD, "app", "fastroute-cli")
GEN_ROUTES = os.path.join(ROOT, "scripts", "gen-routes")
L3FWD_BUILD = os.path.join(ROOT, "scripts", "bench", "l3fwd-build.sh")

# generator ports 2i, 2i+1 face DUT ports 0, 1 of pair i; every pair uses the same MACs
GEN_MAC = ("02:00:00:00:00:00", "02:00:00:00:00:01")
DUT_MAC = ("02:00:00:00:00:10", "02:00:00:00:00:11")
DUT_ADDR = ("192.0.2.1/24", "198.51.100.1/24")
GW = ("192.0.2.2", "198.51.100.2")

GEN_CPU, DUT_CPU = 0, 1
GEN_BURST = 128  # the generator's TX burst (see the header)
# what each DUT takes from a port per poll, at most (see the header):
# fastroute FR_RX_BURST (app/router.h: 4 x DP_BURST; fewer only with TX
# rings under 512 descriptors: it asks 1024, which memif gives), testpmd the --burst
# it is given (1 to its MAX_PKT_BURST, 512; default 32), l3fwd its compiled
# MAX_PKT_BURST as DPDK ships the example (no option sets it)
TESTPMD_BURST = 128
POLL_SIZE = {"fastroute": 128, "io": TESTPMD_BURST, "mac": TESTPMD_BURST, "l3fwd": 32}
# fastroute variants for the route cache rows: rpf strict on both ports and
# the cache off / on / auto (the DUT config gets these lines)
FR_VARIANTS = {
    "fr-strict-off": "port 0 rpf strict\nport 1 rpf strict\nrtcache off\n",
    "fr-strict-on": "port 0 rpf strict\nport 1 rpf strict\nrtcache on\n",
    "fr-strict-auto": "port 0 rpf strict\nport 1 rpf strict\nrtcache auto\n",
}
# fastroute6: fastroute with the same IPv4 table plus as many IPv6 routes
# (gen-routes N --ipv6: /48 and /64), measured with the IPv6 twin of the
# profile (random1m -> random6); its ratio is to fastroute in the same round
DUT_ADDR6 = ("2001:db8:1::1/64", "2001:db8:2::1/64")
GW6 = ("2001:db8:1::2", "2001:db8:2::2")
V6_PROFILE = {"random1m": "random6"}
ALL_DUTS = ("fastroute", "io", "mac", "l3fwd", "fastroute6") + tuple(FR_VARIANTS)
ALL_PROFILES = ("1flow", "256nets", "1kflows", "random1m")
PROFILE_MIN_ROUTES = {"1flow": 1, "256nets": 256, "1kflows": 1, "random1m": 256}
FOREIGN_CPU_MAX = 0.10  # share of both CPUs used by other processes during a run
# a run is generator-bound when the DUT's port refused less than this share
# of the packets the generator offered: the DUT took (nearly) all it was
# given, so its rate is the generator's, a lower bound of its own
GEN_BOUND_REFUSED = 0.05
GEN_BOUND_RULE = ("the DUT's port refused less than %d%% of the packets the generator offered: "
                  "the DUT took nearly all it was given, so its rate is the generator's, a "
                  "lower bound of its own" % round(100 * GEN_BOUND_REFUSED))


class BenchError(Exception):
    pass


class Timeout(BenchError):
    pass


class TimeLimit(BenchError):
    """The harness's --time-limit: never taken for one DUT's load timing out."""


def seconds(x):
    """argparse type of --time-limit: a number of seconds above 0."""
    try:
        v = float(x)
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not a number of seconds" % x)
    if not 0 < v <= 86400:
        raise argparse.ArgumentTypeError("%s: seconds above 0, at most 86400" % x)
    return v


# throughput.sh and rfc2544.sh run this under timeout(1) and export its
# seconds as FASTBENCH_WRAPPER_TIMEOUT: a --time-limit, given or computed,
# must end the run first, with WRAPPER_MARGIN seconds left to print what it
# found and to clean up (timeout's TERM would cut both short)
WRAPPER_MARGIN = 60


def wrapper_most():
    """(the longest --time-limit the wrapper's timeout leaves room for, that
    timeout), or (None, None) when no wrapper said it (run directly)."""
    try:
        t = float(os.environ.get("FASTBENCH_WRAPPER_TIMEOUT", ""))
    except ValueError:
        return None, None
    return t - WRAPPER_MARGIN, t


def wrapper_text(prog):
    """What --time-limit's help says of @prog's timeout."""
    most, t = wrapper_most()
    if most is None:
        return "%s refuses one above its own timeout less %d s" % (prog, WRAPPER_MARGIN)
    return "%s refuses one above %g (its own timeout, %g, less %d)" % (prog, most, t,
                                                                       WRAPPER_MARGIN)


def check_time_limit(ap, limit, computed=None, lower=""):
    """Refuse @limit (seconds) above what the wrapper's timeout leaves room
    for: ap.error naming the options. @computed: how it was computed (None:
    --time-limit gave it); @lower: the options that make it smaller."""
    most, t = wrapper_most()
    if most is None or limit <= most:
        return
    room = ("%g s, what %s's own timeout (%g s) leaves for the run to stop, say what it "
            "found and clean up (%d s)" % (most, ap.prog, t, WRAPPER_MARGIN))
    if computed is None:
        ap.error("--time-limit %g is above %s: give --time-limit %g or less" % (limit, room, most))
    ap.error("the time limit computed from the options, %s = %g s, is above %s: lower %s, or "
             "give --time-limit %g or less (the run then stops there, printing what it found "
             "so far)" % (computed, limit, room, lower, most))


def log(msg):
    sys.stderr.write("[%s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


# ---------------------------------------------------------------- processes

# Children get SIGKILL when the harness dies, however it dies: they run in
# sessions of their own (a DUT is frozen with SIGSTOP, spins when not) and
# would outlive a SIGKILLed harness. setpriv sets it before exec (Popen's
# preexec_fn is unsafe beside the reader threads); the harness's main thread
# starts them all, and its end is the process's.
PDEATHSIG = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []


class Proc:
    """A child process whose stdout (and stderr, unless split) is collected
    line by line by a thread and copied to a log file."""

    def __init__(self, name, args, logpath, stdin=False, split_stderr=False, env=None):
        self.name = name
        self.args = args
        self.logpath = logpath
        self.lines = []
        self.times = []  # when each line came (time.monotonic())
        self.cond = threading.Condition()
        self.stopped = False
        self.logf = open(logpath, "w", buffering=1)
        self.logf.write("# %s\n" % " ".join(args))
        self.p = subprocess.Popen(
            PDEATHSIG + args, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.logf if split_stderr else subprocess.STDOUT,
            start_new_session=True, env=env)
        self.t = threading.Thread(target=self._reader, daemon=True)
        self.t.start()

    def _reader(self):
        for raw in iter(self.p.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            now = time.monotonic()
            self.logf.write(line + "\n")
            with self.cond:
                self.times.append(now)
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    @property
    def pid(self):
        return self.p.pid

    def alive(self):
        return self.p.poll() is None

    def mark(self):
        with self.cond:
            return len(self.lines)

    def tail(self, n=15):
        try:
            with open(self.logpath, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def wait_for(self, regex, timeout, since=0):
        """First line from index @since matching @regex: (index, match)."""
        rx = re.compile(regex)
        deadline = time.monotonic() + timeout
        i = since
        with self.cond:
            while True:
                while i < len(self.lines):
                    m = rx.search(self.lines[i])
                    if m:
                        return i, m
                    i += 1
                if self.p.poll() is not None and not self.t.is_alive():
                    raise BenchError("%s exited (status %s) while waiting for /%s/; log %s:\n%s"
                                     % (self.name, self.p.returncode, regex, self.logpath,
                                        self.tail()))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout("%s: no /%s/ within %.0f s; log %s:\n%s"
                                  % (self.name, regex, timeout, self.logpath, self.tail()))
                self.cond.wait(min(left, 0.5))

    def send(self, line):
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def sigstop(self):
        if self.alive():
            os.kill(self.pid, signal.SIGSTOP)
            self.stopped = True

    def sigcont(self):
        if self.alive():
            os.kill(self.pid, signal.SIGCONT)
            self.stopped = False

    def terminate(self, timeout=10):
        """SIGINT (DPDK apps stop cleanly on it), then SIGKILL."""
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGCONT)
                os.kill(self.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            try:
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.p.wait(5)
        self.t.join(2)
        self.logf.close()

    def cpu_jiffies(self):
        try:
            with open("/proc/%d/stat" % self.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            return 0


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


def hugetlbfs_mounts():
    """Where hugetlbfs is mounted (DPDK keeps its hugepage files there)."""
    try:
        with open("/proc/mounts") as f:
            fields = [line.split() for line in f]
    except OSError:
        return []
    return [x[1] for x in fields if len(x) > 2 and x[2] == "hugetlbfs"]


def remove_stale():
    """What harnesses that were killed (SIGKILL: no cleanup ran) left: EAL
    runtime directories and hugepage files of their prefixes (frb<pid>-),
    temp dirs (frbench.<pid>.), for pids no longer running."""
    places = [("/var/run/dpdk", r"^frb(\d+)-")]
    places += [(d, r"^frb(\d+)-") for d in hugetlbfs_mounts()]
    places += [(tempfile.gettempdir(), r"^frbench\.(\d+)\.")]
    for d, rx in places:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for name in names:
            m = re.match(rx, name)
            if not m or pid_alive(int(m.group(1))):
                continue
            path = os.path.join(d, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass


class Session:
    """Temp dir, unique EAL file prefixes, memory mode, and cleanup of everything started."""

    def __init__(self, keep=False):
        remove_stale()
        self.work = tempfile.mkdtemp(prefix="frbench.%d." % os.getpid())
        self.procs = []
        self.prefixes = []
        self.keep = keep
        self.hugepages = False
        self.tag = "frb%d" % os.getpid()

    def path(self, name):
        return os.path.join(self.work, name)

    def prefix(self, name):
        p = "%s-%s" % (self.tag, name)
        self.prefixes.append(p)
        return p

    def start(self, proc):
        self.procs.append(proc)
        return proc

    def eal_mem(self, mb):
        if self.hugepages:
            # the hugepage files go with the process, however it ends
            return ["-m", str(mb), "--huge-unlink"]
        return ["--no-huge", "-m", str(mb)]

    def choose_memory(self, need_mb):
        """Hugepages when enough are free and hugetlbfs is mounted, else --no-huge."""
        free = size_kb = 0
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("HugePages_Free:"):
                        free = int(line.split()[1])
                    elif line.startswith("Hugepagesize:"):
                        size_kb = int(line.split()[1])
            mounted = bool(hugetlbfs_mounts())
        except (OSError, IndexError, ValueError):
            mounted = False
        free_mb = free * size_kb // 1024
        self.hugepages = mounted and free_mb >= need_mb * 1.1
        if self.hugepages:
            return "hugepages (%d MiB free, %d MiB needed)" % (free_mb, need_mb)
        why = "no hugetlbfs mounted" if not mounted else \
            "HugePages_Free %d MiB < %d MiB needed" % (free_mb, need_mb)
        return "--no-huge (%s)" % why

    def cleanup(self):
        """Stop every process started, remove the EAL's files. Called once, at
        the end: nothing may cut it short, not the time limit, nor a second
        ^C (the terminal's, then timeout's), nor a TERM."""
        signal.setitimer(signal.ITIMER_REAL, 0)
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        for p in reversed(self.procs):
            try:
                p.terminate()
            except Exception as e:  # keep cleaning up
                log("cleanup: %s: %s" % (p.name, e))
        self.procs = []
        # the hugepage files of a process that did not unlink its own (a
        # generator on real NICs runs with the user's EAL options), in every
        # hugetlbfs: the prefixes are this run's alone
        huge_dirs = hugetlbfs_mounts()
        for pfx in self.prefixes:
            shutil.rmtree("/var/run/dpdk/" + pfx, ignore_errors=True)
            for d in huge_dirs:
                try:
                    for f in os.listdir(d):
                        if f.startswith(pfx):
                            os.unlink(os.path.join(d, f))
                except OSError:
                    pass
        if self.keep:
            log("kept %s" % self.work)
        else:
            shutil.rmtree(self.work, ignore_errors=True)


# ---------------------------------------------------------------- tools

def check_tools(need_l3fwd=False, need_testpmd=False, need_fastroute=True):
    missing = []
    for b in (GEN_BIN, PING_BIN) + ((FR_BIN, FRCLI_BIN) if need_fastroute else ()):
        if not os.access(b, os.X_OK):
            missing.append(b)
    if missing:
        raise BenchError("not built: %s (run 'ninja -C %s')" % (", ".join(missing), BUILD))
    if need_testpmd and shutil.which("dpdk-testpmd") is None:
        raise BenchError("dpdk-testpmd not found (apt-get install dpdk-dev)")
    if shutil.which("stdbuf") is None:
        raise BenchError("stdbuf not found (coreutils)")


def build_l3fwd():
    r = subprocess.run([L3FWD_BUILD], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=600)
    out = r.stdout.decode(errors="replace").strip().splitlines()
    if r.returncode != 0 or not out:
        raise BenchError("l3fwd-build.sh failed:\n" + "\n".join(out[-20:]))
    path = out[-1].strip()
    if not os.path.isabs(path):
        path = os.path.join(ROOT, path)
    return path


def pingpong():
    """Median cache-line round trip CPU0<->CPU1 in ns and near/far, or (None, 'busy')."""
    try:
        r = subprocess.run([PING_BIN, "--json", "-n", "4000",
                            "-c", "%d,%d" % (GEN_CPU, DUT_CPU)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
        if r.returncode == 0:
            j = json.loads(r.stdout.decode())
            return j["median_ns"], j["placement"]
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        pass
    return None, "busy"


def cpu_busy_jiffies():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v[:8]) - idle, sum(v[:8])


def foreign_cpu_check(seconds=1.0):
    """Share of both CPUs used by anything during @seconds (we run nothing yet)."""
    b0, t0 = cpu_busy_jiffies()
    time.sleep(seconds)
    b1, t1 = cpu_busy_jiffies()
    return (b1 - b0) / max(1, t1 - t0)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def gen_tables(n, seed, outs, ipv6=False):
    """One gen-routes process writing the same @n routes in several formats:
    @outs is [(format, path, header)], each header written first."""
    args = []
    for fmt, path, header in outs:
        with open(path, "w") as f:
            f.write(header)
        args += ["--out", "%s:%s" % (fmt, path)]
    return subprocess.Popen([sys.executable, GEN_ROUTES, str(n), "--seed", str(seed)] + args +
                            (["--ipv6"] if ipv6 else []))


def read_plain_routes(path):
    """An 'A.B.C.D/LEN PORT' list (gen-routes --format plain; '#' comments and
    blank lines as the generator takes them): [(network, port)], host bits
    cleared as the generator clears them."""
    routes = []
    try:
        with open(path) as f:
            for lineno, line in enumerate(f, 1):
                s = line.strip()
                if not s or s.startswith("#"):
                    continue
                parts = s.split()
                try:
                    if len(parts) < 2 or parts[1] not in ("0", "1"):
                        raise ValueError(s)
                    net = ipaddress.IPv4Network(parts[0], strict=False)
                except ValueError:
                    raise BenchError("%s:%d: expected 'A.B.C.D/LEN PORT' with PORT 0 or 1"
                                     % (path, lineno))
                routes.append((str(net), int(parts[1])))
    except OSError as e:
        raise BenchError("--routes-file: %s" % e)
    if not routes:
        raise BenchError("%s: no routes" % path)
    return routes


def write_routes(routes, fmt, path, header=""):
    """@routes from read_plain_routes() as a DUT loads them: fastroute config
    lines (via the generator's address on the port's side) or l3fwd rules,
    the lines gen-routes writes in those formats."""
    with open(path, "w") as f:
        f.write(header)
        for net, port in routes:
            if fmt == "fastroute":
                f.write("route add %s via %s\n" % (net, GW[port]))
            else:
                f.write("R%s %d\n" % (net, port))


def memif_vdev(i, role, sock, mac):
    return "net_memif%d,role=%s,id=0,socket=%s,socket-abstract=no,mac=%s" % (
        i, role, sock, mac)


# ---------------------------------------------------------------- generator

class Generator:
    """fastroute-pktgen in --control mode. By default the memif server of @pairs
    port pairs on CPU0; with @eal, whatever ports those EAL options give it."""

    def __init__(self, ses, pairs, routes_plain, seed, mem_mb, nroutes, eal=None,
                 dut_macs=DUT_MAC, routes6_plain=None):
        self.ses = ses
        self.pairs = pairs
        self.socks = [(ses.path("p%d-0.sock" % i), ses.path("p%d-1.sock" % i))
                      for i in range(pairs)]
        if eal is None:
            args = [GEN_BIN, "-l", str(GEN_CPU), "--file-prefix", ses.prefix("gen"), "--no-pci"]
            args += ses.eal_mem(mem_mb)
            for i in range(pairs):
                for s in range(2):
                    args += ["--vdev", memif_vdev(2 * i + s, "server", self.socks[i][s],
                                                  GEN_MAC[s])]
        else:
            args = [GEN_BIN] + eal + ["--file-prefix", ses.prefix("gen")]
        args += ["--", "--routes", routes_plain, "--control", "--json", "--seed", str(seed),
                 "--dut-mac0", dut_macs[0], "--dut-mac1", dut_macs[1], "--link-timeout", "10",
                 "--burst", str(GEN_BURST)]
        if routes6_plain:
            args += ["--routes6", routes6_plain]
        self.proc = ses.start(Proc("generator", args, ses.path("generator.log"), stdin=True,
                                   split_stderr=True))
        i, _ = self.proc.wait_for(r'^\{"ready"', 60 + nroutes / 1e6 * 60)
        self.ready = json.loads(self.proc.lines[i])

    def command(self, line, timeout):
        since = self.proc.mark()
        self.proc.send(line)
        i, _ = self.proc.wait_for(r"^\{", timeout, since)
        j = json.loads(self.proc.lines[i])
        if "error" in j:
            raise BenchError("generator: %s" % j["error"])
        return j

    def links(self):
        return self.command("links", 10)["links"]

    def wait_pair_up(self, pair, timeout):
        deadline = time.monotonic() + timeout
        while True:
            lk = self.links()
            if lk[2 * pair] and lk[2 * pair + 1]:
                return
            if time.monotonic() > deadline:
                raise BenchError("pair %d: links %s not up after %.0f s" % (
                    pair, lk[2 * pair:2 * pair + 2], timeout))
            time.sleep(0.2)

    def run(self, pair, profile, size, warmup, duration, rate=0.0, mode="window", routed=False):
        return self.command("run pair=%d profile=%s size=%d warmup=%g duration=%g rate=%g mode=%s"
                            " routed=%d"
                            % (pair, profile, size, warmup, duration, rate, mode, routed),
                            warmup + duration + 30 + (5 if profile.startswith("random") else 0))

    def quit(self):
        if self.proc.alive():
            try:
                self.proc.send("quit")
                self.proc.p.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                pass


# ---------------------------------------------------------------- DUTs

class Dut:
    name = "?"
    cycles_source = None

    def __init__(self, ses, pair, gen):
        self.ses = ses
        self.pair = pair
        self.gen = gen
        self.proc = None
        self.load_seconds = None
        self.counts = None  # the DUT's own rx/forwarded over the last run, if it counts them

    def eal(self, lcores, mem_mb):
        a = ["-l", lcores, "--file-prefix", self.ses.prefix(self.name), "--no-pci"]
        a += self.ses.eal_mem(mem_mb)
        for s in range(2):
            a += ["--vdev", memif_vdev(s, "client", self.gen.socks[self.pair][s], DUT_MAC[s])]
        return a

    def wait_ready(self, timeout):
        pass

    def freeze(self):
        """Called once its links are up: stop using a CPU until begin()."""

    def thaw(self):
        """Undo freeze() without starting a measurement."""

    def begin(self):
        """Make the DUT forward (it is idle or frozen before)."""

    def end(self):
        """Stop forwarding; return busy TSC cycles per packet for the run, or None."""
        return None

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()


class FastrouteDut(Dut):
    name = "fastroute"
    cycles_source = "fastroute-cli show stats: busy_cycles/rx over the run"

    def __init__(self, ses, pair, gen, conf, mem_mb, name="fastroute", extra=()):
        super().__init__(ses, pair, gen)
        self.name = name
        self.sock = ses.path(name + ".sock")
        args = ["stdbuf", "-oL", "-eL", FR_BIN] + self.eal("%d,%d" % (GEN_CPU, DUT_CPU), mem_mb)
        args += ["--main-lcore", str(GEN_CPU), "--", "-f", conf, "-s", self.sock] + list(extra)
        self.t0 = time.monotonic()
        self.proc = ses.start(Proc(self.name, args, ses.path(name + ".log")))

    def wait_ready(self, timeout):
        # from when it said so: the DUTs start together, and are waited
        # for one after another
        i, _ = self.proc.wait_for(r"\bready\b", timeout)
        self.load_seconds = self.proc.times[i] - self.t0

    def freeze(self):
        self.proc.sigstop()  # its worker spins: frozen until its turn

    def thaw(self):
        self.proc.sigcont()

    def stats(self):
        r = subprocess.run([FRCLI_BIN, "-s", self.sock, "show", "stats"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10)
        out = r.stdout.decode(errors="replace")
        if r.returncode != 0:
            raise BenchError("fastroute-cli show stats failed: %s" % out.strip())
        v = {}
        for line in out.splitlines():  # the first section holds the worker totals
            m = re.match(r"^\s*(busy_cycles|rx|forwarded)\s+(\d+)\s*$", line)
            if m and m.group(1) not in v:
                v[m.group(1)] = int(m.group(2))
        if "busy_cycles" not in v or "rx" not in v or "forwarded" not in v:
            raise BenchError("fastroute-cli show stats: no busy_cycles/rx/forwarded in:\n" + out)
        return v

    def begin(self):
        self.proc.sigcont()
        self.counts = None
        self.before = self.stats()

    def end(self):
        after = self.stats()
        self.proc.sigstop()
        drx = after["rx"] - self.before["rx"]
        self.counts = {"rx": drx, "forwarded": after["forwarded"] - self.before["forwarded"]}
        return (after["busy_cycles"] - self.before["busy_cycles"]) / drx if drx > 0 else None


class TestpmdDut(Dut):
    cycles_source = "testpmd --record-core-cycles, printed by 'stop'"

    def __init__(self, ses, pair, gen, mode, mem_mb):
        self.name = mode
        super().__init__(ses, pair, gen)
        args = ["stdbuf", "-oL", "-eL", "dpdk-testpmd"]
        args += self.eal("%d,%d" % (GEN_CPU, DUT_CPU), mem_mb)
        # --burst: polls of fastroute's size (POLL_SIZE). The mbufs: memif
        # without zero-copy holds none in its rings (a receive copies into
        # mbufs it allocates, a send copies out of them and frees them),
        # so about a poll's worth, 128, is out at once, beside the pool's
        # per-lcore caches (250 each, 2 lcores): far under 16384, which is
        # also above what testpmd itself would take for one port at its
        # largest burst (2 x 2048 descriptors + the caches + 512)
        args += ["--main-lcore", str(GEN_CPU), "--", "-i", "--forward-mode=" + mode,
                 "--nb-cores=1", "--rxq=1", "--txq=1", "--burst=%d" % TESTPMD_BURST,
                 "--total-num-mbufs=16384", "--record-core-cycles", "--no-mlockall"]
        if mode == "mac":
            args += ["--eth-peer=0,%s" % GEN_MAC[0], "--eth-peer=1,%s" % GEN_MAC[1]]
        self.t0 = time.monotonic()
        self.proc = ses.start(Proc("testpmd-" + mode, args, ses.path("testpmd-%s.log" % mode),
                                   stdin=True))

    def wait_ready(self, timeout):
        i, _ = self.proc.wait_for(r"Set %s packet forwarding mode" % self.name, timeout)
        # its start-up done: the ports started and their links checked
        # (said while it parses its options: the time of the check's end)
        i, _ = self.proc.wait_for(r"Checking link statuses", timeout, since=i + 1)
        i, _ = self.proc.wait_for(r"^Done$", timeout, since=i + 1)
        self.load_seconds = self.proc.times[i] - self.t0
        self.proc.send("show port summary all")  # a prompt after init completed
        self.proc.wait_for(r"Number of available ports", timeout)

    started = False

    def freeze(self):
        if self.started:
            self.end()

    def thaw(self):
        self.begin()

    def begin(self):
        since = self.proc.mark()
        self.proc.send("start")
        self.proc.wait_for(r"packet forwarding - ports=", 10, since)
        self.started = True

    def end(self):
        since = self.proc.mark()
        self.started = False
        self.proc.send("stop")
        i, _ = self.proc.wait_for(r"^\s*Done\.", 20, since)
        for line in self.proc.lines[since:i]:
            m = re.search(r"CPU cycles/packet=([0-9.]+)", line)
            if m:
                return float(m.group(1))
        return None

    def stop(self):
        if self.proc is not None and self.proc.alive():
            try:
                self.proc.send("quit")
                self.proc.p.wait(15)
            except (OSError, subprocess.TimeoutExpired):
                pass
        super().stop()


class L3fwdDut(Dut):
    name = "l3fwd"
    cycles_source = None  # l3fwd counts no cycles

    def __init__(self, ses, pair, gen, binary, rules4, rules6, mem_mb):
        super().__init__(ses, pair, gen)
        # one lcore: the main lcore forwards (with a separate main lcore, l3fwd's
        # main thread would spin in rte_eal_wait_lcore on CPU0, the generator's)
        args = ["stdbuf", "-oL", "-eL", binary] + self.eal(str(DUT_CPU), mem_mb)
        args += ["--", "-p", "0x3", "-P", "--lookup=lpm", "--parse-ptype",
                 "--rule_ipv4=" + rules4, "--rule_ipv6=" + rules6,
                 "--eth-dest=0,%s" % GEN_MAC[0], "--eth-dest=1,%s" % GEN_MAC[1],
                 "--config=(0,0,%d),(1,0,%d)" % (DUT_CPU, DUT_CPU)]
        self.t0 = time.monotonic()
        self.proc = ses.start(Proc(self.name, args, ses.path("l3fwd.log")))

    def wait_ready(self, timeout):
        i, _ = self.proc.wait_for(r"entering main loop", timeout)
        self.load_seconds = self.proc.times[i] - self.t0

    def freeze(self):
        self.proc.sigstop()

    def thaw(self):
        self.proc.sigcont()

    def begin(self):
        self.proc.sigcont()

    def end(self):
        self.proc.sigstop()
        return None


# ---------------------------------------------------------------- throughput

def mem_needs(nroutes, duts):
    gen = 512 if nroutes < 100000 else 1024
    need = {"gen": gen, "fastroute": 2048 if nroutes > 100000 else 1024,
            "io": 512, "mac": 512, "l3fwd": 1024}
    for v in FR_VARIANTS:
        need[v] = need["fastroute"]
    # the IPv6 trie: 64 MiB plus up to five 1 KiB groups per route
    need["fastroute6"] = need["fastroute"] + 128 + nroutes * 5 // 1024
    return need, gen + sum(need[d] for d in duts)


def median(xs):
    return statistics.median(xs) if xs else None


def fmt(x, spec="%.2f"):
    return "n/a" if x is None else spec % x


def run_table(a, ses, nroutes, results, out):
    """Everything for one route table: files, generator, DUTs, interleaved rounds."""
    profiles = [p for p in a.profiles if nroutes >= PROFILE_MIN_ROUTES[p]]
    for p in a.profiles:
        if p not in profiles:
            log("routes=%d: profile %s skipped (needs at least %d routes)"
                % (nroutes, p, PROFILE_MIN_ROUTES[p]))
    if not profiles:
        return
    t0 = time.monotonic()
    plain = ses.path("routes-%d.plain" % nroutes)
    conf = ses.path("routes-%d.conf" % nroutes)
    rules4 = ses.path("routes-%d.l3fwd" % nroutes)
    rules6 = ses.path("routes6.l3fwd")
    header = "".join([
        "# fastroute throughput harness: %d routes (scripts/gen-routes %d --seed %d)\n"
        % (nroutes, nroutes, a.seed),
        "port 0 address %s\n" % DUT_ADDR[0], "port 1 address %s\n" % DUT_ADDR[1],
        "neigh add %s lladdr %s port 0\n" % (GW[0], GEN_MAC[0]),
        "neigh add %s lladdr %s port 1\n" % (GW[1], GEN_MAC[1])])
    # the IPv4 table once, in every format a DUT takes (one generation)
    outs4 = [("plain", plain, "")]
    if any(d in ("fastroute", "fastroute6") or d in FR_VARIANTS for d in a.duts):
        outs4.append(("fastroute", conf, header))
    if "l3fwd" in a.duts:
        outs4.append(("l3fwd", rules4, ""))
        with open(rules6, "w") as f:
            f.write("R2001:db8::/32 0\n")  # l3fwd refuses an empty IPv6 rule file
    gens = [gen_tables(nroutes, a.seed, outs4)]
    plain6 = conf6 = None
    if "fastroute6" in a.duts:
        plain6 = ses.path("routes6-%d.plain" % nroutes)
        conf6 = ses.path("routes6-%d.conf" % nroutes)
        header6 = "".join([
            "port 0 address %s\n" % DUT_ADDR6[0], "port 1 address %s\n" % DUT_ADDR6[1],
            "neigh add %s lladdr %s port 0\n" % (GW6[0], GEN_MAC[0]),
            "neigh add %s lladdr %s port 1\n" % (GW6[1], GEN_MAC[1])])
        gens.append(gen_tables(nroutes, a.seed, [("plain", plain6, ""),
                                                 ("fastroute", conf6, header6)], ipv6=True))
    try:
        for g in gens:
            if g.wait(300) != 0:
                raise BenchError("scripts/gen-routes failed")
    except subprocess.TimeoutExpired:
        raise BenchError("scripts/gen-routes took more than 300 s")
    finally:
        # none left writing route files after an error, a timeout or the
        # harness's own time limit
        for g in gens:
            if g.poll() is None:
                g.kill()
                g.wait()
    log("routes=%d: route files written in %.1f s" % (nroutes, time.monotonic() - t0))

    need, _ = mem_needs(nroutes, a.duts)
    gen = Generator(ses, len(a.duts), plain, a.seed, need["gen"], nroutes,
                    routes6_plain=plain6)
    duts = []
    # l3fwd takes 3 to 5 minutes for a million routes (181 to 274 s); past
    # this it is n/a for the table (the others are measured all the same)
    load_timeout = 60 + nroutes / 1e6 * 400
    failed = set()
    try:
        for i, d in enumerate(a.duts):
            if d == "fastroute":
                duts.append(FastrouteDut(ses, i, gen, conf, need[d]))
            elif d in FR_VARIANTS:
                vconf = ses.path("routes-%d-%s.conf" % (nroutes, d))
                with open(vconf, "w") as f:
                    f.write(FR_VARIANTS[d])
                    with open(conf) as base:
                        f.write(base.read())
                duts.append(FastrouteDut(ses, i, gen, vconf, need[d], name=d))
            elif d == "fastroute6":
                vconf = ses.path("routes-%d-%s.conf" % (nroutes, d))
                with open(vconf, "w") as f:
                    for part in (conf, conf6):
                        with open(part) as base:
                            f.write(base.read())
                duts.append(FastrouteDut(ses, i, gen, vconf, need[d], name=d, extra=[
                    "--max-routes6", str(nroutes + 64), "--tbl8-6", str(nroutes * 5 + 1024)]))
            elif d in ("io", "mac"):
                duts.append(TestpmdDut(ses, i, gen, d, need[d]))
            elif d == "l3fwd":
                duts.append(L3fwdDut(ses, i, gen, a.l3fwd_bin, rules4, rules6, need[d]))
        # l3fwd loads on CPU1 (its only lcore); the others are frozen or idle once ready
        for d in sorted(duts, key=lambda d: d.name == "l3fwd"):
            try:
                d.wait_ready(load_timeout)
            except Timeout as e:
                if d.name != "l3fwd":
                    raise
                why = "route load timed out after %.0f s" % load_timeout
                log("routes=%d: %s %s: n/a for this table (%s)"
                    % (nroutes, d.name, why, str(e).splitlines()[0]))
                results.setdefault("dut_failures", {}).setdefault(d.name, {})[str(nroutes)] = why
                failed.add(d.name)
                d.stop()
                continue
            gen.wait_pair_up(d.pair, 20)
            time.sleep(0.2)  # the client's side of the memif handshake
            d.freeze()
            log("routes=%d: %s ready in %.1f s (pair %d)" % (nroutes, d.name, d.load_seconds,
                                                               d.pair))
        for d in duts:
            if d.name not in failed:
                results["load_seconds"].setdefault(d.name, {})[str(nroutes)] = \
                    round(d.load_seconds, 1)

        for profile in profiles:
            for size in a.sizes:
                for rnd in range(1, a.rounds_for.get((nroutes, profile, size), a.rounds) + 1):
                    for d in duts:
                        if d.name == "fastroute6" and profile not in V6_PROFILE:
                            continue  # IPv6 rows: random destinations only
                        if d.name in failed:
                            continue
                        rec = measure(a, ses, gen, d, nroutes, profile, size, rnd)
                        results["runs"].append(rec)
                        if out is not None:
                            out.write(json.dumps(rec) + "\n")
                            out.flush()
                        log("routes=%d %-8s %4dB round %d %-9s %6.2f Mpps  offered %6.2f  "
                            "refused %4.1f%%  cyc/pkt %-7s %s%s%s"
                            % (nroutes, profile, size, rnd, d.name, rec["mpps"],
                               rec["offered_mpps"], 100 * (rec["refused_share"] or 0),
                               fmt(rec["busy_cycles_per_pkt"], "%.1f"), rec["placement"],
                               "  generator-bound" if rec["generator_bound"] else "",
                               "  DISCARDED (%s)" % rec["discard_reason"]
                               if rec["discarded"] else ""))
    finally:
        for d in duts:  # DUTs first: memif resets counters when the peer goes away
            d.stop()
        gen.quit()
        gen.proc.terminate()


def wait_idle(limit):
    """Wait (at most @limit s) until other processes leave the CPUs alone; ours are idle now."""
    deadline = time.monotonic() + limit
    while True:
        # a quarter second (50 ticks of the two CPUs) tells busy from idle;
        # it runs before each of the ~200 measurements of make bench
        busy = foreign_cpu_check(0.25)
        if busy <= FOREIGN_CPU_MAX or time.monotonic() >= deadline:
            return busy


def measure(a, ses, gen, dut, nroutes, profile, size, rnd):
    if a.wait_idle > 0:
        busy = wait_idle(a.wait_idle)
        if busy > FOREIGN_CPU_MAX:
            log("other processes still use %.0f%% of the CPUs after %.0f s: measuring anyway"
                % (100 * busy, a.wait_idle))
    pp0, pl0 = pingpong()
    ours = [p for p in ses.procs if p.alive()]
    j0 = sum(p.cpu_jiffies() for p in ours)
    b0, t0 = cpu_busy_jiffies()
    dut.begin()
    try:
        sent = V6_PROFILE[profile] if dut.name == "fastroute6" else profile
        r = gen.run(dut.pair, sent, size, a.warmup, a.duration)
    finally:
        cyc = dut.end()
    b1, t1 = cpu_busy_jiffies()
    j1 = sum(p.cpu_jiffies() for p in ours)
    pp1, pl1 = pingpong()
    foreign = max(0.0, ((b1 - b0) - (j1 - j0)) / max(1, t1 - t0))
    reason = None
    if pl0 == "busy" or pl1 == "busy":
        reason = "placement probe failed (CPU busy)"
    elif pl0 != pl1:
        reason = "placement changed %s->%s" % (pl0, pl1)
    elif foreign > FOREIGN_CPU_MAX:
        reason = "other processes used %.0f%% of the CPUs" % (100 * foreign)
    elif r["rx_pkts"] == 0:
        reason = "nothing came back"
    refused, gbound = generator_share(r["tx_pkts"], r["tx_fail"])
    counts = dut.counts or {}
    return {
        "routes": nroutes, "profile": profile, "size": size, "dut": dut.name, "round": rnd,
        "mpps": round(r["rx_mpps"], 4), "tx_mpps": round(r["tx_mpps"], 4),
        "offered_mpps": round(r["offered_mpps"], 4), "tx_fail": r["tx_fail"],
        "rx_pkts": r["rx_pkts"], "tx_pkts": r["tx_pkts"], "seconds": round(r["seconds"], 4),
        "rx_per_port": r["rx_per_port"], "dests": r["dests"],
        "busy_cycles_per_pkt": None if cyc is None else round(cyc, 2),
        "cycles_source": dut.cycles_source,
        "memory": "hugepages" if ses.hugepages else "no-huge",
        "pingpong_before_ns": pp0, "pingpong_after_ns": pp1,
        "placement": pl0 if pl0 == pl1 else "changed",
        "foreign_cpu": round(foreign, 3),
        "discarded": reason is not None, "discard_reason": reason,
        "tsc_hz": r.get("tsc_hz"),
        # the generator's side: what it offered, the share refused, its idle share
        "gen_idle": r.get("gen_idle"), "refused_share": refused, "generator_bound": gbound,
        # the DUT's own counters over the run (fastroute: show stats), else None
        "dut_rx": counts.get("rx"), "dut_forwarded": counts.get("forwarded"),
    }


def generator_share(tx_pkts, tx_fail):
    """(share of the offered packets the port refused, generator-bound?); the
    offered packets are those sent plus those refused."""
    offered = tx_pkts + tx_fail
    if offered <= 0:
        return None, False
    share = tx_fail / offered
    return round(share, 4), share < GEN_BOUND_REFUSED


def run_generator_bound(r):
    """A run's generator-bound flag (older raw runs did not store it: from their counts)."""
    if r.get("generator_bound") is not None:
        return r["generator_bound"]
    return generator_share(r.get("tx_pkts", 0), r.get("tx_fail", 0))[1]


def ratio_kind(num_bound, den_bound):
    """What a ratio pair says, given which of its two runs were generator-bound."""
    if num_bound and den_bound:
        return "unbounded"  # both rates are the generator's: no bound either way
    if num_bound:
        return "lower_bound"  # the numerator could have done more
    if den_bound:
        return "upper_bound"  # the denominator could have done more
    return "measured"


RATIO_MARK = {"measured": "%.3f", "lower_bound": ">=%.3f", "upper_bound": "<=%.3f",
              "unbounded": "[%.3f]", "placement": "~%.3f"}
GEN_BOUND_KINDS = ("lower_bound", "upper_bound", "unbounded")


def ratio_rounds_text(rt):
    """A ratio's pairs in round order: 0.950 measured, >=x / <=x a bound (one
    run generator-bound), [x] both generator-bound, ~x the two runs on
    different vCPU placements (not compared). Summaries of older harnesses
    hold only per_round."""
    rounds = rt.get("rounds")
    if rounds is None:
        return ["%.3f" % x for x in rt["per_round"]]
    return [RATIO_MARK[p["kind"]] % p["ratio"] for p in rounds]


def ratio_excluded(rt, kinds=GEN_BOUND_KINDS):
    """Pairs left out of a ratio's median as generator-bound, or of @kinds
    (None: not recorded)."""
    rounds = rt.get("rounds")
    return None if rounds is None else sum(1 for p in rounds if p["kind"] in kinds)


def main_placement(rs, duts):
    """The vCPU placement that a row's Mpps and cycles columns are taken
    at: the one the most DUTs have valid runs on, then the most runs (then
    the first by name), or None when no run is valid."""
    score = {}
    for r in rs:
        if r["dut"] in duts and not r["discarded"]:
            ds, n = score.get(r["placement"], (set(), 0))
            ds.add(r["dut"])
            score[r["placement"]] = (ds, n + 1)
    if not score:
        return None
    return min(score, key=lambda p: (-len(score[p][0]), -score[p][1], p))


def summarize(runs, duts):
    """Per (routes, profile, size): medians per DUT and pairwise ratios per round.
    A ratio's per_round and median hold only pairs in which neither run was
    generator-bound; rounds lists every pair with its kind (measured,
    lower_bound, upper_bound, unbounded)."""
    keys = []
    for r in runs:
        k = (r["routes"], r["profile"], r["size"])
        if k not in keys:
            keys.append(k)
    # smallest table first, whatever order the tables ran in (make bench runs
    # the 1M table first to overlap its l3fwd load with kbench's); profiles
    # and sizes stay in the order they ran
    keys.sort(key=lambda k: k[0])
    rows = []
    for k in keys:
        rs = [r for r in runs if (r["routes"], r["profile"], r["size"]) == k]
        pl = main_placement(rs, duts)
        row = {"routes": k[0], "profile": k[1], "size": k[2], "duts": {}, "ratios": {},
               "placement": pl}
        for d in duts:
            valid = [r for r in rs if r["dut"] == d and not r["discarded"]]
            allr = [r for r in rs if r["dut"] == d]
            # Mpps and cycles: the medians of the runs on the row's
            # placement only (memif's rate moves ~2x with it, so a median
            # over both would set DUTs of one row on different footings),
            # generator-bound ones included: each is a lower bound of the
            # DUT's rate, and the runs left without them would be those
            # in which it fell short. The Mpps is a lower bound (shown >=)
            # when the median falls on a generator-bound run.
            there = sorted((r for r in valid if r["placement"] == pl),
                           key=lambda r: r["mpps"])
            mid = there[(len(there) - 1) // 2:len(there) // 2 + 1]
            cyc = [r["busy_cycles_per_pkt"] for r in there if r["busy_cycles_per_pkt"]]
            row["duts"][d] = {
                "mpps": median([r["mpps"] for r in there]),
                "cycles_per_pkt": median(cyc),
                # what the median is: "measured" (its middle run, or both,
                # not generator-bound), "generator_bound" (a lower bound),
                # None (no valid run there)
                "median_of": None if not there else
                ("generator_bound" if any(run_generator_bound(r) for r in mid)
                 else "measured"),
                "median_runs": len(there),
                "valid": len(valid), "runs": len(allr), "at_placement": len(there),
                "placements": sorted(set(r["placement"] for r in valid)),
                # valid runs in which the generator, not the DUT, set the rate
                "generator_bound": sum(1 for r in valid if run_generator_bound(r)),
                "generator_bound_at_placement": sum(1 for r in there
                                                    if run_generator_bound(r)),
                "offered_mpps": median([r["offered_mpps"] for r in there]),
            }
            # what the generator counts back is every frame, the DUT's own
            # too; fastroute's counters say what share of it it forwarded
            shares = [r["dut_forwarded"] / r["dut_rx"] for r in valid
                      if r.get("dut_rx") and r.get("dut_forwarded") is not None]
            if shares:
                row["duts"][d]["forwarded_share_min"] = round(min(shares), 4)
        pairs = [("fastroute", o) for o in ("io", "l3fwd", "mac")]
        # route cache rows: cache on / auto against cache off, same rpf strict
        pairs += [("fr-strict-on", "fr-strict-off"), ("fr-strict-auto", "fr-strict-off")]
        # IPv6 against IPv4, same table size, same round
        pairs += [("fastroute6", "fastroute")]
        for this, other in pairs:
            if this not in duts or other not in duts:
                continue
            per_round, rounds = [], []
            for rnd in sorted(set(r["round"] for r in rs)):
                fr = [r for r in rs if r["dut"] == this and r["round"] == rnd]
                ot = [r for r in rs if r["dut"] == other and r["round"] == rnd]
                if not fr or not ot or fr[0]["discarded"] or ot[0]["discarded"]:
                    continue
                if ot[0]["mpps"] <= 0:
                    continue
                x = round(fr[0]["mpps"] / ot[0]["mpps"], 4)
                if fr[0]["placement"] != ot[0]["placement"]:
                    # the vCPUs were placed otherwise for one of the two:
                    # shown, never compared (memif's rate moves ~2x with it)
                    kind = "placement"
                else:
                    kind = ratio_kind(run_generator_bound(fr[0]), run_generator_bound(ot[0]))
                rounds.append({"round": rnd, "ratio": x, "kind": kind})
                if kind == "measured":
                    per_round.append(x)
            row["ratios"][this + "/" + other] = {"per_round": per_round,
                                                 "median": median(per_round),
                                                 "rounds": rounds}
        rows.append(row)
    return rows


def mpps_text(v):
    """A DUT's median Mpps; >= when it is the median of generator-bound runs
    (the DUT had no other valid run on the row's placement)."""
    if not v or v.get("mpps") is None:
        return "n/a"
    if "median_of" in v:
        return (">=" if v["median_of"] == "generator_bound" else "") + fmt(v["mpps"])
    # a summary written before: the median of every run there, generator-
    # bound ones included, a lower bound only when all of them were
    if "at_placement" in v:
        gb, n = v.get("generator_bound_at_placement"), v["at_placement"]
    else:  # a summary written before the columns took one placement
        gb, n = v.get("generator_bound"), v["valid"]
    return (">=" if gb and gb == n else "") + fmt(v["mpps"])


def poll_dut(d):
    """The DUT whose poll size @d has: fastroute's variants are fastroute."""
    return "fastroute" if d in ("fastroute6",) + tuple(FR_VARIANTS) else d


def poll_text(polls):
    """What each DUT takes per poll, from @polls {dut: packets} (a summary's
    poll_sizes): fastroute's variants count as fastroute."""
    fr = [n for d, n in polls.items() if poll_dut(d) == "fastroute"]
    tp = [(d, n) for d, n in polls.items() if d in ("io", "mac")]
    parts = []
    if fr:
        parts.append("fastroute up to %d packets a poll (FR_RX_BURST)" % max(fr))
    if tp:
        n = max(x for _, x in tp)
        parts.append("testpmd (%s) --burst=%d%s (testpmd's default is 32)"
                     % (", ".join(d for d, _ in tp), n,
                        ", fastroute's poll size, so that the I/O ceiling is measured at the "
                        "same poll size" if fr and n == max(fr) else ""))
    if "l3fwd" in polls:
        parts.append("l3fwd %d as DPDK ships it (MAX_PKT_BURST, a compile-time constant of "
                     "the example)" % polls["l3fwd"])
    return "; ".join(parts)


def placement_text(row, duts):
    """The placement a row's Mpps and cycles were taken at, the runs each
    DUT had there, and the other placements its valid runs found."""
    pl = row.get("placement")
    if pl is None:
        return "-"
    others = sorted(set(p for d in duts for p in row["duts"].get(d, {}).get("placements", []))
                    - {pl})
    return "%s: %s%s" % (pl, " ".join(str(row["duts"].get(d, {}).get("at_placement", "?"))
                                      for d in duts),
                         " (also %s)" % ", ".join(others) if others else "")


def print_table(rows, duts, memory, header):
    print()
    print(header)
    cols = ["routes", "profile", "size"] + ["%s Mpps" % d for d in duts]
    if "fastroute" in duts:
        cols += ["fr/" + o if o != "fastroute6" else "fastroute6/fr"
                 for o in ("io", "l3fwd", "fastroute6") if o in duts]
    cols += ["%s cyc/pkt" % d for d in duts]
    cols += ["valid runs", "gen-bound", "placement"]
    table = [cols]
    for row in rows:
        line = [str(row["routes"]), row["profile"], str(row["size"])]
        line += [mpps_text(row["duts"][d]) for d in duts]
        if "fastroute" in duts:
            for o in ("io", "l3fwd", "fastroute6"):
                if o in duts:
                    rt = row["ratios"]["fastroute/" + o] if o != "fastroute6" else \
                        row["ratios"]["fastroute6/fastroute"]
                    g = ratio_excluded(rt)
                    pl = ratio_excluded(rt, ("placement",))
                    line.append("%s (%d%s%s)" % (fmt(rt["median"], "%.3f"), len(rt["per_round"]),
                                                 "+%dg" % g if g else "",
                                                 "+%dp" % pl if pl else ""))
        for d in duts:
            c = row["duts"][d]["cycles_per_pkt"]
            line.append("n/a" if d == "l3fwd" else fmt(c, "%.1f"))
        line.append(" ".join("%d/%d" % (row["duts"][d]["valid"], row["duts"][d]["runs"])
                             for d in duts))
        line.append(" ".join("%d" % row["duts"][d]["generator_bound"] for d in duts))
        line.append(placement_text(row, duts))
        table.append(line)
    w = [max(len(r[i]) for r in table) for i in range(len(cols))]
    for i, r in enumerate(table):
        print("  ".join(c.rjust(w[j]) if j > 2 else c.ljust(w[j]) for j, c in enumerate(r)))
        if i == 0:
            print("  ".join("-" * x for x in w))
    print()
    print("memory: %s" % memory)
    print("Mpps, cyc/pkt: median over the DUT's valid runs on the row's placement, "
          "generator-bound ones included (frames received back by the generator per second); "
          ">=: the median fell on a generator-bound run (the Mpps a lower bound).")
    print("fr/io, fr/l3fwd: median of per-round ratios fastroute/other, both runs valid, on "
          "the same vCPU placement and neither generator-bound (count in parentheses; +Ng: "
          "pairs left out because a run in them was generator-bound; +Np: pairs whose two runs "
          "found the vCPUs placed differently).")
    print("gen-bound: valid runs per DUT that were generator-bound: " + GEN_BOUND_RULE + ".")
    if "fastroute6" in duts:
        print("fastroute6/fr: the ratio fastroute6/fastroute (IPv6 Mpps over IPv4 Mpps, same "
              "table size, same round): fastroute6 is sent the IPv6 twin of the profile "
              "(random6: UDP/IPv6 frames of at least 62 bytes + FCS).")
    print("cyc/pkt: the DUT's own TSC cycles in polls that received packets / packets "
          "(fastroute: show stats; testpmd: --record-core-cycles). l3fwd: n/a, it counts no "
          "cycles.")
    print("poll sizes (the most a DUT takes from a port at once): "
          + poll_text({d: POLL_SIZE[poll_dut(d)] for d in duts}) + ".")
    print("valid runs per DUT (same order as the Mpps columns): runs whose vCPU placement "
          "changed or that other processes disturbed are discarded.")
    print("placement: the vCPU placement the Mpps and cycles columns were taken at (the one "
          "the most DUTs had valid runs on, then the most runs), the valid runs each DUT had "
          "there (same order), and the other placements valid runs found.")


def parse_rounds_for(text):
    """--rounds-for ROUTES:PROFILE:SIZE=N -> ((routes, profile, size), n)."""
    try:
        key, n = text.split("=")
        routes, profile, size = key.split(":")
        k, n = (int(routes), profile, int(size)), int(n)
    except ValueError:
        raise argparse.ArgumentTypeError("%r: not ROUTES:PROFILE:SIZE=N" % text)
    if profile not in ALL_PROFILES or n < 1:
        raise argparse.ArgumentTypeError("%r: no profile %r, or N < 1" % (text, profile))
    return k, n


def parse_list(s, allowed=None, conv=str):
    out = []
    for x in s.split(","):
        x = x.strip()
        if not x:
            continue
        if allowed is not None and x not in allowed:
            raise argparse.ArgumentTypeError("'%s' is not one of %s" % (x, ",".join(allowed)))
        try:
            out.append(conv(x))
        except ValueError:
            raise argparse.ArgumentTypeError("'%s' is not a number" % x)
    if not out:
        raise argparse.ArgumentTypeError("empty list")
    return out


DEFAULT_DUTS = ("fastroute", "io", "mac", "l3fwd")


def throughput_main(argv):
    ap = argparse.ArgumentParser(
        prog="throughput.sh",
        description="fastroute vs testpmd io/mac vs l3fwd-LPM over net_memif, interleaved, "
                    "with vCPU placement probes. See the header of scripts/bench/fastbench.py.")
    ap.add_argument("--routes", default="1,10000,1000000",
                    type=lambda s: parse_list(s, conv=int),
                    help="route table sizes (scripts/gen-routes N), run in this order, "
                         "default 1,10000,1000000")
    ap.add_argument("--profiles", default="1flow,256nets,random1m",
                    type=lambda s: parse_list(s, ALL_PROFILES),
                    help="traffic: 1flow, 256nets, random1m (default all three; 256nets and "
                         "random1m need tables of 256 routes or more), or 1kflows (1,000 "
                         "flows, for the route cache rows)")
    ap.add_argument("--sizes", default="64,1518", type=lambda s: parse_list(s, conv=int),
                    help="frame sizes with FCS, 64..1518 (default 64,1518)")
    ap.add_argument("--duts", default=",".join(DEFAULT_DUTS),
                    type=lambda s: parse_list(s, ALL_DUTS),
                    help="devices under test, run in this order each round (default "
                         + ",".join(DEFAULT_DUTS) + "; also fastroute6: IPv6 with the random1m "
                         "profile's IPv6 twin, and fr-strict-off/on/auto: rpf strict with the "
                         "route cache off/on/auto)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--rounds-for", action="append", default=[], metavar="R:PROFILE:SIZE=N",
                    type=parse_rounds_for,
                    help="N rounds for that one configuration instead of --rounds (repeatable; "
                         "make bench gives the headline 1000000:random1m:64 more, as its "
                         "targets are judged on the pairs of its rounds)")
    ap.add_argument("--warmup", type=float, default=0.3, help="seconds of traffic before each window (default 0.3)")
    ap.add_argument("--duration", type=float, default=1.5, help="measurement window, seconds (default 1.5)")
    ap.add_argument("--seed", type=int, default=1, help="gen-routes and random1m seed")
    ap.add_argument("--out", help="JSON lines, one object per measurement")
    ap.add_argument("--summary", help="JSON summary (medians and ratios per configuration)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run (~30 s): 1 route, 1flow, 64 B, every DUT (fastroute, io, "
                         "mac, l3fwd, which is built first), 1 round, 0.3 s warmup + 1 s "
                         "window; it replaces --routes, --profiles, --sizes, --duts, --rounds, "
                         "--warmup and --duration")
    ap.add_argument("--time-limit", type=seconds, default=None,
                    help="abort (and clean up) after this many seconds (default 1800, "
                         "quick 180; %s)" % wrapper_text("throughput.sh"))
    ap.add_argument("--wait-idle", type=float, default=0, metavar="SEC",
                    help="before each run, wait up to SEC for other processes to leave the "
                         "CPUs idle (shared machines; default 0: measure at once, discard "
                         "disturbed runs)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (logs)")
    a = ap.parse_args(argv)
    if a.quick:
        a.routes, a.profiles, a.sizes = [1], ["1flow"], [64]
        a.duts, a.rounds, a.warmup, a.duration = list(DEFAULT_DUTS), 1, 0.3, 1.0
    if a.time_limit is None:
        a.time_limit = 180 if a.quick else 1800
    check_time_limit(ap, a.time_limit)
    for s in a.sizes:
        if not 64 <= s <= 1518:
            ap.error("--sizes: %d is not in 64..1518" % s)
    a.rounds_for = dict(a.rounds_for)
    if a.rounds < 1 or not 0 < a.duration <= 3600 or not 0 <= a.warmup <= 3600:
        ap.error("--rounds >= 1, 0 < --duration <= 3600, 0 <= --warmup <= 3600")
    if os.cpu_count() is None or os.cpu_count() < 2:
        raise BenchError("needs 2 CPUs (generator on CPU0, DUT on CPU1)")

    check_tools(need_testpmd=any(d in a.duts for d in ("io", "mac")),
                need_fastroute="fastroute" in a.duts)
    a.l3fwd_bin = build_l3fwd() if "l3fwd" in a.duts else None

    ses = Session(keep=a.keep)
    results = {"runs": [], "load_seconds": {}}
    out = open(a.out, "w") if a.out else None
    t_start = time.monotonic()
    try:
        _, need = mem_needs(max(a.routes), a.duts)
        memory = ses.choose_memory(need)
        log("memory: %s" % memory)
        busy = foreign_cpu_check(1.0)
        if busy > FOREIGN_CPU_MAX:
            log("WARNING: other processes use %.0f%% of the CPUs right now; runs they disturb "
                "will be discarded" % (100 * busy))
        pp = pingpong()
        log("placement now: %s (%s ns)" % (pp[1], pp[0]))
        for n in a.routes:
            run_table(a, ses, n, results, out)
    finally:
        ses.cleanup()
        if out is not None:
            out.close()
    wall = time.monotonic() - t_start
    rows = summarize(results["runs"], a.duts)
    hz = [r["tsc_hz"] for r in results["runs"] if r.get("tsc_hz")]
    tsc = "; cycles are TSC cycles at %.0f MHz" % (hz[0] / 1e6) if hz else ""
    header = ("fastroute throughput over net_memif: %s; %d vCPUs; generator CPU%d, DUT CPU%d; "
              "%d round(s)%s, %.1f s warmup + %.1f s window per run; wall time %.0f s%s"
              % (cpu_model(), os.cpu_count(), GEN_CPU, DUT_CPU, a.rounds,
                 "".join(" (%d for %d routes, %s, %d B)" % (n, k[0], k[1], k[2])
                         for k, n in sorted(a.rounds_for.items())),
                 a.warmup, a.duration, wall, tsc))
    print_table(rows, a.duts, memory, header)
    if results["load_seconds"]:
        print("DUT start-up (table load) seconds: " + "; ".join(
            "%s %s" % (d, ", ".join("%s routes %.1f" % (k, v) for k, v in t.items()))
            for d, t in results["load_seconds"].items()))
    failures = results.get("dut_failures", {})
    for d, t in failures.items():
        for n, why in t.items():
            print("%s n/a at %s routes: %s" % (d, n, why))
    if a.summary:
        with open(a.summary, "w") as f:
            json.dump({"header": header, "memory": memory, "wall_seconds": round(wall, 1),
                       "load_seconds": results["load_seconds"], "dut_failures": failures,
                       "generator_bound_rule": GEN_BOUND_RULE,
                       "poll_sizes": {d: POLL_SIZE[poll_dut(d)] for d in a.duts},
                       "rows": rows}, f, indent=1)
    return 0


# ---------------------------------------------------------------- RFC 2544

def rfc2544_main(argv):
    ap = argparse.ArgumentParser(
        prog="rfc2544.sh",
        description="RFC 2544-style zero-loss throughput: binary search on the offered rate "
                    "with fastroute-pktgen. See scripts/bench/README-rfc2544.md.")
    ap.add_argument("--gen-eal", default=None,
                    help="EAL options of the generator, for real NICs, e.g. "
                         "'-l 2 -a 0000:03:00.0 -a 0000:03:00.1' (its ports 0 and 1 face the "
                         "DUT's ports 0 and 1). Without it: a local memif demo against "
                         "fastroute (--local-dut).")
    ap.add_argument("--local-dut", choices=("fastroute", "io", "l3fwd"), default="fastroute",
                    help="memif demo only: the DUT started locally (default fastroute)")
    ap.add_argument("--routes", type=int, default=10000,
                    help="route table: scripts/gen-routes N (the DUT must hold the same table; "
                         "for a remote DUT load 'scripts/gen-routes N --seed S' into it)")
    ap.add_argument("--routes-file",
                    help="use this 'A.B.C.D/LEN PORT' file instead (the memif demo's local "
                         "DUT loads the same routes)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", choices=ALL_PROFILES, default="1flow")
    ap.add_argument("--size", type=int, default=64, help="frame size with FCS (64..1518)")
    ap.add_argument("--dut-mac0", default=DUT_MAC[0])
    ap.add_argument("--dut-mac1", default=DUT_MAC[1])
    ap.add_argument("--trial", type=float, default=None,
                    help="seconds per trial (default 10; memif demo 1)")
    ap.add_argument("--warmup", type=float, default=None,
                    help="seconds of traffic before each trial (default 2; memif demo 0.3)")
    ap.add_argument("--max-rate", type=float, default=None,
                    help="upper bound, Mpps (default: what the generator offers unpaced)")
    ap.add_argument("--resolution", type=float, default=0.01,
                    help="stop when the interval is narrower than this share of the rate "
                         "(default 0.01)")
    ap.add_argument("--max-trials", type=int, default=14, help="at most this many trials "
                    "(default 14)")
    ap.add_argument("--loss", type=float, default=0.0,
                    help="acceptable loss ratio (default 0: zero loss)")
    ap.add_argument("--out", help="JSON lines: one object per trial, then the result")
    ap.add_argument("--time-limit", type=seconds, default=None,
                    help="abort (and clean up) after this many seconds, the best result "
                         "so far printed (default: what --max-trials trials of --warmup, "
                         "--trial, --settle and --wait-idle take, 900 at least; given or "
                         "computed, %s)" % wrapper_text("rfc2544.sh"))
    ap.add_argument("--not-router", action="store_true",
                    help="with --gen-eal: the DUT forwards frames without taking their TTL "
                         "down (a switch, a cable between the generator's two ports): "
                         "count back every frame of ours on the port opposite its "
                         "sender's")
    ap.add_argument("--settle", type=float, default=None, metavar="SEC",
                    help="seconds between trials for the DUT to settle (RFC 2544 23 e: 5; "
                         "default 5 with --gen-eal, 0 in the memif demo)")
    ap.add_argument("--wait-idle", type=float, default=0, metavar="SEC",
                    help="memif demo on a shared machine: before each trial, wait up to SEC "
                         "for other processes to leave the CPUs idle")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args(argv)
    memif = a.gen_eal is None
    if a.trial is None:
        a.trial = 1.0 if memif else 10.0
    if a.warmup is None:
        a.warmup = 0.3 if memif else 2.0
    if a.settle is None:
        a.settle = 0.0 if memif else 5.0
    if not 64 <= a.size <= 1518:
        ap.error("--size: 64..1518")
    if not (0 < a.trial <= 3600 and 0 <= a.warmup <= 3600 and 0 <= a.settle <= 3600 and
            a.max_trials >= 1 and
            0 < a.resolution < 1 and 0 <= a.loss < 1 and a.routes >= 1 and
            (a.max_rate is None or 0 < a.max_rate < float("inf"))):
        ap.error("0 < --trial <= 3600, 0 <= --warmup <= 3600, 0 <= --settle <= 3600, "
                 "--max-trials >= 1, "
                 "0 < --resolution < 1, 0 <= --loss < 1, --routes >= 1, --max-rate > 0")
    if a.time_limit is None:
        # each trial: warmup, trial, the drains (2 s at most each), the
        # settling; start-up (the table, the links: up to 5 min for a
        # million routes)
        a.time_limit = max(900, int(300 + a.max_trials *
                                    (a.warmup + a.trial + 4 + a.settle + a.wait_idle)))
        check_time_limit(
            ap, a.time_limit,
            computed="300 s of start-up + --max-trials %d x (--warmup %g + --trial %g + 4 s "
            "of drains + --settle %g + --wait-idle %g)"
            % (a.max_trials, a.warmup, a.trial, a.settle, a.wait_idle),
            lower="--max-trials, --trial, --warmup, --settle or --wait-idle")
    else:
        check_time_limit(ap, a.time_limit)
    signal.setitimer(signal.ITIMER_REAL, a.time_limit)  # from now, what it says
    check_tools(need_testpmd=memif and a.local_dut == "io",
                need_fastroute=memif and a.local_dut == "fastroute")

    ses = Session(keep=a.keep)
    out = open(a.out, "w") if a.out else None
    try:
        plain = a.routes_file
        n = a.routes
        listed = None  # the routes of --routes-file, for the local DUT
        if plain is None:
            plain = ses.path("routes.plain")
            if gen_tables(n, a.seed, [("plain", plain, "")]).wait(300) != 0:
                raise BenchError("scripts/gen-routes failed")
        else:
            listed = read_plain_routes(plain)
            n = len(listed)
        dut = None
        if memif:
            busy = foreign_cpu_check(1.0)
            if busy > FOREIGN_CPU_MAX:
                log("WARNING: other processes use %.0f%% of the CPUs: trials will be noisy "
                    "(--wait-idle SEC waits for quiet before each trial)" % (100 * busy))
            memory = ses.choose_memory(3072)
            gen = Generator(ses, 1, plain, a.seed, 512 if n < 100000 else 1024, n)
            if a.local_dut == "fastroute":
                conf = ses.path("routes.conf")
                header = "".join([
                    "port 0 address %s\n" % DUT_ADDR[0], "port 1 address %s\n" % DUT_ADDR[1],
                    "neigh add %s lladdr %s port 0\n" % (GW[0], GEN_MAC[0]),
                    "neigh add %s lladdr %s port 1\n" % (GW[1], GEN_MAC[1])])
                if listed is not None:
                    write_routes(listed, "fastroute", conf, header=header)
                elif gen_tables(n, a.seed, [("fastroute", conf, header)]).wait(300) != 0:
                    raise BenchError("scripts/gen-routes failed")
                dut = FastrouteDut(ses, 0, gen, conf, 2048 if n > 100000 else 1024)
            elif a.local_dut == "io":
                dut = TestpmdDut(ses, 0, gen, "io", 512)
            else:
                rules4, rules6 = ses.path("routes.l3fwd"), ses.path("routes6.l3fwd")
                if listed is not None:
                    write_routes(listed, "l3fwd", rules4)
                elif gen_tables(n, a.seed, [("l3fwd", rules4, "")]).wait(300) != 0:
                    raise BenchError("scripts/gen-routes failed")
                with open(rules6, "w") as f:
                    f.write("R2001:db8::/32 0\n")
                dut = L3fwdDut(ses, 0, gen, build_l3fwd(), rules4, rules6, 1024)
            dut.wait_ready(60 + n / 1e6 * 400)
            gen.wait_pair_up(0, 20)
            dut.begin()
            log("memif demo: %s DUT on CPU%d, generator on CPU%d, memory %s"
                % (dut.name, DUT_CPU, GEN_CPU, memory))
        else:
            gen = Generator(ses, 1, plain, a.seed, 0, n, eal=a.gen_eal.split(),
                            dut_macs=(a.dut_mac0, a.dut_mac1))
            gen.wait_pair_up(0, 30)

        nic = a.gen_eal is not None
        limited = []
        # frames back count only with their TTL taken down: a router's (the
        # memif demo's testpmd and l3fwd are left out, not known to)
        routed = (nic and not a.not_router) or (not nic and a.local_dut == "fastroute")

        def trial(rate):
            if trials > 0 and a.settle > 0:
                time.sleep(a.settle)  # RFC 2544 23 e: the DUT settles between trials
            if a.wait_idle > 0:
                if dut is not None:
                    dut.freeze()  # its spinning worker is ours, not foreign load
                busy = wait_idle(a.wait_idle)
                if dut is not None:
                    dut.thaw()
                if busy > FOREIGN_CPU_MAX:
                    log("other processes still use %.0f%% of the CPUs" % (100 * busy))
            r = gen.run(0, a.profile, a.size, a.warmup, a.trial, rate=rate, mode="trial",
                        routed=routed)
            # the port refusing packets (ring full): on memif the ring is
            # shared with the DUT, which did not keep up (lost); on a NIC
            # the generator's own queue is full (the wire's rate reached):
            # never offered, and a trial short of its rate fails as such
            attempted = r["tx_pkts"] + (0 if nic else r["tx_fail"])
            loss = attempted - r["rx_pkts"]
            ratio = loss / attempted if attempted else 1.0
            offered = attempted / r["seconds"] / 1e6 if r["seconds"] > 0 else 0
            short = rate > 0 and offered < 0.97 * rate
            # more frames back than sent (a switch's copies, a loop): no pass
            ok = 0 <= ratio <= a.loss and not short
            # rx_pkts counts ours back on the port opposite the sender's
            # only; those back on the sender's own port (not forwarded:
            # sent back where they came from) are lost, and said
            rec = {"trial_rate_mpps": rate, "offered_mpps": round(offered, 4),
                   "tx_pkts": r["tx_pkts"], "tx_fail": r["tx_fail"], "rx_pkts": r["rx_pkts"],
                   "rx_wrong_port": r["rx_wrong_port"], "loss_pkts": loss, "loss_ratio": ratio, "pass": ok,
                   "generator_limited": short and (nic or r["tx_fail"] == 0)}
            limited.append(rec["generator_limited"])
            note = ""
            if r["rx_wrong_port"]:
                note = "  %d back on the port that sent them" % r["rx_wrong_port"]
            if loss < 0:
                note += "  %d more frames came back than were sent" % -loss
            elif r["tx_fail"] and not nic:
                note += "  port refused %d (ring full)" % r["tx_fail"]
            elif short:
                note += "  generator could not offer the rate"
            log("trial %-8s offered %8.3f Mpps  rx %8.3f Mpps  loss %d (%.2e)%s  %s"
                % ("max" if rate == 0 else "%.3f" % rate, offered, r["rx_mpps"], loss, ratio,
                   note, "PASS" if ok else "fail"))
            if out is not None:
                out.write(json.dumps(rec) + "\n")
                out.flush()
            return rec

        trials = 0
        # the search moves on trial rates; what is claimed is what the
        # best passing trial really offered (a pass may offer 3% short)
        best_offered, best, lo, hi = None, None, 0.0, a.max_rate
        stopped = None
        # the first trial, at the top of the range, passed: the search
        # ends there, at what was offered ("unpaced": all the generator
        # and the link could; "max_rate": --max-rate), a lower bound of
        # the DUT's own rate
        ceiling = None
        try:
            if a.max_rate is None:
                first = trial(0)  # unpaced: what the generator (and the link) can offer
                trials += 1
                hi = first["offered_mpps"]
                if first["pass"]:
                    best = lo = hi
                    best_offered = first["offered_mpps"]
                    ceiling = "unpaced"
            else:
                first = trial(hi)
                trials += 1
                if first["pass"]:
                    best = lo = hi
                    best_offered = min(hi, first["offered_mpps"])
                    ceiling = "max_rate"
            while best != hi and trials < a.max_trials and (hi - lo) > a.resolution * hi:
                rate = (lo + hi) / 2
                rec = trial(rate)
                trials += 1
                if rec["pass"]:
                    lo = best = rate
                    best_offered = min(rate, rec["offered_mpps"])
                else:
                    hi = rate
        except TimeLimit as e:
            stopped = e  # the search so far is still said, marked incomplete
        res = {"result": "zero-loss" if a.loss == 0 else "loss<=%g" % a.loss,
               # no trial passed: no rate to claim
               "passed": best_offered is not None,
               "complete": stopped is None,
               "throughput_mpps": None if best_offered is None else round(best_offered, 4),
               "trial_rate_mpps": None if best is None else round(best, 4),
               "upper_bound_mpps": None if hi is None else round(hi, 4), "trials": trials,
               "profile": a.profile,
               "size": a.size, "routes": n, "trial_seconds": a.trial,
               "dut": dut.name if dut else "external",
               # the DUT passed at the top of the range: throughput_mpps
               # is a lower bound of its rate, not the rate (ceiling says
               # whose top: "unpaced", the generator's and the link's, or
               # "max_rate", --max-rate's)
               "at_offered_ceiling": ceiling is not None, "ceiling": ceiling,
               # the generator (not the DUT: over memif a full ring is the
               # DUT's) set the search's upper bound, or may have: a trial
               # failed because it could not offer its rate, or the
               # unpaced first trial passed
               "generator_limited": any(limited) or ceiling == "unpaced"}
        if best_offered is not None:
            gbps = best_offered * 1e6 * (a.size + 20) * 8 / 1e9
            res["throughput_gbps_l1"] = round(gbps, 3)
        signal.setitimer(signal.ITIMER_REAL, 0)  # said: the stops below are not cut
        if ceiling is not None:
            log("throughput %.3f Mpps is a LOWER BOUND of the DUT's rate: it passed the first "
                "trial, at the top of the range (%s); %s"
                % (best_offered, "unpaced: all the generator and the link could offer"
                   if ceiling == "unpaced" else "--max-rate %g" % a.max_rate,
                   "a faster generator (or link) is needed to find its limit"
                   if ceiling == "unpaced" else "a higher --max-rate may find its limit"))
        print(json.dumps(res))
        sys.stdout.flush()
        if out is not None:
            out.write(json.dumps(res) + "\n")
        if stopped is not None:
            raise stopped
        if dut is not None:
            dut.end()
            dut.stop()
        gen.quit()
    finally:
        ses.cleanup()
        if out is not None:
            out.close()
    return 0


# ---------------------------------------------------------------- main

def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("throughput", "rfc2544"):
        sys.stderr.write("usage: fastbench.py throughput|rfc2544 [options] "
                         "(see scripts/bench/throughput.sh, rfc2544.sh)\n")
        return 2
    cmd, argv = sys.argv[1], sys.argv[2:]

    def on_signal(sig, frame):
        raise KeyboardInterrupt("signal %d" % sig)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    def on_alarm(sig, frame):
        raise TimeLimit("time limit reached")

    signal.signal(signal.SIGALRM, on_alarm)
    # the time limit is parsed by the subcommand; arm a generous default now
    limit = None
    for i, x in enumerate(argv):
        v = argv[i + 1] if x == "--time-limit" and i + 1 < len(argv) else \
            x.split("=", 1)[1] if x.startswith("--time-limit=") else None
        try:
            limit = seconds(v) if v is not None else limit
        except argparse.ArgumentTypeError:
            pass  # the subcommand's parser says what is wrong with it
    if limit is None:
        limit = (180 if "--quick" in argv else 1800) if cmd == "throughput" else 900
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return throughput_main(argv) if cmd == "throughput" else rfc2544_main(argv)
    except BenchError as e:
        sys.stderr.write("%s: %s\n" % (cmd, e))
        return 1
    except KeyboardInterrupt as e:
        sys.stderr.write("%s: interrupted%s; every process it started is stopped, its files "
                         "removed\n" % (cmd, " (%s)" % e if str(e) else ""))
        return 130


if __name__ == "__main__":
    sys.exit(main())
