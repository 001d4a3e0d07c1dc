#!/usr/bin/env python3
"""Peak memory against run length, drawn from the tables of docs/PERFORMANCE.md.

    scripts/memory-plot.py [docs/PERFORMANCE.md] [docs/memory-rss.svg]

Reads the rows of the two tables that scripts/memory-samples.sh and
scripts/memory-experiments.sh print (as PERFORMANCE.md keeps them: "| command | samples | run
length | peak RSS (MB) | CPU (s) | wall (s) |") and writes an SVG: one line per command, the
samples of the run on a log scale across, the peak resident set size up, with the 256 MB
that no command may pass. Rows whose samples are not a count (history of N runs) and sweep
points (20 samples however long) are left out. Only the standard library is used.
"""

import math
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else "docs/PERFORMANCE.md"
OUT = sys.argv[2] if len(sys.argv) > 2 else "docs/memory-rss.svg"
HEADER = "| command | samples | run length | peak RSS (MB) | CPU (s) | wall (s) |"
LIMIT_MB = 256.0
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
          "#17becf", "#7f7f7f", "#bcbd22"]


def command_of(cell):
    """The series a row belongs to: the command, with what sets its runs apart."""
    name = cell.replace("`", "")
    name = re.sub(r"\s*\(cache [^)]*\)", "", name)
    name = re.sub(r"\s*\(the run twice\)", "", name)
    name = re.sub(r"\s*\(one run recorded\)", "", name)
    if name.startswith("probe"):
        return "probe (kept limit 4096)" if "MAX_KEPT=4096" in name else "probe"
    return name.strip()


def rows(text):
    series = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != HEADER:
            continue
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in row.strip("|").split("|")]
            if len(cells) < 4:
                continue
            try:
                samples = int(cells[1].replace(",", ""))
                rss = float(cells[3])
            except ValueError:
                continue
            name = command_of(cells[0])
            if name.startswith("sweep") or samples < 1000:
                continue
            series.setdefault(name, []).append((samples, rss))
    return {k: sorted(v) for k, v in series.items()}


def svg(series):
    w, h = 900, 520
    left, right, top, bottom = 70, 250, 40, 60
    xs = [s for pts in series.values() for s, _ in pts]
    x0 = 10 ** math.floor(math.log10(min(xs)))
    x1 = 10 ** math.ceil(math.log10(max(xs)))
    y1 = 300.0

    def px(x):
        return left + (math.log10(x) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * (
            w - left - right)

    def py(y):
        return top + (1 - y / y1) * (h - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="13">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="15">Peak resident memory against run length '
           f'(docs/PERFORMANCE.md, release build)</text>']
    # Axes, grid and ticks.
    x = x0
    while x <= x1 * 1.0001:
        out.append(f'<line x1="{px(x):.1f}" y1="{top}" x2="{px(x):.1f}" y2="{h - bottom}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{px(x):.1f}" y="{h - bottom + 18}" text-anchor="middle">'
                   f'{x:,.0f}</text>')
        x *= 10
    for y in range(0, int(y1) + 1, 50):
        out.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{w - right}" y2="{py(y):.1f}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{py(y) + 4:.1f}" text-anchor="end">{y}</text>')
    out.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 18}" text-anchor="middle">'
               f'samples in the run (log scale; 8,640,000 = 24 h at 10 ms)</text>')
    out.append(f'<text x="18" y="{(top + h - bottom) / 2:.0f}" text-anchor="middle" '
               f'transform="rotate(-90 18 {(top + h - bottom) / 2:.0f})">peak RSS (MB)</text>')
    out.append(f'<line x1="{left}" y1="{py(LIMIT_MB):.1f}" x2="{w - right}" '
               f'y2="{py(LIMIT_MB):.1f}" stroke="black" stroke-dasharray="6 4"/>')
    out.append(f'<text x="{w - right - 4}" y="{py(LIMIT_MB) - 6:.1f}" text-anchor="end">'
               f'256 MB: the most any command may use</text>')
    for k, (name, pts) in enumerate(sorted(series.items())):
        c = COLORS[k % len(COLORS)]
        path = " ".join(f"{px(s):.1f},{py(r):.1f}" for s, r in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for s, r in pts:
            out.append(f'<circle cx="{px(s):.1f}" cy="{py(r):.1f}" r="3.5" fill="{c}"/>')
        ly = top + 10 + 20 * k
        out.append(f'<line x1="{w - right + 15}" y1="{ly}" x2="{w - right + 40}" y2="{ly}" '
                   f'stroke="{c}" stroke-width="3"/>')
        out.append(f'<text x="{w - right + 46}" y="{ly + 4}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    with open(SRC, encoding="utf-8") as f:
        series = rows(f.read())
    if not series:
        sys.exit(f"no rows of '{HEADER}' in {SRC}")
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(svg(series))
    for name, pts in sorted(series.items()):
        print(f"{name}: " + ", ".join(f"{s:,} samples {r} MB" for s, r in pts))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
