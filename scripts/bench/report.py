#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write docs/benchmarks.md from one 'make bench' run: the throughput
harness's summary (fastroute against testpmd io/mac and l3fwd-LPM), the
route cache rows, the kbench lookup microbenchmark, the targets met or not,
a PNG chart, and the previous run's headline figures beside this run's
(kept in docs/bench-history/, so a regression shows).

--check validates the inputs of make test's smoke run (every DUT run in it
must have forwarded packets) and renders the page, chart and history into a
temporary directory, never into docs/."""
import argparse
import datetime
import glob
import hashlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, HERE)
import fastbench  # noqa: E402 (the harness's summary and generator-bound rule)

# a ratio target is judged met or not met from at least this many pairs
MIN_PAIRS = 3
# the smoke run: fastroute must have forwarded at least this share of what it received
SMOKE_FORWARDED = 0.95
FR_DUTS = ("fastroute", "fastroute6") + tuple(fastbench.FR_VARIANTS)
KB_METRICS = ("bare_lpm", "decision", "pipeline", "rpf_loose", "rpf_strict", "cache_on",
              "rpf_strict_2", "cache_auto")
# a kbench target is met (or not met) when at least this share of the
# repetitions' ratios lie on that side of it; else inconclusive
KB_AGREE = 0.75
KB6_METRICS = ("decision6", "pipeline6", "rpf_strict6")
# what the generator sends (tests/bench/pktgen/pktgen.c)
PROFILES_TEXT = (
    "Traffic: UDP/IPv4 to destinations inside the table's own routes, each sent on the "
    "generator port opposite the DUT port its route leaves by. `1flow`: one destination, "
    "the first route of the table (its base + 1), in one direction, the same flow for "
    "every table: the one-route table routes one way only, so the larger tables are sent "
    "that single flow too rather than one per direction (rows older than this page's "
    "generator sent two flows, both ways, with 10,000 and 1,000,000 routes). `256nets`: "
    "256 routes, one address in each, round-robin, both directions. `1kflows`: 1,000 and "
    "`random1m`: 1,000,000 destinations, each a random address inside a uniformly chosen "
    "route (the same ones in every run: seeded), walked in order, both directions. "
    "The one-route table is sent `1flow` alone: `256nets` and `random1m` need a table of "
    "at least 256 routes to draw from (scripts/bench/fastbench.py `PROFILE_MIN_ROUTES`); "
    "with one route they would be one lookup of one line, which `1flow` measures "
    "already.")
# the budget for make bench from a clean clone
BENCH_BUDGET_S = 15 * 60
RUN_KEYS = ("routes", "profile", "size", "dut", "round", "mpps", "busy_cycles_per_pkt",
            "memory", "pingpong_before_ns", "pingpong_after_ns", "placement", "discarded")


def check_kbench_auto(rows, kb, required):
    """auto mode's own measurements: one row per kbench table and destination
    count (raw results of runs before kbench reported them have none)"""
    ka = [r for r in rows if r.get("bench") == "kbench_auto"]
    if not ka and not required:
        return ka
    want = set((r["routes"], r["dests"]) for r in kb)
    got = set()
    for r in ka:
        for k in ("routes", "dests", "probe_cycles", "bypass_cycles", "bypassed", "reps"):
            if k not in r:
                fail("kbench_auto row without %s: %s" % (k, r))
        if not (r["probe_cycles"] > 0 and r["bypass_cycles"] > 0 and
                0 <= r["bypassed"] <= r["reps"]):
            fail("kbench_auto row out of range: %s" % r)
        got.add((r["routes"], r["dests"]))
    if got != want:
        fail("kbench_auto rows for %s, want %s" % (sorted(got), sorted(want)))
    return ka


def fail(msg):
    print("report: " + msg, file=sys.stderr)
    sys.exit(1)


def load_jsonl(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as e:
                fail("%s:%d: not JSON (%s)" % (path, n, e))
    return rows


def check_kbench6(rows):
    kb6 = [r for r in rows if r.get("bench") == "kbench" and r.get("family") == 6]
    for r in kb6:
        for k in ("routes", "dests", "metric", "cycles", "min", "max", "ratio_to_ipv4"):
            if k not in r:
                fail("kbench IPv6 row without %s: %s" % (k, r))
        if r["metric"] not in KB6_METRICS or not 0 < r["min"] <= r["cycles"] <= r["max"] or \
                not r["ratio_to_ipv4"] > 0:
            fail("kbench IPv6 row out of shape: %s" % r)
    if kb6 and set(r["metric"] for r in kb6) != set(KB6_METRICS):
        fail("kbench IPv6 metrics %s, want %s" % (sorted(set(r["metric"] for r in kb6)),
                                                   sorted(KB6_METRICS)))
    return kb6


def check_kbench(rows):
    kb = [r for r in rows if r.get("bench") == "kbench" and r.get("family", 4) == 4]
    if not kb:
        fail("kbench produced no rows")
    for r in kb:
        for k in ("routes", "dests", "metric", "cycles", "min", "max", "ratio_to_bare"):
            if k not in r:
                fail("kbench row without %s: %s" % (k, r))
        if r["metric"] not in KB_METRICS or not 0 < r["min"] <= r["cycles"] <= r["max"] or \
                not r["ratio_to_bare"] > 0:
            fail("kbench row out of shape: %s" % r)
        if r["metric"] == "bare_lpm" or old_kb(kb):
            continue
        # each repetition's ratio, whose spread the targets are judged on
        for k in ("ratio_min", "ratio_max", "ratios"):
            if k not in r:
                fail("kbench row without %s: %s" % (k, r))
        x = r["ratios"]
        if not (x and all(v > 0 for v in x) and
                r["ratio_min"] <= r["ratio_to_bare"] <= r["ratio_max"] and
                abs(min(x) - r["ratio_min"]) < 1e-5 and abs(max(x) - r["ratio_max"]) < 1e-5):
            fail("kbench row's ratios out of shape: %s" % r)
    metrics = set(r["metric"] for r in kb)
    want = set(KB_METRICS) - ({"rpf_strict_2"} if old_kb(kb) else set())
    if metrics != want:
        fail("kbench metrics %s, want %s" % (sorted(metrics), sorted(want)))
    return kb


def old_kb(kb):
    """Rows of a kbench from before it reported each repetition's ratio
    (raw results kept in build/bench-raw can be rendered again): judged on
    their medians alone, and without the rpf_strict_2 row."""
    return not any("ratios" in r for r in kb)


XLAT_SPANS = (1, 32, 256)


def check_kbench_xlat(rows, required):
    """kbench's translation probe: one row per span (raw results of runs
    before kbench had the probe have none)"""
    kx = [r for r in rows if r.get("bench") == "kbench_xlat"]
    if not kx and not required:
        return kx
    for r in kx:
        for k in ("span_mib", "lines", "pages", "cycles", "min", "max", "ratio_to_packed",
                  "extra_cycles"):
            if k not in r:
                fail("kbench_xlat row without %s: %s" % (k, r))
        if not (r["cycles"] > 0 and r["min"] <= r["cycles"] <= r["max"] and
                r["ratio_to_packed"] > 0):
            fail("kbench_xlat row out of shape: %s" % r)
    spans = sorted(r["span_mib"] for r in kx)
    if spans != list(XLAT_SPANS):
        fail("kbench_xlat rows for spans %s MiB, want %s" % (spans, list(XLAT_SPANS)))
    return sorted(kx, key=lambda r: r["span_mib"])


def check_throughput(summary, runs):
    for k in ("header", "memory", "rows", "wall_seconds"):
        if k not in summary:
            fail("throughput summary without %s" % k)
    if not summary["rows"]:
        fail("throughput summary has no rows")
    for row in summary["rows"]:
        for d, v in row["duts"].items():
            # the rate is the median of the runs on the row's placement
            if v.get("at_placement", v["valid"]) and not (v["mpps"] and v["mpps"] > 0):
                fail("throughput %s: %s has valid runs but no rate" % (row, d))
    for r in runs:
        for k in RUN_KEYS:
            if k not in r:
                fail("throughput run without %s: %s" % (k, r))


def check_rfc2544(path):
    """The zero-loss search's --out: one line per trial, then its result, and
    the result agreeing with the trials (the smoke run's check)."""
    rows = load_jsonl(path)
    if not rows or "result" not in rows[-1]:
        fail("rfc2544: %s ends without a result line" % path)
    res, trials = rows[-1], rows[:-1]
    for k in ("throughput_mpps", "upper_bound_mpps", "trials", "dut", "generator_limited",
              "passed", "complete", "at_offered_ceiling"):
        if k not in res:
            fail("rfc2544 result without %s: %s" % (k, res))
    if not res["complete"]:
        fail("rfc2544: the search stopped before its end (time limit): %s" % res)
    for t in trials:
        for k in ("trial_rate_mpps", "offered_mpps", "tx_pkts", "rx_pkts", "rx_wrong_port",
                  "loss_pkts", "loss_ratio", "pass"):
            if k not in t:
                fail("rfc2544 trial without %s: %s" % (k, t))
        # the demo's DUTs (fastroute with the generator's table, testpmd
        # io, l3fwd) send every frame of ours out of the port opposite the
        # one it came in on
        if res["dut"] != "external" and t["rx_wrong_port"] != 0:
            fail("rfc2544: %d frames came back on the port that sent them: %s"
                 % (t["rx_wrong_port"], t))
        if t["pass"] and t["loss_pkts"] < 0:
            fail("rfc2544: a trial passed with more frames back than sent: %s" % t)
        if t["pass"] and res["result"] == "zero-loss" and t["loss_pkts"] != 0:
            fail("rfc2544: a zero-loss trial passed with %d lost: %s" % (t["loss_pkts"], t))
    if len(trials) != res["trials"] or not trials:
        fail("rfc2544: %d trial lines for a result of %s trials" % (len(trials), res["trials"]))
    # the first trial is the top of the range: passed, the search ends
    # there and its rate is a lower bound, which the result must say
    if res["at_offered_ceiling"] != trials[0]["pass"]:
        fail("rfc2544: at_offered_ceiling %s, the first trial (the top of the range) %s" %
             (res["at_offered_ceiling"], "passed" if trials[0]["pass"] else "failed"))
    passed = [t for t in trials if t["pass"]]
    best = res["throughput_mpps"]
    if (best is None) != (not passed) or res["passed"] != bool(passed):
        fail("rfc2544: throughput %s, passed %s, from %d passing trials" %
             (best, res["passed"], len(passed)))
    if best is not None and not 0 < best <= res["upper_bound_mpps"] + 1e-3:
        fail("rfc2544: throughput %s outside (0, upper bound %s]" %
             (best, res["upper_bound_mpps"]))
    # what a passing trial really offered, never its rate alone (an
    # unpaced trial's rate is 0: what it offered)
    claimed = [min(t["trial_rate_mpps"] or t["offered_mpps"], t["offered_mpps"])
               for t in passed]
    if best is not None and all(abs(best - c) > 1e-3 for c in claimed):
        fail("rfc2544: throughput %s is no passing trial's offered rate (%s)" %
             (best, claimed))
    return res


def check_forwarded(summary, runs, what):
    """The smoke run: every DUT run, discarded or not, got packets back, and
    fastroute forwarded (nearly) all it received."""
    if not runs:
        fail("%s: no runs to check" % what)
    for row in summary["rows"]:
        for d, v in row["duts"].items():
            if not v["runs"]:
                fail("%s: %s ran no measurement at %s routes %s %s B" %
                     (what, d, row["routes"], row["profile"], row["size"]))
    for r in runs:
        where = "%s: %s at %s routes %s %s B round %s" % (what, r["dut"], r["routes"],
                                                          r["profile"], r["size"], r["round"])
        if not r.get("rx_pkts"):
            fail("%s: nothing came back (%s)" % (where, r.get("discard_reason") or "not discarded"))
        if r["memory"] not in ("hugepages", "no-huge"):
            fail("%s: memory %r is neither hugepages nor no-huge" % (where, r["memory"]))
        # every DUT but l3fwd counts its busy cycles: a page without them
        # would not say what a packet cost
        if r["dut"] != "l3fwd" and not (r["busy_cycles_per_pkt"] or 0) > 0:
            fail("%s: no busy cycles per packet (%r)" % (where, r["busy_cycles_per_pkt"]))
        if r["dut"] in FR_DUTS:
            rx, fwd = r.get("dut_rx"), r.get("dut_forwarded")
            if rx is None or fwd is None:
                fail("%s: fastroute's own rx/forwarded not recorded" % where)
            if not rx or fwd < SMOKE_FORWARDED * rx:
                fail("%s: fastroute received %d and forwarded %d" % (where, rx, fwd))


def load_summary(path, runs):
    """A throughput.sh --summary, summarized again from its runs when they
    are given, so that the page follows this code's rules (generator-bound
    pairs, pairs on different placements) whatever harness wrote it; an
    older summary without its runs is shown as it was."""
    with open(path) as fh:
        summary = json.load(fh)
    check_throughput(summary, runs)
    if "generator_bound_rule" in summary and not runs:
        return summary
    if runs:
        duts = []
        for row in summary["rows"]:
            duts += [d for d in row["duts"] if d not in duts]
        summary["rows"] = fastbench.summarize(runs, duts)
        if "generator_bound_rule" not in summary:
            summary["resummarized"] = True
        summary["generator_bound_rule"] = fastbench.GEN_BOUND_RULE
    else:
        summary["generator_unknown"] = True
    return summary


def kb_get(kb, routes, dests, metric):
    for r in kb:
        if r["routes"] == routes and r["dests"] == dests and r["metric"] == metric:
            return r
    return None


def f(x, spec="%.2f"):
    return "n/a" if x is None else spec % x


def f_vs(x, target):
    """@x to two places, or as many more (up to six) as it takes not to round
    it onto @target, which would hide which side of it the verdict found
    (0.7699: 1.2987, not 1.30; 1.29996: 1.29996, not 1.300)."""
    if x is None or x == target or "%.2f" % x != "%.2f" % target:
        return f(x)
    for places in range(3, 7):
        if "%.*f" % (places, x) != "%.*f" % (places, target):
            return "%.*f" % (places, x)
    return "%.6f" % x


def verdict(ok):
    return "n/a" if ok is None else ("**met**" if ok else "**not met**")


def ratio_cell(rt):
    """A ratio: the median of its valid pairs, then every pair in round order
    (bounds from generator-bound pairs marked, see fastbench.ratio_rounds_text)."""
    if rt is None:
        return "n/a"
    pairs = fastbench.ratio_rounds_text(rt)
    head = f(rt["median"], "%.3f")
    return head + (" (%s)" % ", ".join(pairs) if pairs else "")


def bound_side(p, ok):
    """The side of the target a generator-bound pair @p proves, or None. @ok
    is a threshold test (x >= t or x <= t): a lower bound b proves every
    ratio from b up is on ok(b)'s side when ok(b) and ok of a ratio far
    above agree; an upper bound, when ok(b) and ok(0) agree."""
    b = p["ratio"]
    if p["kind"] == "lower_bound" and ok(b) == ok(b * 1e6 + 1e6):
        return ok(b)
    if p["kind"] == "upper_bound" and ok(b) == ok(0.0):
        return ok(b)
    return None


def ratio_verdict(rt, ok, why_na=None):
    """met / not met from at least MIN_PAIRS pairs that say which side of the
    target the ratio is on (@ok tells one pair's side), all on the same one:
    pairs in which neither run was generator-bound, and generator-bound ones
    whose bound lies past the target (a lower bound above a >= target says
    met as surely as a measured pair would); else inconclusive."""
    if rt is None or why_na:
        return "n/a" + (" (%s)" % why_na if why_na else "")
    vals = rt["per_round"]
    sides = [ok(x) for x in vals]
    rounds = rt.get("rounds", [])
    bounds = [bound_side(p, ok) for p in rounds if p["kind"] in fastbench.GEN_BOUND_KINDS]
    told = [x for x in bounds if x is not None]
    left = len(bounds) - len(told)
    moved = sum(1 for p in rounds if p["kind"] == "placement")
    sides += told
    if len(sides) < MIN_PAIRS:
        why = []
        if left:
            why.append("%d generator-bound pair%s telling neither side" %
                       (left, "" if left == 1 else "s"))
        if moved:
            why.append("%d pair%s on different vCPU placements" %
                       (moved, "" if moved == 1 else "s"))
        return "**inconclusive** (%d pair%s telling, %d needed%s)" % (
            len(sides), "" if len(sides) == 1 else "s", MIN_PAIRS,
            "".join("; " + x for x in why))
    if len(set(sides)) > 1:
        return "**inconclusive** (rounds straddle the target)"
    return verdict(sides[0]) + (" (%d of them bounds)" % len(told) if told else "")


def kb_cell(r, target, inv=False):
    """A kbench ratio (@inv: its inverse, a speed-up) to as many places as
    @target needs, its repetitions' spread, and how many of them the
    target holds for."""
    if r is None:
        return "n/a"
    if "ratios" not in r:  # an older kbench: its median alone
        return f_vs(1 / r["ratio_to_bare"] if inv else r["ratio_to_bare"], target)
    med, lo, hi = r["ratio_to_bare"], r["ratio_min"], r["ratio_max"]
    if inv:
        med, lo, hi = 1 / med, 1 / hi, 1 / lo
    return "%s [%s - %s]" % (f_vs(med, target), f(lo), f(hi))


def kb_verdict(r, ok, inv=False):
    """met / not met when at least KB_AGREE of the repetitions' ratios
    (@inv: their inverses) lie on that side of the target (@ok tells one
    ratio's side), else inconclusive; with the count either way."""
    if r is None:
        return "n/a"
    if "ratios" not in r:  # an older kbench: its median alone
        return verdict(ok(1 / r["ratio_to_bare"] if inv else r["ratio_to_bare"])) + \
            " (on the median alone: a kbench that did not report its repetitions)"
    x = [1 / v if inv else v for v in r["ratios"]]
    within = sum(1 for v in x if ok(v))
    n = len(x)
    tail = " (%d of %d repetitions within)" % (within, n)
    if within >= KB_AGREE * n:
        return "**met**" + tail
    if n - within >= KB_AGREE * n:
        return "**not met**" + tail
    return "**inconclusive**" + tail


def check_kb_verdict_rule():
    """--check: kb_verdict() on repetitions whose verdict is known."""
    def row(*x):
        return {"ratios": list(x)}
    le = lambda v: v <= 1.6  # noqa: E731
    cases = [
        (row(1.2, 1.3, 1.5, 1.7), le, False, "**met** (3 of 4"),
        (row(1.2, 1.7, 1.8, 1.5), le, False, "**inconclusive** (2 of 4"),
        (row(1.7, 1.8, 1.9, 1.5), le, False, "**not met** (1 of 4"),
        (row(1.7), le, False, "**not met** (0 of 1"),
        # a speed-up of at least 1.3: the inverse of each ratio
        (row(0.7, 0.75, 0.76, 0.8), lambda v: v >= 1.3, True, "**met** (3 of 4"),
    ]
    for r, ok, inv, want in cases:
        got = kb_verdict(r, ok, inv)
        if not got.startswith(want):
            sys.exit("report: kbench verdict rule: %s gave %r, not %r" % (r, got, want))


def check_verdict_rule():
    """--check: ratio_verdict() on pairs whose verdict is known (the rule the
    Targets section states), so a change to it cannot pass the smoke run
    unnoticed."""
    def rt(*pairs):
        rounds = [{"round": i + 1, "ratio": x, "kind": k} for i, (x, k) in enumerate(pairs)]
        return {"per_round": [p["ratio"] for p in rounds if p["kind"] == "measured"],
                "rounds": rounds}

    M, LB, UB, UN = "measured", "lower_bound", "upper_bound", "unbounded"
    ge1 = lambda x: x >= 1.0  # noqa: E731
    le13 = lambda x: x <= 1.3  # noqa: E731
    cases = [
        (rt((1.02, M), (1.10, M), (1.05, M)), ge1, "**met**"),
        (rt((1.02, M), (0.95, M), (1.05, M)), ge1, "**inconclusive** (rounds straddle"),
        (rt((0.90, M), (0.95, M), (0.85, M)), ge1, "**not met**"),
        # a lower bound past a >= target tells; one short of it does not
        (rt((1.017, M), (0.765, LB), (1.407, LB)), ge1,
         "**inconclusive** (2 pairs telling, 3 needed; 1 generator-bound pair telling neither"),
        (rt((1.017, M), (1.2, LB), (1.407, LB)), ge1, "**met** (2 of them bounds)"),
        # an upper bound below a >= target says not met; above it, nothing
        (rt((0.9, UB), (0.95, M), (0.8, UB)), ge1, "**not met** (2 of them bounds)"),
        (rt((1.2, UB), (1.1, M), (1.05, M)), ge1, "**inconclusive** (2 pairs telling"),
        # both runs generator-bound: no bound at all
        (rt((1.2, UN), (1.1, M), (1.05, M)), ge1, "**inconclusive** (2 pairs telling"),
        # a <= target: the bounds turn round
        (rt((1.4, LB), (1.5, M), (1.6, M)), le13, "**not met** (1 of them bounds)"),
        (rt((1.2, UB), (1.1, M), (1.0, M)), le13, "**met** (1 of them bounds)"),
        (rt((1.1, LB), (1.1, M), (1.0, M)), le13, "**inconclusive** (2 pairs telling"),
        # a pair on different vCPU placements is never compared
        (rt((1.2, "placement"), (1.1, M), (1.05, M)), ge1,
         "**inconclusive** (2 pairs telling, 3 needed; 1 pair on different vCPU placements)"),
        (rt((0.5, "placement"), (1.1, M), (1.05, M), (1.2, M)), ge1, "**met**"),
    ]
    for r, ok, want in cases:
        got = ratio_verdict(r, ok)
        if not got.startswith(want):
            sys.exit("report: verdict rule: %s gave %r, not %r" % (r["rounds"], got, want))


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    dpdk = subprocess.run(["pkg-config", "--modversion", "libdpdk"], stdout=subprocess.PIPE,
                          text=True).stdout.strip()
    try:
        git = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True).stdout.strip() or "unknown"
    except OSError:  # no git: a tree from a tarball
        git = "unknown"
    return {"cpu": model, "cpus": os.cpu_count(), "kernel": platform.release(),
            "dpdk": dpdk, "git": git}


