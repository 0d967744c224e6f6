"""scripts/cluster.sh as a user runs it: it prints the URL and the nodes, HAProxy answers there, its
commands kill and start a node, and SIGINT (Ctrl-C) stops everything it started and removes its
temporary directory."""

import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from cluster import ROOT, free_port, wait_until
from harness import BIN


class Script:
    """The script with a pipe for its commands; its output collected line by line by a thread."""

    def __init__(self, port: int):
        env = dict(os.environ, SHUFFLEBOARD_BIN=BIN, SHUFFLEBOARD_PORT=str(port), SHUFFLEBOARD_LEASE="2")
        self.proc = subprocess.Popen([os.path.join(ROOT, "scripts", "cluster.sh")], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, bufsize=1)
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def wait_for(self, pattern: str, timeout: float) -> re.Match:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            i = 0
            while True:
                while i < len(self.lines):
                    if m := regex.search(self.lines[i]):
                        return m
                    i += 1
                left = deadline - time.monotonic()
                assert left > 0 and self.proc.poll() is None, f"no /{pattern}/:\n" + "\n".join(self.lines)
                self.cond.wait(min(left, 0.5))

    def command(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        """Teardown: SIGTERM, so that the script still stops what it started; SIGKILL if it hangs."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False


def stop_leftovers(pids: list[int], tmp: str | None) -> None:
    """After a failure: what the script did not stop, so that one failing test leaves nothing running."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    if tmp and os.path.isdir(tmp):
        subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), "stop", os.path.join(tmp, "pg")],
                       capture_output=True, timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=3) as r:
        return json.load(r)


def test_cluster_script_starts_three_nodes_behind_haproxy_and_stops_all_of_it(tmp_path):
    port = free_port()
    script = Script(port)
    pids: list[int] = []
    tmp = None
    try:
        script.wait_for(r"Ctrl-C stops everything", timeout=90)
        text = "\n".join(script.lines)
        assert f"http://127.0.0.1:{port}/?board=demo" in text
        nodes = {int(n): (int(p), int(pid)) for n, p, pid in
                 re.findall(r"n(\d)  http://127\.0\.0\.1:(\d+)/  pid (\d+)", text)}
        pids += [pid for _, pid in nodes.values()]
        assert sorted(nodes) == [1, 2, 3], text
        tmp = script.wait_for(r"temporary directory: (\S+)", 1).group(1)
        haproxy = int(script.wait_for(r"HAProxy +pid (\d+)", 1).group(1))
        pids.append(haproxy)
        pg_port = int(script.wait_for(r"PostgreSQL +postgresql://\w+@127\.0\.0\.1:(\d+)/", 1).group(1))
        assert os.path.isdir(tmp)

        # Through HAProxy: the start page, and the cluster's nodes.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=3) as r:
            assert r.status == 200
        def alive_nodes():
            view = get_json(f"http://127.0.0.1:{port}/api/cluster")
            return sorted(n["name"] for n in view["nodes"] if n["alive"]) == ["n1", "n2", "n3"]
        wait_until("three nodes alive in GET /api/cluster", alive_nodes, timeout=10)

        # Its commands: kill -9 a node and start it again.
        script.command("kill 1")
        script.wait_for(r"killed n1 \(kill -9\)", 10)
        assert not alive(nodes[1][1])
        script.command("start 1")
        restarted = int(script.wait_for(r"n1 started \(pid (\d+)\)", 30).group(1))
        pids.append(restarted)
        assert alive(restarted)
        get_json(f"http://127.0.0.1:{nodes[1][0]}/healthz")

        # Ctrl-C: everything it started stops and the temporary directory goes.
        script.proc.send_signal(signal.SIGINT)
        assert script.proc.wait(60) != 0
        wait_until("every process the script started gone", lambda: not any(alive(p) for p in pids), 10)
        assert not os.path.exists(tmp)
        with pytest.raises(ConnectionRefusedError):  # PostgreSQL is stopped too
            socket.create_connection(("127.0.0.1", pg_port), timeout=3)
    finally:
        script.stop()
        stop_leftovers(pids, tmp)


def test_cluster_script_stops_everything_even_when_nobody_reads_its_output_any_more():
    # Its reader gone (a closed terminal, a pipe into a program that ended), a write in the
    # cleanup would raise SIGPIPE and kill the script halfway, leaving the cluster running.
    read_end, write_end = os.pipe()
    env = dict(os.environ, SHUFFLEBOARD_BIN=BIN, SHUFFLEBOARD_PORT=str(free_port()), SHUFFLEBOARD_LEASE="2")
    proc = subprocess.Popen([os.path.join(ROOT, "scripts", "cluster.sh")], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=write_end, stderr=write_end)
    os.close(write_end)
    pids: list[int] = []
    tmp = None
    try:
        text, deadline = b"", time.monotonic() + 90
        while b"Ctrl-C stops everything" not in text:
            left = deadline - time.monotonic()
            assert left > 0 and proc.poll() is None, text.decode(errors="replace")
            ready, _, _ = select.select([read_end], [], [], min(left, 1.0))
            if ready:
                text += os.read(read_end, 65536)
        output = text.decode()
        pids += [int(pid) for pid in re.findall(r"n\d  http://127\.0\.0\.1:\d+/  pid (\d+)", output)]
        pids.append(int(re.search(r"HAProxy +pid (\d+)", output).group(1)))
        tmp = re.search(r"temporary directory: (\S+)", output).group(1)
        assert len(pids) == 4 and all(alive(p) for p in pids), output
        os.close(read_end)
        read_end = -1
        proc.terminate()
        proc.wait(60)
        wait_until("every process the script started gone", lambda: not any(alive(p) for p in pids), 10)
        assert not os.path.exists(tmp)
    finally:
        if read_end >= 0:
            os.close(read_end)
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        stop_leftovers(pids, tmp)
