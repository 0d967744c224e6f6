#!/usr/bin/env bash
# Runs every test: build with zero warnings, Swift unit and integration tests, a short fuzzing run,
# process tests, cluster tests (PostgreSQL, three nodes, HAProxy), WebSocket conformance
# (Autobahn|Testsuite), the web client's unit tests, the SDK's types (tsc), and the browser tests in
# headless chromium.
# Installs what it needs when missing.
#
# Every step runs under a time limit (`timeout`, which stops the step's whole process group), so
# that a hung test fails the run instead of stalling it. The limits are a few times what each step
# takes on a loaded two-core machine (the whole run takes about 7 minutes there); the test
# runners bound their own waits and runs inside these too. The cluster step's limit is above the
# sum of its tests' own limits (Tests/cluster/run.sh, conftest.py): it takes some 7 minutes, and a
# test that hangs is stopped by its own limit, with pytest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."

# step SECONDS TITLE COMMAND...: runs COMMAND with a time limit of SECONDS, saying so when it ran out.
step() {
  local limit=$1 title=$2 status=0
  shift 2
  printf '\n== %s (at most %d s)\n' "$title" "$limit" >&2
  timeout --kill-after=10 "$limit" "$@" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "the step \"$title\" did not finish within $limit s" >&2
  fi
  return "$status"
}

step 900 "what the tests need, installed when missing" bash -c '
  source scripts/deps.sh
  need_build_deps
  need_apt chromium
  need_cluster_test_deps
  command -v node >/dev/null || need_apt nodejs
  need_typescript
  need_pip playwright=playwright pytest=pytest pytest_timeout=pytest-timeout websockets=websockets prometheus_client=prometheus-client
  need_venv .build/api-venv Tests/api/requirements.txt'

log=$(mktemp)
step 900 "build (warnings are errors)" bash -c 'swift build --build-tests 2>&1 | tee "$1" >&2' - "$log"
if grep -E "warning:" "$log" | grep -v "^warning: 'main'" >/dev/null; then
  echo "the build has warnings:" >&2
  grep -E "warning:" "$log" | sort -u >&2
  exit 1
fi
bin="$(swift build --show-bin-path)"

step 180 "swift format lint" swift format lint --strict -r Sources Tests Package.swift >&2
step 30 "no Swift file in Sources/ over 450 lines" scripts/check-file-lines.sh >&2

pg_dir=$(mktemp -d /tmp/shuffleboard-test-postgres.XXXXXX)
stop_postgres() { timeout 60 scripts/postgres.sh stop "$pg_dir" || true; rm -rf "$pg_dir"; }
trap stop_postgres EXIT
# The tests make a database of their own on it for each test (PostgresStore's, export and import).
SHUFFLEBOARD_TEST_POSTGRES=$(step 180 "PostgreSQL for the store and process tests: a throwaway server (scripts/postgres.sh)" \
  scripts/postgres.sh start "$pg_dir")
export SHUFFLEBOARD_TEST_POSTGRES

step 600 "swift test (the store tests run on SQLite and on PostgreSQL)" swift test --skip-build >&2

step 420 "fuzzing: libFuzzer targets, 20 s each (docs/fuzzing.md)" Tests/fuzz/run.sh 20 >&2

export SHUFFLEBOARD_BIN="$bin/shuffleboard"

step 420 "process tests: the real binary (crash and restart, CLI, board API, transport)" Tests/process/run.sh >&2

step 240 "HTTP API against docs/openapi.yaml: openapi-spec-validator, then schemathesis --checks all against a server without and one with --auth-secret (75 s each)" \
  Tests/api/run.sh >&2

step 4860 "cluster tests: PostgreSQL, three nodes and HAProxy; kill -9, SIGSTOP and restart of a board's owner; PostgreSQL failover; partitions" \
  Tests/cluster/run.sh >&2

step 420 "WebSocket conformance: Autobahn|Testsuite fuzzingclient against --echo-path (sections 1-7, 10)" \
  env AUTOBAHN_TIMEOUT=300 Tests/conformance/run.sh >&2

step 300 "benchmark smoke: every shuffleboard-bench scenario, tiny (numbers are not checked)" \
  bash -c 'SHUFFLEBOARD_LOADGEN="$(scripts/build-loadgen.sh)" "$1/shuffleboard-bench" scenarios --smoke' - "$bin" >&2

# The files, not the directory: `node --test DIR` fails on Node 21 and later.
step 120 "web client unit tests (node --test)" node --test Tests/web/*.test.mjs >&2

step 120 "the SDK's types: tsc --noEmit against an example that uses them (Tests/types)" \
  tsc -p Tests/types --noEmit >&2

step 720 "browser tests (playwright + chromium)" Tests/browser/run.sh >&2

printf '\n== all tests passed\n' >&2
