"""Network partitions: PostgreSQL and three nodes each in a network namespace of its own
(netns.py), six clients keeping ops in flight; the test cuts links with iptables and heals them.

- The owner cut off from PostgreSQL (both ways, or one way: its statements arrive, the answers
  are lost, so commits may happen that it never hears of) fences itself within one lease: its
  clients are closed with 1012 and resume through the other nodes, one of which takes the board over; nothing
  the cut owner had not committed was ever broadcast. Healed, it serves clients again.
- The owner cut off from the other nodes but not from PostgreSQL keeps its board (its own clients
  go on committing); clients of the other nodes, whose forwards cannot reach it, are closed with
  1013 (docs/cluster.md). Healed, they are served again.

At the end the history checker (scenario.final_checks) finds no seq assigned twice, nothing
acknowledged lost, every client's seqs rising by one across resumes. Every namespace and link is
removed even on failure (and leftovers of an earlier run at the start). Prints how long each
recovery took. Needs root, iproute2 and iptables.
"""

import asyncio
import os
import time

import pytest

from cluster import Cluster
from netns import NetPostgres, Network, namespaces, run
from scenario import LEASE, ROUND_OPS, play

# Ops stored before a cut, timed: the baseline of how loaded this run is.
BASELINE_OPS = 10

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root")


@pytest.fixture
def partitioned(tmp_path):
    """(network, PostgreSQL in member "pg", a started cluster n1..n3 in members "n1".."n3")."""
    net = Network()
    pg = cluster = None
    try:
        pg = NetPostgres(net)
        names = ["n1", "n2", "n3"]
        hosts = [net.add(name) for name in names]
        cluster = Cluster(pg.database(), str(tmp_path), count=3, lease=LEASE, hosts=hosts,
                          prefixes=[net.exec(name) for name in names])
        cluster.start()
        yield net, pg, cluster
    finally:
        if cluster is not None:
            cluster.stop()
            print(cluster.log())
        if pg is not None:
            pg.stop()
        net.close()


def first_close_after(person, since: float, port: int | None = None):
    for at, at_port, code in person.closes:
        if at >= since and (port is None or at_port == str(port)):
            return at, code
    return None


@pytest.mark.parametrize("direction", ["both", "in"], ids=["both-ways", "one-way-replies-lost"])
def test_an_owner_cut_off_from_postgres_fences_itself_and_its_clients_resume_elsewhere(partitioned, capsys,
                                                                                        direction):
    """Both ways, or one way: what the owner sends still reaches PostgreSQL (its commits may
    happen) but no answer comes back, so it cannot know they did."""
    net, _, cluster = partitioned
    report: list[str] = []

    async def rounds(scenario):
        owner = await scenario.owner()
        node = cluster.node(owner)
        direct = [p for p in scenario.people if p.connected_to == node.port]
        assert direct, "the owner has clients of its own"
        # The baseline, in this run: how long the healthy cluster takes to store a few ops.
        started = time.monotonic()
        await scenario.progress(BASELINE_OPS, "before the cut (the baseline)")
        baseline = time.monotonic() - started
        scenario.say(f"cut {owner} (the owner) off from PostgreSQL ({direction}); "
                     f"its direct clients {[p.name for p in direct]}")
        cut_at = time.monotonic()
        await asyncio.to_thread(net.cut, owner, ["pg"], direction)
        node.paused = True  # not asked for the board while it cannot read it

        await scenario.poll(f"{owner}'s direct clients closed",
                            lambda: all(first_close_after(p, cut_at, node.port) for p in direct), timeout=LEASE * 3 + 5)
        closes = {p.name: first_close_after(p, cut_at, node.port) for p in direct}
        assert {code for _, code in closes.values()} == {1012}, f"closes after the cut: {closes}"
        fenced = max(at for at, _ in closes.values()) - cut_at
        # Within one lease, plus a second, plus twice what storing a few ops took before the cut
        # (how loaded this run is); one that does not fence is never closed (the poll above).
        bound = LEASE + 1.0 + 2 * baseline
        scenario.say(f"{owner} fenced itself: its clients closed with 1012 {fenced:.2f}s after the cut "
                     f"(bound {bound:.2f}s: {BASELINE_OPS} ops were stored in {baseline:.2f}s before it)")
        assert fenced <= bound, (f"{owner} fenced itself {fenced:.2f}s after the cut, the lease is {LEASE}s, "
                                 f"the bound {bound:.2f}s ({BASELINE_OPS} ops took {baseline:.2f}s before the cut)")

        new = await scenario.new_owner(owner)
        await scenario.progress(ROUND_OPS, f"with {owner} cut off")
        committing = time.monotonic() - cut_at
        scenario.check_seen_is_stored(f"with {owner} cut off")
        scenario.say(f"{new} owns the board and commits, {committing:.2f}s after the cut")

        scenario.say(f"heal {owner}")
        healed_at = time.monotonic()
        await asyncio.to_thread(net.heal, owner)
        node.paused = False
        index = cluster.nodes.index(node)
        movers = scenario.rng.sample(scenario.people, 2)
        for p in movers:
            p.move_to(index)
        await scenario.poll(f"clients served by the healed {owner}",
                            lambda: any(p.connected_to == node.port for p in movers), timeout=40)
        serving = time.monotonic() - healed_at
        await scenario.progress(ROUND_OPS, f"after {owner} healed")
        report.append(f"owner cut from PostgreSQL ({direction}): fenced (1012) {fenced:.2f}s after the cut "
                      f"(bound {bound:.2f}s), {new} commits "
                      f"{committing:.2f}s after it; healed, {owner} serves again {serving:.2f}s later")
        scenario.say(report[-1])

    scenario = asyncio.run(play(cluster, rounds))
    with capsys.disabled():  # shown in every run, not only on failure
        print(f"\npartition: {report[0]}\n  {scenario.steps[-1]}")


