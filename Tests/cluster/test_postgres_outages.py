"""PostgreSQL outages a failover does not cover, on a primary and a synchronous standby
(scripts/postgres.sh start --ha), three nodes on the multi-host URL, six clients keeping ops in
flight; each ends with the history checker (scenario.final_checks):

- a promotion that never comes: the primary is killed and nobody promotes the standby. The nodes
  fence themselves (their clients get 1012), stay up, say `leases_lapsed` on /readyz, broadcast
  nothing meanwhile, and serve again by themselves once the old primary is restarted;
- a standby that is away: kill -9 of the synchronous standby. Every commit on the primary waits
  for it, for longer than the nodes' statement timeout (10 s, which does not reach a COMMIT's
  wait for the standby), nothing is broadcast meanwhile and the primary shows nothing the clients
  have not heard of; ops past --max-unstored-ops are refused; once the standby is back
  everything waiting commits in order;
- the first read after a failover: a GET on each node right after the promotion answers 200
  (the reader's connection broke while idle; the read opens it again and runs once more).

Each prints what it did and how long recovery took."""

import asyncio
import time

import person
import pytest
from scenario import BOARD, LEASE, ROUND_OPS, big_board, play

NEVER_PROMOTED_FOR = 3 * LEASE  # the fault: no primary at all, and nobody promotes
STANDBY_AWAY_FOR = 11.0  # the fault: longer than the nodes' statement_timeout (10 s)


@pytest.fixture(autouse=True)
def patient_clients(monkeypatch):
    """A hello waits for its claim while the database does not commit (cluster.md): the clients
    wait for their welcome as long as the outage lasts, plus some."""
    monkeypatch.setattr(person, "WELCOME_TIMEOUT", 25.0)


def readyz(node) -> tuple[int, object]:
    return node.server.http("GET", "/readyz", timeout=3.0)


def heard(scenario) -> int:
    """The highest seq any client heard of."""
    return max(max(p.seen, default=0) for p in scenario.people)


async def every_node_not_ready(scenario, why: str, timeout: float) -> None:
    def check():
        for node in scenario.cluster.nodes:
            status, body = readyz(node)
            if status != 503 or "leases_lapsed" not in body["reasons"]:
                return False
        return True
    await scenario.poll(f"every node's /readyz 503 leases_lapsed {why}", check, timeout=timeout)


async def every_node_ready(scenario, why: str, timeout: float) -> None:
    await scenario.poll(f"every node's /readyz 200 {why}",
                        lambda: all(readyz(n)[0] == 200 for n in scenario.cluster.nodes), timeout=timeout)


async def fenced_and_silent(scenario, killed_at: float, silent_until: float, why: str) -> tuple[float, int]:
    """After a fault at `killed_at`: every node says leases_lapsed within 3 leases, and from then
    until `silent_until` no client hears of a new seq. Returns (seconds to fence, seq heard)."""
    await every_node_not_ready(scenario, why, timeout=3 * LEASE)
    fenced = time.monotonic() - killed_at
    # A broadcast already on its way when the fault came may still arrive: the silence is
    # measured from the moment every node has fenced itself.
    stalled = heard(scenario)
    scenario.say(f"every node not ready (leases_lapsed) {fenced:.1f}s after the kill; clients at seq {stalled}")
    await stays_silent(scenario, stalled, silent_until, why)
    return fenced, stalled


async def serves_again(scenario, why: str) -> tuple[float, float]:
    """After the fault is undone: an op commits, every node is ready again, what any client heard
    of is stored, and a round of ops goes through. Returns when the first op and the readiness came."""
    await scenario.progress(1, why, timeout=30)
    first = time.monotonic()
    await every_node_ready(scenario, why, timeout=3 * LEASE)
    ready = time.monotonic()
    scenario.check_seen_is_stored(why)
    await scenario.progress(ROUND_OPS, why, timeout=30)
    return first, ready


async def stays_silent(scenario, stalled: int, until: float, what: str) -> None:
    """Until `until` (monotonic), no client hears of a seq past `stalled`, and every node stays up."""
    while time.monotonic() < until:
        scenario.check_clients()
        assert heard(scenario) == stalled, f"{what}: a client heard of seq {heard(scenario)} past {stalled}"
        down = [n.name for n in scenario.cluster.nodes if not n.up]
        assert not down, f"{what}: nodes exited: {down}"
        await asyncio.sleep(min(0.2, max(0.0, until - time.monotonic())))


