"""Three nodes on one PostgreSQL; six clients on one board, two on each node directly (so every
node but the owner forwards), keep ops in flight through two cycles of: kill -9 of the owner, a
restart of it, SIGSTOP of the owner for twice the lease then SIGCONT, kill -9 of the owner, a
restart. Then, with the ops stopped and every client caught up: every op any client saw committed
is stored with that seq and op id, the stored seqs run 1..N with each op id once, each client's
seqs rose by exactly one across resumes, and every client shows the stored board.

Nothing sleeps to synchronise: the test waits for states (an owner, stored seqs, caught-up
clients) with deadlines. The only timed wait is the fault itself: the owner stays stopped for at
least twice the lease.
"""

import asyncio

from scenario import LEASE, play

CYCLES = 2  # of kill -9, restart, SIGSTOP/SIGCONT, kill -9, restart


def test_no_acknowledged_op_is_lost_through_kill_stop_and_restart_of_owners(clusters):
    # Two of the nodes keep fenced batches on their way to the database (--store-pipeline), so
    # that owners of both kinds are killed, stopped and fenced.
    cluster = clusters(count=3, lease=LEASE, node_extra={"n1": ("--store-pipeline", "2"),
                                                         "n2": ("--store-pipeline", "3")})

    async def rounds(scenario):
        for cycle in range(1, CYCLES + 1):
            await scenario.kill_owner(f"cycle {cycle}, kill")
            await scenario.restart_killed(f"cycle {cycle}, restart")
            await scenario.pause_owner(f"cycle {cycle}, pause")
            await scenario.kill_owner(f"cycle {cycle}, kill again")
            await scenario.restart_killed(f"cycle {cycle}, restart again")

    asyncio.run(play(cluster, rounds))
