# SPDX-License-Identifier: BSD-3-Clause
"""What the integration tests share: the router's binaries, the EAL
options of a router on net_null ports (no root, no NIC), config files,
commands."""
import os
import subprocess
import tempfile

BUILD = os.environ.get("FASTROUTE_BUILD",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../build"))
FR = os.path.join(BUILD, "app/fastroute")
CLI = os.path.join(BUILD, "app/fastroute-cli")
# tables small enough for -m 512, and quick to make: the default IPv6
# table's trie and node pool take a router about 0.1 s (0.2 s under
# ASan) of its start, and these tests start about a hundred
SMALL = ["--max-routes", "4096", "--tbl8", "64", "--max-routes6", "4096", "--tbl8-6", "64"]
_runs = 0


def eal(tag, lcores="0-1", ports=2, rx=()):
    """The router's EAL options: a --file-prefix of its own (@tag, the pid,
    a count), @ports net_null ports, those in @rx receiving (a null frame
    each time a worker polls), the others not."""
    global _runs
    _runs += 1
    a = [FR, "--no-pci", "--no-huge", "-m", "512", "--no-telemetry",
         "--file-prefix", "%s-%d-%d" % (tag, os.getpid(), _runs), "-l", lcores,
         "--log-level", "lib.eal:error"]
    for i in range(ports):
        a += ["--vdev", "net_null%d" % i + ("" if i in rx else ",no-rx=1")]
    return a + ["--"]


def conf(text, d):
    """A new file in directory @d holding @text: its path."""
    fd, p = tempfile.mkstemp(suffix=".conf", dir=d)  # one file per call
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return p


def run(args, timeout=60):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def check(c, msg):
    if not c:
        raise AssertionError(msg)


def runtime_dir(a):
    """EAL's runtime directory of a router started with the options @a."""
    rt = "/var/run/dpdk" if os.geteuid() == 0 else os.path.join(
        os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")
    return os.path.join(rt, a[a.index("--file-prefix") + 1])