def tp_table(summary, duts, ratio_keys):
    names = ", ".join(duts)
    out = ["| routes | profile | size | " + " | ".join("%s Mpps" % d for d in duts) + " | " +
           " | ".join(ratio_keys) + " | " + " | ".join("%s cyc/pkt" % d for d in duts) +
           " | valid/total runs (%s) | generator-bound runs (%s) | vCPU placement: runs there (%s) |"
           % (names, names, names),
           "|" + "---|" * (6 + 2 * len(duts) + len(ratio_keys))]
    for row in summary["rows"]:
        cells = [str(row["routes"]), row["profile"], str(row["size"])]
        cells += [fastbench.mpps_text(row["duts"].get(d)) for d in duts]
        for k in ratio_keys:
            cells.append(ratio_cell(row["ratios"].get(k)))
        cells += ["n/a" if d == "l3fwd" else f(row["duts"].get(d, {}).get("cycles_per_pkt"),
                                                 "%.0f") for d in duts]
        cells.append(" ".join("%d/%d" % (row["duts"][d]["valid"], row["duts"][d]["runs"])
                              if d in row["duts"] else "-" for d in duts))
        cells.append(" ".join(str(row["duts"][d]["generator_bound"])
                              if "generator_bound" in row["duts"].get(d, {}) else "?"
                              for d in duts))
        if "placement" in row:
            cells.append(fastbench.placement_text(row, duts))
        else:  # a summary kept as it was written: medians over every placement
            pls = sorted(set(p for d in duts
                             for p in row["duts"].get(d, {}).get("placements", [])))
            cells.append("%s (medians over all)" % ", ".join(pls) if pls else "?")
        out.append("| " + " | ".join(cells) + " |")
    return out


