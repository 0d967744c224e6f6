#!/usr/bin/env bash
# Cluster tests: a throwaway PostgreSQL (scripts/postgres.sh), three shuffleboard nodes on it on
# loopback, clients on every node through kill -9, SIGSTOP and restarts of the owner and an outage
# of the database, HAProxy (deploy/haproxy.cfg) in front, scripts/cluster.sh, and two browsers
# through it while the owner dies; a failover of PostgreSQL (primary and synchronous standby), and
# network partitions in network namespaces (root, iproute2 and iptables). Usage: Tests/cluster/run.sh [pytest args...]
# Environment: SHUFFLEBOARD_BIN (use this binary instead of building), SHUFFLEBOARD_SCRATCH
# (SwiftPM scratch path, default .build), SHUFFLEBOARD_CLUSTER_SEED (seed of the clients' ops),
# PYTHON (default python3).
source "$(dirname "$0")/../preamble.sh"
# PostgreSQL: scripts/postgres.sh installs it. The browser is Debian's chromium, never `playwright install`.
need_cluster_test_deps
need_apt chromium openssl
need_py "pytest, pytest_timeout, websockets.asyncio.client, playwright" pytest pytest-timeout 'websockets>=13' playwright
server_binary

# The tests; each bounds its own waits and has a time limit of its own (pytest-timeout, see
# conftest.py), and the whole run is bounded too, above the sum of those limits (conftest.py
# refuses to start when it is not): a slow test is stopped with pytest's summary, never the run.
export SHUFFLEBOARD_CLUSTER_SUITE_LIMIT=4800
cd Tests/cluster
exec timeout "$SHUFFLEBOARD_CLUSTER_SUITE_LIMIT" "$PY" -m pytest -q -rs -p no_skips_in_ci -p no:cacheprovider "$@"
