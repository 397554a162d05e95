# SPDX-License-Identifier: BSD-3-Clause
"""End-to-end test helpers: network namespaces joined by veth pairs, the
router in its own namespace on net_af_packet ports, kernel hosts around it.

    h1 eth0 --- p0 [ fastroute (ns "r") ] p1 --- eth0 h2     (p2 --- h3 optional)

Tests run as root; without root (or without the tools) they exit 77, which
meson reports as SKIP, after saying why.
"""
import atexit
import ctypes
import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time

SKIP = 77
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL("libc.so.6", use_errno=True)

BUILD = os.environ.get("FASTROUTE_BUILD", os.path.join(os.path.dirname(__file__), "../../build"))
SRC = os.environ.get("FASTROUTE_SRC", os.path.join(os.path.dirname(__file__), "../.."))

# MACs and addresses of the standard topology: host k sits on router port k-1
ROUTER_MAC = ["02:00:00:00:0%d:01" % (i + 1) for i in range(3)]
HOST_MAC = ["02:00:00:00:0%d:02" % (i + 1) for i in range(3)]
ROUTER_IP = ["192.0.2.1", "198.51.100.1", "203.0.113.1"]
HOST_IP = ["192.0.2.2", "198.51.100.2", "203.0.113.2"]
PREFIXLEN = 24
# IPv6 (Topo(ipv6=True)): a /64 per link; the router's link-local addresses
# are EUI-64 from its MACs, the hosts' too
ROUTER_IP6 = ["2001:db8:%d::1" % (i + 1) for i in range(3)]
HOST_IP6 = ["2001:db8:%d::2" % (i + 1) for i in range(3)]
PREFIXLEN6 = 64


def eui64_ll(mac):
    """fe80::/64 address with the modified EUI-64 id of mac (RFC 4291)."""
    b = [int(x, 16) for x in mac.split(":")]
    b[0] ^= 2
    w = [(b[0] << 8) | b[1], (b[2] << 8) | 0xff, 0xfe00 | b[3], (b[4] << 8) | b[5]]
    import socket
    return socket.inet_ntop(socket.AF_INET6, socket.inet_pton(
        socket.AF_INET6, "fe80::" + ":".join("%x" % x for x in w)))


ROUTER_LL = [eui64_ll(m) for m in ROUTER_MAC]
HOST_LL = [eui64_ll(m) for m in HOST_MAC]


def log(msg):
    print(msg, flush=True)


def skip(why, env=False):
    """Skip the suite. Where every suite must run (make test as root sets
    FASTROUTE_NO_SKIP=1), only a limit of the machine (@env: no hugepages,
    no tun device) may skip one; a missing tool or package fails it."""
    if os.environ.get("FASTROUTE_NO_SKIP") == "1" and not env:
        log("FAIL: this suite may not skip here (FASTROUTE_NO_SKIP=1): " + why)
        sys.exit(1)
    log("SKIP: " + why)
    sys.exit(SKIP)


# what a SIGTERM must take away at once (see _terminated())
_live_routers = []
_live_topos = []
_tmpdirs = []


def tmpdir():
    """A temporary directory of the test's, removed when the test exits
    however it ends (a failed check, SIGTERM), not only on success."""
    d = tempfile.mkdtemp(prefix="fr-e2e-t-")
    _tmpdirs.append(d)
    return d


def config_pair(r, edit):
    """Router @r's show config, written to orig.conf, and @edit(of it) to
    new.conf, in a tmpdir(): (dir, the config, orig.conf, new.conf), for a
    configure replace and the one back."""
    before = r.cli("show config")
    d = tmpdir()
    orig, new = os.path.join(d, "orig.conf"), os.path.join(d, "new.conf")
    for path, text in ((orig, before), (new, edit(before))):
        with open(path, "w") as f:
            f.write(text)
    return d, before, orig, new


def _remove_tmpdirs():
    for d in _tmpdirs:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_remove_tmpdirs)