def failures_note(summary):
    """The DUTs a table has none of, and why (l3fwd's route load timing out)."""
    return ["%s n/a at %s routes: %s." % (d, n, why)
            for d, t in summary.get("dut_failures", {}).items() for n, why in t.items()]


def forwarded_note(summary):
    """What fastroute's own counters say of the frames it was sent: the
    least share of them it forwarded in a valid run, over the table, and the
    rows below the smoke run's bar (the Mpps count every frame back at the
    generator, a DUT's own ARP or ICMP included)."""
    shares = [(row["duts"][d]["forwarded_share_min"], row, d) for row in summary["rows"]
              for d in FR_DUTS if "forwarded_share_min" in row["duts"].get(d, {})]
    if not shares:
        return ""
    low = ["%s at %s routes %s %s B (%.1f%%)" % (d, row["routes"], row["profile"], row["size"],
                                                 100 * x)
           for x, row, d in shares if x < SMOKE_FORWARDED]
    return ("fastroute's own counters: in every valid run it forwarded at least %.1f%% of the "
            "frames it received%s." % (100 * min(x for x, _, _ in shares),
                                        "" if not low else "; below %d%%: %s (the rest it "
                                        "dropped or answered itself, each counted by reason in "
                                        "its stats)" % (100 * SMOKE_FORWARDED, ", ".join(low))))


