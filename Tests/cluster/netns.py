"""Network namespaces for partition tests: every member (PostgreSQL, each node) in a namespace
of its own, all on one bridge in a switch namespace, the test itself (its clients) on the bridge
through one more veth pair. Cuts are iptables DROP rules in a member's namespace (both ways, or
one way), healed by flushing them.

Everything made here is named `sbp<PID>-…` (namespaces, the test's veth), PID being the test
process's: `Network.close()` removes it all, and every `Network()` first removes what an earlier
run left behind (a name whose PID is not alive), killing the processes still in those namespaces.
Needs root, `ip` (iproute2) and `iptables` (scripts/deps.sh).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile

from cluster import ROOT, Postgres

PREFIX = "sbp"
LEFTOVER = re.compile(rf"^{PREFIX}(\d+)-")


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(list(args), capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(args)}: {result.stderr.strip()}")
    return result


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def namespaces() -> list[str]:
    return [line.split()[0] for line in run("ip", "netns", "list").stdout.splitlines() if line.strip()]


def remove_namespace(ns: str) -> None:
    """Kills what still runs in `ns` (only our namespaces reach here) and deletes it, with its links."""
    pids = run("ip", "netns", "pids", ns, check=False).stdout.split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), 9)
    run("ip", "netns", "delete", ns, check=False)


def remove_leftovers() -> list[str]:
    """Removes namespaces and links of earlier runs whose process is gone; what it removed."""
    removed = []
    for ns in namespaces():
        m = LEFTOVER.match(ns)
        if m and not alive(int(m.group(1))):
            remove_namespace(ns)
            removed.append(ns)
    for line in run("ip", "-o", "link", "show").stdout.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        m = LEFTOVER.match(name)
        if m and not alive(int(m.group(1))):
            run("ip", "link", "delete", name, check=False)
            removed.append(name)
    return removed


class Network:
    """Members on one subnet: `add(name)` makes a namespace with an address; `exec(name)` is the
    command prefix that runs a program in it; `cut` and `heal` partition it."""

    def __init__(self) -> None:
        if shutil.which("iptables") is None:
            raise AssertionError("iptables is missing: scripts/deps.sh installs it")
        self.leftovers = remove_leftovers()
        self.tag = f"{PREFIX}{os.getpid()}"
        self.subnet = self.free_subnet()
        self.members: dict[str, tuple[str, str]] = {}  # name -> (namespace, address)
        self.created: list[str] = []  # namespaces, in order
        self.host_link = f"{self.tag}-h"
        try:
            self.switch = self.namespace("sw")
            run("ip", "netns", "exec", self.switch, "ip", "link", "add", "br0", "type", "bridge")
            run("ip", "netns", "exec", self.switch, "ip", "link", "set", "br0", "up")
            # The test's own end: an address on the bridge in this (the root) namespace.
            self.host_address = self.address(1)
            self.plug(self.host_link, None, self.host_address)
        except BaseException:
            self.close()
            raise

    def free_subnet(self) -> str:
        used = run("ip", "-4", "-o", "addr", "show").stdout + run("ip", "-4", "route", "show").stdout
        for n in [os.getpid() % 200 + 20, *range(20, 220)]:
            prefix = f"10.231.{n}."
            if prefix not in used:
                return prefix
        raise AssertionError("no free 10.231.N.0/24 subnet")

    def address(self, n: int) -> str:
        return f"{self.subnet}{n}"

    def namespace(self, name: str) -> str:
        ns = f"{self.tag}-{name}"
        run("ip", "netns", "add", ns)
        self.created.append(ns)
        run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
        return ns

    def plug(self, link: str, ns: str | None, address: str) -> None:
        """A veth pair: `link` (in `ns`, or here) with `address`, its peer on the switch's bridge."""
        peer = f"{link}s"
        run("ip", "link", "add", link, "type", "veth", "peer", "name", peer)
        run("ip", "link", "set", peer, "netns", self.switch)
        run("ip", "netns", "exec", self.switch, "ip", "link", "set", peer, "master", "br0", "up")
        if ns is not None:
            run("ip", "link", "set", link, "netns", ns)
        prefix = ["ip", "netns", "exec", ns] if ns else []
        run(*prefix, "ip", "addr", "add", f"{address}/24", "dev", link)
        run(*prefix, "ip", "link", "set", link, "up")

    def add(self, name: str) -> str:
        """A member in a namespace of its own; its address."""
        ns = self.namespace(name)
        address = self.address(10 + len(self.members))
        self.plug(f"{self.tag}-{len(self.members)}", ns, address)
        self.members[name] = (ns, address)
        return address

    def exec(self, name: str) -> list[str]:
        return ["ip", "netns", "exec", self.members[name][0]]

    def ip(self, name: str) -> str:
        return self.members[name][1]

    def cut(self, name: str, others: list[str], direction: str = "both") -> None:
        """Drops, in `name`'s namespace, what it sends to each of `others` ("out"), what it gets
        from them ("in": what it sends still arrives), or both."""
        assert direction in ("both", "in", "out"), direction
        for other in others:
            address = self.ip(other) if other in self.members else other
            if direction in ("both", "out"):
                run(*self.exec(name), "iptables", "-A", "OUTPUT", "-d", address, "-j", "DROP")
            if direction in ("both", "in"):
                run(*self.exec(name), "iptables", "-A", "INPUT", "-s", address, "-j", "DROP")

    def heal(self, name: str) -> None:
        run(*self.exec(name), "iptables", "-F")

    def close(self) -> None:
        """Removes every namespace and link this network made (what runs in them is killed)."""
        for ns in reversed(self.created):
            remove_namespace(ns)
        run("ip", "link", "delete", self.host_link, check=False)
        self.created.clear()
        left = [ns for ns in namespaces() if ns.startswith(f"{self.tag}-")]
        assert not left, f"namespaces left: {left}"


class NetPostgres(Postgres):
    """scripts/postgres.sh in the network's member `name`, listening on its address too."""

    def __init__(self, net: Network, name: str = "pg") -> None:  # noqa: not the loopback server's start
        self.net, self.name = net, name
        self.host = net.add(name)
        self.dir = tempfile.mkdtemp(prefix="shuffleboard-pgnet-", dir="/tmp")
        env = dict(os.environ, SHUFFLEBOARD_PG_LISTEN=self.host, SHUFFLEBOARD_PG_TRUST=f"{net.subnet}0/24")
        result = subprocess.run([*net.exec(name), os.path.join(ROOT, "scripts", "postgres.sh"), "start", self.dir],
                                capture_output=True, text=True, timeout=180, env=env)
        if result.returncode != 0:
            self.stop()
            raise AssertionError(f"scripts/postgres.sh start (in a namespace) failed:\n{result.stderr}")
        url = result.stdout.strip().splitlines()[-1]
        m = re.fullmatch(r"postgresql://(\w+)@127\.0\.0\.1:(\d+)/(\w+)", url)
        assert m, url
        self.user, self.port = m.group(1), int(m.group(2))
        self.count = 0

    def database(self, prefix: str = "t") -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        self.psql("postgres", f"CREATE DATABASE {name}")
        return f"postgresql://{self.user}@{self.host}:{self.port}/{name}"

    def psql(self, database: str, sql: str) -> str:
        result = subprocess.run(
            ["psql", "-qtA", "-v", "ON_ERROR_STOP=1", "-h", self.host, "-p", str(self.port), "-U", self.user,
             "-d", database, "-c", sql], capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        return result.stdout
