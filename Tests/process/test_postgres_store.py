"""A server on `--store postgresql://…` (issue 12): ops commit and survive a restart, the node is
listed, SIGTERM exits 0 after giving its leases up. Needs SHUFFLEBOARD_TEST_POSTGRES (scripts/test.sh
starts a server and sets it); each test makes its own database."""

import os
import signal
import subprocess
import uuid

import pytest
from harness import Client

POSTGRES = os.environ.get("SHUFFLEBOARD_TEST_POSTGRES")
pytestmark = pytest.mark.skipif(
    not POSTGRES, reason="SHUFFLEBOARD_TEST_POSTGRES is not set: no PostgreSQL server to test against")


@pytest.fixture
def database():
    name = "p_" + uuid.uuid4().hex
    # The name is made here, of hex digits.
    admin = ["psql", "-q", "-v", "ON_ERROR_STOP=1", POSTGRES, "-c"]
    subprocess.run([*admin, f"CREATE DATABASE {name}"], check=True, capture_output=True)
    yield POSTGRES.rsplit("/", 1)[0] + "/" + name
    subprocess.run([*admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)


def test_a_node_on_postgresql_commits_lists_itself_and_restarts(servers, database):
    server = servers("--port", "0", "--store", database, "--node", "n1")
    client = Client(server, "pg", name="x")
    for n in range(5):
        client.send({"type": "toggle", "op": f"p{n}", "base": n, "item": "t1", "on": n % 2 == 0})
        assert client.result_of(f"p{n}")["seq"] == n + 1
    # With --port 0 and no --advertise, the port the node really got is what it advertises; the
    # board is held while its client is on it.
    status, cluster = server.get("/api/cluster")
    assert status == 200, cluster
    assert cluster["nodes"] == [{"name": "n1", "advertise": f"127.0.0.1:{server.port}", "alive": True, "boards": 1}]
    client.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0, server.log()

    again = servers("--port", "0", "--store", database, "--node", "n2")
    status, board = again.get("/api/boards/pg")
    assert status == 200 and board["seq"] == 5, board
    client = Client(again, "pg", name="y", since=3)
    assert [op["op"] for op in client.welcome["ops"]] == ["p3", "p4"]
    client.send({"type": "toggle", "op": "p5", "base": 5, "item": "t1", "on": True})
    assert client.result_of("p5")["seq"] == 6
    client.close()
    again.signal(signal.SIGTERM)
    assert again.wait() == 0, again.log()
