import inspect
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# The process tests' harness (Server, the board model) is shared, not copied.
sys.path.insert(0, os.path.join(HERE, "..", "process"))
sys.path.insert(0, HERE)

from cluster import Cluster, HAPostgres, HAProxy, Postgres  # noqa: E402
from harness import BIN  # noqa: E402
from scenario import BOUND  # noqa: E402

# Every test has a time limit of its own (pytest-timeout): one that plays the scenario its bound
# and a minute more (the cluster's start, the final checks, the stop), any other a minute and a
# half (the slowest takes some 40 s on a loaded machine, the session's PostgreSQL stop included). The
# whole run's limit (SHUFFLEBOARD_CLUSTER_SUITE_LIMIT, set by run.sh) must be above their sum, so
# that a slow test is stopped by its own limit, with pytest's summary, never the run by the suite's.
SCENARIO_TIMEOUT = BOUND + 60
TEST_TIMEOUT = 90


def pytest_configure(config):
    if not BIN or not os.access(BIN, os.X_OK):
        raise pytest.UsageError("set SHUFFLEBOARD_BIN to the shuffleboard binary (Tests/cluster/run.sh does)")
    if not config.pluginmanager.hasplugin("timeout"):
        raise pytest.UsageError("the cluster tests need pytest-timeout (Tests/cluster/run.sh installs it)")


def time_limit(item) -> float:
    return float(item.get_closest_marker("timeout").args[0])


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("timeout") is None:
            plays = "play(" in inspect.getsource(item.function)
            item.add_marker(pytest.mark.timeout(SCENARIO_TIMEOUT if plays else TEST_TIMEOUT))
    total = sum(time_limit(item) for item in items)
    limit = os.environ.get("SHUFFLEBOARD_CLUSTER_SUITE_LIMIT")
    if limit and total >= float(limit):
        raise pytest.UsageError(f"the {len(items)} tests' own time limits add up to {total:.0f} s, not below "
                                f"the run's {limit} s (SHUFFLEBOARD_CLUSTER_SUITE_LIMIT): raise it in run.sh")
    config.stash[TOTAL] = (len(items), total)


TOTAL = pytest.StashKey[tuple[int, float]]()


def pytest_report_collectionfinish(config):
    count, total = config.stash.get(TOTAL, (0, 0.0))
    return f"time limits: {count} tests, {total:.0f} s in all (scenarios {SCENARIO_TIMEOUT:.0f} s each, others {TEST_TIMEOUT} s)"


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
