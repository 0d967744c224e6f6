#!/usr/bin/env python3
"""The web client on boards of many cards (issue 36), measured in Debian's Chromium (headless).

Usage: scripts/bench-browser-big.py BIN [--cards 1000,10000] [--runs 3] [--screenshot DIR] [--profile DIR]

For each size, a board of that many cards in list columns of at most 3,000 (10,000: 3,000 +
3,000 + 3,000 + 1,000; 1,000: four of 250, the reference in the same run) is imported into a
temporary data directory (Tests/browser/bigboard.py) and the server BIN started on it. Then, in a
fresh page each run:

- open: from navigation start to the first tile on screen with the page connected (ms), the
  tiles in the DOM then, and the longest task (PerformanceObserver "longtask") during it;
- drag: a card lifted in the first column and carried, one pointer move a frame, down the
  column, across the second into the third and back onto the second, where it is dropped (and
  the move committed); every frame's length (requestAnimationFrame to the next) is recorded:
  the worst, the 99th percentile, how many were over 50 ms, and the longest task;
- autoscroll: the card held near the bottom edge of the second column for 60 frames (the column
  scrolls under it), the same frame figures.

For the drag, the page's own counters (CDP `Performance.getMetrics`) say what each pointer move
cost: script, style recalculation and layout (ms a move, and how many style recalculations and
layouts a move forced). `--profile DIR` also records the first run's drag with the CDP
`Profiler` (DIR/big-N-drag.cpuprofile, opened by Chromium's DevTools) and prints the functions
with the most self time.

It prints one line per size and measure with the median and the worst over the runs. It asserts
nothing: a benchmark, not a test (the browser tests are in Tests/browser/test_big_board.py).
"""

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "browser"))
from bigboard import write_big_board  # noqa: E402
from harness import Server  # noqa: E402

OBSERVE = """() => {
  window.__bench = { frames: [], long: [], last: null, on: false };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.long.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
  const tick = (t) => {
    const b = window.__bench;
    if (b.on && b.last != null) b.frames.push(t - b.last);
    b.last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""

NEXT_FRAME = "() => new Promise((r) => requestAnimationFrame(() => r()))"


def columns_for(cards):
    if cards <= 1000:
        return [cards // 4] * 4
    sizes = []
    left = cards
    while left > 0:
        sizes.append(min(3000, left))
        left -= sizes[-1]
    return sizes


def center(page, selector):
    box = page.locator(selector).first.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def frames_of(page):
    b = page.evaluate("() => { const b = window.__bench; b.on = false; return {frames: b.frames, long: b.long}; }")
    frames = sorted(b["frames"]) or [0]
    return {
        "worst": frames[-1],
        "p99": frames[min(len(frames) - 1, int(len(frames) * 0.99))],
        "over50": sum(1 for f in frames if f > 50),
        "frames": len(frames),
        "longest_task": max(b["long"], default=0),
    }


METRICS = ("ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "RecalcStyleCount", "LayoutCount")


def metrics(cdp):
    got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {k: got.get(k, 0) for k in METRICS}


def per_move(before, after, moves):
    """What each pointer move cost, from two metric readings: ms of script, style and layout, and
    how many style recalculations and layouts."""
    d = {k: after[k] - before[k] for k in METRICS}
    return {
        "script": d["ScriptDuration"] * 1000 / moves, "style": d["RecalcStyleDuration"] * 1000 / moves,
        "layout": d["LayoutDuration"] * 1000 / moves, "styles": d["RecalcStyleCount"] / moves,
        "layouts": d["LayoutCount"] / moves,
    }


def top_functions(profile, n=12):
    """The functions with the most self time in a CDP profile: [(ms, name, where)]."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    self_us = {}
    for sample, delta in zip(profile["samples"], profile["timeDeltas"]):
        self_us[sample] = self_us.get(sample, 0) + delta
    by_fn = {}
    for node_id, us in self_us.items():
        f = nodes[node_id]["callFrame"]
        where = f"{f['url'].rsplit('/', 1)[-1]}:{f['lineNumber'] + 1}" if f["url"] else ""
        key = (f["functionName"] or "(anonymous)", where)
        by_fn[key] = by_fn.get(key, 0) + us
    return sorted(((us / 1000, name, where) for (name, where), us in by_fn.items()), reverse=True)[:n]


def start_frames(page):
    page.evaluate("() => { const b = window.__bench; b.frames = []; b.long = []; b.last = null; b.on = true; }")


