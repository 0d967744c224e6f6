"""Holds cannot be kept for ever by taking them again the moment they expire (issue 17, item 4).

Attackers hold tiles and send `dragStart` again as soon as they see their hold end; helpers from
another address race for the same tiles at every expiry. A victim from a third address keeps
trying to lift each tile: it must get every one of them, because an expired holder (and its
address) waits a cooldown, and whoever was refused while the tile was held goes first.

Other loopback addresses (127.0.0.2, 127.0.0.3) are other clients.
"""

from __future__ import annotations

import threading
import time

from harness import WAIT, Client, Server

BOARD = "regrab"
TARGETS = ["t1", "t2", "t3"]


class Attacker(threading.Thread):
    """Holds `item` on one connection from `address`, and asks for it again at once whenever the
    hold ends, or every 20 ms while it does not hold it; hovers while it holds it (so only the
    hold's lifetime ends it)."""

    def __init__(self, server: Server, item: str, address: str, stop: threading.Event, board: str = BOARD):
        super().__init__(daemon=True)
        self.client = Client(server, board, name=f"attacker-{item}", source_address=(address, 0))
        self.me = self.client.welcome["you"]
        self.item = item
        self.stop = stop
        self.takes = 0
        self.refusals: dict[str, int] = {}
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            holding = False
            last_ask = last_hover = 0.0
            self.client.send({"type": "dragStart", "item": self.item})
            while not self.stop.is_set():
                now = time.monotonic()
                if holding and now - last_hover >= 0.2:
                    self.client.send({"type": "hover", "item": self.item, "over": self.item})
                    last_hover = now
                if not holding and now - last_ask >= 0.02:
                    self.client.send({"type": "dragStart", "item": self.item})
                    last_ask = now
                try:
                    m = self.client.recv(0.01)
                except TimeoutError:
                    continue
                if m.get("item") != self.item:
                    continue
                if m["type"] == "dragStart":
                    holding = m["by"] == self.me
                    self.takes += holding
                elif m["type"] == "drop":
                    holding = False
                    self.client.send({"type": "dragStart", "item": self.item})  # Re-grab at once.
                    last_ask = time.monotonic()
                elif m["type"] == "reject":
                    self.refusals[m["reason"]] = self.refusals.get(m["reason"], 0) + 1
        except BaseException as e:  # noqa: BLE001 - reported by the test
            if not self.stop.is_set():
                self.error = e
        finally:
            self.client.close()


def wait_until_held(victim: Client, timeout: float = WAIT) -> None:
    """Reads the victim's messages until every target was seen held, within `timeout` (the
    attackers' traffic never lets a single read time out, so the deadline is the loop's own)."""
    held: set[str] = set()
    deadline = time.monotonic() + timeout
    while len(held) < len(TARGETS):
        left = deadline - time.monotonic()
        assert left > 0, f"within {timeout} s the victim saw only {sorted(held)} held"
        m = victim.recv(left)
        if m["type"] == "dragStart" and m["item"] in TARGETS:
            held.add(m["item"])


def test_a_victim_lifts_tiles_that_attackers_regrab_at_every_expiry(servers):
    server = servers("--port", "0", "--memory", "--hold-timeout", "1", "--hold-lifetime", "1")
    stop = threading.Event()
    attackers = [Attacker(server, item, "127.0.0.1", stop) for item in TARGETS]
    attackers += [Attacker(server, item, "127.0.0.3", stop) for item in TARGETS]
    victim = Client(server, BOARD, name="victim", source_address=("127.0.0.2", 0))
    me = victim.welcome["you"]
    try:
        for a in attackers:
            a.start()
        # The attackers hold every target before the victim starts.
        wait_until_held(victim)
        lifted = []
        refusals: dict[str, int] = {}
        for item in TARGETS:
            # Each tile's holds expire every second or so; a fair rule hands it to the victim
            # within a few expiries.
            deadline = time.monotonic() + 6
            last_ask = 0.0
            while time.monotonic() < deadline and item not in lifted:
                if time.monotonic() - last_ask >= 0.1:
                    victim.send({"type": "dragStart", "item": item})
                    last_ask = time.monotonic()
                try:
                    m = victim.recv(0.05)
                except TimeoutError:
                    continue
                if m["type"] == "dragStart" and m["item"] == item and m["by"] == me:
                    lifted.append(item)
                    victim.send({"type": "drop", "item": item})
                elif m["type"] == "reject" and m.get("item") == item:
                    refusals[m["reason"]] = refusals.get(m["reason"], 0) + 1
        assert all(a.error is None for a in attackers), [a.error for a in attackers]
        takes = sum(a.takes for a in attackers)
        assert lifted == TARGETS, f"the victim lifted {lifted}; refused {refusals}; the attackers took {takes} holds"
        # The attackers did keep trying: the tiles were taken again and again, and refused to them.
        assert takes > len(TARGETS), takes
        assert sum(sum(a.refusals.values()) for a in attackers) > 0
    finally:
        stop.set()
        for a in attackers:
            a.join(WAIT)
        victim.close()


