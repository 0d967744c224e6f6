"""The failover scenario (scenario.py) with `--node-links`: each node forwards its clients of the
board to the owner over one node link. Six clients, two on each of three nodes, keep ops in
flight through kill -9 of a forwarding node (its clients resume elsewhere with `since`), a
restart of it, kill -9 of the owner (every link to it is lost: the clients of each node resume),
and a restart. The final checks are the failover test's: one order of ops, nothing acknowledged
lost, no gap, every client showing the stored board.
"""

import asyncio

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
