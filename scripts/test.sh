#!/usr/bin/env bash
# Runs every test: build with zero warnings, Swift unit and integration tests, a short fuzzing run,
# process tests, cluster tests (PostgreSQL, three nodes, HAProxy), WebSocket conformance
# (Autobahn|Testsuite), the web client's unit tests, and the browser tests in headless chromium.
# Installs what it needs when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
need_build_deps
need_apt chromium haproxy
command -v node >/dev/null || need_apt nodejs
need_pip playwright=playwright pytest=pytest websockets=websockets prometheus_client=prometheus-client

step() { printf '\n== %s\n' "$*" >&2; }

step "build (warnings are errors)"
log=$(mktemp)
swift build --build-tests 2>&1 | tee "$log" >&2
if grep -E "warning:" "$log" | grep -v "^warning: 'main'" >/dev/null; then
  echo "the build has warnings:" >&2
  grep -E "warning:" "$log" | sort -u >&2
  exit 1
fi

step "swift format lint"
swift format lint --strict -r Sources Tests Package.swift >&2

step "PostgreSQL for the store and process tests: a throwaway server (scripts/postgres.sh)"
pg_dir=$(mktemp -d /tmp/shuffleboard-test-postgres.XXXXXX)
stop_postgres() { scripts/postgres.sh stop "$pg_dir" || true; rm -rf "$pg_dir"; }
trap stop_postgres EXIT
# The tests make a database of their own on it for each test (PostgresStore's, export and import).
SHUFFLEBOARD_TEST_POSTGRES=$(scripts/postgres.sh start "$pg_dir")
export SHUFFLEBOARD_TEST_POSTGRES

step "swift test (the store tests run on SQLite and on PostgreSQL)"
swift test --skip-build >&2

step "fuzzing: libFuzzer targets, 20 s each (docs/fuzzing.md)"
Tests/fuzz/run.sh 20 >&2

step "process tests: the real binary (crash and restart, CLI, board API, transport)"
SHUFFLEBOARD_BIN="$(swift build --show-bin-path)/shuffleboard" Tests/process/run.sh >&2

step "cluster tests: PostgreSQL, three nodes and HAProxy; kill -9, SIGSTOP and restart of a board's owner"
SHUFFLEBOARD_BIN="$(swift build --show-bin-path)/shuffleboard" Tests/cluster/run.sh >&2

step "WebSocket conformance: Autobahn|Testsuite fuzzingclient against --echo-path (sections 1-7, 10)"
SHUFFLEBOARD_BIN="$(swift build --show-bin-path)/shuffleboard" Tests/conformance/run.sh >&2

step "benchmark smoke: every shuffleboard-bench scenario, tiny (numbers are not checked)"
SHUFFLEBOARD_LOADGEN="$(scripts/build-loadgen.sh)" "$(swift build --show-bin-path)/shuffleboard-bench" scenarios --smoke >&2

step "web client unit tests (node --test)"
node --test Tests/web/ >&2

step "browser tests (playwright + chromium)"
SHUFFLEBOARD_BIN="$(swift build --show-bin-path)/shuffleboard" Tests/browser/run.sh >&2

step "all tests passed"