def hugepage_files(prefix):
    """(hugetlbfs mount points, the hugepage files of --file-prefix
    @prefix in them)."""
    import glob
    try:
        with open("/proc/mounts") as f:
            mounts = [ln.split()[1] for ln in f if ln.split()[2:3] == ["hugetlbfs"]]
    except OSError:
        mounts = []
    return mounts, [p for m in mounts for p in glob.glob(os.path.join(m, glob.escape(prefix) +
                                                                       "map_*"))]


def _dpdk_files_remove(prefix):
    """What a killed DPDK process of --file-prefix @prefix leaves: its
    runtime directory, and its hugepage files (a router with hugepages, kept
    for dpdk-dumpcap), which would hold the pages after it."""
    shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    for path in hugepage_files(prefix)[1]:
        try:
            os.unlink(path)
        except OSError:
            pass


def _terminated(sig, frame):
    # meson's timeout (or a Ctrl-C'd make) sends SIGTERM, and SIGKILL half a
    # second later: the routers (those in a session of their own too), the
    # namespaces, the routers' directories and DPDK runtime files go first,
    # at once; unwinding then runs every 'with' block's cleanup (hugepages)
    # with nothing left to wait for
    signal.signal(sig, signal.SIG_IGN)
    for r in list(_live_routers):
        try:
            if r.p is not None:  # None: not started yet
                r.p.kill()
        except OSError:
            pass
    for t in list(_live_topos):
        t.down()
    for r in list(_live_routers):
        if getattr(r, "dir", None):
            shutil.rmtree(r.dir, ignore_errors=True)
        _dpdk_files_remove(r.prefix)
    _remove_tmpdirs()
    sys.exit(128 + sig)


signal.signal(signal.SIGTERM, _terminated)


def require_root(tools=("ip", "ethtool", "ping")):
    if os.geteuid() != 0:
        skip("end-to-end tests need root (network namespaces, veth, af_packet)")
    for t in tools:
        if shutil.which(t) is None:
            skip("%s is not installed (make test installs it)" % t)
    for b in ("app/fastroute", "app/fastroute-cli"):
        if not os.access(os.path.join(BUILD, b), os.X_OK):
            skip("%s/%s is not built" % (BUILD, b))


def sh(cmd, check=True, ns=None, timeout=60, capture=True):
    if ns is not None:
        cmd = ["ip", "netns", "exec", ns] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.STDOUT if capture else None,
                       timeout=timeout, text=True)
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stdout))
    return p.stdout if capture else ""


