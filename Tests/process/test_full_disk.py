"""A full disk under SQLite: the data directory on a 4 MB tmpfs that the test fills up.

While the disk is full the writer retries: ops wait (no ack, no broadcast, to the sender or
anyone else), `/readyz` says `store_failing`, and once `--max-unstored-ops` ops of the board wait,
new ops get `unavailable` at once (memory stays bounded). Once space is freed, everything waiting
commits in order and is broadcast; the refused ops sent again commit too. After a kill -9 and a
restart the database is intact (`PRAGMA integrity_check`) and the history checker
(checker.py) finds nothing acknowledged lost, nothing applied twice, every client's order a
prefix of the log. Prints what it did and how long recovery took.

Needs root (mount). The tmpfs is always unmounted, even on failure; a leftover of an earlier run
(same prefix) is unmounted at the start.
"""

import contextlib
import errno
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
import urllib.request

import pytest

from checker import Recorder, summary, verify
from harness import WAIT, Client, Server

PREFIX = "shuffleboard-fulldisk-"
UNSTORED = 20  # --max-unstored-ops
NO_LIMITS = ("--op-rate", "0", "--message-rate", "0")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


def mounts_with_prefix() -> list[str]:
    with open("/proc/mounts") as f:
        points = [line.split()[1] for line in f]
    return [p for p in points if os.path.basename(p).startswith(PREFIX) and p.startswith("/tmp/")]


