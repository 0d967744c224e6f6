import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# The process tests' harness (Server, the board model) is shared, not copied.
sys.path.insert(0, os.path.join(HERE, "..", "process"))
sys.path.insert(0, HERE)

from cluster import Cluster, HAPostgres, HAProxy, Postgres  # noqa: E402
from harness import BIN  # noqa: E402


def pytest_configure(config):
    if not BIN or not os.access(BIN, os.X_OK):
        raise pytest.UsageError("set SHUFFLEBOARD_BIN to the shuffleboard binary (Tests/cluster/run.sh does)")


@pytest.fixture(scope="session")
def postgres():
    """One throwaway PostgreSQL for the run; each cluster gets a database of its own."""
    pg = Postgres()
    yield pg
    pg.stop()


@pytest.fixture
def own_postgres():
    """A PostgreSQL of the test's own, for a test that stops it."""
    pg = Postgres()
    yield pg
    pg.stop()


@pytest.fixture
def ha_postgres():
    """A primary and a synchronous standby of the test's own (scripts/postgres.sh start --ha)."""
    pg = HAPostgres()
    yield pg
    pg.stop()


@pytest.fixture
def clusters(postgres, tmp_path):
    """Makes started clusters (`clusters(count=3, lease=2.0)`), each on a new database (of the
    session's PostgreSQL, or of `on`); stops them at teardown and prints their logs (pytest shows
    them when the test failed)."""
    made: list[Cluster] = []

    def make(count: int = 3, lease: float = 2.0, extra: tuple[str, ...] = (), on: Postgres | None = None,
             node_extra: dict[str, tuple[str, ...]] | None = None, ca: str | None = None) -> Cluster:
        cluster = Cluster((on or postgres).database(), str(tmp_path), count=count, lease=lease, extra=extra,
                          node_extra=node_extra, ca=ca)
        made.append(cluster)
        return cluster.start()

    yield make
    for cluster in made:
        cluster.stop()
        print(cluster.log())


@pytest.fixture
def haproxy(tmp_path):
    """Starts deploy/haproxy.cfg in front of three nodes (`haproxy(nodes)`); stops it at teardown."""
    made: list[HAProxy] = []

    def make(nodes) -> HAProxy:
        proxy = HAProxy(nodes, str(tmp_path))
        made.append(proxy)
        return proxy

    yield make
    for proxy in made:
        proxy.stop()
        print(f"--- haproxy:\n{proxy.log()}")