class netns:
    """with netns(name): the calling thread's sockets live in namespace name."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.orig = os.open("/proc/self/ns/net", os.O_RDONLY)
        fd = os.open("/var/run/netns/" + self.name, os.O_RDONLY)
        try:
            if _libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns " + self.name)
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc):
        _libc.setns(self.orig, CLONE_NEWNET)
        os.close(self.orig)


class Thread(threading.Thread):
    """A test's helper thread whose exception is not only printed: join()
    raises it in the test, which then fails (a sender that died would
    otherwise leave the test measuring less traffic than it thinks)."""

    def run(self):
        # a subclass puts its loop in work(); otherwise target= runs
        self.error = None
        try:
            if hasattr(self, "work"):
                self.work()
            else:
                super().run()
        except BaseException as e:  # kept for join()
            self.error = e

    def join(self, timeout=None):
        super().join(timeout)
        if not self.is_alive() and getattr(self, "error", None) is not None:
            e, self.error = self.error, None
            raise RuntimeError("helper thread %s failed: %r" % (self.name, e)) from e


class Topo:
    """Namespaces r (router), h1..hN; router port k <-> host k+1."""

    def __init__(self, hosts=2, qpairs=1, ipv6=False):
        # the whole pid: unique among the runs alive (a namespace of a dead
        # run under the same name makes 'ip netns add' fail, never another
        # run's topology go)
        self.tag = "fr%d" % os.getpid()
        self.ipv6 = ipv6
        self.r = self.tag + "r"
        self.hosts = [self.tag + "h%d" % (i + 1) for i in range(hosts)]
        self.qpairs = qpairs
        self.made = []  # the namespaces this topology created: only those go
        _live_topos.append(self)
        try:
            self.up()
        except BaseException:
            self.down()  # a half-built topology is not left behind
            raise

    def netns_add(self, name):
        self.made.append(name)  # first: a SIGTERM meanwhile still removes it
        sh(["ip", "netns", "add", name])

    def up(self):
        self.netns_add(self.r)
        # the router's kernel side of the veths stays silent (no IPv6 RS/DAD)
        sh(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"], ns=self.r)
        sh(["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"], ns=self.r)
        for i, h in enumerate(self.hosts):
            p = "p%d" % i
            self.netns_add(h)
            sh(["ip", "-n", self.r, "link", "add", p, "type", "veth", "peer", "name", "eth0",
                "netns", h])
            sh(["ip", "-n", self.r, "link", "set", p, "address", ROUTER_MAC[i]])
            sh(["ip", "-n", h, "link", "set", "eth0", "address", HOST_MAC[i]])
            # offloads off: kernel hosts must send finished checksums
            sh(["ethtool", "-K", p, "tx", "off", "tso", "off", "gso", "off", "gro", "off",
                "rx", "off"], ns=self.r, check=False)
            sh(["ethtool", "-K", "eth0", "tx", "off", "tso", "off", "gso", "off", "gro", "off",
                "rx", "off"], ns=h, check=False)
            sh(["ip", "-n", self.r, "link", "set", p, "up"])
            if self.ipv6:
                # dual stack; no DAD delay, no autoconfiguration from RAs
                for k in ("accept_dad=0", "accept_ra=0", "autoconf=0"):
                    sh(["sysctl", "-qw", "net.ipv6.conf.all." + k], ns=h)
                    sh(["sysctl", "-qw", "net.ipv6.conf.default." + k], ns=h)
                    sh(["sysctl", "-qw", "net.ipv6.conf.eth0." + k], ns=h)
            else:
                # the hosts speak IPv4 only, so the router's counters stay quiet
                sh(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"], ns=h)
            sh(["ip", "-n", h, "addr", "add", "%s/%d" % (HOST_IP[i], PREFIXLEN), "dev", "eth0"])
            sh(["ip", "-n", h, "link", "set", "eth0", "up"])
            sh(["ip", "-n", h, "link", "set", "lo", "up"])
            sh(["ip", "-n", h, "route", "add", "default", "via", ROUTER_IP[i]])
            if self.ipv6:
                sh(["ip", "-n", h, "-6", "addr", "add", "%s/%d" % (HOST_IP6[i], PREFIXLEN6),
                    "dev", "eth0", "nodad"])
                sh(["ip", "-n", h, "-6", "route", "add", "default", "via", ROUTER_IP6[i],
                    "dev", "eth0"])

    def down(self):
        for n in self.made:
            # what still runs inside (an iperf3 server, a router whose
            # test was killed) goes with it
            pids = subprocess.run(["ip", "netns", "pids", n], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True).stdout.split()
            for pid in pids:
                # not the test itself: its main thread may be inside the
                # namespace (with netns(...)) when a SIGTERM calls this
                if pid == str(os.getpid()):
                    continue
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
            sh(["ip", "netns", "del", n], check=False)
        self.made = []
        if self in _live_topos:
            _live_topos.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.down()


def base_config(nhosts=2, static_neigh=True, ipv6=False):
    lines = []
    for i in range(nhosts):
        lines.append("port %d address %s/%d" % (i, ROUTER_IP[i], PREFIXLEN))
        if ipv6:
            lines.append("port %d address %s/%d" % (i, ROUTER_IP6[i], PREFIXLEN6))
    if static_neigh:
        for i in range(nhosts):
            lines.append("neigh add %s lladdr %s port %d" % (HOST_IP[i], HOST_MAC[i], i))
    return "\n".join(lines) + "\n"


class Router:
    """fastroute running in the topology's router namespace."""

    count = 0

    def __init__(self, topo, config, workers=1, lcores=None, extra=(), huge=False, mem=1024,
                 pmd="af_packet", eal=(), vdevs=(), tty=False, sock=None, devargs=""):
        """tty: the router's standard input and output are a terminal (a
        pty it controls, in the foreground), so it opens its own CLI there;
        tty_write() types into it, tty_read() reads what it printed.
        devargs: more of the af_packet ports' device arguments
        (",framecnt=4096")."""
        Router.count += 1
        self.topo = topo
        self.p = None
        self.prefix = "%s-%d" % (topo.tag, Router.count)
        _live_routers.append(self)  # its directory too, before it starts
        self.dir = tempfile.mkdtemp(prefix="fr-e2e-")
        self.sock = sock or os.path.join(self.dir, "cli.sock")
        self.conf = os.path.join(self.dir, "router.conf")
        with open(self.conf, "w") as f:
            f.write(config)
        if lcores is None:
            lcores = "0-%d" % workers
        args = [os.path.join(BUILD, "app/fastroute"), "--no-pci"]
        # hugepages only where a test needs them (dpdk-dumpcap attaches as a
        # secondary process, which a --no-huge primary cannot serve)
        args += ["-m", str(mem)] if huge else ["--no-huge", "-m", str(mem)]
        args += ["--file-prefix", self.prefix, "--log-level", "lib.eal:warning"] + list(eal)
        args += ["--lcores", lcores] if ("@" in lcores or "," in lcores) else ["-l", lcores]
        for i in range(len(topo.hosts)):
            if pmd == "pcap":
                # libpcap sees frames as they are; DPDK 22.11's af_packet puts its
                # sockets in a fanout group with PACKET_FANOUT_FLAG_DEFRAG, so the
                # kernel reassembles IPv4 fragments before an af_packet port sees
                # them (IPv6 ones reach it)
                args += ["--vdev", "net_pcap%d,iface=p%d,phy_mac=1" % (i, i)]
            else:
                args += ["--vdev", "net_af_packet%d,iface=p%d,qpairs=%d%s" %
                         (i, i, workers, devargs)]
        # more ports after the hosts' (port len(hosts) onwards)
        for v in vdevs:
            args += ["--vdev", v]
        # the table sizes, unless the test gives its own (an option the
        # router takes at most once)
        sizes = [x for k, v in (("--max-routes", "65536"), ("--tbl8", "1024"))
                 if k not in extra for x in (k, v)]
        args += ["--", "-f", self.conf, "-s", self.sock] + sizes + list(extra)
        self.args = args
        self.out = open(os.path.join(self.dir, "stdout"), "w+")
        self.err = open(os.path.join(self.dir, "stderr"), "w+")
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
        self.tty = None
        if tty:
            self.tty, slave = pty.openpty()

            def controlling_tty():
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)

            self.p = subprocess.Popen(["ip", "netns", "exec", topo.r] + args, stdin=slave,
                                      stdout=slave, stderr=self.err, env=env,
                                      start_new_session=True, preexec_fn=controlling_tty)
            os.close(slave)
        else:
            self.p = subprocess.Popen(["ip", "netns", "exec", topo.r] + args,
                                      stdout=self.out, stderr=self.err, env=env)
        self.wait_ready()

    def wait_ready(self, timeout=60):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.p.poll() is not None:
                raise RuntimeError("router exited with %d:\n%s" % (self.p.returncode,
                                                                   self.stderr()))
            if self.tty is not None:
                self.tty_read(0.1)
            self.out.seek(0)
            if "ready" in self.out.read():
                return
            time.sleep(0.1)
        self.p.kill()  # not left running beside whatever the caller starts next
        self.p.wait()
        _dpdk_files_remove(self.prefix)
        raise RuntimeError("router not ready after %ds:\n%s" % (timeout, self.stderr()))

    def tty_write(self, data):
        os.write(self.tty, data.encode())

    def tty_read(self, timeout):
        """What the router printed on its terminal within @timeout seconds
        (also appended to stdout())."""
        got = b""
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0 or not select.select([self.tty], [], [], left)[0]:
                break
            try:
                data = os.read(self.tty, 65536)
            except OSError:  # EIO: the router closed it
                break
            if not data:
                break
            got += data
        text = got.decode(errors="replace")
        self.out.seek(0, os.SEEK_END)
        self.out.write(text)
        self.out.flush()
        return text

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def stdout(self):
        self.out.seek(0)
        return self.out.read()

    def raw(self, lines, timeout=10):
        """@lines over the CLI socket's own protocol, in one write on one
        connection (the router runs them back to back): their answers as
        (ok, body). A hung router fails the test after @timeout seconds."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.sock)
            s.sendall("".join(x + "\n" for x in lines).encode())
            f = s.makefile("rb")
            out = []
            for _ in lines:
                hdr = f.readline().decode()
                if not hdr:
                    raise RuntimeError("the router hung up after %d answers" % len(out))
                out.append((hdr.startswith("OK"), f.read(int(hdr.split()[1])).decode()))
            return out
        finally:
            s.close()

    def cli(self, cmd, check=True, json=False):
        args = [os.path.join(BUILD, "app/fastroute-cli"), "-s", self.sock]
        if json:
            args.append("-j")
        p = subprocess.run(args + cmd.split(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=30)
        if check and p.returncode != 0:
            raise RuntimeError("cli '%s' failed (%d): %s" % (cmd, p.returncode, p.stderr))
        return p.stdout if p.returncode == 0 else p.stderr

    def stats(self):
        """Counters from 'show stats' as a dict name -> int (a Counters: a
        name the router does not report raises, never reads as 0)."""
        d = Counters()
        for line in self.cli("show stats").splitlines():
            m = re.match(r"^\s+(\w+)\s+(\d+)$", line)
            if m:
                d[m.group(1)] = int(m.group(2))
        return d

    def port_info(self, port):
        """'show port info PORT' as the one port's JSON object."""
        o = json.loads(self.cli("show port info %d" % port, json=True))
        if isinstance(o, dict) and "ports" in o:
            o = o["ports"][0]
        elif isinstance(o, list):
            o = o[0]
        return o

    def ctrl_drops(self):
        """The control thread's drops, all reasons together."""
        return sum(json.loads(self.cli("show stats", json=True))["control drops"].values())

    def stop(self):
        """SIGINT; the router must exit 0, without sanitizer reports. Its
        standard output stays readable (stdout()) after."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                if self.tty is not None:
                    # what it still prints must not block its exit
                    end = time.time() + 30
                    while self.p.poll() is None and time.time() < end:
                        self.tty_read(0.1)
                self.p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
                _dpdk_files_remove(self.prefix)
                raise RuntimeError("router did not stop within 30 s of SIGINT")
        if self.tty is not None:
            os.close(self.tty)
            self.tty = None
        if self in _live_routers:
            _live_routers.remove(self)
        err = self.stderr()
        for bad in ("AddressSanitizer", "runtime error:", "LeakSanitizer"):
            if bad in err:
                raise RuntimeError("sanitizer report from the router:\n" + err)
        if self.p.returncode != 0:
            raise RuntimeError("router exited with %d:\n%s" % (self.p.returncode, err))
        shutil.rmtree(self.dir, ignore_errors=True)
        return err


class Counters(dict):
    """Router.stats(): reading a counter the router does not report, by
    [] or get(), raises KeyError, so a misspelt or retired name fails the
    check that uses it instead of reading as 0 (a default is never given)."""

    def __missing__(self, name):
        raise KeyError("the router reports no counter %r in 'show stats'" % (name,))

    def get(self, name, *default):
        return self[name]


def delta(before, after, name):
    """How much counter @name rose from snapshot @before to @after; a name
    missing from either (the router does not report it) raises KeyError."""
    for snap in (before, after):
        if name not in snap:
            raise KeyError("the router reports no counter %r in 'show stats'" % (name,))
    return after[name] - before[name]


def settle(r, before, names, timeout):
    """Wait (up to @timeout s) until each counter in @names rose from
    snapshot @before: the router has handled the frame. Whatever it sends
    in answer leaves with that count, so a window for frames that must not
    come can then be short; a count that never rises costs the timeout, and
    the caller's check of it fails as before."""
    end = time.time() + timeout
    while time.time() < end:
        now = r.stats()
        if all(delta(before, now, n) >= 1 for n in names):
            return
        time.sleep(0.02)


