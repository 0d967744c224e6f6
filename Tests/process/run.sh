#!/usr/bin/env bash
# Process tests: the real shuffleboard binary as a subprocess, driven over HTTP and WebSocket by
# pytest (crash safety under SIGKILL, resume across restart, bad data directories, CLI, board API,
# export/import). Usage: Tests/process/run.sh [pytest args...]
# Environment: SHUFFLEBOARD_BIN (use this binary instead of building), SHUFFLEBOARD_SCRATCH
# (SwiftPM scratch path, default .build), SHUFFLEBOARD_CRASH_SEED (seed of the crash test),
# PYTHON (default python3).
source "$(dirname "$0")/../preamble.sh"
need_py "pytest, websockets.sync.client, prometheus_client.parser" pytest 'websockets>=13' prometheus-client
server_binary

# The tests; each bounds its own waits, and the whole run is bounded too.
cd Tests/process
exec timeout 240 "$PY" -m pytest -q -rs -p no_skips_in_ci -p no:cacheprovider "$@"
