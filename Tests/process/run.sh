#!/usr/bin/env bash
# Process tests: the real shuffleboard binary as a subprocess, driven over HTTP and WebSocket by
# pytest (crash safety under SIGKILL, resume across restart, bad data directories, CLI, board API,
# export/import). Usage: Tests/process/run.sh [pytest args...]
# Environment: SHUFFLEBOARD_BIN (use this binary instead of building), SHUFFLEBOARD_SCRATCH
# (SwiftPM scratch path, default .build), SHUFFLEBOARD_CRASH_SEED (seed of the crash test),
# PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/../.."

# 1. What the tests need, installed only when missing.
PY=${PYTHON:-python3}
if ! "$PY" -c 'import pytest, websockets.sync.client, prometheus_client.parser' 2>/dev/null; then
  echo "run.sh: installing pytest, websockets and prometheus_client from PyPI" >&2
  "$PY" -m pip install --quiet pytest 'websockets>=13' prometheus-client >&2
fi

# 2. The server binary.
if [ -z "${SHUFFLEBOARD_BIN:-}" ]; then
  SCRATCH=${SHUFFLEBOARD_SCRATCH:-.build}
  swift build --scratch-path "$SCRATCH" --product shuffleboard >&2
  SHUFFLEBOARD_BIN="$(swift build --scratch-path "$SCRATCH" --show-bin-path)/shuffleboard"
fi
export SHUFFLEBOARD_BIN

# 3. The tests; each bounds its own waits, and the whole run is bounded too.
cd Tests/process
exec timeout 240 "$PY" -m pytest -q -p no:cacheprovider "$@"