# Parts of tests this machine could not run (skip_part()): said at the
# suite's end with its skipped tests
SKIPPED_PARTS = []


def skip_part(what):
    """A check of a test that this machine cannot make (@what: the test and
    why): logged, and listed with the suite's skips, never a silent pass."""
    log("     (SKIPPED: %s)" % what)
    SKIPPED_PARTS.append(what)


class Runner:
    """Run test functions in order; report each; exit non-zero on any failure."""

    def __init__(self):
        self.failed = []
        self.passed = 0
        self.skipped = []

    def run(self, name, fn, *args):
        t0 = time.time()
        try:
            fn(*args)
        except SystemExit as e:
            if e.code != SKIP:
                raise
            # a skip inside one test: that test only, the others count
            log("SKIP %s (%.1fs)" % (name, time.time() - t0))
            self.skipped.append(name)
            return
        except Exception as e:  # report and continue with the next test
            self.failed.append(name)
            log("FAIL %s (%.1fs): %s" % (name, time.time() - t0, e))
            return
        self.passed += 1
        log("ok   %s (%.1fs)" % (name, time.time() - t0))

    def skip(self, names, why):
        """Tests of this suite not run here (a limit of the machine)."""
        log("SKIP %s: %s" % (", ".join(names), why))
        self.skipped += names

    def exit(self):
        """Failures exit 1. Skipped tests are said: the suite is a skip
        (77) when nothing passed, and otherwise passes with its skips
        written to $FASTROUTE_SKIPS, which scripts/run-tests.sh lists at
        the end, so a partial run never reads as a whole one."""
        if self.failed:
            log("%d failed: %s" % (len(self.failed), ", ".join(self.failed)))
            sys.exit(1)
        self.skipped += ["part of " + x for x in SKIPPED_PARTS]
        del SKIPPED_PARTS[:]
        if self.skipped:
            suite = os.path.basename(sys.argv[0])
            log("%d passed, %d SKIPPED: %s" % (self.passed, len(self.skipped),
                                             ", ".join(self.skipped)))
            path = os.environ.get("FASTROUTE_SKIPS")
            if path:
                with open(path, "a") as f:
                    f.write("%s: %s\n" % (suite, ", ".join(self.skipped)))
            if self.passed == 0:
                sys.exit(SKIP)
        sys.exit(0)


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def wait_for(fn, timeout=5.0, step=0.05):
    """Poll fn() until it returns a true value or timeout; returns the value."""
    t0 = time.time()
    while True:
        v = fn()
        if v or time.time() - t0 > timeout:
            return v
        time.sleep(step)