def test_a_victim_toggles_tiles_that_attackers_regrab_at_every_expiry(servers):
    # A paint board: the victim toggles (ops, no holds); an op refused for a hold waits in line too.
    server = servers("--port", "0", "--memory", "--hold-timeout", "1", "--hold-lifetime", "1")
    stop = threading.Event()
    board = "regrab-paint"
    attackers = [Attacker(server, item, "127.0.0.1", stop, board) for item in TARGETS]
    attackers += [Attacker(server, item, "127.0.0.3", stop, board) for item in TARGETS]
    victim = Client(server, board, name="victim", source_address=("127.0.0.2", 0))
    seq = victim.welcome["seq"]
    try:
        for a in attackers:
            a.start()
        wait_until_held(victim)
        toggled = []
        refusals: dict[str, int] = {}
        n = 0
        for item in TARGETS:
            deadline = time.monotonic() + 6
            last_try = 0.0
            while time.monotonic() < deadline and item not in toggled:
                if time.monotonic() - last_try >= 0.1:
                    n += 1
                    victim.send({"type": "toggle", "op": f"v{n}", "base": seq, "item": item, "on": True})
                    last_try = time.monotonic()
                try:
                    m = victim.recv(0.05)
                except TimeoutError:
                    continue
                if m["type"] == "toggle":
                    seq = m["seq"]
                    if m["item"] == item and m["op"].startswith("v"):
                        toggled.append(item)
                elif m["type"] == "reject" and m.get("op"):
                    refusals[m["reason"]] = refusals.get(m["reason"], 0) + 1
        assert all(a.error is None for a in attackers), [a.error for a in attackers]
        assert toggled == TARGETS, f"the victim toggled {toggled}; refused {refusals}"
    finally:
        stop.set()
        for a in attackers:
            a.join(WAIT)
        victim.close()


def test_a_repeated_dragstart_of_the_held_tile_is_refused_and_does_not_renew_the_hold(servers):
    server = servers("--port", "0", "--memory", "--hold-timeout", "30", "--hold-lifetime", "2")
    holder = Client(server, BOARD, name="holder")
    me = holder.welcome["you"]
    holder.send({"type": "dragStart", "item": "t1"})
    holder.expect(lambda m: m["type"] == "dragStart" and m["by"] == me)
    started = time.monotonic()
    holder.send({"type": "dragStart", "item": "t1"})
    m = holder.expect(lambda m: m["type"] in ("reject", "dragStart"))
    assert m["type"] == "reject" and m["reason"] == "held" and m["by"] == me and m["item"] == "t1", m
    # The hold still ends at its lifetime, counted from the first dragStart.
    drop = holder.expect(lambda m: m["type"] == "drop", timeout=WAIT)
    assert drop["reason"] == "expired" and time.monotonic() - started < 4, drop
    # And its holder may not take it again at once: the cooldown.
    holder.send({"type": "dragStart", "item": "t1"})
    m = holder.expect(lambda m: m["type"] in ("reject", "dragStart"))
    assert m["type"] == "reject" and m["reason"] == "cooldown", m
    holder.close()


def test_one_address_holds_at_most_eight_tiles_by_default(servers):
    server = servers("--port", "0", "--memory")
    clients = [Client(server, BOARD, name=f"c{i}") for i in range(9)]
    other = Client(server, BOARD, name="other", source_address=("127.0.0.2", 0))
    try:
        for i, client in enumerate(clients[:8]):
            client.send({"type": "dragStart", "item": f"t{i + 1}"})
            client.expect(lambda m, me=client.welcome["you"]: m["type"] == "dragStart" and m["by"] == me)
        clients[8].send({"type": "dragStart", "item": "t9"})
        m = clients[8].expect(lambda m: m["type"] in ("reject", "dragStart") and m["item"] == "t9")
        assert m["type"] == "reject" and m["reason"] == "hold_limit", m
        # Another address is not affected, and a hold given back frees a place.
        other.send({"type": "dragStart", "item": "t9"})
        other.expect(lambda m: m["type"] == "dragStart" and m["item"] == "t9" and m["by"] == other.welcome["you"])
        clients[0].send({"type": "drop", "item": "t1"})
        # Two connections' messages have no order between them (on an epoll loop the server may
        # read the second first): the drop is seen done before the next lift is sent.
        clients[8].expect(lambda m: m["type"] == "drop" and m["item"] == "t1")
        clients[8].send({"type": "dragStart", "item": "t10"})
        m = clients[8].expect(lambda m: m["type"] in ("reject", "dragStart") and m["item"] == "t10")
        assert m["type"] == "dragStart" and m["by"] == clients[8].welcome["you"], m
    finally:
        for c in [*clients, other]:
            c.close()


def test_max_holds_per_address_is_a_flag(servers):
    server = servers("--port", "0", "--memory", "--max-holds-per-address", "1")
    first, second = Client(server, BOARD, name="first"), Client(server, BOARD, name="second")
    try:
        first.send({"type": "dragStart", "item": "t1"})
        first.expect(lambda m: m["type"] == "dragStart" and m["by"] == first.welcome["you"])
        second.send({"type": "dragStart", "item": "t2"})
        m = second.expect(lambda m: m["type"] in ("reject", "dragStart") and m["item"] == "t2")
        assert m["type"] == "reject" and m["reason"] == "hold_limit", m
    finally:
        first.close()
        second.close()
