"""Crash safety (issue 4): clients commit ops as fast as they can, the server gets SIGKILL at a random
moment, and after a restart on the same data directory nothing any client saw committed is lost.

The seed is printed (and shown on failure); rerun with SHUFFLEBOARD_CRASH_SEED=N to repeat a run.
"""

import copy
import os
import random
import signal
import threading

from harness import COMMITTED, Client, apply, replay, template
from websockets.exceptions import ConnectionClosed

BOARD = "crash"
CLIENTS = 4
# (--snapshot-every, how the round ends). Some rounds snapshot often, so that kills land around
# snapshot writes and loads start from one; one round ends with SIGTERM while ops are in flight,
# which must not lose anything acknowledged either.
ROUNDS = [(None, "kill"), (7, "kill"), (None, "term"), (7, "kill"), (3, "kill"), (None, "kill")]


def random_op(rng: random.Random, board: dict, op_id: str, base: int) -> dict:
    items = [it["id"] for it in board["items"]]
    kind = rng.choice(COMMITTED)
    if kind == "toggle":
        item = rng.choice(board["items"])
        return {"type": "toggle", "op": op_id, "base": base, "item": item["id"], "on": not item["on"]}
    if kind == "swap":
        a, b = rng.sample(items, 2)
        return {"type": "swap", "op": op_id, "base": base, "a": a, "b": b}
    item = rng.choice(items)
    zone = rng.choice(board["zones"])
    anchors = [i for i in zone["items"] if i != item]
    before = rng.choice(anchors) if anchors and rng.random() < 0.7 else None
    return {"type": "move", "op": op_id, "base": base, "item": item, "zone": zone["id"], "before": before}


class Driver(threading.Thread):
    """One client: keeps one op in flight (base = the last seq it saw) until the connection drops."""

    def __init__(self, client: Client, name: str, seed: int, progress: "Progress"):
        super().__init__(daemon=True)
        self.client = client
        self.name = name
        self.rng = random.Random(seed)
        self.progress = progress
        self.received: list[dict] = []  # every committed broadcast, in arrival order
        self.error: str | None = None
        welcome = client.welcome
        assert welcome and welcome["type"] == "welcome", welcome
        self.board = copy.deepcopy(welcome["board"])
        self.seq = welcome["seq"]

    def run(self) -> None:
        n = 0
        try:
            while True:
                n += 1
                op_id = f"{self.name}-{n}"
                self.client.send(random_op(self.rng, self.board, op_id, self.seq))
                while True:
                    msg = self.client.recv(timeout=15)
                    if msg["type"] in COMMITTED:
                        if msg["seq"] != self.seq + 1:
                            self.error = f"{self.name}: seq {msg['seq']} after {self.seq}"
                            return
                        self.received.append(msg)
                        self.seq = msg["seq"]
                        apply(self.board, msg)
                        self.progress.saw(msg["seq"])
                        if msg["op"] == op_id:
                            break
                    elif msg["type"] == "reject" and msg["op"] == op_id:
                        break
                    elif msg["type"] in ("error", "ack"):
                        self.error = f"{self.name}: unexpected {msg}"
                        return
        except TimeoutError:  # an OSError too: caught first, a stalled server is not a killed one
            self.error = f"{self.name}: no answer to {op_id} within 15 s (the server stalled)"
        except (ConnectionClosed, ConnectionError):
            return  # the server was killed
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = f"{self.name}: {type(e).__name__}: {e}"


class Progress:
    """The highest seq any client has seen, with a wait for it to reach a target."""

    def __init__(self):
        self.cond = threading.Condition()
        self.top = 0

    def saw(self, seq: int) -> None:
        with self.cond:
            if seq > self.top:
                self.top = seq
                self.cond.notify_all()

    def wait_for(self, seq: int, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.top >= seq, timeout)


