#!/usr/bin/env bash
# Builds Tools/loadgen.c (the benchmarks' C load generator) into .build-bench/loadgen; prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-bench
if [[ ! .build-bench/loadgen -nt Tools/loadgen.c ]]; then
  gcc -O2 -Wall -Wextra -Werror -o .build-bench/loadgen Tools/loadgen.c
fi
echo "$PWD/.build-bench/loadgen"