def test_a_promotion_that_never_comes_fences_the_nodes_until_the_old_primary_is_back(
        clusters, ha_postgres, capsys):
    cluster = clusters(count=3, lease=LEASE, on=ha_postgres)
    report: list[str] = []

    async def rounds(scenario):
        owner = await scenario.owner()
        await scenario.progress(ROUND_OPS, "before the primary dies")
        before = await asyncio.to_thread(ha_postgres.lease_epoch, cluster.url, BOARD)
        owner_port = str(cluster.node(owner).port)
        direct = [p for p in scenario.people if p.connected_to == cluster.node(owner).port]
        scenario.say(f"kill -9 of the PostgreSQL primary (owner {owner}, epoch {before}); nobody promotes")
        killed_at = time.monotonic()
        await asyncio.to_thread(ha_postgres.kill_primary)
        fenced, _ = await fenced_and_silent(scenario, killed_at, killed_at + NEVER_PROMOTED_FOR, "without a primary")
        # The owner's clients were closed with 1012 (it dropped the board), not left hanging.
        for p in direct:
            after = [code for at, port, code in p.closes if at >= killed_at and port == owner_port]
            assert after and after[0] == 1012, f"{p.name} on the owner {owner}: closes {after}"
        scenario.say(f"restart the old primary ({time.monotonic() - killed_at:.1f}s after the kill; "
                     f"{ha_postgres.status()!r})")
        restarted_at = time.monotonic()
        await asyncio.to_thread(ha_postgres.restart)
        first, ready = await serves_again(scenario, "once the primary is back")
        after = await asyncio.to_thread(ha_postgres.lease_epoch, cluster.url, BOARD)
        assert after > before, f"the lease epoch went from {before} to {after}: the board was never claimed again"
        report.append(f"no promotion: fenced {fenced:.2f}s after the kill (lease {LEASE:g}s); old primary restarted "
                      f"{restarted_at - killed_at:.1f}s after the kill; commits again {first - restarted_at:.2f}s "
                      f"after the restart, every node ready {ready - restarted_at:.2f}s after it; "
                      f"epoch {before} -> {after}")
        scenario.say(report[-1])

    scenario = asyncio.run(play(cluster, rounds))
    with capsys.disabled():
        print(f"\nPostgreSQL primary never promoted: {report[0]}\n  {scenario.steps[-1]}")


def test_a_synchronous_standby_away_holds_every_commit_back_until_it_returns(clusters, ha_postgres, capsys):
    # A small bound on what waits, so that the outage reaches it.
    cluster = clusters(count=3, lease=LEASE, on=ha_postgres, extra=("--max-unstored-ops", "4"))
    report: list[str] = []

    async def rounds(scenario):
        owner = await scenario.owner()
        await scenario.progress(ROUND_OPS, "before the standby dies")
        unavailable_before = sum(p.unavailable for p in scenario.people)
        scenario.say(f"kill -9 of the synchronous standby (owner {owner})")
        killed_at = time.monotonic()
        await asyncio.to_thread(ha_postgres.kill_standby)
        fenced, stalled = await fenced_and_silent(scenario, killed_at, killed_at + STANDBY_AWAY_FOR,
                                                  "without the standby")
        # What the primary shows is what the standby has: no COMMIT returned without it (not
        # even past the nodes' statement timeout).
        visible = await asyncio.to_thread(
            ha_postgres.scalar, cluster.url, f"SELECT seq FROM boards WHERE id = '{BOARD}'")
        assert visible == stalled, (f"the primary shows seq {visible}, the clients heard of {stalled}: "
                                    "a commit returned on the primary alone")
        refused = sum(p.unavailable for p in scenario.people) - unavailable_before
        # What waits is bounded: past --max-unstored-ops, ops were refused instead of queued.
        assert refused > 0, "no op was refused unavailable while the owner's commits waited"
        scenario.say(f"restart the standby ({time.monotonic() - killed_at:.1f}s after the kill; "
                     f"{refused} ops refused unavailable meanwhile)")
        restarted_at = time.monotonic()
        await asyncio.to_thread(ha_postgres.restart_standby)
        first, ready = await serves_again(scenario, "with the standby back")
        report.append(f"standby away {restarted_at - killed_at:.1f}s: fenced {fenced:.2f}s after the kill, "
                      f"nothing broadcast meanwhile ({refused} ops refused unavailable); commits again "
                      f"{first - restarted_at:.2f}s after the standby's restart, every node ready "
                      f"{ready - restarted_at:.2f}s after it")
        scenario.say(report[-1])

    scenario = asyncio.run(play(cluster, rounds))
    with capsys.disabled():
        print(f"\nPostgreSQL standby away: {report[0]}\n  {scenario.steps[-1]}")


def test_the_first_read_after_a_failover_answers(clusters, ha_postgres, capsys):
    # A long lease: the renewals (which also use the reader's connection) stay out of the way.
    cluster = clusters(count=2, lease=30.0, on=ha_postgres)
    first, second = cluster.nodes
    status, body = first.server.http("POST", "/api/boards", body={**big_board(), "id": "quiet"})
    assert status == 201, (status, body)
    for node in cluster.nodes:
        assert node.get("/api/boards/quiet")[0] == 200
    ha_postgres.kill_primary()
    killed_at = time.monotonic()
    ha_postgres.promote()
    promoted = time.monotonic() - killed_at
    answers = {node.name: node.get("/api/boards/quiet", timeout=20)[0] for node in cluster.nodes}
    answers_list = {node.name: node.get("/api/boards", timeout=20)[0] for node in cluster.nodes}
    assert set(answers.values()) == {200} and set(answers_list.values()) == {200}, (answers, answers_list)
    with capsys.disabled():
        print(f"\nfirst reads after a failover (promoted {promoted:.1f}s after the kill): {answers} {answers_list}")
