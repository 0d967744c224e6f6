"""A pytest plugin every Python test runner loads (`-p no_skips_in_ci`, Tests/*/run.sh): under
CI=true a skipped test fails the run.

A test skips when what it needs is missing (root for namespaces and tmpfs mounts, a PostgreSQL
server in SHUFFLEBOARD_TEST_POSTGRES). On a developer's machine that is a skip, listed by `-rs`
with its reason; in CI (scripts/test.sh as root, with PostgreSQL) nothing may skip, or "all tests
passed" would be printed over tests that never ran.
"""
import os

import pytest

_skipped: list[str] = []


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _skipped.append(f"{report.nodeid}: {reason}")


def pytest_sessionfinish(session, exitstatus):
    if _in_ci() and _skipped and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if _in_ci() and _skipped:
        terminalreporter.section("skipped under CI=true (each one fails the run)", red=True)
        for line in _skipped:
            terminalreporter.line(line)