def wait_listening(ns, port, proc=None, timeout=10.0):
    """Until a TCP socket listens on @port in namespace @ns ('ss -ltn'),
    at most @timeout seconds; raises if it does not, or if @proc (the
    server's Popen) exits first."""
    t0 = time.time()
    while True:
        out = sh(["ss", "-Hltn", "sport", "=", ":%d" % port], ns=ns, check=False)
        if re.search(r":%d\s" % port, out):
            return
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("the server in %s exited %d before listening on port %d" %
                               (ns, proc.returncode, port))
        if time.time() - t0 > timeout:
            raise RuntimeError("nothing listens on TCP port %d in %s after %.0f s:\n%s" %
                               (port, ns, timeout, out))
        time.sleep(0.05)


def expect_lost(r, fn, sent, reason=None, timeout=4.0):
    """fn() asks the router for an answer (an echo reply, an ICMP error)
    whose way back is a gateway that never answers: the answer is dropped
    as neigh_failed, the cause counted under @reason (when given), and the
    counter of answers sent, @sent, does not move."""
    before = r.stats()
    fn()
    after = wait_for(lambda: (lambda a: a if delta(before, a, "neigh_failed") >= 1 else None)(
        r.stats()), timeout=timeout)
    check(after is not None, "the answer was not dropped as neigh_failed within %.0f s" % timeout)
    check(delta(before, after, "neigh_failed") == 1, "neigh_failed rose by %d" %
          delta(before, after, "neigh_failed"))
    check(delta(before, after, sent) == 0, "%s rose by %d for an answer never sent" %
          (sent, delta(before, after, sent)))
    if reason:
        check(delta(before, after, reason) == 1, "%s rose by %d" %
              (reason, delta(before, after, reason)))


