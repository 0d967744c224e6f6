"""The database goes away under a cluster (PostgreSQL stopped at once, its connections dropped)
and comes back. Meanwhile the nodes commit nothing, and once they could not renew for a lease
they close their clients with 1012; the clients cannot get back in until the database is back,
then resume, and the board goes on: nothing acknowledged lost, nothing broadcast that is not
stored (the scenario's final checks)."""

import asyncio
import time

from scenario import LEASE, ROUND_OPS, play


def test_nodes_stop_committing_while_the_database_is_away_and_go_on_once_it_is_back(clusters, own_postgres):
    cluster = clusters(count=3, lease=LEASE, on=own_postgres)

    async def rounds(scenario):
        await scenario.owner()
        scenario.say("PostgreSQL stops (immediate shutdown)")
        gone_at = time.monotonic()
        await asyncio.to_thread(own_postgres.crash)
        await scenario.poll("every client's connection closed after the database went away",
                            lambda: all(any(at >= gone_at for at, _, _ in p.closes) for p in scenario.people),
                            timeout=LEASE * 3 + 10)
        codes = {p.name: next(code for at, _, code in p.closes if at >= gone_at) for p in scenario.people}
        assert set(codes.values()) == {1012}, f"first closes after the database went away: {codes}"
        scenario.say("every client closed with 1012")
        seen = {p.name: p.last for p in scenario.people}
        await asyncio.sleep(2 * LEASE)  # the fault: the database stays away a while longer
        assert {p.name: p.last for p in scenario.people} == seen, "a client heard of an op while the database was away"
        assert all(not p.welcomed for p in scenario.people), "a client got in while the database was away"
        scenario.say("PostgreSQL starts again")
        await asyncio.to_thread(own_postgres.restart)
        await scenario.progress(ROUND_OPS, "after the database came back", timeout=40)

    asyncio.run(play(cluster, rounds))
