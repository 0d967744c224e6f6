#!/usr/bin/env python3
"""Plots a full-node sweep (`shuffleboard-bench scenarios full-node --clients N` at several N,
scripts/bench-full-node.sh) as an SVG written by hand (no plotting library): three panels against
connections on the node — RSS per idle connection, join rate, and the busy boards' hover p99 full
(solid) beside the same boards alone in the same run (dashed) — one colour per event loop, each
point the mean of the rounds at that size, the rounds' spread as a vertical bar.

Usage: scripts/plot-full-node.py SWEEP.jsonl OUT.svg"""
import json
import sys
from collections import defaultdict
from html import escape

rows = defaultdict(list)  # (loop, connections) -> summary lines
with open(sys.argv[1]) as f:
    for line in f:
        line = line.strip()
        if not line.startswith("{"):
            continue
        row = json.loads(line)
        if row.get("scenario") != "full-node" or "joins_per_s" not in row:
            continue
        rows[(row["event_loop"], row["idle"] + 10 * row["busy_boards"])].append(row)
if not rows:
    sys.exit("no full-node summary lines with join figures in " + sys.argv[1])

loops = sorted({loop for loop, _ in rows})
colours = {"poll": "#c0392b", "libev": "#2471a3"}
panels = [
    ("RSS per idle connection (B)", lambda r: r["rss_bytes_per_idle_connection"], None),
    ("joins per second", lambda r: r["joins_per_s"], None),
    ("busy boards' hover p99 (ms): full, alone dashed", lambda r: r["full_p99_ms"], lambda r: r["alone_p99_ms"]),
]
W, H, PAD_L, PAD_R, PAD_T, PAD_B = 360, 260, 62, 14, 30, 42
xs = sorted({n for _, n in rows})
x_max = max(xs) * 1.08


def nice_max(v):
    if v <= 0:
        return 1
    step = 10 ** len(str(int(v))) / 10
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * step:
            return m * step
    return v


out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
       % (W * len(panels), H + 26), '<rect width="100%" height="100%" fill="white"/>']
for p, (title, value, reference) in enumerate(panels):
    ox = p * W
    series = {}
    y_top = 0
    for loop in loops:
        pts = []
        for n in xs:
            rs = rows.get((loop, n), [])
            if not rs:
                continue
            vals = [value(r) for r in rs]
            refs = [reference(r) for r in rs] if reference else []
            pts.append((n, sum(vals) / len(vals), min(vals), max(vals), sum(refs) / len(refs) if refs else None))
            y_top = max(y_top, max(vals), max(refs) if refs else 0)
        series[loop] = pts
    y_max = nice_max(y_top * 1.05)
    sx = lambda n: ox + PAD_L + (W - PAD_L - PAD_R) * n / x_max
    sy = lambda v: PAD_T + (H - PAD_T - PAD_B) * (1 - v / y_max)
    out.append('<text x="%d" y="16" font-weight="bold">%s</text>' % (ox + PAD_L, escape(title)))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>' % (sx(0), sy(0), sx(x_max), sy(0)))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>' % (sx(0), sy(0), sx(0), sy(y_max)))
    for i in range(6):
        v = y_max * i / 5
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>' % (sx(0), sy(v), sx(x_max), sy(v)))
        out.append('<text x="%.1f" y="%.1f" text-anchor="end">%s</text>' % (sx(0) - 4, sy(v) + 4, "%g" % v))
    for n in xs:
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>' % (sx(n), sy(0) + 14, "{:,}".format(n)))
    out.append('<text x="%.1f" y="%.1f" text-anchor="middle">connections</text>' % (ox + W / 2, H - 6))
    for loop, pts in series.items():
        c = colours.get(loop, "black")
        if len(pts) > 1:
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                       % (c, " ".join("%.1f,%.1f" % (sx(n), sy(v)) for n, v, *_ in pts)))
        refs = [(n, r) for n, _, _, _, r in pts if r is not None]
        if len(refs) > 1:
            out.append('<polyline fill="none" stroke="%s" stroke-dasharray="5,4" points="%s"/>'
                       % (c, " ".join("%.1f,%.1f" % (sx(n), sy(r)) for n, r in refs)))
        for n, v, lo, hi, _ in pts:
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>' % (sx(n), sy(lo), sx(n), sy(hi), c))
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (sx(n), sy(v), c))
for i, loop in enumerate(loops):
    out.append('<rect x="%d" y="%d" width="12" height="4" fill="%s"/>' % (PAD_L + 110 * i, H + 10, colours.get(loop, "black")))
    out.append('<text x="%d" y="%d">--event-loop %s</text>' % (PAD_L + 110 * i + 16, H + 16, escape(loop)))
out.append("</svg>")
with open(sys.argv[2], "w") as f:
    f.write("\n".join(out) + "\n")

print("connections  loop    RSS B/conn  joins/s  busy p99 full / alone ms  (mean of rounds)")
for loop in loops:
    for n in xs:
        rs = rows.get((loop, n), [])
        if rs:
            m = lambda k: sum(r[k] for r in rs) / len(rs)
            print("%11s  %-6s  %10.0f  %7.0f  %8.1f / %.1f" % ("{:,}".format(n), loop, m("rss_bytes_per_idle_connection"),
                                                             m("joins_per_s"), m("full_p99_ms"), m("alone_p99_ms")))