def generator_note(summary):
    if summary.get("generator_unknown"):
        return ("The harness that wrote these rows did not record which runs were "
                "generator-bound and their runs were not given: no pair is left out as "
                "generator-bound here.")
    if summary.get("resummarized"):
        return ("(Summarized again from the raw runs: the harness that measured them did not "
                "yet tell generator-bound runs apart.)")
    return ""


def poll_note(summary):
    """The DUTs' poll sizes, as the harness that measured the rows ran them."""
    if summary.get("poll_sizes"):
        return "Poll sizes (the most a DUT takes from a port at once): %s." % \
            fastbench.poll_text(summary["poll_sizes"])
    return ("The harness that measured these rows did not record the DUTs' poll sizes "
            "(its testpmd ran at its default burst, 32).")


def median_note(summary):
    """Which runs a row's Mpps and cycles are the medians of, and when the
    Mpps is marked a lower bound: this harness marks it when the median
    falls on a generator-bound run; a summary an older one wrote, kept as
    it was, only when every run was generator-bound."""
    if any("median_of" in v for row in summary["rows"] for v in row["duts"].values()) or \
            not summary["rows"]:
        return ("A DUT's Mpps and cycles are the medians of the same runs: all its valid runs "
                "on the row's placement, generator-bound ones included (each proves the DUT "
                "forwarded at least that much; without them the runs left would be those in "
                "which it fell short). Its Mpps is shown as `>=`, a lower bound, when the "
                "median falls on a generator-bound run (either middle run, with an even "
                "count); cycles taken in such runs come from polls that carried what the "
                "generator sent, not as much as the DUT could take.")
    where = "on the row's placement" if any("placement" in row for row in summary["rows"]) \
        else "on every placement"
    return ("A DUT's Mpps and cycles are the medians of all its valid runs %s, "
            "generator-bound ones included (a summary an older harness wrote, shown as it "
            "was); its Mpps is shown as `>=` when every one of them was generator-bound." % where)


def find_row(summary, routes, profile, size):
    for row in summary.get("rows", []):
        if row["routes"] == routes and row["profile"] == profile and row["size"] == size:
            return row
    return None


def ratio(row, key):
    if row is None or key not in row["ratios"]:
        return None
    return row["ratios"][key]