def scapy():
    """Import Debian's scapy (tests run under /usr/bin/python3)."""
    try:
        import scapy.all as s  # noqa: F401
    except ImportError:
        skip("python3-scapy is not installed (make test installs it)")
    s.conf.verb = 0
    return s


class Wire:
    """Send from one host, capture at another: raw L2 sockets in namespaces."""

    def __init__(self, topo, src_host, dst_host):
        s = scapy()
        self.s = s
        with netns(topo.hosts[src_host]):
            self.tx = s.conf.L2socket(iface="eth0")
        with netns(topo.hosts[dst_host]):
            self.rx = s.conf.L2listen(iface="eth0")
        # room for a whole test burst: we read only after sending
        import socket
        SO_RCVBUFFORCE = 33
        self.rx.ins.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
        self.src, self.dst = src_host, dst_host

    def send(self, pkts):
        for p in pkts if isinstance(pkts, list) else [pkts]:
            self.tx.send(p)

    def recv(self, timeout=1.0, match=None, want=None):
        """Frames the router sent to the destination host within timeout
        (or as soon as want of them matched): collect_from() over it."""
        return collect_from({self.dst: self}, timeout, want, match, linger=None)[self.dst]

    def close(self):
        self.tx.close()
        self.rx.close()



class Listen:
    """Frames the router sends to host h (raw L2 socket in h's namespace)."""

    def __init__(self, topo, h=0):
        s = scapy()
        import socket
        with netns(topo.hosts[h]):
            self.rx = s.conf.L2listen(iface="eth0")
        self.rx.ins.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE
        self.h = h

    def collect(self, timeout=1.0, match=None, want=None):
        """Frames from the router's MAC that match, until timeout or want of them."""
        return collect_from({self.h: self}, timeout, want, match, linger=None)[self.h]

    def close(self):
        self.rx.close()


