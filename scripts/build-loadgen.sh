#!/usr/bin/env bash
# Builds Tools/loadgen.c (the benchmarks' C load generator) into .build/loadgen; prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
if [[ ! .build/loadgen -nt Tools/loadgen.c ]]; then
  gcc -O2 -Wall -Wextra -Werror -o .build/loadgen Tools/loadgen.c
fi
echo "$PWD/.build/loadgen"
