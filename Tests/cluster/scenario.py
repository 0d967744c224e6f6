"""The cluster tests' scenario: a cluster, one board of 100 items, six people on it (two on each
node directly, so that every node but the owner forwards) keeping ops in flight, the faults a
test injects between waits for the cluster to commit again, and the checks at the end.

Nothing sleeps to synchronise: it waits for states (an owner, stored seqs, caught-up clients)
with deadlines. The only timed waits are faults themselves (how long a node or the database stays
away).
"""

import asyncio
import os
import random
import time

from checker import Record, verify
from checker import summary as checker_summary
from cluster import Cluster
from person import Person

LEASE = 2.0
BOARD = "storm"
CLIENTS = 6
ROUND_OPS = 40  # ops stored after each fault before the next
MAX_OPS = 1500  # per client: the whole log stays within the 10,000 ops the API pages through
BOUND = 150.0   # seconds for the whole scenario
SEED = int(os.environ.get("SHUFFLEBOARD_CLUSTER_SEED", random.randrange(1 << 30)))


def big_board() -> dict:
    """100 items in two zones: a snapshot of some 6 KB, so that a resume usually carries ops."""
    def items(prefix, n, color):
        return [{"label": f"{prefix}{i}", "color": color} for i in range(n)]
    return {"id": BOARD, "title": "failover", "columns": 10,
            "zones": [{"id": "a", "items": items("A", 60, "#1e88e5")}, {"id": "b", "items": items("B", 40, "#e53935")}]}


