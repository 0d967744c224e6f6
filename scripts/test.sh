#!/usr/bin/env bash
# Runs every test: build with zero warnings, Swift unit and integration tests, a short fuzzing run,
# process tests, cluster tests (PostgreSQL, three nodes, HAProxy), WebSocket conformance
# (Autobahn|Testsuite), the web client's unit tests, the SDK's types (tsc), and the browser tests in
# headless chromium.
# Installs what it needs when missing.
#
# Every step runs under a time limit (`timeout`, which stops the step's whole process group), so
# that a hung test fails the run instead of stalling it. The limits are a few times what each step
# takes on a loaded two-core machine; the test runners bound their own waits and runs inside these
# too. The cluster step's limit is above the sum of its tests' own limits (Tests/cluster/run.sh,
# conftest.py): a test that hangs is stopped by its own limit, with pytest's summary.
#
# Independent steps run side by side, two at a time (docs/testing.md, "How the suite runs"): the
# build beside the fuzz targets' build, the lint and the API tools' install; then two lanes, one
# mostly computing (Swift tests, process and browser tests) and one mostly waiting (cluster
# failovers and timeouts, schemathesis' fixed-length runs, Autobahn, the benchmark smoke) that ends
# with the fuzzers.
# Every step writes to a log of its own in test-output/steps/ and is printed when it ends: its last
# lines when it passed, all of it when it failed (SHUFFLEBOARD_TEST_VERBOSE=1: all of it always).
# The run ends with the time each step took. One build (.build) serves every step.
set -euo pipefail
cd "$(dirname "$0")/.."

steps_dir=test-output/steps
rm -rf "$steps_dir"
mkdir -p "$steps_dir"
times="$steps_dir/times.tsv"
: >"$times"
run_start=$(date +%s)

# step SECONDS TITLE COMMAND...: runs COMMAND with a time limit of SECONDS, its output in a log of
# its own; prints the log when it ends (under a lock, so that two steps side by side never mix) and
# records the step's time. Returns the command's status.
step() {
  local limit=$1 title=$2 status=0 start end log slug
  shift 2
  slug=$(printf '%s' "$title" | tr -cs 'A-Za-z0-9' '-' | cut -c1-40)
  log="$steps_dir/${slug%-}.log"
  start=$(date +%s)
  printf '\n== %s (at most %d s): started, log in %s\n' "$title" "$limit" "$log" >&2
  timeout --kill-after=10 "$limit" "$@" </dev/null >"$log" 2>&1 || status=$?
  end=$(date +%s)
  {
    flock 9
    if [ "$status" -eq 0 ]; then
      printf '\n== %s: passed in %d s\n' "$title" $((end - start))
      if [ -n "${SHUFFLEBOARD_TEST_VERBOSE:-}" ]; then cat "$log"; else tail -n 12 "$log"; fi
    else
      printf '\n== %s: FAILED (status %d) after %d s; its whole log (%s):\n' "$title" "$status" $((end - start)) "$log"
      cat "$log"
      if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "the step \"$title\" did not finish within $limit s"
      fi
    fi
    printf '%s\t%d\t%s\n' "$([ "$status" -eq 0 ] && echo passed || echo FAILED)" $((end - start)) "$title" >>"$times"
  } 9>>"$steps_dir/.lock" >&2
  return "$status"
}

# wait_lanes: waits for the lanes started in the background (their pids in lane_pids) and fails
# when any failed. A lane stops at its first failing step; the other lane goes on to its end,
# so that one run shows every failure it can.
lane_pids=()
wait_lanes() {
  local failed=0 pid
  for pid in "${lane_pids[@]}"; do wait "$pid" || failed=1; done
  lane_pids=()
  return "$failed"
}

# kill_tree PID: stops PID and every process under it (a lane's steps: their `timeout`s pass the
# signal on to the step's process group).
kill_tree() {
  local child
  for child in $(pgrep -P "$1"); do kill_tree "$child"; done
  kill -TERM "$1" 2>/dev/null || true
}

summary() {
  local status=$? end
  end=$(date +%s)
  for pid in "${lane_pids[@]}"; do kill_tree "$pid"; done
  [ -n "${pg_dir:-}" ] && { timeout 60 scripts/postgres.sh stop "$pg_dir" >/dev/null 2>&1 || true; rm -rf "$pg_dir"; }
  {
    printf '\n== time per step (seconds; steps side by side overlap)\n'
    awk -F'\t' '{ printf "%6d  %-6s  %s\n", $2, $1, $3 }' "$times"
    printf '%6d  whole run (%s)\n' $((end - run_start)) "$([ "$status" -eq 0 ] && echo 'all tests passed' || echo FAILED)"
  } >&2
  exit "$status"
}
trap summary EXIT
# Stopped from outside: the summary says so (not "all tests passed") and the lanes stop too.
trap 'exit 143' TERM
trap 'exit 130' INT