def unmount(point: str) -> None:
    if subprocess.run(["umount", point], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", point], capture_output=True)
    with contextlib.suppress(OSError):
        os.rmdir(point)


@pytest.fixture
def small_disk():
    """A 4 MB tmpfs at a fresh directory under /tmp; unmounted afterwards whatever happened."""
    for leftover in mounts_with_prefix():
        unmount(leftover)
    point = tempfile.mkdtemp(prefix=PREFIX, dir="/tmp")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", point], check=True, timeout=30)
    try:
        yield point
    finally:
        unmount(point)
        assert point not in mounts_with_prefix(), f"{point} is still mounted"


def fill(path: str) -> int:
    """Writes `path` until the file system is full; the bytes written."""
    written = 0
    chunk = b"\0" * 65536
    with open(path, "wb", buffering=0) as f:
        for size in (65536, 4096, 512, 1):
            while True:
                try:
                    written += f.write(chunk[:size])
                except OSError as e:
                    assert e.errno == errno.ENOSPC, e
                    break
    return written


def readyz(server: Server) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/readyz", timeout=WAIT) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


class Writer:
    """A client (harness.Client) whose every message goes through a Recorder."""

    def __init__(self, server: Server, name: str):
        self.client = Client(server, name=name)
        self.rec = Recorder(name)
        self.count = 0
        self.rec.saw(self.client.hello("disk", name))

    def op(self, op_id: str | None = None) -> dict:
        if op_id is None:
            self.count += 1
            op_id = f"{self.rec.name}-{self.count}"
        n = int(op_id.rsplit("-", 1)[1])
        # Each op toggles an item of its own (of 100): ops on a stale base never conflict.
        items = self.rec.board["items"] if self.rec.board else []
        op = {"type": "toggle", "op": op_id, "base": self.rec.last, "item": items[n % len(items)]["id"], "on": True}
        self.rec.sent(op)
        self.client.send(op)
        return op

    def until(self, pred, timeout: float = WAIT) -> dict:
        """Records every message up to the first matching `pred`, which it returns; TimeoutError
        when none came within `timeout` (whether the last read timed out or messages that do not
        match kept coming), which callers that poll can catch."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.rec.name}: no matching message within {timeout}s")
            m = self.client.recv(left)
            self.rec.saw(m)
            if pred(m):
                return m

    def sync(self) -> None:
        """Everything the server had sent before answering a ping is recorded."""
        self.client.send({"type": "ping"})
        self.until(lambda m: m["type"] == "pong")


def test_a_full_disk_holds_ops_back_bounded_and_commits_them_in_order_once_freed(small_disk, tmp_path, capsys):
    steps: list[str] = []
    data = os.path.join(small_disk, "data")
    args = ["--port", "0", "--data", data, "--max-unstored-ops", str(UNSTORED), *NO_LIMITS]
    servers: list[Server] = []

    def start() -> Server:
        server = Server(args, str(tmp_path))
        servers.append(server)
        return server.wait_listening()

    try:
        server = start()
        board = {"id": "disk", "title": "disk", "columns": 10,
                 "zones": [{"id": "a", "items": [{"label": f"A{i}", "color": "#1e88e5"} for i in range(100)]}]}
        status, body = server.http("POST", "/api/boards", body=board)
        assert status == 201, (status, body)
        ada, bob = Writer(server, "ada"), Writer(server, "bob")
        initial = ada.rec.history[0][2]
        for _ in range(10):
            last = ada.op()
        ada.until(lambda m: m.get("op") == last["op"] and m["type"] == "toggle")
        steps.append(f"10 ops committed; the disk is {shutil.disk_usage(small_disk).used // 1024} KiB used")

        filler = os.path.join(small_disk, "filler")
        filled = fill(filler)
        steps.append(f"filled the tmpfs with {filled // 1024} KiB")

        # Ops until the writer fails: SQLite may still have room in pages it had (the WAL's tail).
        mark = len(server.lines)
        failing_from = None
        for _ in range(200):
            op = ada.op()
            deadline = time.monotonic() + WAIT
            while failing_from is None and time.monotonic() < deadline:
                if any("store write failed, retrying" in line for line in server.lines[mark:]):
                    failing_from = op["op"]
                elif op["op"] in ada.rec.committed:
                    break
                with contextlib.suppress(TimeoutError):
                    ada.until(lambda m: m["type"] == "toggle", timeout=0.1)
            if failing_from:
                break
        assert failing_from, "the store never failed on the full disk"
        server.wait_for_log(r"disk is full", start=mark)
        status, body = readyz(server)
        assert (status, body["reasons"]) == (503, ["store_failing"]), (status, body)
        bob.sync()
        durable_seq = bob.rec.last
        steps.append(f"the store fails (disk full) from {failing_from}; /readyz 503 store_failing; "
                     f"stored seq {durable_seq}")

        # The ops sent since wait; new ones are refused at once past the bound.
        for _ in range(UNSTORED + 5):
            op = ada.op()
        try:
            ada.until(lambda m: m["type"] == "error" and m.get("code") == "unavailable")
        except TimeoutError:
            print(server.log())
            raise
        for _ in range(100):  # far past the bound: each is refused at once, memory stays put
            ada.op()
        ada.until(lambda m: m["type"] == "error" and m.get("op") == f"ada-{ada.count}")
        ada.sync()
        bob.sync()
        refused = list(ada.rec.unavailable)
        waiting = [f"ada-{n}" for n in range(1, ada.count + 1)
                   if f"ada-{n}" not in ada.rec.committed and f"ada-{n}" not in refused]
        assert len(waiting) == UNSTORED, (len(waiting), waiting)
        assert len(refused) == ada.count - durable_seq - UNSTORED, (ada.count, durable_seq, refused)
        for who in (ada, bob):
            assert who.rec.last == durable_seq, f"{who.rec.name} saw an op that is not durable: {who.rec.last}"
        assert readyz(server)[0] == 503
        server.wait_for_log(r"store write failed, retrying", start=len(server.lines) - 1, timeout=WAIT)
        steps.append(f"{len(waiting)} ops wait (none acknowledged or broadcast), {len(refused)} refused at once "
                     f"with unavailable (--max-unstored-ops {UNSTORED})")

        # Free the disk: everything waiting commits in order and is broadcast.
        freed_at = time.monotonic()
        os.remove(filler)
        bob.until(lambda m: m.get("op") == waiting[-1] and m["type"] == "toggle", timeout=30)
        recovery = time.monotonic() - freed_at
        ada.until(lambda m: m.get("op") == waiting[-1] and m["type"] == "toggle", timeout=WAIT)
        got = [e[2] for e in bob.rec.history if e[0] == "op" and e[1] > durable_seq]
        assert got == waiting, f"after the disk was freed, the waiting ops came as {got}, sent as {waiting}"
        status, body = readyz(server)
        assert (status, body) == (200, {"status": "ready", "reasons": []}), body
        steps.append(f"freed the disk: the {len(waiting)} waiting ops committed in order {recovery:.2f}s later")

        # The refused ops again, with the same op ids: they commit now.
        for at in range(0, len(refused), UNSTORED // 2):  # windows within the bound
            window = refused[at:at + UNSTORED // 2]
            for op_id in window:
                ada.op(op_id)
            ada.until(lambda m, w=window: m.get("op") == w[-1] and m["type"] in ("toggle", "ack"), timeout=WAIT)
        ada.sync()
        bob.sync()
        steps.append(f"the {len(refused)} refused ops sent again and committed; seq {ada.rec.last}")

        # kill -9, the database intact, a restart serves the same log.
        server.kill9()
        db = os.path.join(data, "shuffleboard.sqlite3")
        with contextlib.closing(sqlite3.connect(db)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        server = start()
        head, log = server.all_ops("disk")
        status, stored = server.get("/api/boards/disk")
        assert status == 200, stored
        records = [ada.rec.record(), bob.rec.record()]
        verify(initial, log, records, stored["board"])
        assert head == ada.rec.last == bob.rec.last, (head, ada.rec.last, bob.rec.last)
        for op_id in [*waiting, *refused]:
            assert op_id in ada.rec.committed, f"{op_id} was never committed"
        steps.append(f"kill -9 and restart: integrity_check ok, {head} ops stored; {summary(log, records)}")
        for who in (ada, bob):
            who.client.close()
    finally:
        for server in servers:
            server.stop()
        with capsys.disabled():  # shown in every run, not only on failure
            print("\nfull disk:\n  " + "\n  ".join(steps))
