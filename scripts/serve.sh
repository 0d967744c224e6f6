#!/usr/bin/env bash
# Builds and runs the server on http://127.0.0.1:8080/ with boards stored in ./data.
# Extra arguments go to `shuffleboard serve` (see `--help`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
need_build_deps
swift build -c release --product shuffleboard >&2
exec "$(swift build -c release --show-bin-path)/shuffleboard" serve "$@"
