"""A cluster on loopback for tests: a throwaway PostgreSQL, shuffleboard nodes on it, HAProxy in front.

The nodes are `harness.Server`s (Tests/process), started on ports picked here so that a node can be
restarted on its own port after a kill -9. Every wait has a timeout; nothing sleeps to synchronise
(the polls below wait for a state with a deadline).
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any

from harness import WAIT, Server
from ports import free_port  # test_browsers imports it from here too

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Loopback load comes from one address: the per-address limits would refuse it (README, Limits).
NO_ADDRESS_LIMITS = ("--op-rate", "0", "--message-rate", "0", "--max-connections-per-address", "0",
                     "--max-pending-per-address", "0", "--connect-rate", "0", "--board-creations", "0",
                     "--max-holds-per-address", "0")


def wait_until(what: str, check, timeout: float, interval: float = 0.1) -> Any:
    """Polls `check()` until it returns something truthy, which it returns; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = check()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"not within {timeout}s: {what} (last: {last!r})")
        time.sleep(interval)


class Postgres:
    """scripts/postgres.sh in a temporary directory under /tmp (the server runs as nobody when we
    are root, so the directory must not be under pytest's private one)."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="shuffleboard-pg-", dir="/tmp")
        result = subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), "start", self.dir],
                                capture_output=True, text=True, timeout=180)
        if result.returncode != 0:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise AssertionError(f"scripts/postgres.sh start failed:\n{result.stderr}")
        self.url = result.stdout.strip().splitlines()[-1]
        m = re.fullmatch(r"postgresql://(\w+)@127\.0\.0\.1:(\d+)/(\w+)", self.url)
        assert m, self.url
        self.user, self.port = m.group(1), int(m.group(2))
        self.count = 0

    def database(self, prefix: str = "t") -> str:
        """A new, empty database; its URL."""
        self.count += 1
        name = f"{prefix}{self.count}"
        self.psql("postgres", f"CREATE DATABASE {name}")
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{name}"

    def psql(self, database: str, sql: str) -> str:
        result = subprocess.run(
            ["psql", "-qtA", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user,
             "-d", database, "-c", sql], capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def crash(self) -> None:
        """Stops the server at once (connections drop), as a database that goes away does."""
        self.script("crash")

    def restart(self) -> None:
        """Starts it again on its port, with everything it had committed."""
        self.script("restart")

    def script(self, command: str) -> None:
        result = subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), command, self.dir],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"scripts/postgres.sh {command}: {result.stderr}"

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), "stop", self.dir],
                           capture_output=True, timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


class HAPostgres(Postgres):
    """scripts/postgres.sh start --ha: a primary and a synchronous standby; the nodes get the
    multi-host URL (target_session_attrs=read-write). `kill_primary` and `promote` are the failover."""

    def __init__(self) -> None:  # noqa: super().__init__ is the single server's start
        self.dir = tempfile.mkdtemp(prefix="shuffleboard-pgha-", dir="/tmp")
        result = subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), "start", self.dir, "--ha"],
                                capture_output=True, text=True, timeout=180)
        if result.returncode != 0:
            self.stop()
            raise AssertionError(f"scripts/postgres.sh start --ha failed:\n{result.stderr}")
        self.url = result.stdout.strip().splitlines()[-1]
        m = re.fullmatch(r"postgresql://(\w+)@127\.0\.0\.1:(\d+),127\.0\.0\.1:(\d+)/(\w+)\?target_session_attrs=read-write",
                         self.url)
        assert m, self.url
        self.user, self.port, self.standby_port = m.group(1), int(m.group(2)), int(m.group(3))
        self.primary_port = self.port
        self.count = 0

    def database(self, prefix: str = "t") -> str:
        """A new, empty database (made on the primary, so on the standby too); its multi-host URL."""
        self.count += 1
        name = f"{prefix}{self.count}"
        self.psql("postgres", f"CREATE DATABASE {name}")
        return (f"postgresql://{self.user}@127.0.0.1:{self.port},127.0.0.1:{self.standby_port}/{name}"
                "?target_session_attrs=read-write")

    def psql(self, database: str, sql: str) -> str:
        """On whichever server is the primary now."""
        saved, self.port = self.port, self.primary_port
        try:
            return super().psql(database, sql)
        finally:
            self.port = saved

    def scalar(self, url: str, sql: str) -> int:
        """One integer from the database of a URL this made (`database()`), on the primary now:
        a board's lease epoch or stored seq, say."""
        return int(self.psql(url.split("/")[-1].split("?")[0], sql).strip())

    def lease_epoch(self, url: str, board: str) -> int:
        """The epoch of `board`'s lease in the database of `url`, on the primary now."""
        return self.scalar(url, f"SELECT epoch FROM leases WHERE board = '{board}'")

    def kill_primary(self) -> None:
        """kill -9 of the primary's postmaster and every process of it."""
        self.script("kill-primary")

    def kill_standby(self) -> None:
        """kill -9 of the standby: the primary's commits wait for it (synchronous replication)."""
        self.script("kill-standby")

    def restart_standby(self) -> None:
        """Starts the (killed) standby again; it catches up and the waiting commits return."""
        self.script("restart-standby")

    def status(self) -> str:
        """scripts/postgres.sh status: each server's role."""
        result = subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), "status", self.dir],
                                capture_output=True, text=True, timeout=60)
        return result.stdout.strip()

    def promote(self) -> None:
        """pg_ctl promote of the standby; returns once it takes writes."""
        self.script("promote")
        self.primary_port = self.standby_port


