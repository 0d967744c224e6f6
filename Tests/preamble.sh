#!/usr/bin/env bash
# What every test runner (Tests/process, Tests/browser, Tests/cluster, Tests/conformance run.sh)
# does first, in one place. Sourced: `source "$(dirname "$0")/../preamble.sh"`. It sets -euo
# pipefail, makes the repository root the working directory (ROOT), sources scripts/deps.sh, and
# sets PY (PYTHON, default python3) and puts Tests/pytest-plugins on PYTHONPATH. Then:
#   need_py "MODULE, MODULE" PACKAGE...   installs PACKAGEs from PyPI for $PY unless it imports the modules
#   server_binary                         exports SHUFFLEBOARD_BIN: as given, or built (SwiftPM scratch
#                                         path SHUFFLEBOARD_SCRATCH, default .build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
source scripts/deps.sh
PY=${PYTHON:-python3}
# The pytest plugins the runners load with -p (Tests/pytest-plugins: no_skips_in_ci, under CI=true
# a skipped test fails the run).
export PYTHONPATH="$ROOT/Tests/pytest-plugins${PYTHONPATH:+:$PYTHONPATH}"

need_py() {
  local modules=$1
  shift
  "$PY" -c "import $modules" 2>/dev/null && return 0
  echo "run.sh: installing $* from PyPI" >&2
  "$PY" -m pip install --quiet "$@" >&2
}

server_binary() {
  if [ -z "${SHUFFLEBOARD_BIN:-}" ]; then
    need_build_deps
    local scratch=${SHUFFLEBOARD_SCRATCH:-.build}
    swift build --scratch-path "$scratch" --product shuffleboard >&2
    SHUFFLEBOARD_BIN="$(swift build --scratch-path "$scratch" --show-bin-path)/shuffleboard"
  fi
  export SHUFFLEBOARD_BIN
}