def test_an_owner_cut_off_from_the_other_nodes_keeps_its_board_and_their_clients_get_1013(partitioned, capsys):
    net, _, cluster = partitioned
    report: list[str] = []

    async def rounds(scenario):
        owner = await scenario.owner()
        node = cluster.node(owner)
        others = [n for n in cluster.nodes if n is not node]
        for p in scenario.people:
            p.pinned = True  # as HAProxy's hash sends a client back to the same node
        await scenario.poll("every client connected", lambda: all(p.connected_to for p in scenario.people),
                            timeout=20)
        direct = [p for p in scenario.people if p.connected_to == node.port]
        forwarded = [p for p in scenario.people if p.connected_to != node.port]
        assert direct and forwarded, "clients on the owner and on the other nodes"
        scenario.say(f"cut {owner} (the owner) off from {[n.name for n in others]}, not from PostgreSQL")
        cut_at = time.monotonic()
        await asyncio.to_thread(net.cut, owner, [n.name for n in others])

        # Its own clients go on committing on it.
        before = {p.name: len(p.committed) for p in direct}
        await scenario.poll(f"{owner}'s own clients commit while cut off",
                            lambda: all(len(p.committed) >= before[p.name] + 5 for p in direct), timeout=20)
        # The other nodes' clients: their forwards cannot reach the owner, and end with 1013.
        await scenario.poll("the other nodes' clients closed with 1013",
                            lambda: all(any(at >= cut_at and code == 1013 for at, _, code in p.closes)
                                        for p in forwarded), timeout=LEASE * 6 + 15)
        refused = time.monotonic() - cut_at
        assert cluster.owner(scenario.people[0].board_id) == owner, "the owner kept its board"
        scenario.check_seen_is_stored(f"with {owner} cut off from the other nodes")
        scenario.say(f"{owner} kept the board; the other nodes' clients got 1013 within {refused:.2f}s")

        scenario.say(f"heal {owner}")
        served = {p.name: len(p.committed) for p in forwarded}
        healed_at = time.monotonic()
        await asyncio.to_thread(net.heal, owner)
        for p in scenario.people:
            p.pinned = False
        await scenario.poll("the other nodes' clients served again (their ops commit)",
                            lambda: all(len(p.committed) > served[p.name] for p in forwarded), timeout=40)
        serving = time.monotonic() - healed_at
        await scenario.progress(ROUND_OPS, f"after {owner} healed")
        report.append(f"owner cut from the other nodes: it kept the board and committed; the others' clients got "
                      f"1013 within {refused:.2f}s; healed, served again {serving:.2f}s later")
        scenario.say(report[-1])

    scenario = asyncio.run(play(cluster, rounds))
    with capsys.disabled():
        print(f"\npartition: {report[0]}\n  {scenario.steps[-1]}")


def test_namespaces_and_links_of_a_dead_run_are_removed_and_a_network_leaves_nothing_behind():
    dead = next(pid for pid in range(4_000_000, 4_100_000) if not os.path.exists(f"/proc/{pid}"))
    ns, link = f"sbp{dead}-n1", f"sbp{dead}-h"
    run("ip", "netns", "add", ns)
    run("ip", "link", "add", link, "type", "veth", "peer", "name", f"{link}s")
    net = Network()
    try:
        assert ns in net.leftovers and link in net.leftovers, net.leftovers
        assert ns not in namespaces()
        assert link not in run("ip", "-o", "link", "show").stdout
        net.add("a")
        assert any(n.startswith(net.tag) for n in namespaces())
    finally:
        net.close()
    assert not any(n.startswith(f"{net.tag}-") for n in namespaces())
    assert net.host_link not in run("ip", "-o", "link", "show").stdout