def collect_from(lsn, timeout, want, match, linger=0.2):
    """Frames the router sends to several hosts at once, from the Listens
    (or Wires) @lsn ({h: Listen}): {h: [frames that match]} (@match None:
    all; a dict {h: match}: each host's own), until @want of them in all
    (None: no number), then @linger seconds more to catch any beyond them
    (a frame sent twice, to two hosts; None: none, not even those queued),
    or until @timeout. Waiting on the hosts one after the other took the
    whole timeout for each one that gets only some."""
    got = {h: [] for h in lsn}
    socks = {ls.rx: h for h, ls in lsn.items()}
    end = time.time() + timeout
    # past the end, what is queued already is still read (a loaded machine
    # reads late), but a stream never ending holds it no longer than this
    hard = end + max(1.0, timeout)
    n = 0
    while True:
        ready, _, _ = select.select(list(socks), [], [], max(0.0, end - time.time()))
        if not ready or time.time() >= hard:
            break
        for sock in ready:
            h = socks[sock]
            p = sock.recv()
            m = match.get(h) if isinstance(match, dict) else match
            if p is None or p.src != ROUTER_MAC[h] or (m is not None and not m(p)):
                continue
            got[h].append(p)
            n += 1
            if n == want:
                if linger is None:
                    return got
                end = min(end, time.time() + linger)
    return got


def arrivals(topo, pkts, hosts, tag, timeout=1.5, by=None):
    """Send the UDP frames pkts (their payload tag) from h1: each
    destination address -> the hosts (indexes in hosts) its datagram
    reached through the router (@by: what by(frame) says of each arrival
    instead, its gateway say)."""
    s = scapy()
    got = {}
    lsn = {h: Listen(topo, h) for h in hosts}
    try:
        l2send(topo, pkts)
        for h, frames in collect_from(lsn, timeout, len(pkts),
                                      lambda p: p.haslayer(s.UDP) and
                                      p[s.UDP].payload.load == tag).items():
            for p in frames:
                ip = p[s.IPv6] if p.haslayer(s.IPv6) else p[s.IP]
                got.setdefault(ip.dst, []).append(h if by is None else by(p))
    finally:
        for ls in lsn.values():
            ls.close()
    return got


