#!/usr/bin/env bash
# Cluster tests: a throwaway PostgreSQL (scripts/postgres.sh), three shuffleboard nodes on it on
# loopback, clients on every node through kill -9, SIGSTOP and restarts of the owner and an outage
# of the database, HAProxy (deploy/haproxy.cfg) in front, scripts/cluster.sh, and two browsers
# through it while the owner dies. Usage: Tests/cluster/run.sh [pytest args...]
# Environment: SHUFFLEBOARD_BIN (use this binary instead of building), SHUFFLEBOARD_SCRATCH
# (SwiftPM scratch path, default .build), SHUFFLEBOARD_CLUSTER_SEED (seed of the clients' ops),
# PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/deps.sh

# 1. What the tests need, installed only when missing (PostgreSQL: scripts/postgres.sh does).
#    The browser is Debian's chromium, never `playwright install`.
need_apt haproxy chromium
PY=${PYTHON:-python3}
if ! "$PY" -c 'import pytest, websockets.asyncio.client, playwright' 2>/dev/null; then
  echo "run.sh: installing pytest, websockets and playwright from PyPI" >&2
  "$PY" -m pip install --quiet pytest 'websockets>=13' playwright >&2
fi

# 2. The server binary.
if [ -z "${SHUFFLEBOARD_BIN:-}" ]; then
  SCRATCH=${SHUFFLEBOARD_SCRATCH:-.build}
  swift build --scratch-path "$SCRATCH" --product shuffleboard >&2
  SHUFFLEBOARD_BIN="$(swift build --scratch-path "$SCRATCH" --show-bin-path)/shuffleboard"
fi
export SHUFFLEBOARD_BIN

# 3. The tests; each bounds its own waits, and the whole run is bounded too.
cd Tests/cluster
exec timeout 300 "$PY" -m pytest -q -p no:cacheprovider "$@"