def verify(server, received: dict[int, dict], welcomes: list[tuple[int, dict]], resumes: list[int],
           seed: int) -> int:
    """Checks the restarted server against everything clients saw; returns its seq."""
    status, snapshot = server.get(f"/api/boards/{BOARD}")
    assert status == 200, (seed, status, snapshot)
    current, ops = server.all_ops(BOARD)
    assert current == snapshot["seq"], (seed, current, snapshot["seq"])
    seqs = [op["seq"] for op in ops]
    assert seqs == list(range(1, current + 1)), f"seed {seed}: op log seqs are not gapless 1..{current}"
    ids = [op["op"] for op in ops]
    assert len(set(ids)) == len(ids), f"seed {seed}: an op id was committed twice"
    for seq, msg in sorted(received.items()):
        assert seq <= current, f"seed {seed}: op {msg} was seen committed but the board is at seq {current}"
        assert ops[seq - 1] == msg, f"seed {seed}: seq {seq} is {ops[seq - 1]} on disk but clients saw {msg}"
    assert replay(template(BOARD), ops) == snapshot["board"], f"seed {seed}: the snapshot is not the log replayed"
    for seq, board in welcomes:
        assert replay(template(BOARD), ops[:seq]) == board, f"seed {seed}: a welcome at seq {seq} differs from the log"
    # Each client of the last round comes back with since = the last seq it saw: it gets the rest.
    for since in resumes:
        client = Client(server, BOARD, name="back", since=since)
        welcome = client.welcome
        client.close()
        assert welcome["type"] == "welcome" and welcome["seq"] == current, (seed, since, welcome)
        assert welcome.get("ops") == ops[since:], f"seed {seed}: resume since {since} did not get the ops after it"
    return current


def test_sigkill_at_random_moments_loses_nothing_committed(servers, tmp_path):
    seed = int(os.environ.get("SHUFFLEBOARD_CRASH_SEED") or random.randrange(2**32))
    print(f"crash test seed {seed} (rerun with SHUFFLEBOARD_CRASH_SEED={seed})")
    rng = random.Random(seed)
    data = str(tmp_path / "data")
    received: dict[int, dict] = {}  # seq -> committed op, as any client received it
    welcomes: list[tuple[int, dict]] = []
    resumes: list[int] = []
    stopped_at = []

    for round_, (snapshot_every, ending) in enumerate(ROUNDS):
        # The clients here are load generators: no rate limit.
        args = ["--port", "0", "--data", data, "--op-rate", "0", "--message-rate", "0"]
        if snapshot_every:
            args += ["--snapshot-every", str(snapshot_every)]
        server = servers(*args)
        start_seq = 0
        if round_ > 0:
            start_seq = verify(server, received, welcomes, resumes, seed)

        progress = Progress()
        drivers = []
        for c in range(CLIENTS):
            client = Client(server, BOARD, name=f"c{c}")
            welcomes.append((client.welcome["seq"], client.welcome["board"]))
            assert client.welcome["seq"] == start_seq, (seed, client.welcome["seq"], start_seq)
            drivers.append(Driver(client, f"r{round_}c{c}", rng.randrange(2**32), progress))
        for d in drivers:
            d.start()

        # The random moment: after a random number of committed ops, or a random delay.
        if rng.random() < 0.6:
            target = start_seq + rng.randint(1, 250)
            assert progress.wait_for(target, timeout=60), f"seed {seed}: no progress to seq {target}"
        else:
            threading.Event().wait(rng.uniform(0.0, 0.5))
        if ending == "kill":
            assert server.kill9() == -9
        else:
            server.signal(signal.SIGTERM)
            assert server.wait() == 0, f"seed {seed}: SIGTERM must exit 0"
        stopped_at.append(progress.top)
        resumes = []

        for d in drivers:
            d.join(20)
            assert not d.is_alive(), f"seed {seed}: client {d.name} still running after the kill"
            assert d.error is None, f"seed {seed}: {d.error}"
            if ending == "term":
                assert d.client.close_code() == 1001, f"seed {seed}: {d.name} closed with {d.client.close_code()}"
            d.client.close()
            resumes.append(d.seq)
            for msg in d.received:
                seen = received.setdefault(msg["seq"], msg)
                assert seen == msg, f"seed {seed}: two clients saw different ops at seq {msg['seq']}"

    final = verify(servers("--port", "0", "--data", data), received, welcomes, resumes, seed)
    print(f"stopped at seqs {stopped_at} ({[e for _, e in ROUNDS]}); {len(received)} ops seen committed, {final} on disk")
    assert received, f"seed {seed}: no op was committed in any round"