def l2send(topo, pkts, h=0):
    """Send scapy frames from host h's eth0."""
    s = scapy()
    with netns(topo.hosts[h]):
        sock = s.conf.L2socket(iface="eth0")
    for p in pkts if isinstance(pkts, list) else [pkts]:
        sock.send(p)
    sock.close()

def udp(s, src_host, dst_ip, ttl=64, sport=1234, dport=5678, payload=b"fastroute-e2e", **ipkw):
    """An Ethernet/IPv4/UDP frame from host src_host to the router."""
    return (s.Ether(src=HOST_MAC[src_host], dst=ROUTER_MAC[src_host]) /
            s.IP(src=HOST_IP[src_host], dst=dst_ip, ttl=ttl, **ipkw) /
            s.UDP(sport=sport, dport=dport) / s.Raw(payload))


def udp_to_many(s, src_host, dst_ips, **kw):
    """The frames udp() makes, one to each of @dst_ips, as bytes: one built
    by scapy, the others patched from it (destination and both checksums):
    scapy takes about 0.4 ms a frame, thousands of them seconds."""
    import socket as so
    import struct
    raw = bytearray(bytes(udp(s, src_host, dst_ips[0], **kw)))
    ihl = (raw[14] & 15) * 4
    u = 14 + ihl
    frames = []
    for d in dst_ips:
        raw[30:34] = so.inet_aton(d)
        raw[24:26] = b"\0\0"
        raw[24:26] = s.checksum(bytes(raw[14:u])).to_bytes(2, "big")
        ulen = len(raw) - u
        raw[u + 6:u + 8] = b"\0\0"
        c = s.checksum(bytes(raw[26:34]) + struct.pack("!HH", 17, ulen) + bytes(raw[u:]))
        raw[u + 6:u + 8] = (c or 0xffff).to_bytes(2, "big")
        frames.append(bytes(raw))
    return frames


def with_options(s, pkt, opts):
    """pkt (Ether/IPv4) with the option bytes opts (a multiple of 4) added
    to its header: IHL, total length and checksum made right."""
    raw = bytearray(bytes(pkt))
    raw[14 + 20:14 + 20] = opts
    raw[14] = 0x40 | (5 + len(opts) // 4)
    raw[16:18] = (int.from_bytes(raw[16:18], "big") + len(opts)).to_bytes(2, "big")
    raw[24:26] = b"\0\0"
    raw[24:26] = s.checksum(bytes(raw[14:14 + 20 + len(opts)])).to_bytes(2, "big")
    return s.Ether(bytes(raw))


class Hugepages:
    """with Hugepages(n): at least n free 2 MiB pages, the old count restored after."""

    PATH = "/proc/sys/vm/nr_hugepages"

    def __init__(self, n):
        self.n = n
        self.orig = None
        self.mounted = False  # ours to unmount after

    @staticmethod
    def free():
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("HugePages_Free:"):
                    return int(line.split()[1])
        return 0

    def __enter__(self):
        try:
            if not os.path.ismount("/dev/hugepages"):
                os.makedirs("/dev/hugepages", exist_ok=True)
                sh(["mount", "-t", "hugetlbfs", "nodev", "/dev/hugepages"])
                self.mounted = True
            have = self.free()
            if have < self.n:
                with open(self.PATH) as f:
                    self.orig = int(f.read())
                with open(self.PATH, "w") as f:
                    f.write(str(self.orig + self.n - have))
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:
            self.__exit__()
            skip("no hugepages on this machine: %s" % e, env=True)
        if self.free() < self.n:
            self.__exit__()
            skip("cannot reserve %d hugepages (memory too fragmented?)" % self.n, env=True)
        return self

    def __exit__(self, *exc):
        if self.orig is not None:
            with open(self.PATH, "w") as f:
                f.write(str(self.orig))
            self.orig = None
        if self.mounted:
            # the machine as it was: no hugetlbfs where there was none
            subprocess.run(["umount", "/dev/hugepages"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            self.mounted = False
