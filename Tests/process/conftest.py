import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from harness import BIN, ServerFactory  # noqa: E402


def pytest_configure(config):
    if not BIN or not os.access(BIN, os.X_OK):
        raise pytest.UsageError("set SHUFFLEBOARD_BIN to the shuffleboard binary (Tests/process/run.sh does)")


@pytest.fixture
def servers(tmp_path):
    """A factory of servers run with cwd tmp_path; every one is killed at teardown."""
    factory = ServerFactory(str(tmp_path))
    yield factory
    factory.stop_all()