def chart(summary, cache, png):
    """Mpps per configuration and DUT, 64-byte frames: a gnuplot bar chart."""
    gp = shutil.which("gnuplot")
    if gp is None:
        return False
    duts = [d for d in ("fastroute", "io", "mac", "l3fwd")
            if any(d in r["duts"] for r in summary["rows"])]
    lines = []
    for row in summary["rows"]:
        if row["size"] != 64:
            continue
        lines.append("\"%s\\n%s\" %s" % ("%dk" % (row["routes"] // 1000) if row["routes"] >= 1000
                                          else str(row["routes"]), row["profile"],
                                          " ".join(f(row["duts"].get(d, {}).get("mpps"), "%.3f")
                                                   .replace("n/a", "0") for d in duts)))
    if not lines:
        return False
    # drawn beside it and swapped in whole: a run stopped meanwhile leaves
    # the last complete chart, and neither file behind
    data, tmp = png + ".dat", png + ".tmp"
    with open(data, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    # noenhanced: net_memif's '_' is no subscript; the key outside the bars
    script = """set terminal png noenhanced size 1100,480
set output '%s'
set title "Mpps, 64-byte frames, over net_memif (median of the interleaved rounds on each row's vCPU placement)\\na bar whose median round was generator-bound is a lower bound (>= in the table)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'Mpps'
set yrange [0:*]
set key outside right top
set xtics font ',9'
plot %s
""" % (tmp, ", ".join("'%s' using %d:xtic(1) title '%s'" % (data, i + 2, d)
                      for i, d in enumerate(duts)))
    try:
        r = subprocess.run([gp], input=script, text=True, stderr=subprocess.PIPE)
        if r.returncode != 0 or not os.path.exists(tmp):
            return False
        os.replace(tmp, png)
        return True
    finally:
        for x in (data, tmp):
            if os.path.exists(x):
                os.unlink(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbench", required=True)
    ap.add_argument("--throughput", required=True, help="throughput.sh --summary file")
    ap.add_argument("--runs", help="throughput.sh --out file of --throughput")
    ap.add_argument("--cache", help="summary of the route cache rows")
    ap.add_argument("--cache-runs", help="throughput.sh --out file of --cache")
    ap.add_argument("--ipv6", help="summary of the IPv6 rows (fastroute vs fastroute6)")
    ap.add_argument("--ipv6-runs", help="throughput.sh --out file of --ipv6")
    ap.add_argument("--kbench-reps", type=int, help="repetitions kbench ran (its --reps)")
    ap.add_argument("--kbench-memory", help="kbench's EAL memory options")
    ap.add_argument("--kbench-min-pkts", type=int, help="packets a timed kbench run makes at "
                    "least (its --min-pkts)")
    ap.add_argument("--wall-seconds", type=float, help="make bench's wall time, for the header")
    ap.add_argument("--wall-from", choices=("make", "run"), default="run",
                    help="what --wall-seconds covers: make (make bench: setup and build "
                         "included) or run (scripts/bench/run.sh alone; default)")
    ap.add_argument("--wall-cold", choices=("0", "1", ""), default="",
                    help="with --wall-from make: 1, nothing was built before (a clean clone: "
                         "the wall time is judged); 0, a tree built before (not judged)")
    ap.add_argument("--out")
    ap.add_argument("--png")
    ap.add_argument("--history")
    ap.add_argument("--rfc2544", help="--check: the zero-loss search's --out file, checked")
    ap.add_argument("--check", action="store_true",
                    help="the smoke run's checks, then a render into a temporary directory")
    a = ap.parse_args()

    if a.check:
        check_verdict_rule()
        check_kb_verdict_rule()
    kb_rows = load_jsonl(a.kbench)
    kb = check_kbench(kb_rows)
    kb6 = check_kbench6(kb_rows)
    ka = check_kbench_auto(kb_rows, kb, a.check)
    kx = check_kbench_xlat(kb_rows, a.check)
    runs = load_jsonl(a.runs) if a.runs else []
    tp = load_summary(a.throughput, runs)
    cache = ipv6 = None
    cache_runs = load_jsonl(a.cache_runs) if a.cache_runs else []
    ipv6_runs = load_jsonl(a.ipv6_runs) if a.ipv6_runs else []
    if a.cache:
        cache = load_summary(a.cache, cache_runs)
    if a.ipv6:
        ipv6 = load_summary(a.ipv6, ipv6_runs)
    if not a.check:
        if not a.out:
            fail("--out (or --check) is needed")
        render(a, kb_rows, kb, kb6, ka, kx, tp, cache, ipv6, a.out, a.png, a.history)
        return 0

    if not kb6:
        fail("kbench produced no IPv6 rows")
    check_forwarded(tp, runs, "throughput")
    if ipv6 is not None:
        check_forwarded(ipv6, ipv6_runs, "IPv6 rows")
    if cache is not None:
        check_forwarded(cache, cache_runs, "route cache rows")
    for d in fastbench.DEFAULT_DUTS:
        if not any(r["dut"] == d for r in runs):
            fail("throughput: no run of %s (the smoke run measures every DUT)" % d)
    for sm in (tp, ipv6, cache):
        if sm is not None and not sm["memory"].startswith(("hugepages (", "--no-huge (")):
            fail("throughput summary: memory %r is neither hugepages nor --no-huge" %
                 sm["memory"])
    if a.rfc2544:
        res = check_rfc2544(a.rfc2544)
        print("report: rfc2544 %d trials, zero-loss throughput %s: well formed" %
              (res["trials"], "none of its rates" if res["throughput_mpps"] is None
               else "%s Mpps" % res["throughput_mpps"]))
    print("report: kbench %d rows (%d IPv6), throughput %d rows, %d runs (%d IPv6): well "
          "formed, every DUT run forwarded" % (len(kb), len(kb6), len(tp["rows"]), len(runs),
                                               len(ipv6_runs)))
    # the rendering path, into a temporary directory: never docs/
    tmp = tempfile.mkdtemp(prefix="fastroute-report.")
    try:
        hist = os.path.join(tmp, "history")
        os.makedirs(hist)
        prev = sorted(glob.glob(os.path.join(ROOT, "docs", "bench-history", "*.json")))
        if prev:  # the comparison with a previous run is rendered too
            shutil.copy(prev[-1], hist)
        out, png = os.path.join(tmp, "benchmarks.md"), os.path.join(tmp, "benchmarks.png")
        render(a, kb_rows, kb, kb6, ka, kx, tp, cache, ipv6, out, png, hist)
        with open(out) as fh:
            text = fh.read()
        for want in ("## Targets", "## Throughput: fastroute against the alternatives",
                     "## kbench: the lookup and the pipeline, on one core",
                     "Address translation on this machine"):
            if want not in text:
                fail("the rendered page has no '%s'" % want)
        if prev and "## Against the previous run" not in text:
            fail("the rendered page has no comparison with the previous run")
        if len(glob.glob(os.path.join(hist, "*.json"))) != len(prev[-1:]) + 1:
            fail("the render wrote no history entry")
        # gnuplot writes its output file before it reads the plot: the
        # page's link to the chart says it was drawn
        if shutil.which("gnuplot") and "](benchmarks.png)" not in text:
            fail("gnuplot failed: the page has no chart")
        print("report: rendered %d lines%s and a history entry (in a temporary directory)"
              % (text.count("\n"), ", a PNG chart" if os.path.exists(png) else
                 " (no PNG: gnuplot missing)"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def render(a, kb_rows, kb, kb6, ka, kx, tp, cache, ipv6, out_path, png, history):
    """docs/benchmarks.md (at @out_path), its chart (@png) and a history entry (@history)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    mach = machine()
    # the run's own results, whatever renders them: a second rendering of
    # the same run (report.py again on its raw files) neither compares the
    # run with itself nor adds it to the history twice
    run_id = hashlib.sha1(json.dumps([kb_rows, tp, cache, ipv6], sort_keys=True,
                                     default=str).encode()).hexdigest()[:16]
    loads = [r for r in kb_rows if r.get("bench") == "kbench_load" and r.get("family", 4) == 4]
    loads6 = [r for r in kb_rows if r.get("bench") == "kbench_load" and r.get("family") == 6]
    big = max(r["routes"] for r in kb)
    headline = {}

    # ---- targets ------------------------------------------------------------
    r1m = find_row(tp, big, "random1m", 64)
    fr_l3 = ratio(r1m, "fastroute/l3fwd")
    fr_io = ratio(r1m, "fastroute/io")
    l3_na = tp.get("dut_failures", {}).get("l3fwd", {}).get(str(big))
    dec = kb_get(kb, big, 1000000, "decision")
    pipe = kb_get(kb, big, 1000000, "pipeline")
    loose = kb_get(kb, big, 1000000, "rpf_loose")
    strict = kb_get(kb, big, 1000000, "rpf_strict")
    bare = kb_get(kb, big, 1000000, "bare_lpm")
    # the bare lookup's own cycles beside its ratios: they move with the
    # machine's memory (14 to 36 cycles between runs here), the pipeline's
    # work does not, so the ratio is lowest when memory is slowest
    of_bare = "" if bare is None else " (bare lookup %.1f cycles)" % bare["cycles"]
    targets = [
        ("throughput, %d routes, random1m, 64 B: fastroute / l3fwd-LPM" % big, ">= 1.0",
         ratio_cell(fr_l3), ratio_verdict(fr_l3, lambda x: x >= 1.0,
                                          l3_na and "l3fwd: " + l3_na)),
        ("throughput, %d routes, random1m, 64 B: fastroute / testpmd io" % big, ">= 0.8",
         ratio_cell(fr_io), ratio_verdict(fr_io, lambda x: x >= 0.8)),
        ("kbench, %d routes, 1M destinations: input route decision / bare rte_lpm" % big,
         "<= 1.3", kb_cell(dec, 1.3) + of_bare, kb_verdict(dec, lambda x: x <= 1.3)),
        ("kbench, %d routes, 1M destinations: whole pipeline / bare rte_lpm" % big, "<= 1.6",
         kb_cell(pipe, 1.6) + of_bare, kb_verdict(pipe, lambda x: x <= 1.6)),
        ("kbench, %d routes, 1M destinations: rpf loose / rpf off" % big, "<= 1.35",
         kb_cell(loose, 1.35), kb_verdict(loose, lambda x: x <= 1.35)),
        ("kbench, %d routes, 1M destinations: rpf strict / rpf off" % big, "<= 1.35",
         kb_cell(strict, 1.35), kb_verdict(strict, lambda x: x <= 1.35)),
    ]
    # what the wall time covers: make bench's whole, or run.sh's alone
    whole = a.wall_from == "make"
    warm = whole and a.wall_cold == "0"
    wall = None if a.wall_seconds is None else "%dm%02ds" % divmod(round(a.wall_seconds), 60)
    if wall is not None:
        targets.append((
            "make bench, wall time (%s)" % (
                "setup included, in a tree built before" if warm else
                "setup and build included" if whole else "scripts/bench/run.sh alone"),
            "<= 15 min", wall,
            "n/a (a tree built before: a clean clone builds fastroute and l3fwd too)" if warm
            else verdict(a.wall_seconds <= BENCH_BUDGET_S) if whole else
            "n/a (setup and build not timed)"))
    for dests in (1, 1000):
        on = kb_get(kb, big, dests, "cache_on")
        targets.append(("kbench, %d routes, rpf strict, %d flow(s): cache off / cache on"
                        % (big, dests), ">= 1.3 (faster)", kb_cell(on, 1.3, inv=True),
                        kb_verdict(on, lambda x: x >= 1.3, inv=True)))
    au = kb_get(kb, big, 1000000, "cache_auto")
    s2 = kb_get(kb, big, 1000000, "rpf_strict_2")
    targets.append(("kbench, %d routes, rpf strict, 1M destinations: cache auto vs off"
                    % big, ">= 0.97", kb_cell(au, 0.97, inv=True) + (
                        "" if s2 is None else " (two runs of cache off: %s [%s - %s])" %
                        (f(1 / s2["ratio_to_bare"], "%.3f"), f(1 / s2["ratio_max"]),
                         f(1 / s2["ratio_min"]))),
                    kb_verdict(au, lambda x: x >= 0.97, inv=True)))
    if cache is not None:
        cr = find_row(cache, big, "random1m", 64)
        x = ratio(cr, "fr-strict-auto/fr-strict-off")
        targets.append(("throughput, %d routes, rpf strict, random1m: cache auto vs off" % big,
                        ">= 0.97", ratio_cell(x), ratio_verdict(x, lambda v: v >= 0.97)))
        for prof in ("1flow", "1kflows"):
            x = ratio(find_row(cache, big, prof, 64), "fr-strict-on/fr-strict-off")
            targets.append(("throughput, %d routes, rpf strict, %s: cache on vs off"
                            % (big, prof), "(reported)", ratio_cell(x), ""))

    # the break-even hit rate a fixed threshold would need, from this run's
    # own figures (auto mode uses none: it measures both sides). A hit
    # saves what the lookups cost for a working set the cache holds (1,000
    # flows); a miss costs the probe and the insert (a million destinations).
    hit_save = miss_cost = breakeven = None
    s1, o1 = kb_get(kb, big, 1000, "rpf_strict"), kb_get(kb, big, 1000, "cache_on")
    sm, om = kb_get(kb, big, 1000000, "rpf_strict"), kb_get(kb, big, 1000000, "cache_on")
    if s1 and o1 and sm and om:
        hit_save = s1["cycles"] - o1["cycles"]
        miss_cost = om["cycles"] - sm["cycles"]
        if hit_save > 0 and miss_cost > 0:
            breakeven = miss_cost / (miss_cost + hit_save)

    for row in tp["rows"]:
        headline["%s/%s/%s fastroute Mpps" % (row["routes"], row["profile"], row["size"])] = \
            row["duts"].get("fastroute", {}).get("mpps")
    for r in kb:
        if r["metric"] in ("pipeline", "decision", "cache_on"):
            headline["kbench %s/%s %s cyc" % (r["routes"], r["dests"], r["metric"])] = \
                r["cycles"]
        # against the bare lookup in the same repetitions: what compares
        # from one run to the next, where cycles move with the machine
        if r["metric"] in ("pipeline", "decision"):
            headline["kbench %s/%s %s / bare" % (r["routes"], r["dests"], r["metric"])] = \
                r["ratio_to_bare"]
    for r in kx:
        if r["span_mib"] > 1:
            headline["kbench translation %d MiB extra cyc" % r["span_mib"]] = r["extra_cycles"]

    previous = None
    seen = False  # this run is in the history already
    if history:
        for path in sorted(glob.glob(os.path.join(history, "*.json")), reverse=True):
            with open(path) as fh:
                h = json.load(fh)
            if h.get("run") == run_id:
                seen = True
                continue
            previous = h
            break

    md = []
    w = md.append
    w("# fastroute benchmarks")
    w("")
    w("Written by `make bench` (scripts/bench/run.sh) on %s UTC, fastroute %s, DPDK %s%s." %
      (now.strftime("%Y-%m-%d %H:%M"), mach["git"], mach["dpdk"],
       "" if wall is None else "; %s took %s (wall time%s)"
       % ("make bench" if whole else "scripts/bench/run.sh", wall,
          ", setup included, in a tree built before" if warm else
          ", setup and build included" if whole else "")
       + (", up to this report, whose own few seconds come after" if wall is not None
          else "")))
    w("Machine: %s, %d vCPUs, Linux %s. %s." % (mach["cpu"], mach["cpus"], mach["kernel"],
                                               tp["memory"]))
    w("This page is regenerated whole by each run; the previous run's headline figures are "
      "kept in docs/bench-history/ and shown at the end.")
    w("")
    w("## Targets")
    w("")
    w("A throughput ratio is judged from pairs of runs in the same round: pairs in which "
      "neither run was generator-bound (a run is generator-bound when %s), and pairs whose "
      "generator-bound run makes the ratio a bound that lies past the target (a lower bound "
      "above a `>=` target proves the ratio above it as a measured pair would; a lower bound "
      "below it proves nothing and is left out). It is **met** or **not met** when at least %d "
      "such pairs all fall on the same side of the target, and **inconclusive** when fewer "
      "pairs tell or they straddle it. An upper bound (the denominator's run generator-bound) "
      "tells in the same way when it lies below a `>=` target. A pair whose two runs found "
      "the vCPUs placed differently is never compared (memif's rate moves about 2x with the "
      "placement). The figure is the median of the pairs in which neither "
      "run was generator-bound, followed by every pair in round order (see the throughput "
      "section for the marks). A kbench ratio is shown as the median of its repetitions' "
      "ratios [their min - max], each repetition's run divided by its reference's run in "
      "the same repetition; it is **met** or **not met** when at least %d%% of the "
      "repetitions lie on that side of the target, and **inconclusive** otherwise."
      % (fastbench.GEN_BOUND_RULE, MIN_PAIRS, round(KB_AGREE * 100)))
    w("")
    w("| what | target | this run | |")
    w("|---|---|---|---|")
    for t in targets:
        w("| %s | %s | %s | %s |" % t)
    w("")
    w("## Throughput: fastroute against the alternatives")
    w("")
    w("Two processes on the two vCPUs, joined by `net_memif`: our generator "
      "(`fastroute-pktgen`, one core, TX bursts of %d) and the device under test. %s "
      "DUTs run interleaved, " % (fastbench.GEN_BURST, poll_note(tp)) +
      "A B C D per round, short windows; a cache-line ping-pong probes the vCPU placement "
      "before and after each run and runs whose placement changed, or that other processes "
      "disturbed, are discarded. A valid run is generator-bound when " +
      tp.get("generator_bound_rule", fastbench.GEN_BOUND_RULE) + ". Ratios are taken pair by "
      "pair within a round; the median over the pairs in which neither run was "
      "generator-bound is shown, then every pair in round order: a plain figure is one of "
      "those, `>=x` a lower bound (the numerator's run was generator-bound), `<=x` an upper "
      "bound (the denominator's), `[x]` no bound (both were), `~x` a pair whose two runs "
      "found the vCPUs placed differently (not compared); bounds are left out of the "
      "median, and count toward a target only when they lie past it (see Targets). The two columns before the last count the runs per DUT, "
      "in the order of the Mpps columns; the last names the vCPU placement the row's "
      "Mpps and cycles were taken at, how many valid runs each DUT had there, and the "
      "other placements its valid runs found. Cycles are each DUT's own TSC cycles in polls "
      "that carried packets, per packet (fastroute: `show stats`, its whole poll of every "
      "port, the transmit flushes and the control ring included; testpmd: "
      "`--record-core-cycles`, the bursts that carried packets only, so its figure leaves "
      "out what a poll costs around them; l3fwd counts none). fastroute runs with its "
      "defaults but for its ports: route cache auto (the hit path where it pays: one flow, "
      "256 networks), rpf off, martian checks on. " + median_note(tp) + " The row's "
      "placement is the one the most DUTs had valid runs on, then the most runs (memif's "
      "rate moves about 2x with the placement, so a median over both would set the DUTs of "
      "one row on different footings); a DUT with no valid run there shows n/a. The "
      "generator-bound column counts a DUT's generator-bound valid runs on every placement. "
      "The ratios pair runs of one round on one placement, whichever it was. Mpps counts every frame back at the generator, a DUT's "
      "own (ARP, ICMP) and frames it sent back out of their arrival port included. " +
      tp["header"] + ".")
    w("")
    w(PROFILES_TEXT)
    w("")
    duts = [d for d in ("fastroute", "io", "mac", "l3fwd")
            if any(d in r["duts"] for r in tp["rows"])]
    keys = [k for k in ("fastroute/io", "fastroute/l3fwd")
            if any(k in r["ratios"] for r in tp["rows"])]
    md.extend(tp_table(tp, duts, keys))
    w("")
    for line in failures_note(tp) + [generator_note(tp), forwarded_note(tp)]:
        if line:
            w(line)
            w("")
    if tp.get("load_seconds"):
        w("Start-up (route load) seconds: " + "; ".join(
            "%s %s" % (d, ", ".join("%s routes %.1f" % (k, v) for k, v in t.items()))
            for d, t in tp["load_seconds"].items()) + ".")
        w("")
    if png and chart(tp, cache, png):
        w("![Mpps per configuration](%s)" % os.path.basename(png))
        w("")
    if cache is not None:
        w("## Route cache in the throughput harness")
        w("")
        w("%d routes, rpf strict on both ports, the cache off, on and in auto mode, "
          "interleaved as above. %s. Memory: %s." % (big, cache["header"], cache["memory"]))
        w("")
        cd = ["fr-strict-off", "fr-strict-on", "fr-strict-auto"]
        md.extend(tp_table(cache, cd, ["fr-strict-on/fr-strict-off",
                                       "fr-strict-auto/fr-strict-off"]))
        w("")
        for line in failures_note(cache) + [generator_note(cache), forwarded_note(cache)]:
            if line:
                w(line)
                w("")
    if ipv6 is not None:
        w("## Throughput: IPv6 against IPv4")
        w("")
        w("The same harness with fastroute loaded with 100,000 Internet-like IPv4 routes and "
          "100,000 IPv6 routes (`scripts/gen-routes 100000 --ipv6`: /48 and /64 inside random "
          "/32 allocations of the registries' blocks). `fastroute` is sent the IPv4 random-destination profile, `fastroute6` its "
          "IPv6 twin (`random6`: a million random destinations inside the IPv6 routes, UDP/IPv6 "
          "frames of 62 bytes + FCS, the smallest that hold the headers, against 60 + FCS for "
          "IPv4). The ratio fastroute6/fastroute is taken round by round. Memory: %s." %
          ipv6["memory"])
        w("")
        md.extend(tp_table(ipv6, ["fastroute", "fastroute6"], ["fastroute6/fastroute"]))
        w("")
        for line in failures_note(ipv6) + [generator_note(ipv6), forwarded_note(ipv6)]:
            if line:
                w(line)
                w("")
    w("## kbench: the lookup and the pipeline, on one core")
    w("")
    w("`build/tests/bench/fastroute-kbench`: no PMD, pre-built bursts of 32 mbufs, TSC cycles "
      "per packet, median of %s interleaved repetitions [min - max], EAL memory `%s`. "
      "`bare_lpm` is "
      "`rte_lpm_lookup_bulk` over the same addresses; `decision` is fastroute's route "
      "decision as its data path makes it (the burst's tbl24 lines prefetched, then each "
      "destination read through rte_fib's two levels in place, and its next hop read; "
      "results before 2026-12-01 timed `rte_fib_lookup_bulk` here, which the data path does not "
      "call); `pipeline` the whole per-packet work (checks, martians, "
      "lookup, neighbour, TTL and checksum, rewrite), route cache off: each of its runs, and "
      "each rpf and cache run, times the restoring of the packets between passes and "
      "`dp_input_burst()` together, and the restoring timed alone (the best of three runs, "
      "packets hot) is subtracted, so work the two overlap goes uncounted. The rpf rows use sources as random as "
      "the destinations, routed back through the arrival port; their ratio is to `pipeline`. "
      "The cache rows run with rpf strict; their ratio is to `rpf_strict` (below 1: faster); "
      "`rpf_strict_2` is a second `rpf_strict` run right before `cache_auto`, shown against "
      "the first (how far two runs of the same code drift apart), and `cache_auto`'s ratio "
      "is to it. "
      "Each ratio is the median of the ratios within each repetition, and each timed run "
      "(%s packets, or one pass over the destinations when they are more) "
      "follows an untimed pass over its destinations. kbench builds its tables on the other CPU "
      "while the throughput harness loads its DUTs (the two rte_lpm loads of the million "
      "routes overlap) and measures after the harness, alone on the machine."
      % (a.kbench_reps or "the", a.kbench_memory or "as run",
         "{:,}".format(a.kbench_min_pkts) if a.kbench_min_pkts else "at least kbench's --min-pkts"))
    w("")
    for r in loads:
        w("- %d routes loaded: fastroute FIB %.2f s, rte_lpm %.2f s" %
          (r["routes"], r["fib_s"], r["lpm_s"]))
    w("")
    w("| routes | dests | metric | cycles/pkt | spread | ratio | its spread |")
    w("|---|---|---|---|---|---|---|")
    for r in kb:
        w("| %d | %d | %s | %.1f | %.1f - %.1f | %.2f | %s |" %
          (r["routes"], r["dests"], r["metric"], r["cycles"], r["min"], r["max"],
           r["ratio_to_bare"], "" if "ratio_min" not in r else
           "%.2f - %.2f" % (r["ratio_min"], r["ratio_max"])))
    w("")
    if kx:
        w("Address translation on this machine, as kbench measured it before the rows above: "
          "the same %s cache lines (%s MiB, which L2 and L3 hold), read in bursts of 32, "
          "each burst's lines prefetched one burst ahead, with a fixed load-and-store loop "
          "on L1-resident data between them, packed or spread over 32 MiB (the span of "
          "fastroute's tbl24) or 256 MiB, in %s. The data read is the same in each (and, in "
          "hugepages, so is the number of lines in each L2 set); what a spread changes is "
          "the pages the "
          "lines lie in (and what the hardware prefetchers find next to them). So what it "
          "adds over the packed run is most likely translation (TLB misses and page walks) "
          "that the prefetch did not hide; kbench reads no performance counters to confirm "
          "it. The "
          "pipeline's lookups read their tbl24 entries and use them at once, so they may "
          "pay more of it than this loop does. docs/design.md (\"What a random line costs "
          "on this VM\") says how it was found."
          % ("{:,}".format(kx[0]["lines"]), "{:g}".format(kx[0]["lines"] * 64 / 2 ** 20),
             kx[0]["pages"]))
        w("")
        w("| lines over | cycles an item | min - max | vs packed | cycles added |")
        w("|---|---|---|---|---|")
        for r in kx:
            w("| %d MiB | %.1f | %.1f - %.1f | %.2f | %+.1f |" %
              (r["span_mib"], r["cycles"], r["min"], r["max"], r["ratio_to_packed"],
               r["extra_cycles"]))
        w("")
    if kb6:
        w("## kbench: IPv6")
        w("")
        w("The same work on an IPv6 table of /48 and /64 prefixes (`scripts/gen-routes 100000 --ipv6`) "
          "(rte_fib6 trie), with the ratio to the IPv4 row of the same metric and "
          "destination count measured in this run on the last IPv4 table (100,000 "
          "Internet-like routes; 1.00: as fast as IPv4, above: slower). Unlike the IPv4 "
          "ratios, which are taken repetition by repetition, this one is the IPv6 median "
          "over the IPv4 median: the IPv6 rows run after all the IPv4 ones, so a change of "
          "the machine's phase between the two goes into it (the spread of each shows it).")
        w("")
        for r in loads6:
            w("- %d IPv6 routes loaded: fastroute FIB %.2f s" % (r["routes"], r["fib_s"]))
        w("")
        w("| routes | dests | metric | cycles/pkt | spread | vs IPv4 |")
        w("|---|---|---|---|---|---|")
        for r in kb6:
            w("| %d | %d | %s | %.1f | %.1f - %.1f | %.2f |" %
              (r["routes"], r["dests"], r["metric"], r["cycles"], r["min"], r["max"],
               r["ratio_to_ipv4"]))
        w("")
    w("## Route cache auto mode: what it measured")
    w("")
    w("Auto mode judges by cost, not by a hit rate: a measurement times the bursts' cycles "
      "(`dp_input_burst()`) in samples of 1,024 packets: first it warms the cache (samples not "
      "judged, until one has under 1/16 cold misses, at most as many as fill the cache, 16 to "
      "64), then "
      "four samples with the cache probed and four with it bypassed (probed, bypassed, "
      "bypassed, probed, ...), and it "
      "keeps the side whose median is lower for 2^20 packets before it measures again "
      "(twice as long after each choice in a row to bypass, up to 8 times: a `cache_auto` "
      "run of kbench with a million destinations, timed after an untimed pass in which its "
      "first measurement ran, holds no second one when the first chose to bypass); "
      "a hit-rate window (4,096 probes) that falls more than 20 points below the last "
      "measurement's starts "
      "the next one at once (lib/rtcache/rtcache.c).%s" %
      (" Its own last measurement in each `cache_auto` run of kbench (rpf strict; medians over "
       "the %s repetitions, those in which a measurement finished):" % (a.kbench_reps or "?")
       if ka else ""))
    w("")
    if ka:
        w("| routes | dests | probed cyc/pkt | bypassed cyc/pkt | bypassed in | "
          "kbench cache_on / rpf_strict |")
        w("|---|---|---|---|---|---|")
    auto_wrong = []
    for r in sorted(ka, key=lambda r: (r["routes"], r["dests"])):
        on = kb_get(kb, r["routes"], r["dests"], "cache_on")
        st = kb_get(kb, r["routes"], r["dests"], "rpf_strict")
        w("| %d | %d | %.1f | %.1f | %d of %d | %s / %s |" %
          (r["routes"], r["dests"], r["probe_cycles"], r["bypass_cycles"], r["bypassed"],
           r["reps"], f(on and on["cycles"], "%.1f"), f(st and st["cycles"], "%.1f")))
        # the clear cases: a million new destinations must be bypassed, one
        # flow (every probe a hit) probed, in most repetitions
        if r["dests"] >= 1000000 and 2 * r["bypassed"] <= r["reps"]:
            auto_wrong.append("kept probing under %d destinations" % r["dests"])
        if r["dests"] == 1 and 2 * r["bypassed"] >= r["reps"]:
            auto_wrong.append("bypassed one flow")
    if ka:
        w("")
    if not ka:
        w("(This run's kbench did not report auto's measurements.)")
    elif auto_wrong:
        w("**Auto mode chose the dearer side where the difference is large: %s.**" %
          "; ".join(auto_wrong))
    else:
        w("Where the two sides differ widely (one flow, a million destinations) it chose the "
          "cheaper in most repetitions.")
    w("")
    w("For comparison, the break-even hit rate a fixed threshold would need in this run: a hit "
      "saves what `rpf_strict` costs beyond `cache_on` with 1,000 flows (%s cycles), a miss costs "
      "what `cache_on` adds to `rpf_strict` with a million destinations (%s cycles); %s. It "
      "moves from run to run and machine to machine (from 59%% to 98%% so far), which is why "
      "auto measures instead."
      % (f(hit_save, "%.1f"), f(miss_cost, "%.1f"),
         "the rows for it are missing" if hit_save is None or miss_cost is None
         else "no hit rate pays (a hit saved nothing here)" if hit_save <= 0
         else "any hit rate pays (a miss cost nothing here)" if miss_cost <= 0
         else "probing pays above %.0f%% hits" % (100 * breakeven)))
    w("")
    if previous:
        w("## Against the previous run (%s)" % previous.get("date", "?"))
        w("")
        w("Cycles and rates move with the machine from one run to the next (the "
          "vCPUs' placement, other load: up to about 2x, see above); the kbench ratios "
          "to the bare lookup, taken within each repetition, are what compares "
          "(a figure the previous run did not have shows n/a).")
        w("")
        w("| figure | previous | this run |")
        w("|---|---|---|")
        for k, v in headline.items():
            pv = previous.get("headline", {}).get(k)
            w("| %s | %s | %s |" % (k, f(pv), f(v)))
        w("")
    for title, path in (("RFC 2544 zero-loss search (how to run it: make bench does not)",
                         "scripts/bench/README-rfc2544.md"),
                        ("Driving fastroute from a Pktgen-DPDK box", "scripts/pktgen/README.md")):
        full = os.path.join(ROOT, path)
        if os.path.exists(full):
            w("## " + title)
            w("")
            with open(full) as fh:
                text = fh.read().strip().splitlines()
            if text and text[0].startswith("#"):
                text = text[1:]
            md.extend(line if not line.startswith("#") else "#" + line for line in text)
            w("")
    # whole or not at all: a run stopped here (its deadline, ^C) leaves the
    # last complete page
    try:
        with open(out_path + ".tmp", "w") as fh:
            fh.write("\n".join(md) + "\n")
        os.replace(out_path + ".tmp", out_path)
    finally:
        if os.path.exists(out_path + ".tmp"):
            os.unlink(out_path + ".tmp")
    if history and not seen:
        os.makedirs(history, exist_ok=True)
        with open(os.path.join(history, now.strftime("%Y%m%dT%H%M%SZ") + ".json"), "w") as fh:
            json.dump({"date": now.strftime("%Y-%m-%d %H:%M UTC"), "machine": mach,
                       "run": run_id, "headline": headline, "targets": targets}, fh,
                      indent=1)


if __name__ == "__main__":
    # a deadline's TERM ends it as an exception would: its finally blocks
    # remove the temporary files (and a page or chart not yet swapped in)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    sys.exit(main())
