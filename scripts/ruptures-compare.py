#!/usr/bin/env python3
"""Side-by-side: slccache's detector against stock change-point tools and a threshold rule.

Usage: scripts/ruptures-compare.py [--slccache PATH] FILE...
       scripts/ruptures-compare.py [--slccache PATH] --sizes 1000,10000,100000,1000000 [--budget S]

FILE is anything `slccache analyze` reads (timeline.csv, fio bandwidth log, two-column CSV).
slccache normalises it (`analyze --json --out`), then the same throughput series goes to
ruptures (pip install ruptures): Pelt and Binseg with an L2 cost and a BIC-like penalty
(sigma^2 * ln n, sigma from the MAD of first differences), and KernelCPD (rbf) with the same
penalty rule, plus the usual script rule "rolling median below 0.65x the initial speed for
15 s". It prints, per file and method, the number of changes and the first one (time, and
bytes written up to it from the timeline's byte counter).

With --sizes, it makes synthetic two-phase timelines of that many 1 s samples instead (one
cliff at 30% of the run, 2000 -> 500 MB/s, 4% noise, a GC dip of 1-2 samples every 25 s after
the cliff; seed fixed), and prints per size and method the time taken and the number of cliffs
found against the truth (1), with the error of the first one in bytes. A method is skipped at
a size when its time at the previous size, times ten, is over --budget seconds (default 120),
and KernelCPD above 20k samples (its cost matrix is n^2). slccache's time is the whole
`analyze` process (read, detect, write the report and charts); the detector alone is
`cargo bench --bench detect`.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import ruptures as rpt
except ImportError:
    sys.exit("ruptures is not installed: pip install ruptures")


def load_timeline(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    t = np.array([float(r["t_s"]) for r in rows])
    dt = np.array([float(r["interval_s"]) for r in rows])
    rate = np.array([float(r["bytes_per_sec"]) for r in rows])
    total = np.array([float(r["bytes_total"]) for r in rows])
    return t, dt, rate, total


def sigma_mad(y):
    d = np.diff(y)
    return 1.4826 * np.median(np.abs(d - np.median(d))) / math.sqrt(2) or 1e-9


def describe(bkps, t, dt, total):
    """Changes as (time, bytes) from ruptures breakpoints (end indices, last = n)."""
    out = []
    for b in bkps[:-1]:
        start = t[b] - dt[b]
        out.append((start, total[b - 1]))
    return out


def threshold_rule(t, dt, rate, total):
    """The usual script rule: a centred 5 s rolling median below 0.65x the median of the
    first 5 s, staying there for 15 s; the cliff is where that stretch starts."""
    n = len(rate)
    step = float(np.median(dt))
    first = np.median(rate[: max(1, int(round(5.0 / step)))])
    h = max(0, int(round(2.5 / step)))
    med = np.array([np.median(rate[max(0, i - h) : i + h + 1]) for i in range(n)])
    need = max(1, int(round(15.0 / step)))
    run = 0
    for i in range(n):
        run = run + 1 if med[i] < 0.65 * first else 0
        if run >= need:
            j = i - need + 1
            return [(t[j] - dt[j], total[j - 1] if j > 0 else 0.0)]
    return []


def synthetic(n, seed=7):
    """A two-phase timeline of n 1 s samples; returns (csv text, true cliff bytes)."""
    rng = np.random.default_rng(seed)
    cut = int(0.3 * n)
    rate = np.where(np.arange(n) < cut, 2000e6, 500e6)
    rate = rate * np.exp(rng.normal(0.0, 0.04, n))
    for k in range(cut + 12, n, 25):
        rate[k : k + 1 + (k // 25) % 2] *= 0.3
    b = np.round(rate).astype(np.int64)
    total = np.cumsum(b)
    lines = ["t_s,interval_s,bytes,bytes_total,bytes_per_sec,iops"]
    for i in range(n):
        lines.append(f"{i + 1}.0,1.0,{b[i]},{total[i]},{float(b[i])},0")
    return "\n".join(lines) + "\n", float(total[cut - 1])


def run_sizes(args):
    sizes = [int(x) for x in args.sizes.split(",")]
    methods = [
        ("ruptures Pelt l2", lambda y: rpt.Pelt(model="l2", min_size=2, jump=1).fit(y), "l2"),
        ("ruptures Binseg l2", lambda y: rpt.Binseg(model="l2", min_size=2, jump=1).fit(y), "l2"),
        ("ruptures KernelCPD rbf", lambda y: rpt.KernelCPD(kernel="rbf", min_size=2).fit(y), "k"),
    ]
    last = {}
    print("| samples | method | time | cliffs (slccache) or changes (ruptures) found; truth 1 | first one, bytes error |")
    print("|---:|---|---:|---:|---:|")
    for n in sizes:
        text, truth = synthetic(n)
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "timeline.csv")
            with open(f, "w") as fh:
                fh.write(text)
            t0 = time.perf_counter()
            res = subprocess.run(
                [args.slccache, "analyze", "--json", "--out", os.path.join(d, "out"), f],
                capture_output=True,
                text=True,
            )
            secs = time.perf_counter() - t0
            if res.returncode != 0:
                print(f"| {n} | slccache | failed: {res.stderr.strip()[:80]} | | |")
            else:
                cl = json.loads(res.stdout)["cliffs"]
                err = f"{100 * (cl[0]['bytes_written'] - truth) / truth:+.2f}%" if cl else "-"
                print(f"| {n:,} | slccache analyze | {secs:.2f} s | {len(cl)} | {err} |")
        t = np.arange(1, n + 1, dtype=float)
        dt = np.ones(n)
        total = np.cumsum(np.array([float(r.split(",")[2]) for r in text.split()[1:]]))
        y = np.array([float(r.split(",")[4]) for r in text.split()[1:]]) / 1e6
        s = sigma_mad(y)
        for name, algo, kind in methods:
            prev = last.get(name)
            if (kind == "k" and n > 20000) or (prev is not None and prev * 10 > args.budget):
                why = "n^2 memory" if kind == "k" and n > 20000 else f"{prev:.0f} s at n/10"
                print(f"| {n:,} | {name} | skipped ({why}) | | |")
                last[name] = float("inf")
                continue
            t0 = time.perf_counter()
            try:
                pen = math.log(n) if kind == "k" else s * s * math.log(n)
                bk = algo(y).predict(pen=pen)
            except Exception as e:  # a stock tool failing is a result too
                print(f"| {n:,} | {name} | failed: {e} | | |")
                last[name] = float("inf")
                continue
            secs = time.perf_counter() - t0
            last[name] = secs
            ch = describe(bk, t, dt, total)
            err = f"{100 * (ch[0][1] - truth) / truth:+.2f}%" if ch else "-"
            print(f"| {n:,} | {name} | {secs:.2f} s | {len(ch)} | {err} |")
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slccache", default=os.environ.get("SLCCACHE", "target/debug/slccache"))
    ap.add_argument("--sizes", help="comma-separated sample counts for synthetic timelines")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds per method and size")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if args.sizes:
        run_sizes(args)
        return
    for f in args.files:
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            res = subprocess.run(
                [args.slccache, "analyze", "--json", "--out", d, f],
                capture_output=True,
                text=True,
            )
            ours_s = time.perf_counter() - t0
            if res.returncode != 0:
                print(f"{f}: slccache failed: {res.stderr.strip()}")
                continue
            a = json.loads(res.stdout)
            t, dt, rate, total = load_timeline(os.path.join(d, "timeline.csv"))
        y = rate / 1e6
        n = len(y)
        s = sigma_mad(y)
        pen = s * s * math.log(n)
        print(f"\n{os.path.basename(f)}: {n} samples, sigma {s:.1f} MB/s")
        rows = []
        cl = [(c["t_s"], c["bytes_written"]) for c in a["cliffs"]]
        rows.append(("slccache (cliffs)", cl, ours_s))
        for name, algo in [
            ("ruptures Pelt l2", lambda: rpt.Pelt(model="l2", min_size=2, jump=1).fit(y)),
            ("ruptures Binseg l2", lambda: rpt.Binseg(model="l2", min_size=2, jump=1).fit(y)),
            ("ruptures KernelCPD rbf", lambda: rpt.KernelCPD(kernel="rbf", min_size=2).fit(y)),
        ]:
            t0 = time.perf_counter()
            try:
                if "Kernel" in name:
                    bk = algo().predict(pen=math.log(n))
                else:
                    bk = algo().predict(pen=pen)
            except Exception as e:  # a stock tool failing is a result too
                rows.append((name, f"failed: {e}", 0.0))
                continue
            rows.append((name, describe(bk, t, dt, total), time.perf_counter() - t0))
        rows.append(("threshold 0.65x / 15 s", threshold_rule(t, dt, rate, total), 0.0))
        for name, ch, secs in rows:
            if isinstance(ch, str):
                print(f"  {name:24} {ch}")
                continue
            first = (
                f"first at {ch[0][0]:8.2f} s, {ch[0][1] / 2**30:7.2f} GiB" if ch else "none"
            )
            print(f"  {name:24} {len(ch):3d} changes, {first}   ({secs * 1e3:.0f} ms)")


if __name__ == "__main__":
    main()
