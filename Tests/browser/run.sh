#!/usr/bin/env bash
# Browser tests of the web client: Playwright for Python driving Debian's chromium headless
# against the real server. Usage: Tests/browser/run.sh [pytest args...]
# Environment: SHUFFLEBOARD_BIN (use this server binary instead of building),
# SHUFFLEBOARD_SCRATCH (SwiftPM scratch path, default .build), SHUFFLEBOARD_UPDATE_SCREENSHOT=1
# (also copy the two-browser screenshot to docs/screenshot.png).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

# 1. What the tests need, installed only when missing. Nothing is downloaded at test time
#    beyond these: the browser is Debian's, never `playwright install`.
if ! command -v chromium >/dev/null 2>&1; then
  echo "run.sh: installing Debian chromium" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y chromium >&2; else sudo apt-get install -y chromium >&2; fi
fi
PY=${PYTHON:-python3}
if ! "$PY" -c 'import playwright, pytest' 2>/dev/null; then
  echo "run.sh: installing playwright and pytest from PyPI" >&2
  "$PY" -m pip install --quiet playwright pytest >&2
fi

# 2. The server binary.
if [ -z "${SHUFFLEBOARD_BIN:-}" ]; then
  SCRATCH=${SHUFFLEBOARD_SCRATCH:-.build}
  swift build --scratch-path "$SCRATCH" --product shuffleboard >&2
  SHUFFLEBOARD_BIN="$(swift build --scratch-path "$SCRATCH" --show-bin-path)/shuffleboard"
fi
export SHUFFLEBOARD_BIN
export SHUFFLEBOARD_TEST_OUTPUT=${SHUFFLEBOARD_TEST_OUTPUT:-$ROOT/test-output}
mkdir -p "$SHUFFLEBOARD_TEST_OUTPUT"

# 3. The tests (each bounds its own waits; the whole run is bounded too).
cd Tests/browser
exec timeout 600 "$PY" -m pytest -q -p no:cacheprovider "$@"
