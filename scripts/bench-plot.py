#!/usr/bin/env python3
"""Ratios and a plot from scripts/bench-compare.sh's results: delivered hovers per second and p99
latency against offered load, for shuffleboard and socketify.

Usage: scripts/bench-plot.py SHUFFLEBOARD.jsonl SOCKETIFY.jsonl OUT.png
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        return sorted((json.loads(line) for line in f if line.strip()), key=lambda r: r["offered_per_s"])


ours, theirs = load(sys.argv[1]), load(sys.argv[2])
print("offered/s    shuffleboard delivered/s (ratio, p99 ms, cpu%)    socketify delivered/s (ratio, p99 ms, cpu%)"
      "    delivered ours/theirs    p99 ours/theirs")
for a, b in zip(ours, theirs):
    print("%9.0f    %12.0f (%5.3f, %8.2f, %5.1f)    %12.0f (%5.3f, %8.2f, %5.1f)    %8.2f    %8.2f" % (
        a["offered_per_s"], a["delivered_per_s"], a["delivered_ratio"], a["latency_ms"]["p99"],
        a["server_cpu_percent"], b["delivered_per_s"], b["delivered_ratio"], b["latency_ms"]["p99"],
        b["server_cpu_percent"], a["delivered_per_s"] / max(b["delivered_per_s"], 1),
        a["latency_ms"]["p99"] / max(b["latency_ms"]["p99"], 1e-3)))

fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
for rows, name in ((ours, "shuffleboard"), (theirs, "socketify")):
    x = [r["offered_per_s"] for r in rows]
    top.plot(x, [r["delivered_per_s"] for r in rows], marker="o", label=name)
    bottom.plot(x, [r["latency_ms"]["p99"] for r in rows], marker="o", label=name)
top.plot([min(x), max(x)], [min(x), max(x)], linestyle=":", color="grey", label="offered")
top.set_ylabel("delivered hovers/s")
top.set_xscale("log")
top.set_yscale("log")
top.legend()
bottom.set_ylabel("p99 latency, ms (from the hover's t)")
bottom.set_yscale("log")
bottom.set_xlabel("offered hovers/s (4 senders to 500 clients on one board)")
fig.suptitle("Hover fan-out, one board, 2 shared cores, loopback")
fig.tight_layout()
fig.savefig(sys.argv[3], dpi=100)
print("wrote", sys.argv[3])
