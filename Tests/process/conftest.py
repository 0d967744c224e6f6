import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from harness import BIN, ServerFactory  # noqa: E402


def pytest_configure(config):
    if not BIN or not os.access(BIN, os.X_OK):
        raise pytest.UsageError("set SHUFFLEBOARD_BIN to the shuffleboard binary (Tests/process/run.sh does)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test, so that the fixture below knows whether it failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, "report_" + report.when, report)


@pytest.fixture
def servers(tmp_path, request):
    """A factory of servers run with cwd tmp_path; every one is killed at teardown. When the test
    failed, each server's last log lines are printed (pytest shows them with the failure)."""
    factory = ServerFactory(str(tmp_path))
    yield factory
    factory.stop_all()
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        for n, server in enumerate(factory.servers):
            print(f"--- server {n} ({' '.join(server.args)}), last log lines:")
            print(server.log())
