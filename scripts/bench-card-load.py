#!/usr/bin/env python3
"""How long a 1,000-card board takes to load (hello -> welcome), with card content and without.

Usage: scripts/bench-card-load.py BIN [--cards 1000] [--joins 20]

Starts the shuffleboard binary on SQLite in a temporary directory, makes two boards of --cards
cards over four columns with `POST /api/boards`: `plain` (labels only, as every board was before
issue 32) and `full`, whose every card then gets a description of about 600 bytes of Markdown,
two tags, an assignee, a due date and a checklist of three (sent as ops over one WebSocket). Then
it measures, for each board, --joins joins in a row (connect, hello, read to the end of the
welcome) while the board is in memory ("warm"), and after a restart of the server ("cold": the
first join loads the board from SQLite; one cold join per restart, three restarts). It prints the
board's snapshot size and the join times' median and worst for both boards side by side: the
plain board is the reference measured in the same run. It asserts nothing.
"""

import argparse
import contextlib
import json
import re
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request

from websockets.sync.client import connect


class Server:
    def __init__(self, binary: str, data: str) -> None:
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", "--data", data, "--op-rate", "0", "--message-rate", "0",
             "--connect-rate", "0", "--max-connections-per-address", "0", "--max-pending-per-address", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        ready = threading.Event()

        def read_log() -> None:
            for line in self.process.stderr:  # To the end, so that the server never blocks on its log.
                if not ready.is_set():
                    lines.append(line)
                if "listening on" in line:
                    ready.set()
        threading.Thread(target=read_log, daemon=True).start()
        if not ready.wait(30):
            self.stop()
            raise RuntimeError("the server did not start: " + "".join(lines))
        self.port = int(re.search(r"127\.0\.0\.1:(\d+)/", next(l for l in lines if "listening on" in l)).group(1))

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)

    def post(self, path: str, body: dict) -> dict:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())


def make_board(server: Server, board: str, cards: int) -> None:
    columns = 4
    zones = [{"id": f"z{c}", "title": f"Column {c}", "layout": "list",
              "items": [{"label": f"Card {c}-{n}: fix the login page", "color": "#4caf50"}
                        for n in range(cards // columns)]} for c in range(columns)]
    server.post("/api/boards", {"id": board, "title": board, "zones": zones})


def fill(server: Server, board: str) -> None:
    """Every card of `board` gets content, one op after another over one WebSocket (bounded waits)."""
    description = ("## What\n\nThe login page **fails** when the password has a *space*.\n\n"
                   "- steps: open `/login`\n- type a password with a space\n- press Enter\n\n"
                   "> seen by two customers this week\n\n[the ticket](https://example.com/t/1)\n") * 2
    with connect(f"ws://127.0.0.1:{server.port}/ws", subprotocols=["shuffleboard.v1"], max_size=None,
                 open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "board": board, "name": "Filler", "member": "filler"}))
        welcome = receive(ws, "welcome")
        seq = welcome["seq"]
        items = [i["id"] for i in welcome["board"]["items"]]
        number = 0

        def op(body: dict) -> dict:
            nonlocal seq, number
            number += 1
            body.update({"op": f"f{number}", "base": seq})
            ws.send(json.dumps(body))
            while True:
                message = json.loads(ws.recv(timeout=30))
                if message.get("op") == body["op"]:
                    if "seq" not in message:
                        raise RuntimeError(f"refused: {message}")
                    seq = message["seq"]
                    return message

        tags = [op({"type": "addTag", "tag": {"name": name, "color": color}})["tag"]["id"]
                for name, color in (("Bug", "#e53935"), ("Frontend", "#1e88e5"), ("Urgent", "#fb8c00"))]
        for n, item in enumerate(items):
            op({"type": "edit", "item": item, "description": description, "due": f"2027-01-{n % 28 + 1:02d}"})
            op({"type": "tag", "item": item, "add": [tags[n % 3], tags[(n + 1) % 3]]})
            op({"type": "assign", "item": item, "add": [{"member": f"m{n % 7}", "name": f"Person {n % 7}"}]})
            for text in ("Reproduce it", "Write the fix", "Ask for a review"):
                op({"type": "addCheck", "item": item, "before": None, "text": text})


def receive(ws, kind: str) -> dict:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        message = json.loads(ws.recv(timeout=30))
        if message.get("type") == kind:
            return message
    raise RuntimeError(f"no {kind} within 30 s")


def join_ms(port: int, board: str) -> tuple[float, int]:
    started = time.perf_counter()
    with connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["shuffleboard.v1"], max_size=None,
                 open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "board": board, "name": "Joiner"}))
        raw = ws.recv(timeout=30)
        while '"type":"welcome"' not in raw[:200]:
            raw = ws.recv(timeout=30)
        elapsed = (time.perf_counter() - started) * 1000
    return elapsed, len(raw.encode())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--joins", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = Server(args.binary, data)
        try:
            for board in ("plain", "full"):
                make_board(server, board, args.cards)
            fill(server, "full")
            warm: dict[str, list[float]] = {"plain": [], "full": []}
            size: dict[str, int] = {}
            with contextlib.ExitStack() as keepers:
                for board in warm:  # One client stays on each, so the board stays in memory.
                    ws = keepers.enter_context(connect(f"ws://127.0.0.1:{server.port}/ws",
                                                       subprotocols=["shuffleboard.v1"], max_size=None))
                    ws.send(json.dumps({"type": "hello", "board": board, "name": "Keeper"}))
                    receive(ws, "welcome")
                for _ in range(args.joins):
                    for board in warm:
                        ms, size[board] = join_ms(server.port, board)
                        warm[board].append(ms)
        finally:
            server.stop()
        cold: dict[str, list[float]] = {"plain": [], "full": []}
        for _ in range(3):
            for board in cold:
                server = Server(args.binary, data)
                try:
                    cold[board].append(join_ms(server.port, board)[0])
                finally:
                    server.stop()
    print(f"{args.cards} cards; welcome bytes: plain {size['plain']:,}, with content {size['full']:,}")
    for label, runs in (("warm", warm), ("cold", cold)):
        for board in ("plain", "full"):
            values = runs[board]
            print(f"{label} hello -> welcome, {board:5}: median {statistics.median(values):7.1f} ms, "
                  f"worst {max(values):7.1f} ms ({len(values)} joins)")


if __name__ == "__main__":
    main()