def run_once(browser, url, zones, shots, cards, run, profile=None):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.add_init_script(f"({OBSERVE})()")
    page.goto(f"{url}/?board=big&name=Bench")
    page.wait_for_function(
        "() => document.querySelector('#app')?.dataset.connected === 'true'"
        " && document.querySelector('#zones [data-item]')", timeout=60000)
    opened = page.evaluate("() => performance.now()")
    tiles = page.locator("#zones [data-item]").count()
    load_long = page.evaluate("() => Math.max(0, ...window.__bench.long)")
    if shots and run == 0:
        page.screenshot(path=str(Path(shots) / f"big-{cards}-open.png"))

    # The drag: lift a card near the top of col1 (another each run: the last run's was moved).
    card = zones["col1"][2 + run]
    x, y = center(page, f'[data-item="{card}"]')
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 8, y + 8, steps=2)
    page.wait_for_selector(".ghost", timeout=10000)
    start_frames(page)
    c2 = page.locator('[data-zone="col2"]').bounding_box()
    c3 = page.locator('[data-zone="col3"]').bounding_box()
    path = []
    for i in range(30):  # down the first column
        path.append((x + 8, y + 8 + i * 10))
    for i in range(40):  # across into the third column
        tx = x + 8 + (c3["x"] + c3["width"] / 2 - x) * i / 39
        path.append((tx, c2["y"] + 200))
    for i in range(30):  # back onto the second
        tx = c3["x"] + c3["width"] / 2 - (c3["x"] - c2["x"]) * i / 29
        path.append((tx, c2["y"] + 150))
    if profile and run == 0:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 100})
        cdp.send("Profiler.start")
    before = metrics(cdp)
    for px, py in path:
        page.mouse.move(px, py)
        page.evaluate(NEXT_FRAME)
    after = metrics(cdp)
    drag = frames_of(page)
    drag["cost"] = per_move(before, after, len(path))
    if profile and run == 0:
        recorded = cdp.send("Profiler.stop")["profile"]
        (Path(profile) / f"big-{cards}-drag.cpuprofile").write_text(json.dumps(recorded))
        drag["top"] = top_functions(recorded)
    # Autoscroll: held near the bottom edge of the second column.
    start_frames(page)
    bottom = c2["y"] + c2["height"] - 10
    before = page.locator('[data-zone="col2"]').evaluate("e => e.scrollTop")
    for i in range(60):
        page.mouse.move(c2["x"] + c2["width"] / 2, bottom + (i % 2))
        page.evaluate(NEXT_FRAME)
    scroll = frames_of(page)
    scroll["scrolled"] = page.locator('[data-zone="col2"]').evaluate("e => e.scrollTop") - before
    if shots and run == 0:
        page.screenshot(path=str(Path(shots) / f"big-{cards}-drag.png"))
    seq = int(page.get_attribute("#app", "data-seq") or 0)
    page.mouse.up()
    page.wait_for_function(f"() => Number(document.querySelector('#app').dataset.seq) > {seq}", timeout=30000)
    context.close()
    return {"open": opened, "tiles": tiles, "load_long": load_long, "drag": drag, "scroll": scroll}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--cards", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--screenshot", default=None, help="a directory for screenshots of the first run")
    parser.add_argument("--profile", default=None, help="a directory for a CPU profile of the first run's drag")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    sizes = [int(n) for n in args.cards.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, headless=True, args=["--no-sandbox"])
        for cards in sizes:
            data = Path(tmp) / f"data-{cards}"
            zones = write_big_board(args.binary, data, "big", 0, columns_for(cards))
            server = Server(args.binary, f"bench-big-{cards}", data=str(data)).start()
            try:
                results = [run_once(browser, server.url, zones, args.screenshot, cards, r, args.profile) for r in range(args.runs)]
            finally:
                server.stop()
            rows.append((cards, results))
        browser.close()

    def med(xs):
        return statistics.median(xs)

    print(f"Chromium (headless), 1280x800, {args.runs} runs each; median / worst over the runs (ms)")
    print("cards   columns                 open (first tile)   tiles in DOM   longest task at open")
    for cards, rs in rows:
        cols = "+".join(str(n) for n in columns_for(cards))
        print(f"{cards:5d}   {cols:22s}  {med([r['open'] for r in rs]):7.0f} / {max(r['open'] for r in rs):6.0f}"
              f"   {med([r['tiles'] for r in rs]):12.0f}   {med([r['load_long'] for r in rs]):7.0f} / {max(r['load_long'] for r in rs):5.0f}")
    print("cards   measure      frames   worst frame     p99 frame    frames > 50 ms   longest task   scrolled px")
    for cards, rs in rows:
        for name in ("drag", "scroll"):
            f = [r[name] for r in rs]
            scrolled = f"{med([x.get('scrolled', 0) for x in f]):8.0f}" if name == "scroll" else ""
            print(f"{cards:5d}   {name:10s}  {med([x['frames'] for x in f]):6.0f}"
                  f"   {med([x['worst'] for x in f]):5.0f} / {max(x['worst'] for x in f):5.0f}"
                  f"   {med([x['p99'] for x in f]):5.0f} / {max(x['p99'] for x in f):5.0f}"
                  f"   {med([x['over50'] for x in f]):6.0f} / {max(x['over50'] for x in f):3d}"
                  f"   {med([x['longest_task'] for x in f]):5.0f} / {max(x['longest_task'] for x in f):5.0f}   {scrolled}")
    print("cards   a pointer move of the drag (median over the runs): script ms, style ms, layout ms, style recalcs, layouts")
    for cards, rs in rows:
        c = [r["drag"]["cost"] for r in rs]
        print(f"{cards:5d}   " + "   ".join(f"{k} {med([x[k] for x in c]):5.2f}" for k in ("script", "style", "layout", "styles", "layouts")))
    for cards, rs in rows:
        if rs[0]["drag"].get("top"):
            print(f"{cards:5d}   the first run's drag, most self time (ms, function, where):")
            for ms, name, where in rs[0]["drag"]["top"]:
                print(f"          {ms:8.1f}  {name}  {where}")


if __name__ == "__main__":
    start = time.time()
    main()
    print(f"({time.time() - start:.0f} s)")
