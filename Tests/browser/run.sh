#!/usr/bin/env bash
# Browser tests of the web client: Playwright for Python driving Debian's chromium headless
# against the real server. Usage: Tests/browser/run.sh [pytest args...]
# Environment: SHUFFLEBOARD_BIN (use this server binary instead of building),
# SHUFFLEBOARD_SCRATCH (SwiftPM scratch path, default .build), SHUFFLEBOARD_UPDATE_SCREENSHOT=1
# (also copy the two-browser screenshot to docs/screenshot.png).
source "$(dirname "$0")/../preamble.sh"
# The browser is Debian's chromium, never `playwright install`: nothing else is downloaded at test time.
need_apt chromium
need_py "playwright, pytest" playwright pytest
server_binary
export SHUFFLEBOARD_TEST_OUTPUT=${SHUFFLEBOARD_TEST_OUTPUT:-$ROOT/test-output}
mkdir -p "$SHUFFLEBOARD_TEST_OUTPUT"

# The tests (each bounds its own waits; the whole run is bounded too).
cd Tests/browser
exec timeout 600 "$PY" -m pytest -q -rs -p no_skips_in_ci -p no:cacheprovider "$@"
