"""Helpers for process tests: the real `shuffleboard` binary as a subprocess, HTTP, WebSocket clients.

Every wait here has a timeout; nothing sleeps to synchronise. Servers are started on port 0 and
the address and port are read from the `listening on http://127.0.0.1:PORT/` log line (`https://`
for a server with a certificate: then `ca`, the authority that signed it, is what HTTP and WebSocket
clients trust).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

BIN = os.environ.get("SHUFFLEBOARD_BIN", "")
SUBPROTOCOL = "shuffleboard.v1"
COMMITTED = ("toggle", "swap", "move", "add", "edit", "remove", "addZone", "editZone", "removeZone", "retitle",
             "restore", "tag", "assign", "addTag", "editTag", "removeTag", "addCheck", "editCheck", "removeCheck",
             "comment", "editComment", "removeComment",
             "moveMany", "archive", "unarchive")
START_TIMEOUT = 20.0
WAIT = 10.0


# As root, the command prefix that runs a process as `nobody` (as scripts/postgres.sh runs PostgreSQL):
# for what root is exempt from, such as a directory's permissions. Empty when not root.
UNPRIVILEGED = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] if os.geteuid() == 0 else []


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (from /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_cli(args: list[str], cwd: str, timeout: float = 30.0) -> subprocess.CompletedProcess:
    """Runs the binary to completion (never longer than `timeout`), capturing text output."""
    return subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


class Server:
    """One `shuffleboard serve` process; its stderr is collected line by line by a thread. `prefix`
    runs it through another command (`UNPRIVILEGED`)."""

    def __init__(self, args: list[str], cwd: str, open_files: int | None = None, prefix: list[str] | None = None,
                 ca: str | None = None):
        self.args = args
        self.ca = ca  # The authority clients trust when the server serves https:// (wait_listening says).
        self.scheme = "http"
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.eof = False
        self.port: int | None = None
        self.host = "127.0.0.1"  # the address it listens on (a partition test's nodes use others)

        def limit_files() -> None:  # In the child, before exec: its open-file limit, soft and hard.
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

        self.proc = subprocess.Popen(
            [*(prefix or []), BIN, "serve", *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, bufsize=1, preexec_fn=limit_files if open_files else None)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def wait_for_log(self, pattern: str, timeout: float = WAIT, start: int = 0) -> re.Match:
        """The first log line from index `start` matching `pattern`; fails after `timeout` or at exit."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            i = start
            while True:
                while i < len(self.lines):
                    m = regex.search(self.lines[i])
                    if m:
                        return m
                    i += 1
                if self.eof:
                    raise AssertionError(f"server exited before logging /{pattern}/:\n{self.log()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no log line /{pattern}/ within {timeout}s:\n{self.log()}")
                self.cond.wait(left)

    def wait_for_count(self, text: str, count: int, timeout: float = WAIT) -> int:
        """How many of all the log lines so far contain `text`, once at least `count` do or after
        `timeout` or at exit (count over every line: `log()` is only the last 60)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                seen = sum(text in line for line in self.lines)
                left = deadline - time.monotonic()
                if seen >= count or self.eof or left <= 0:
                    return seen
                self.cond.wait(left)

    def wait_listening(self) -> "Server":
        m = self.wait_for_log(r"listening on (https?)://(\d+\.\d+\.\d+\.\d+):(\d+)/", timeout=START_TIMEOUT)
        self.scheme, self.host, self.port = m.group(1), m.group(2), int(m.group(3))
        return self

    def tls_context(self) -> ssl.SSLContext | None:
        """For a server on https://: a client context that trusts `ca` alone; None on http://."""
        return ssl.create_default_context(cafile=self.ca) if self.scheme == "https" else None

    def log(self) -> str:
        with self.cond:
            return "\n".join(self.lines[-60:])

    def stderr_text(self, timeout: float = WAIT) -> str:
        """All of stderr, once the process has closed it."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not self.eof:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return "\n".join(self.lines)

    @property
    def ws_url(self) -> str:
        return f"{'wss' if self.scheme == 'https' else 'ws'}://{self.host}:{self.port}/ws"

    def signal(self, sig: int) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, timeout: float = WAIT) -> int:
        """The exit code (negative for a signal); fails if the process does not exit in time."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"server did not exit within {timeout}s:\n{self.log()}") from None

    def kill9(self) -> int:
        """SIGKILL and reap."""
        self.signal(signal.SIGKILL)
        return self.wait()

    def stop(self) -> None:
        """Teardown: kill if still running, reap, close the pipe."""
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(10)
        self.reader.join(5)
        if self.proc.stderr:
            with contextlib.suppress(Exception):
                self.proc.stderr.close()

    # HTTP

    def http(self, method: str, path: str, body: Any = None, raw: bytes | None = None,
             timeout: float = WAIT, token: str | None = None) -> tuple[int, Any]:
        """(status, parsed JSON body or text); `token` goes in `Authorization: Bearer`."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(f"{self.scheme}://{self.host}:{self.port}{path}", data=data, method=method)
        if data is not None:
            req.add_header("content-type", "application/json")
        if token is not None:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self.tls_context()) as resp:
                status, text = resp.status, resp.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def get(self, path: str) -> tuple[int, Any]:
        return self.http("GET", path)

    def all_ops(self, board: str, since: int = 0, limit: int = 10000,
                max_pages: int = 1000) -> tuple[int, list[dict]]:
        """(current seq, every op after `since`), paging with `limit`. Every page must move on
        (`next` > the page's `since`) and there are at most `max_pages` of them: a server whose
        `next` stands still fails here instead of looping."""
        ops: list[dict] = []
        current = None
        for _ in range(max_pages):
            status, page = self.get(f"/api/boards/{board}/ops?since={since}&limit={limit}")
            assert status == 200, (status, page)
            current = page["seq"] if current is None else current
            ops.extend(page["ops"])
            if not page["more"]:
                return current, ops
            assert page["next"] > since, f"page since={since} says more but next={page['next']}"
            since = page["next"]
        raise AssertionError(f"board {board}: still more after {max_pages} pages of {limit} (since={since})")


class ServerFactory:
    """Starts servers and kills every one of them at teardown."""

    def __init__(self, cwd: str):
        self.cwd = cwd
        self.servers: list[Server] = []

    def __call__(self, *args: str, wait: bool = True, open_files: int | None = None) -> Server:
        server = Server(list(args), self.cwd, open_files=open_files)
        self.servers.append(server)
        return server.wait_listening() if wait else server

    def stop_all(self) -> None:
        for server in self.servers:
            server.stop()


class Client:
    """A WebSocket client that flattens batched server frames into single messages."""

    def __init__(self, server: Server, board: str | None = None, name: str = "tester",
                 since: int | None = None, hello: bool = True, query: str = "",
                 source_address: tuple[str, int] | None = None, headers: dict[str, str] | None = None):
        self.stack = contextlib.ExitStack()
        # `source_address` (such as ("127.0.0.2", 0)) makes the client another address.
        extra: dict[str, Any] = {"source_address": source_address} if source_address else {}
        if headers:
            extra["additional_headers"] = headers
        # Anything with a `ws_url` will do (a proxy in front of servers); only a Server has TLS.
        context = server.tls_context() if isinstance(server, Server) else None
        if context:
            extra["ssl"] = context
        try:
            self.ws = self.stack.enter_context(
                connect(server.ws_url + query, subprotocols=[SUBPROTOCOL], open_timeout=WAIT, close_timeout=2,
                        **extra))
        except Exception as error:
            # Which server refused, and what it said last: a handshake cut short is otherwise only
            # "stream ends after 0 bytes" deep in the library's traceback.
            # The exception keeps its type (tests catch some), with a note pytest prints.
            said = server.log().splitlines()[-15:] if isinstance(server, Server) else []
            error.add_note(f"no WebSocket to {server.ws_url + query}; its last log lines:\n" + "\n".join(said))
            raise
        assert self.ws.subprotocol == SUBPROTOCOL
        self.pending: list[dict] = []
        self.welcome: dict | None = None
        if board is not None and hello:
            self.hello(board, name, since)

    def hello(self, board: str, name: str = "tester", since: int | None = None) -> dict:
        msg: dict[str, Any] = {"type": "hello", "board": board, "name": name}
        if since is not None:
            msg["since"] = since
        self.send(msg)
        self.welcome = self.expect(lambda m: m["type"] in ("welcome", "error"))
        return self.welcome

    def send(self, msg: dict) -> None:
        self.ws.send(json.dumps(msg))

    def recv(self, timeout: float = WAIT) -> dict:
        """The next server message; raises TimeoutError or ConnectionClosed."""
        while not self.pending:
            frame = json.loads(self.ws.recv(timeout=timeout))
            self.pending.extend(frame if isinstance(frame, list) else [frame])
        return self.pending.pop(0)

    def expect(self, pred: Callable[[dict], bool], timeout: float = WAIT) -> dict:
        """The first message matching `pred`, skipping others (join, leave, other clients' ops…)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message")
            msg = self.recv(left)
            if pred(msg):
                return msg

    def result_of(self, op_id: str, timeout: float = WAIT) -> dict:
        """The committed broadcast, ack or reject for `op_id`."""
        return self.expect(lambda m: m.get("op") == op_id and m["type"] in (*COMMITTED, "ack", "reject"), timeout)

    def wait_closed(self, timeout: float = WAIT) -> int | None:
        """Reads until the server closes the connection; its close code."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("connection not closed in time")
                self.recv(left)
        except ConnectionClosed:
            return self.close_code()

    def close_code(self) -> int | None:
        rcvd = self.ws.protocol.close_rcvd
        return rcvd.code if rcvd is not None else None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stack.close()


# Board model: the server's apply rules, in Python.

def template(board_id: str) -> dict:
    """The default template, as the server's snapshot JSON (a board remembers its template)."""
    palette = [("Red", "#e53935"), ("Orange", "#fb8c00"), ("Yellow", "#fdd835"), ("Lime", "#c0ca33"),
               ("Green", "#43a047"), ("Teal", "#00897b"), ("Cyan", "#00acc1"), ("Blue", "#1e88e5"),
               ("Indigo", "#3949ab"), ("Purple", "#8e24aa"), ("Pink", "#d81b60"), ("Brown", "#6d4c41")]
    items = [{"id": f"t{i + 1}", "label": label, "color": color, "on": False}
             for i, (label, color) in enumerate(palette)]
    return {"id": board_id, "title": board_id, "columns": 3,
            "zones": [{"id": "grid", "items": [it["id"] for it in items]}, {"id": "tray", "items": []}],
            "items": items, "template": "colors"}


def locate(board: dict, item: str) -> tuple[list, int]:
    for zone in board["zones"]:
        if item in zone["items"]:
            return zone["items"], zone["items"].index(item)
    raise AssertionError(f"item {item} is in no zone")


def apply(board: dict, op: dict) -> None:
    """Applies one committed op (as broadcast) to a snapshot in place."""
    kind = op["type"]
    if kind == "toggle":
        next(it for it in board["items"] if it["id"] == op["item"])["on"] = op["on"]
    elif kind == "swap":
        za, ia = locate(board, op["a"])
        zb, ib = locate(board, op["b"])
        za[ia], zb[ib] = op["b"], op["a"]
    elif kind == "move":
        zone_from, i = locate(board, op["item"])
        del zone_from[i]
        target = next(z for z in board["zones"] if z["id"] == op["zone"])["items"]
        before = op.get("before")
        if before is not None and before in target:
            target.insert(target.index(before), op["item"])
        else:
            target.append(op["item"])
    elif kind == "add":
        item = {k: v for k, v in op["item"].items()
                if k in ("id", "label", "color", "on", "detail", "description", "tags", "assignees", "due", "checklist")}
        board["items"].append(item)
        target = next(z for z in board["zones"] if z["id"] == op["zone"])["items"]
        before = op.get("before")
        target.insert(target.index(before), item["id"]) if before in target else target.append(item["id"])
    elif kind == "edit":
        item = next(it for it in board["items"] if it["id"] == op["item"])
        for field in ("label", "color"):
            if field in op:
                item[field] = op[field]
        for field in ("detail", "description", "due"):
            if field in op:
                if op[field] is None:
                    item.pop(field, None)
                else:
                    item[field] = op[field]
    elif kind == "remove":
        if op["item"] in board.get("archived", []):
            board["archived"].remove(op["item"])
            if not board["archived"]:
                del board["archived"]
        else:
            zone, i = locate(board, op["item"])
            del zone[i]
        board["items"] = [it for it in board["items"] if it["id"] != op["item"]]
    elif kind in ("moveMany", "archive", "unarchive"):
        # Issue 36: the cards leave their places (zones, or the archive) and land together.
        moved = op["items"]
        for z in board["zones"]:
            z["items"] = [i for i in z["items"] if i not in moved]
        if kind == "unarchive":
            board["archived"] = [i for i in board["archived"] if i not in moved]
            if not board["archived"]:
                del board["archived"]
        if kind == "archive":
            board.setdefault("archived", []).extend(moved)
        else:
            target = next(z for z in board["zones"] if z["id"] == op["zone"])["items"]
            before = op.get("before")
            at = target.index(before) if before in target else len(target)
            target[at:at] = moved
    elif kind in ("addZone", "editZone", "removeZone"):
        # Zones without a layout get the one they were drawn with first (docs/protocol.md).
        for n, z in enumerate(board["zones"]):
            z.setdefault("layout", "grid" if n == 0 else "row")
        if kind == "addZone":
            zone = {"id": op["zone"]["id"], "items": [], **{k: v for k, v in op["zone"].items() if k != "id"}}
            ids = [z["id"] for z in board["zones"]]
            at = ids.index(op["before"]) if op.get("before") in ids else len(ids)
            board["zones"].insert(at, zone)
        elif kind == "editZone":
            zone = next(z for z in board["zones"] if z["id"] == op["zone"])
            for field in ("title", "layout", "columns"):
                if field in op:
                    zone[field] = op[field]
            if op.get("layout") not in (None, "grid"):
                zone.pop("columns", None)
        else:
            board["zones"] = [z for z in board["zones"] if z["id"] != op["zone"]]
    elif kind == "retitle":
        board["title"] = op["title"]
    elif kind in ("tag", "assign", "addCheck", "editCheck", "removeCheck"):
        apply_content(next(it for it in board["items"] if it["id"] == op["item"]), op)
    elif kind in ("comment", "removeComment"):
        # Issue 34: a card carries only its count (a removed card's comments wait for a restore).
        item = next((it for it in board["items"] if it["id"] == op["item"]), None)
        if item is not None:
            n = item.get("comments", 0) + (1 if kind == "comment" else -1)
            if n > 0:
                item["comments"] = n
            else:
                item.pop("comments", None)
    elif kind == "editComment":
        pass
    elif kind == "addTag":
        board.setdefault("tags", []).append(dict(op["tag"]))
    elif kind == "editTag":
        tag = next(t for t in board["tags"] if t["id"] == op["tag"])
        tag.update({k: op[k] for k in ("name", "color") if k in op})
    elif kind == "removeTag":
        board["tags"] = [t for t in board["tags"] if t["id"] != op["tag"]]
        if not board["tags"]:
            del board["tags"]
        for it in board["items"]:
            if op["tag"] in it.get("tags", []):
                it["tags"].remove(op["tag"])
                if not it["tags"]:
                    del it["tags"]
    elif kind == "restore":
        board_id = board["id"]
        board.clear()
        board.update(json.loads(json.dumps(op["board"])))
        board["id"] = board_id
    else:
        raise AssertionError(f"not a committed op: {op}")


def apply_content(item: dict, op: dict) -> None:
    """Applies a tag, assign or checklist op (issue 32) to one item; empty lists are left out."""
    kind = op["type"]
    if kind == "tag":
        tags = [t for t in item.get("tags", []) if t not in op["remove"]]
        tags += [t for t in op["add"] if t not in tags]
        item["tags"] = tags
    elif kind == "assign":
        people = [p for p in item.get("assignees", []) if p["member"] not in op["remove"]]
        people += [dict(p) for p in op["add"] if all(q["member"] != p["member"] for q in people)]
        item["assignees"] = people
    else:
        checks = item.get("checklist", [])
        if kind == "addCheck":
            ids = [c["id"] for c in checks]
            at = ids.index(op["before"]) if op.get("before") in ids else len(ids)
            checks.insert(at, dict(op["check"]))
        elif kind == "editCheck":
            check = next(c for c in checks if c["id"] == op["check"])
            check.update({k: op[k] for k in ("text", "done") if k in op})
        else:
            checks = [c for c in checks if c["id"] != op["check"]]
        item["checklist"] = checks
    for key in ("tags", "assignees", "checklist"):
        if key in item and not item[key]:
            del item[key]


def replay(board: dict, ops: list[dict]) -> dict:
    board = json.loads(json.dumps(board))
    for op in ops:
        apply(board, op)
    return board