class Node:
    """One node of the cluster: its name, port and arguments, and the process while it runs."""

    def __init__(self, name: str, port: int, args: list[str], cwd: str, ca: str | None = None,
                 host: str = "127.0.0.1", prefix: list[str] | None = None):
        self.name, self.port, self.args, self.cwd, self.ca = name, port, args, cwd, ca
        self.host, self.prefix = host, prefix  # its address; the command it runs under (ip netns exec NS)
        self.server: Server | None = None
        self.paused = False
        self.runs: list[Server] = []

    def start(self) -> "Node":
        assert self.server is None, f"{self.name} runs already"
        self.server = Server(self.args, self.cwd, ca=self.ca, prefix=self.prefix)
        self.runs.append(self.server)
        self.server.wait_listening()
        assert self.server.port == self.port, (self.server.port, self.port)
        self.paused = False
        return self

    @property
    def up(self) -> bool:
        """Running and not paused: it answers."""
        return self.server is not None and not self.paused and self.server.proc.poll() is None

    def kill9(self) -> None:
        assert self.server is not None
        self.server.kill9()
        self.server = None
        self.paused = False

    def pause(self) -> None:
        assert self.server is not None
        self.server.signal(signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        assert self.server is not None
        self.server.signal(signal.SIGCONT)
        self.paused = False

    def get(self, path: str, timeout: float = 3.0) -> tuple[int, Any]:
        assert self.server is not None
        return self.server.http("GET", path, timeout=timeout)

    def log(self) -> str:
        return "\n".join(f"--- {self.name} run {i + 1}:\n{run.log()}" for i, run in enumerate(self.runs))

    def stop(self) -> None:
        for run in self.runs:
            run.stop()  # SIGKILL, which ends a stopped (SIGSTOP) process too
        self.server = None


class Cluster:
    """`count` nodes n1…nN on one database, each on its own port, `--lease lease`, with `extra`
    arguments, and `node_extra[name]` for that node alone; `ca`: the authority that signed the
    nodes' certificates, which the test's clients trust (nodes with --tls-cert serve https://)."""

    def __init__(self, url: str, cwd: str, count: int = 3, lease: float = 2.0, extra: tuple[str, ...] = (),
                 node_extra: dict[str, tuple[str, ...]] | None = None, ca: str | None = None,
                 hosts: list[str] | None = None, prefixes: list[list[str]] | None = None):
        """`hosts` and `prefixes`: each node's address and the command it runs under, for nodes in
        network namespaces of their own (netns.py); by default all on 127.0.0.1."""
        self.url, self.lease = url, lease
        self.nodes: list[Node] = []
        for i in range(count):
            name, port = f"n{i + 1}", free_port()
            host = hosts[i] if hosts else "127.0.0.1"
            args = ["--store", url, "--node", name, "--advertise", f"{host}:{port}", "--port", str(port),
                    "--lease", f"{lease:g}", *NO_ADDRESS_LIMITS, *extra, *(node_extra or {}).get(name, ())]
            if hosts:
                args += ["--host", host]
            self.nodes.append(Node(name, port, args, cwd, ca, host, prefixes[i] if prefixes else None))

    def start(self) -> "Cluster":
        for node in self.nodes:
            node.start()
        return self

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def up(self) -> list[Node]:
        return [n for n in self.nodes if n.up]

    def get(self, path: str, timeout: float = 3.0) -> tuple[int, Any]:
        """GET from the first node that answers (nodes that are down or paused are not asked)."""
        errors = []
        for node in self.up():
            try:
                return node.get(path, timeout)
            except (OSError, urllib.error.URLError) as e:
                errors.append(f"{node.name}: {e}")
        raise AssertionError(f"no node answered GET {path}: {errors}")

    def board(self, board: str) -> dict:
        """`GET /api/boards/{id}`: {seq, board, owner}."""
        status, body = self.get(f"/api/boards/{board}")
        assert status == 200, (status, body)
        return body

    def owner(self, board: str) -> str | None:
        """The node that holds the board's lease, as `GET /api/boards/{id}` says (None: nobody's)."""
        return self.board(board).get("owner")

    def all_ops(self, board: str) -> tuple[int, list[dict]]:
        """(seq, every stored op) from the first node that answers."""
        node = self.up()[0]
        assert node.server is not None
        return node.server.all_ops(board)

    def nodes_view(self) -> dict:
        """`GET /api/cluster`: {node, nodes:[{name, advertise, alive, boards}]}."""
        status, body = self.get("/api/cluster")
        assert status == 200, (status, body)
        return body

    def log(self) -> str:
        return "\n".join(n.log() for n in self.nodes)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


class HAProxy:
    """deploy/haproxy.cfg as shipped, with the nodes' addresses in its environment variables, plus a
    second file that adds only a stats socket (to see when the health checks have passed)."""

    def __init__(self, nodes: list[Node], workdir: str):
        assert len(nodes) == 3, "deploy/haproxy.cfg names three servers"
        self.port = free_port()
        self.socket = os.path.join(workdir, "haproxy.sock")
        extra = os.path.join(workdir, "haproxy-test.cfg")
        with open(extra, "w") as f:
            f.write(f"global\n    stats socket {self.socket} mode 600 level user\n")
        env = dict(os.environ, SHUFFLEBOARD_BIND=f"127.0.0.1:{self.port}")
        for i, node in enumerate(nodes):
            env[f"SHUFFLEBOARD_NODE{i + 1}"] = f"127.0.0.1:{node.port}"
        config = os.path.join(ROOT, "deploy", "haproxy.cfg")
        check = subprocess.run(["haproxy", "-c", "-f", config, "-f", extra], env=env, capture_output=True,
                               text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        self.log_path = os.path.join(workdir, "haproxy.log")
        self.log_file = open(self.log_path, "w")
        self.proc = subprocess.Popen(["haproxy", "-db", "-f", config, "-f", extra], env=env,
                                     stdin=subprocess.DEVNULL, stdout=self.log_file, stderr=subprocess.STDOUT)

    def stats(self) -> list[dict]:
        """`show stat` of the backend's servers: [{svname, status, check_status, …}]."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(WAIT)
            s.connect(self.socket)
            s.sendall(b"show stat\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        text = data.decode().lstrip("# ")
        return [row for row in csv.DictReader(io.StringIO(text))
                if row["pxname"] == "nodes" and row["svname"] not in ("BACKEND", "FRONTEND")]

    def stats_of(self, server: str) -> dict:
        return next(row for row in self.stats() if row["svname"] == server)

    def wait_servers_up(self, timeout: float = 20.0) -> None:
        """Until every server has passed its health checks (HAProxy routes by the servers it sees up)."""
        def all_up():
            if not os.path.exists(self.socket):
                assert self.proc.poll() is None, f"haproxy exited:\n{self.log()}"
                return False
            rows = self.stats()
            return len(rows) == 3 and all(r["status"] == "UP" and r["check_status"] == "L7OK" for r in rows)
        wait_until("every HAProxy server up", all_up, timeout)

    def request(self, path: str, timeout: float = 5.0) -> tuple[int, Any, str | None]:
        """(status, body, the node that answered: its x-shuffleboard-node header)."""
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, resp.read().decode(), resp.headers.get("x-shuffleboard-node")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), e.headers.get("x-shuffleboard-node")

    def log(self) -> str:
        if not self.log_file.closed:
            self.log_file.flush()
        with open(self.log_path) as f:
            return f.read()[-4000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log_file.close()