step 900 "what the tests need, installed when missing" bash -c '
  source scripts/deps.sh
  need_build_deps
  need_apt chromium
  need_cluster_test_deps
  command -v node >/dev/null || need_apt nodejs
  need_typescript
  need_pip playwright=playwright pytest=pytest pytest_timeout=pytest-timeout websockets=websockets prometheus_client=prometheus-client'

# The build, then the API tools' virtualenv; beside them what needs no build: the fuzz targets (swiftc,
# their own directory, the longer of the two), the lint, the line count.
build_log="$steps_dir/build-output.txt"
(
  step 900 "build (warnings are errors)" bash -c '
    swift build --build-tests >"$1" 2>&1; status=$?
    cat "$1"
    [ "$status" -eq 0 ] || exit "$status"
    if grep -E "warning:" "$1" | grep -v "^warning: '\''main'\''" >/dev/null; then
      echo "the build has warnings:"
      grep -E "warning:" "$1" | sort -u
      exit 1
    fi' - "$build_log" &&
    step 600 "the API tools' virtualenv (schemathesis)" bash -c 'source scripts/deps.sh; need_venv .build/api-venv Tests/api/requirements.txt'
) &
lane_pids+=($!)
# The fuzz targets' build had the fuzzing step's 420 s when it ran alone; beside the main build it
# shares the cores with it, so it has the build's limit.
(
  step 900 "fuzz targets' build (Tests/fuzz/run.sh build)" Tests/fuzz/run.sh build &&
    step 180 "swift format lint" swift format lint --strict -r Sources Tests Package.swift &&
    step 30 "no Swift file in Sources/ over 450 lines, no web module over 500" scripts/check-file-lines.sh
) &
lane_pids+=($!)
wait_lanes
bin="$(swift build --show-bin-path)"

pg_dir=$(mktemp -d /tmp/shuffleboard-test-postgres.XXXXXX)
# The tests make a database of their own on it for each test (PostgresStore's, export and import).
printf '\n== PostgreSQL for the store and process tests: a throwaway server (scripts/postgres.sh)\n' >&2
pg_start=$(date +%s)
SHUFFLEBOARD_TEST_POSTGRES=$(timeout 180 scripts/postgres.sh start "$pg_dir") || {
  echo "PostgreSQL did not start within 180 s" >&2
  exit 1
}
printf 'passed\t%d\t%s\n' $(($(date +%s) - pg_start)) "PostgreSQL started" >>"$times"
export SHUFFLEBOARD_TEST_POSTGRES
export SHUFFLEBOARD_BIN="$bin/shuffleboard"

# Lane one: the steps that compute (about 530 s on an idle machine).
(
  step 600 "swift test (the store tests run on SQLite and on PostgreSQL)" swift test --skip-build &&
    step 420 "process tests: the real binary (crash and restart, CLI, board API, transport)" Tests/process/run.sh &&
    step 720 "browser tests (playwright + chromium)" Tests/browser/run.sh &&
    step 120 "web client unit tests (node --test)" node --test Tests/web/*.test.mjs &&
    step 120 "the SDK's types: tsc --noEmit against an example that uses them (Tests/types)" \
      tsc -p Tests/types --noEmit
  # node --test takes the files, not the directory: `node --test DIR` fails on Node 21 and later.
) &
lane_pids+=($!)
# Lane two: the steps that mostly wait (timeouts, failovers, fixed-length runs), then the fuzzers, which
# compute: about 470 s with them, so that neither lane waits long for the other.
(
  step 4860 "cluster tests: PostgreSQL, three nodes and HAProxy; kill -9, SIGSTOP and restart of a board's owner; PostgreSQL failover; partitions" \
    Tests/cluster/run.sh &&
    step 240 "HTTP API against docs/openapi.yaml: openapi-spec-validator, then schemathesis --checks all against a server without and one with --auth-secret (75 s each)" \
      Tests/api/run.sh &&
    step 420 "WebSocket conformance: Autobahn|Testsuite fuzzingclient against --echo-path (sections 1-7, 10)" \
      env AUTOBAHN_TIMEOUT=300 Tests/conformance/run.sh &&
    step 300 "benchmark smoke: every shuffleboard-bench scenario, tiny (numbers are not checked)" \
      bash -c 'SHUFFLEBOARD_LOADGEN="$(scripts/build-loadgen.sh)" "$1/shuffleboard-bench" scenarios --smoke' - "$bin" &&
    step 420 "fuzzing: libFuzzer targets, 20 s each (docs/fuzzing.md)" Tests/fuzz/run.sh 20
) &
lane_pids+=($!)
wait_lanes