class Scenario:
    def __init__(self, cluster: Cluster, initial: dict):
        self.cluster, self.initial = cluster, initial
        self.ports = [n.port for n in cluster.nodes]
        hosts = [n.host for n in cluster.nodes]
        self.people = [Person(i, BOARD, self.ports, SEED + i, MAX_OPS, hosts) for i in range(CLIENTS)]
        self.rng = random.Random(SEED)
        self.steps: list[str] = []
        self.killed = None  # the node the last kill round killed

    def say(self, what: str) -> None:
        self.steps.append(f"{time.monotonic():.1f} {what}")

    # ---- Waiting, off the event loop for HTTP so that the clients keep going meanwhile.

    async def poll(self, what: str, check, timeout: float) -> object:
        """Calls `check` (in a thread) until it returns something other than None or False."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            self.check_clients()
            try:
                last = await asyncio.to_thread(check)
            except (AssertionError, OSError) as e:  # a node going down mid-request, a 503
                last = e
            if last is not None and last is not False and not isinstance(last, Exception):
                return last
            await asyncio.sleep(0.1)
        raise AssertionError(f"not within {timeout}s: {what} (last: {last!r})")

    def check_clients(self) -> None:
        for t in self.people:
            assert not t.violations, t.violations
            assert t.task is not None and not t.task.done(), f"{t.name} stopped: {t.task}"

    def stored_seq(self) -> int:
        return self.cluster.board(BOARD)["seq"]

    async def progress(self, ops: int, why: str, timeout: float = 30.0) -> None:
        """Until `ops` more ops are stored: the cluster commits again."""
        start = await self.poll("the stored seq", self.stored_seq_or_none, timeout)
        await self.poll(f"{ops} more ops stored {why} (from {start})",
                        lambda: (self.stored_seq_or_none() or 0) >= start + ops, timeout)

    def stored_seq_or_none(self) -> int | None:
        try:
            return self.stored_seq()
        except (AssertionError, OSError):
            return None

    async def owner(self) -> str:
        """The board's owner, once one node that is up holds its lease."""
        def current():
            name = self.cluster.owner(BOARD)
            return name if name and self.cluster.node(name).up else None
        return await self.poll("an owner that is up", current, timeout=LEASE * 5 + 10)

    async def new_owner(self, old: str) -> str:
        def current():
            name = self.cluster.owner(BOARD)
            return name if name and name != old and self.cluster.node(name).up else None
        return await self.poll(f"an owner other than {old}", current, timeout=LEASE * 5 + 10)

    async def start_node(self, node) -> None:
        await asyncio.to_thread(node.start)

    # ---- Checks that hold at any time.

    def check_seen_is_stored(self, when: str) -> None:
        """The stored head is at least every seq any client heard of (durable before visible: a
        promoted standby that lost the tail fails here), and every one is stored with the op id it
        heard. What they heard is read before the store: it was durable when they heard it (a
        check polled from a thread still holds while the clients go on)."""
        heard = max((max(t.seen, default=0) for t in self.people), default=0)
        head, ops = self.cluster.all_ops(BOARD)
        assert head >= heard, f"{when}: the store's head is seq {head}, but a client heard of seq {heard}"
        stored = {op["seq"]: op["op"] for op in ops}
        for t in self.people:
            for seq, op_id in sorted(t.seen.items()):
                if seq <= head:
                    assert stored.get(seq) == op_id, (
                        f"{when}: {t.name} saw seq {seq} as {op_id}, the store has {stored.get(seq)}")

    # ---- The rounds.

    async def kill_owner(self, label: str) -> None:
        name = await self.owner()
        self.killed = self.cluster.node(name)
        self.say(f"{label}: kill -9 {name}")
        killed_at = time.monotonic()
        self.killed.kill9()
        new = await self.new_owner(name)
        owned = time.monotonic() - killed_at
        await self.progress(1, f"after kill -9 of {name}")
        self.say(f"{label}: {new} owns the board {owned:.2f}s after the kill, "
                 f"commits again {time.monotonic() - killed_at:.2f}s after it")
        await self.progress(ROUND_OPS, f"after kill -9 of {name}")
        self.check_seen_is_stored(f"after kill -9 of {name}")

    async def kill_forwarder(self, label: str) -> None:
        """kill -9 of a node that does not own the board, whose clients resume elsewhere with `since`."""
        owner = await self.owner()
        node = next(n for n in self.cluster.up() if n.name != owner)
        self.killed = node
        self.say(f"{label}: kill -9 {node.name}, which forwards to {owner}")
        node.kill9()
        await self.progress(ROUND_OPS, f"after kill -9 of {node.name}")
        self.check_seen_is_stored(f"after kill -9 of {node.name}")

    async def restart_killed(self, label: str):
        node = self.killed
        self.say(f"{label}: restart {node.name}")
        await self.start_node(node)
        index = self.cluster.nodes.index(node)
        movers = self.rng.sample(self.people, 2)
        for t in movers:
            t.move_to(index)
        await self.poll(f"clients resumed on the restarted {node.name}",
                        lambda: any(t.connected_to == node.port for t in movers), timeout=20)
        await self.progress(ROUND_OPS, f"after the restart of {node.name}")

    async def pause_owner(self, label: str) -> None:
        name = await self.owner()
        node = self.cluster.node(name)
        direct = [t for t in self.people if t.connected_to == node.port]
        others = [i for i, n in enumerate(self.cluster.nodes) if n is not node]
        paused_at = time.monotonic()
        self.say(f"{label}: SIGSTOP {name}, its direct clients {[t.name for t in direct]}")
        node.pause()

        def lapsed():
            view = self.cluster.nodes_view()
            alive = {n["name"]: n["alive"] for n in view["nodes"]}
            return not alive.get(name, False) or self.cluster.owner(BOARD) != name
        await self.poll(f"{name}'s lease lapses while it is stopped", lapsed, timeout=LEASE * 4 + 5)
        self.say(f"{label}: {name}'s lease lapsed {time.monotonic() - paused_at:.2f}s after SIGSTOP")
        # The clients not stuck on the stopped node come back through the others, so that one of
        # them takes the board over and commits while the old owner is stopped.
        for t in self.people:
            if t not in direct:
                t.move_to(self.rng.choice(others))
        new = await self.new_owner(name)
        owned = time.monotonic() - paused_at
        await self.progress(1, f"while {name} is stopped", timeout=20)
        self.say(f"{label}: {new} owns the board while {name} is stopped, {owned:.2f}s after SIGSTOP; "
                 f"commits again {time.monotonic() - paused_at:.2f}s after it")
        await self.progress(10, f"while {name} is stopped", timeout=20)
        left = paused_at + 2 * LEASE - time.monotonic()
        if left > 0:
            await asyncio.sleep(left)  # the fault: stopped for at least twice the lease
        self.say(f"{label}: SIGCONT {name}")
        node.resume()
        await self.progress(ROUND_OPS, f"after SIGCONT of {name}")
        # Its own clients were closed with 1012 (its lease had run out) and resumed elsewhere.
        for t in direct:
            after = [code for at, port, code in t.closes if at >= paused_at and port == str(node.port)]
            assert after and after[0] == 1012, f"{t.name} on the stopped {name}: closes {after}"
        # Nothing the stopped owner had not committed was ever broadcast.
        self.check_seen_is_stored(f"after SIGSTOP/SIGCONT of {name}")

    async def settle(self) -> None:
        self.say("stop sending; settle")
        for t in self.people:
            t.sending = False
        await self.poll("every client's ops answered", lambda: all(not t.pending for t in self.people), timeout=30)
        head = await asyncio.to_thread(self.stored_seq)
        await self.poll(f"every client at the stored seq {head}",
                        lambda: all(t.last == head for t in self.people), timeout=30)
        self.check_clients()

    # ---- The end.

    def final_checks(self) -> None:
        head, ops = self.cluster.all_ops(BOARD)
        stored = self.cluster.board(BOARD)
        assert stored["seq"] == head
        for node in self.cluster.up():
            status, body = node.get(f"/api/boards/{BOARD}")
            assert status == 200 and body["seq"] == head and body["board"] == stored["board"], (node.name, body)

        # No acknowledged op lost, none applied twice, every client's order a prefix of the log,
        # every board the log replayed (Tests/process/checker.py).
        records = [Record.of(t) for t in self.people]
        verify(self.initial, ops, records, stored["board"])
        self.steps.append(checker_summary(ops, records))
        for t in self.people:
            assert not t.violations, t.violations
            assert t.last == head, f"{t.name} at {t.last}, the store at {head}"
            assert t.committed, f"{t.name} got no op committed"

        # Every node served clients directly, so each forwarded for a while.
        served = {port for t in self.people for port in t.sessions}
        assert served == set(self.ports), f"nodes that served clients: {served}"

    def summary(self) -> str:
        lines = [f"seed {SEED}", *self.steps]
        for t in self.people:
            codes = {}
            for _, _, code in t.closes:
                codes[code] = codes.get(code, 0) + 1
            lines.append(f"{t.name}: sent {t.sent}, committed {len(t.committed)}, rejected {len(t.rejected)}, "
                         f"resumes {len(t.sessions)}, snapshots {len(t.snapshots)}, closes {codes}")
        return "\n".join(lines)


async def play(cluster: Cluster, rounds) -> Scenario:
    """Makes the board, starts the people, runs `await rounds(scenario)` (the faults), lets every
    client settle and makes the final checks; any failure comes with the scenario's summary."""
    status, body = cluster.nodes[0].server.http("POST", "/api/boards", body=big_board())
    assert status == 201, (status, body)
    scenario = Scenario(cluster, body["board"])

    async def main():
        try:
            for person in scenario.people:
                person.start()
            await scenario.progress(30, "at start")
            await rounds(scenario)
            await scenario.settle()
        finally:
            for person in scenario.people:
                await person.finish()

    try:
        await asyncio.wait_for(main(), BOUND)
        await asyncio.to_thread(scenario.final_checks)
    except BaseException as e:
        raise AssertionError(f"{e}\n{scenario.summary()}") from e
    print(scenario.summary())
    return scenario
