"""Node links (the default) between processes on PostgreSQL. First, clients on three nodes: one
order of ops, each other's drags, one link per node on the owner's /metrics, and clients of a
forwarding node that dies resuming on another node with `since`, with no gap. Then the failover
scenario (scenario.py): each node forwards its clients of the board to the owner over one node link. Six clients, two on each of three nodes, keep ops in
flight through kill -9 of a forwarding node (its clients resume elsewhere with `since`), a
restart of it, kill -9 of the owner (every link to it is lost: the clients of each node resume),
and a restart. The final checks are the failover test's: one order of ops, nothing acknowledged
lost, no gap, every client showing the stored board.
"""

import asyncio

from cluster import wait_until
from harness import Client
from scenario import BOARD, LEASE, play


def sample(text: str, name: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


async def one_link_per_node(scenario, label: str) -> None:
    """The owner holds one link per other node that has clients of the board, carrying exactly
    the clients connected to those nodes; each such node has one forward open."""
    cluster = scenario.cluster

    def check():
        owner = cluster.node(cluster.owner(BOARD))
        forwarded = [t for t in scenario.people if t.connected_to is not None and t.connected_to != owner.port]
        ports = {t.connected_to for t in forwarded}
        _, text = owner.get("/metrics")
        links, clients = sample(text, "shuffleboard_node_links_open"), sample(text, "shuffleboard_node_link_clients")
        opened = [sample(n.get("/metrics")[1], "shuffleboard_forwards_open") for n in cluster.up() if n.port in ports]
        ok = links == len(ports) and clients == len(forwarded) and all(o == 1 for o in opened)
        return ok or AssertionError(f"links {links}, clients {clients}, forwards open {opened}, "
                                    f"{len(forwarded)} clients on {len(ports)} other nodes")

    await scenario.poll(f"{label}: one node link per forwarding node", check, timeout=20)


def test_clients_over_node_links_keep_one_order_through_the_loss_of_a_forwarder_and_of_the_owner(clusters):
    cluster = clusters(count=3, lease=LEASE, extra=("--node-links", "on"))

    async def rounds(scenario):
        await one_link_per_node(scenario, "at start")
        await scenario.kill_forwarder("forwarder, kill")
        await scenario.restart_killed("forwarder, restart")
        await scenario.kill_owner("owner, kill")
        await scenario.restart_killed("owner, restart")
        await one_link_per_node(scenario, "at the end")

    asyncio.run(play(cluster, rounds))


def test_clients_on_three_nodes_see_one_order_each_others_drags_and_resume_after_their_node_dies(clusters):
    cluster = clusters(count=3, lease=LEASE)  # node links: the default
    n1, n2, n3 = cluster.nodes
    owner = Client(n1.server, "trio", "O")
    assert owner.welcome["type"] == "welcome", owner.welcome
    assert cluster.owner("trio") == "n1"
    a1, a2, b1 = Client(n2.server, "trio", "A1"), Client(n2.server, "trio", "A2"), Client(n3.server, "trio", "B1")
    everyone = [owner, a1, a2, b1]
    for c in everyone:
        assert c.welcome["type"] == "welcome", c.welcome
    you = {c: c.welcome["you"] for c in everyone}

    def links() -> tuple[dict, float | None]:
        _, text = n1.get("/metrics")
        by_node = {n.name: sample(text, f'shuffleboard_node_links{{node="{n.name}"}}') for n in (n2, n3)}
        return by_node, sample(text, "shuffleboard_node_link_clients")

    assert links() == ({"n2": 1, "n3": 1}, 3), links()

    # Ops from every node at once: every client sees all four, in one order.
    for i, c in enumerate(everyone):
        c.send({"type": "toggle", "op": f"x{i}", "base": c.welcome["seq"], "item": f"t{i + 1}", "on": True})
    orders = []
    for c in everyone:
        seen: dict[str, int] = {}
        while len(seen) < len(everyone):
            m = c.expect(lambda m: m.get("op", "").startswith("x") and m["type"] in ("toggle", "reject"))
            assert m["type"] == "toggle", m
            seen[m["op"]] = m["seq"]
        orders.append(sorted(seen, key=seen.get))
    assert all(order == orders[0] for order in orders), orders
    last = max(seen.values())

    # A drag on n2 is seen on n1, on n3 and by its neighbour on n2; one on n3 is seen on n2.
    for holder, item, watchers in ((a1, "t6", (owner, a2, b1)), (b1, "t7", (owner, a1))):
        holder.send({"type": "dragStart", "item": item})
        holder.expect(lambda m, item=item: m["type"] == "dragStart" and m["item"] == item)
        holder.send({"type": "hover", "item": item, "over": "t9", "t": 42})
        for c in watchers:
            held = c.expect(lambda m, item=item: m["type"] == "dragStart" and m["item"] == item)
            hover = c.expect(lambda m, item=item: m["type"] == "hover" and m["item"] == item)
            assert held["by"] == hover["by"] == you[holder] and (hover["over"], hover["t"]) == ("t9", 42), hover
        holder.send({"type": "drop", "item": item})

    # n2 dies (kill -9): its link goes, and with it its clients' sessions on the owner. The
    # others go on committing meanwhile.
    n2.kill9()
    a1.wait_closed()
    a2.wait_closed()
    wait_until("n2's link gone from the owner's /metrics", lambda: links() == ({"n2": None, "n3": 1}, 1), 10)
    base = last
    for n in range(5):
        c = (owner, b1)[n % 2]
        c.send({"type": "toggle", "op": f"y{n}", "base": base, "item": "t10", "on": n % 2 == 0})
        result = c.result_of(f"y{n}")
        assert result["type"] == "toggle", result
        base = result["seq"]
    # A1 resumes on n3 from the last seq it saw: every op since, once, in order, and then live.
    again = Client(n3.server, "trio", "A1", since=last)
    assert again.welcome["type"] == "welcome" and "ops" in again.welcome, again.welcome
    resumed = [op["seq"] for op in again.welcome["ops"]]
    assert resumed == list(range(last + 1, again.welcome["seq"] + 1)) and len(resumed) >= 5, again.welcome
    assert [op["op"] for op in again.welcome["ops"]][-5:] == [f"y{n}" for n in range(5)]
    owner.send({"type": "toggle", "op": "z", "base": again.welcome["seq"], "item": "t11", "on": True})
    assert again.result_of("z")["seq"] == again.welcome["seq"] + 1
    assert links() == ({"n2": None, "n3": 1}, 2), links()
    for c in (owner, a1, a2, b1, again):
        c.close()
