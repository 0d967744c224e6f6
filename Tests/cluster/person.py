"""A person on a board, for the cluster test (asyncio, `websockets`): a client that keeps ops in
flight, reconnects on any close to the next node with `hello … since`, resends what was not
answered with the same op id, and records everything it saw committed so that the test can hold
it against the stored log.

What it checks as it goes (each breach is recorded in `violations`, never raised inside the task):
every committed op it hears of continues its seq by exactly one (broadcasts and a resume's `ops`);
a welcome never goes back behind what it had seen. Every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from harness import COMMITTED, SUBPROTOCOL, apply

OPEN_TIMEOUT = 3.0     # a paused node accepts TCP but never answers the upgrade
WELCOME_TIMEOUT = 15.0  # claiming a board waits for a dead owner's lease to lapse
AGAIN_AFTER = 0.5       # an op refused `unavailable` on an open connection goes again this much later
STALL_TIMEOUT = 20.0    # ops pending and nothing heard for this long: the node left us hanging
RECONNECT_FOR = 30.0    # how long a client may go without getting in anywhere
WINDOW = 2              # ops in flight per client
PACE = 0.1              # seconds between new ops (some 60 ops/s from six clients)


class Person:
    """One client of one board, moving between the nodes at `ports` (it starts on `index % len`)."""

    def __init__(self, index: int, board: str, ports: list[int], seed: int, max_ops: int,
                 hosts: list[str] | None = None):
        self.index, self.board_id, self.ports = index, board, ports
        self.hosts = hosts or ["127.0.0.1"] * len(ports)  # each node's address (partition tests: a namespace's)
        self.pinned = False  # reconnect to the same node (as HAProxy's hash sends a client back), not the next
        self.name = f"c{index}"
        self.rng = random.Random(seed)
        self.max_ops = max_ops
        self.node = index  # index into ports of the node to try next
        self.chosen: int | None = None  # set by move_to: the next node, instead of the one after
        self.board: dict | None = None  # what this client shows: the welcome's board plus every op since
        self.last = 0                   # the last seq applied
        self.seen: dict[int, str] = {}  # seq → op id of every committed op heard of (broadcast, resume)
        self.acks: dict[str, int] = {}  # op id → seq from `ack`s (committed before, not applied again)
        self.snapshots: list[tuple[int, dict]] = []  # (seq, board) of each welcome that carried a board
        self.pending: dict[str, dict] = {}  # op id → the op, sent and not answered yet
        # op id → when to send it again on this connection: refused `unavailable` while the
        # connection stays open (--max-unstored-ops), "send it again later" (protocol.md).
        self.again: dict[str, float] = {}
        self.sent = 0
        self.sent_ids: set[str] = set()  # every op id sent
        # What it saw, in order, for the history checker (Tests/process/checker.py):
        # ("welcome", seq, board), ("resume", seq), ("op", seq, op id).
        self.history: list[tuple] = []
        self.committed: set[str] = set()  # own op ids seen committed (broadcast or ack)
        self.rejected: dict[str, str] = {}  # own op id → reason
        self.unavailable = 0  # `unavailable` errors naming an op (refused, not applied: sent again)
        self.violations: list[str] = []
        self.closes: list[tuple[float, str, int | None]] = []  # (time, node port, close code or None)
        self.connected_to: int | None = None  # the port of the current connection, once welcomed
        self.welcomed = False  # in the current session
        self.sessions: list[int] = []  # the port of each connection that got a welcome
        self.sending = True
        self.done = False
        self.progress = time.monotonic()
        self.ws = None
        self.task: asyncio.Task | None = None
        self.closing: asyncio.Task | None = None

    # ---- What the test drives.

    def start(self) -> None:
        self.task = asyncio.create_task(self.run(), name=self.name)

    def move_to(self, node: int) -> None:
        """Leave the current node and resume on node `node` (as a user reloading the page)."""
        self.chosen = node
        if self.ws is not None:
            self.closing = asyncio.create_task(self.close_quietly(self.ws, "moving"))

    @staticmethod
    async def close_quietly(ws, reason: str) -> None:
        with contextlib.suppress(Exception):
            await ws.close(1000, reason)

    async def finish(self) -> None:
        self.done = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 3)
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self.task, 5)

    # ---- The connection loop.

    async def run(self) -> None:
        out_since = time.monotonic()
        while not self.done:
            port = self.ports[self.node % len(self.ports)]
            host = self.hosts[self.node % len(self.ports)]
            self.welcomed = False
            try:
                await self.session(host, port)
            except (OSError, asyncio.TimeoutError, InvalidHandshake, ConnectionClosed) as e:
                code = e.rcvd.code if isinstance(e, ConnectionClosed) and e.rcvd else None
                self.closes.append((time.monotonic(), str(port), code))
            except Exception as e:  # a bug in the test or an answer it cannot read: say so, stop
                self.violations.append(f"{self.name}: {type(e).__name__}: {e}")
                return
            finally:
                self.ws = None
                self.connected_to = None
            if self.welcomed:
                out_since = time.monotonic()
            elif time.monotonic() - out_since > RECONNECT_FOR:
                self.violations.append(f"{self.name}: no node let it in for {RECONNECT_FOR}s")
                return
            if self.done:
                return
            if self.chosen is not None:
                self.node, self.chosen = self.chosen, None
            elif not self.pinned:
                self.node += 1
            await asyncio.sleep(0.1 + self.rng.random() * 0.2)  # backoff before the next node

    async def session(self, host: str, port: int) -> None:
        """One connection, until it closes (or stalls)."""
        url = f"ws://{host}:{port}/ws?board={self.board_id}"
        async with connect(url, subprotocols=[SUBPROTOCOL], open_timeout=OPEN_TIMEOUT, close_timeout=2,
                           ping_interval=None, max_size=None, compression=None, proxy=None) as ws:
            self.ws = ws
            hello = {"type": "hello", "board": self.board_id, "name": self.name}
            if self.board is not None:
                hello["since"] = self.last
            await ws.send(json.dumps(hello))
            if not await self.receive_until_welcome(ws, port):
                # Refused (the close follows the error) or no welcome in time: record the close.
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(ws.wait_closed(), 3)
                self.closes.append((time.monotonic(), str(port), ws.protocol.close_rcvd.code if ws.protocol.close_rcvd else None))
                return
            self.welcomed = True
            self.connected_to = port
            self.sessions.append(port)
            self.again.clear()  # every pending op goes again now
            for op in list(self.pending.values()):  # unanswered: again, same op id
                await ws.send(json.dumps({**op, "base": self.last}))
            sender = asyncio.create_task(self.send_ops(ws))
            try:
                await self.read(ws)
            finally:
                sender.cancel()
                with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                    await sender

    async def receive_until_welcome(self, ws, port: int) -> bool:
        """Reads up to the welcome and handles it (and what came with it in its frame); False when
        the node refused the hello or gave no welcome in time."""
        deadline = time.monotonic() + WELCOME_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.violations.append(f"{self.name}: no welcome within {WELCOME_TIMEOUT}s on port {port}")
                return False
            frame = await asyncio.wait_for(ws.recv(), left)
            messages = self.parse(frame)
            for i, m in enumerate(messages):
                if m["type"] == "welcome":
                    self.welcome(m)
                    for rest in messages[i + 1:]:
                        self.handle(rest)
                    return True
                if m["type"] == "error":
                    return False  # refused (unavailable, …): the close follows; try elsewhere

    async def read(self, ws) -> None:
        while True:
            try:
                frame = await asyncio.wait_for(ws.recv(), 1.0)
            except asyncio.TimeoutError:
                if self.pending and time.monotonic() - self.progress > STALL_TIMEOUT:
                    self.violations.append(f"{self.name}: ops pending and nothing heard for {STALL_TIMEOUT}s "
                                           f"on port {self.connected_to}")
                    await ws.close(1000, "stalled")
                    return
                continue
            for m in self.parse(frame):
                self.handle(m)

    async def send_ops(self, ws) -> None:
        while True:
            now = time.monotonic()
            for op_id, due in list(self.again.items()):
                if due <= now:
                    del self.again[op_id]
                    if op_id in self.pending:
                        await ws.send(json.dumps({**self.pending[op_id], "base": self.last}))
            if self.sending and len(self.pending) < WINDOW and self.sent < self.max_ops and self.board is not None:
                op = self.make_op()
                self.pending[op["op"]] = op
                self.sent += 1
                self.sent_ids.add(op["op"])
                await ws.send(json.dumps(op))
            await asyncio.sleep(PACE)

    # ---- What the server says.

    @staticmethod
    def parse(frame) -> list[dict]:
        data = json.loads(frame)
        return data if isinstance(data, list) else [data]

    def welcome(self, m: dict) -> None:
        self.progress = time.monotonic()
        seq = m["seq"]
        if "board" in m:
            if self.board is not None and seq < self.last:
                self.violations.append(f"{self.name}: welcome at seq {seq} behind the {self.last} it had seen")
            self.board, self.last = m["board"], seq
            self.snapshots.append((seq, json.loads(json.dumps(m["board"]))))
            self.history.append(("welcome", seq, self.snapshots[-1][1]))
        else:
            assert self.board is not None, f"{self.name}: a welcome with ops on a first hello: {m}"
            self.history.append(("resume", seq))
            for op in m["ops"]:
                self.committed_op(op, "resume")
            if self.last != seq:
                self.violations.append(f"{self.name}: resume ops end at {self.last}, the welcome says {seq}")

    def handle(self, m: dict) -> None:
        kind = m["type"]
        if kind in COMMITTED:
            self.committed_op(m, "broadcast")
        elif kind == "ack":
            self.progress = time.monotonic()
            self.acks[m["op"]] = m["seq"]
            if m["op"] in self.pending:
                del self.pending[m["op"]]
                self.committed.add(m["op"])
        elif kind == "reject":
            self.progress = time.monotonic()
            if m.get("op") in self.pending:
                del self.pending[m["op"]]
                self.rejected[m["op"]] = m["reason"]
        elif kind == "error":
            # `unavailable` with an op: that op was not committed; it stays pending and goes again
            # after the reconnect. Anything else is this client's mistake or a server bug.
            if m.get("code") != "unavailable":
                self.violations.append(f"{self.name}: error {m}")
            elif m.get("op"):
                self.unavailable += 1
                # Sent again on this connection after a pause, unless a close comes first (then
                # the reconnect sends every pending op again anyway).
                self.again[m["op"]] = time.monotonic() + AGAIN_AFTER
        elif kind == "welcome":
            self.violations.append(f"{self.name}: a second welcome {m}")

    def committed_op(self, op: dict, where: str) -> None:
        self.progress = time.monotonic()
        seq = op["seq"]
        if seq != self.last + 1:
            self.violations.append(f"{self.name}: {where} of seq {seq} ({op['op']}) after {self.last}")
        if seq in self.seen and self.seen[seq] != op["op"]:
            self.violations.append(f"{self.name}: seq {seq} was {self.seen[seq]}, now {op['op']}")
        self.seen[seq] = op["op"]
        self.history.append(("op", seq, op["op"]))
        if seq > self.last:
            assert self.board is not None
            apply(self.board, op)
            self.last = seq
        if op["op"] in self.pending:
            del self.pending[op["op"]]
            self.committed.add(op["op"])

    # ---- Ops.

    def make_op(self) -> dict:
        assert self.board is not None
        items = [it["id"] for it in self.board["items"]]
        op_id = f"{self.name}-{self.sent}"
        kind = self.rng.choice(("swap", "move", "toggle"))
        if kind == "swap":
            a, b = self.rng.sample(items, 2)
            return {"type": "swap", "op": op_id, "base": self.last, "a": a, "b": b}
        if kind == "toggle":
            item = self.rng.choice(self.board["items"])
            return {"type": "toggle", "op": op_id, "base": self.last, "item": item["id"], "on": not item["on"]}
        item = self.rng.choice(items)
        zone = self.rng.choice(self.board["zones"])
        anchors = [i for i in zone["items"] if i != item]
        before = self.rng.choice(anchors) if anchors and self.rng.random() < 0.8 else None
        return {"type": "move", "op": op_id, "base": self.last, "item": item, "zone": zone["id"], "before": before}
