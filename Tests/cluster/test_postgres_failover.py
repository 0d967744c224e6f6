"""PostgreSQL failover under load: a primary and a synchronous standby (scripts/postgres.sh start
--ha), three nodes on the multi-host URL (target_session_attrs=read-write), six clients keeping ops
in flight. kill -9 of the primary; the standby is promoted PROMOTE_AFTER later (longer than a
lease, as an operator's or Patroni's failover takes some seconds); the nodes reconnect to it by
themselves and the board goes on.

Meanwhile nothing is broadcast that the promoted standby does not have (synchronous replication:
a commit the nodes saw is on both), the board's lease epoch on the promoted standby continues the
old primary's, and at the end the history checker finds nothing acknowledged lost, nothing applied
twice, every client's order a prefix of the log (scenario.final_checks). The first GET on each
node right after the promotion answers 200. Prints how long recovery took."""

import asyncio
import time

from scenario import BOARD, LEASE, ROUND_OPS, play

PROMOTE_AFTER = 1.5 * LEASE  # the fault: how long the database has no primary


def test_a_kill_9_of_the_postgres_primary_loses_nothing_acknowledged_once_the_standby_is_promoted(
        clusters, ha_postgres, capsys):
    cluster = clusters(count=3, lease=LEASE, on=ha_postgres)
    report: list[str] = []

    async def rounds(scenario):
        owner = await scenario.owner()
        await scenario.progress(ROUND_OPS, "before the failover")
        before = await asyncio.to_thread(ha_postgres.lease_epoch, cluster.url, BOARD)
        seen_before = max(p.last for p in scenario.people)
        scenario.say(f"kill -9 of the PostgreSQL primary (owner {owner}, epoch {before}, clients at seq {seen_before})")
        killed_at = time.monotonic()
        await asyncio.to_thread(ha_postgres.kill_primary)
        left = killed_at + PROMOTE_AFTER - time.monotonic()
        if left > 0:
            await asyncio.sleep(left)  # the fault: no primary for this long
        stalled = max(p.last for p in scenario.people)
        scenario.say(f"promote the standby ({time.monotonic() - killed_at:.1f}s after the kill; "
                     f"clients at seq {stalled})")
        promoted_at = time.monotonic()
        await asyncio.to_thread(ha_postgres.promote)
        # The first read on each node right after the promotion is answered: a read whose
        # connection broke opens it again (on the new primary) and runs once more.
        answers = {}
        for node in cluster.nodes:
            answers[node.name] = (await asyncio.to_thread(node.get, f"/api/boards/{BOARD}", 20))[0]
        assert set(answers.values()) == {200}, f"the first GET after the promotion: {answers}"
        await scenario.progress(1, "on the promoted standby", timeout=30)
        first = time.monotonic()
        # Everything any client heard of is on the promoted standby: synchronous replication.
        # (Polled: a read may still fail while a node's connections find the new primary.)
        await scenario.poll("every seq a client heard of stored on the promoted standby",
                            lambda: scenario.check_seen_is_stored("on the promoted standby") or True, timeout=20)
        await scenario.progress(ROUND_OPS, "after the promotion", timeout=40)
        after = await asyncio.to_thread(ha_postgres.lease_epoch, cluster.url, BOARD)
        assert after >= before, f"the lease epoch went back from {before} to {after}"
        report.append(f"primary killed: commits again {first - promoted_at:.2f}s after the promotion "
                      f"({first - killed_at:.2f}s after the kill, {PROMOTE_AFTER:g}s of it without a primary); "
                      f"epoch {before} -> {after}; owner {owner} -> {cluster.owner(BOARD)}")
        scenario.say(report[-1])

    scenario = asyncio.run(play(cluster, rounds))
    with capsys.disabled():  # shown in every run, not only on failure
        print(f"\nPostgreSQL failover: {report[0]}\n  {scenario.steps[-1]}")
