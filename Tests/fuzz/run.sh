#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) and runs each for a bounded time on its
# committed seed corpus. Fails, keeping the input, when a target crashes or breaks an invariant.
#
#   Tests/fuzz/run.sh [SECONDS] [TARGET...]    SECONDS per target (default 20); targets json message hub
#   Tests/fuzz/run.sh build                    only build; prints the directory with the binaries
#
# The modules under test are compiled straight from Sources/ with swiftc, one module at a time,
# the way SwiftPM would (same module names, `-package-name`), but instrumented for libFuzzer and
# without an entry point of their own: libFuzzer brings `main`. BoardStore is compiled without its
# SQLite files (the hub needs only the store's types, and the driver uses `MemoryStore`).
# Binaries are cached under .build/fuzz/<hash of sources, flags and toolchain>/; what a run adds
# to the corpus is dropped unless FUZZ_KEEP_CORPUS=1 (then it grows in .build/fuzz/corpus/<target>/,
# never committed); crashes go to test-output/fuzz/. See docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=20
build_only=""
if [ "${1:-}" = build ]; then
  build_only=1
  shift
elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json message hub)

fuzz=Tests/fuzz
basics=(Sources/Basics/*.swift)
core=(Sources/BoardCore/*.swift)
store=(Sources/BoardStore/{BoardStore,ClusterStore,MemoryStore,MemoryStore+Links,MemoryStore+Webhooks,Webhook,MemorySearchIndex,Search,SearchIndexing,MemoryClusterStore,BoardArchive,ReadGuard,Revocation,PipelinedWrites,StoreCapabilities,Comments,ShareLink,TrelloImport,TrelloImport+Values,BoardCSV,Inbox,MemoryStore+Inbox,MemberGrant,MemoryStore+Grants}.swift)
auth=(Sources/BoardAuth/*.swift)
metrics=(Sources/BoardMetrics/*.swift)
# Webhooks without I/O (the hub checks webhook URLs with it).
hooks=(Sources/BoardHooks/*.swift)
hub=(Sources/BoardHub/*.swift Sources/BoardHub/*/*.swift)
# What answers the hub's reads against the store (BoardServer, the transport, is not needed).
reads=(Sources/BoardReads/*.swift)
# -O with assertions kept (-assert-config Debug), so that runs are fast and every check still fires.
flags=(-swift-version 6 -package-name shuffleboard -parse-as-library -sanitize=fuzzer,address -O -g
  -assert-config Debug -use-ld=lld)

hash=$({
  swiftc --version 2>&1
  echo "${flags[@]}"
  cat "$fuzz/run.sh" "${basics[@]}" "${core[@]}" "${store[@]}" "${auth[@]}" "${metrics[@]}" "${hooks[@]}" "${hub[@]}" "${reads[@]}" "$fuzz"/*.swift
} | sha256sum | cut -c1-16)
out=.build/fuzz/$hash

build() {
  local log
  log=$(mktemp)
  mkdir -p "$out.tmp"
  rm -rf "${out:?}.tmp"/*
  # module NAME SOURCES...: one module, as an object file and a .swiftmodule.
  module() {
    local name=$1
    shift
    # Sources/CCrypto holds the module map of OpenSSL's libcrypto, which BoardAuth imports.
    swiftc "${flags[@]}" -wmo -module-name "$name" -I "$out.tmp" -I Sources/CCrypto -emit-module-path "$out.tmp/$name.swiftmodule" \
      -c -o "$out.tmp/$name.o" "$@"
  }
  # target NAME SOURCE OBJECTS...: one fuzz target, linked with libFuzzer's main.
  target() {
    local name=$1 source=$2
    shift 2
    swiftc "${flags[@]}" -module-name "Fuzz_$name" -I "$out.tmp" -I Sources/CCrypto -lcrypto -o "$out.tmp/fuzz-$name" \
      "$source" "$fuzz/FuzzInput.swift" "$@"
  }
  echo "building the fuzz targets in $out" >&2
  # Chained with &&: `set -e` does not apply inside a list whose status is tested.
  {
    module Basics "${basics[@]}" &&
      module BoardCore "${core[@]}" &&
      module BoardStore "${store[@]}" &&
      module BoardAuth "${auth[@]}" &&
      module BoardMetrics "${metrics[@]}" &&
      module BoardHooks "${hooks[@]}" &&
      module BoardHub "${hub[@]}" &&
      module BoardReads "${reads[@]}" &&
      target json "$fuzz/JSONFuzz.swift" "$out.tmp"/{Basics,BoardCore}.o &&
      target message "$fuzz/MessageFuzz.swift" "$out.tmp"/{Basics,BoardCore}.o &&
      target hub "$fuzz/HubFuzz.swift" "$out.tmp"/{Basics,BoardCore,BoardStore,BoardAuth,BoardMetrics,BoardHooks,BoardHub,BoardReads}.o
  } >"$log" 2>&1 || {
    cat "$log" >&2
    echo "building the fuzz targets failed" >&2
    exit 1
  }
  if grep -q "warning:" "$log"; then
    grep "warning:" "$log" | sort -u >&2
    echo "the fuzz targets build with warnings" >&2
    exit 1
  fi
  rm -f "$log"
  rm -rf "$out"
  mv "$out.tmp" "$out"
  # Older builds are of no use any more.
  find .build/fuzz -mindepth 1 -maxdepth 1 -type d -regextype egrep -regex '.*/[0-9a-f]{16}' ! -path "$out" \
    -exec rm -rf {} +
}

[ -x "$out/fuzz-hub" ] || build
if [ -n "$build_only" ]; then
  echo "$out"
  exit 0
fi

# The Swift runtime's backtracer would stop a crashing target to symbolicate; libFuzzer and
# AddressSanitizer print the stack themselves.
export SWIFT_BACKTRACE=enable=no
mkdir -p test-output/fuzz
status=0
for target in "${targets[@]}"; do
  case $target in
    json) options=(-max_len=8192 -dict="$fuzz/json.dict") ;;
    message) options=(-max_len=4096 -dict="$fuzz/json.dict") ;;
    # Sequences need length: grow inputs to the limit at once (more coverage in a short run).
    hub) options=(-max_len=2048 -len_control=0) ;;
    *)
      echo "unknown fuzz target $target (json, message, hub)" >&2
      exit 2
      ;;
  esac
  # What a run finds is thrown away unless FUZZ_KEEP_CORPUS is set (then it grows in .build/fuzz/corpus/):
  # replaying a large corpus would eat a short run's whole budget.
  if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
    corpus=.build/fuzz/corpus/$target
  else
    corpus=.build/fuzz/run/$target
    rm -rf "$corpus"
  fi
  mkdir -p "$corpus"
  log=test-output/fuzz/$target.log
  echo "fuzzing $target for ${seconds}s (seeds in $fuzz/corpus/$target, log in $log)" >&2
  # -timeout: one input that takes 10 s is a hang; -rss_limit_mb: a bound on the heap.
  if "$out/fuzz-$target" "${options[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="test-output/fuzz/$target-" -print_final_stats=1 "$corpus" "$fuzz/corpus/$target" \
    >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    echo "  $target: ${runs:-?} inputs, peak RSS ${rss:-?} MB, nothing found" >&2
  else
    status=1
    grep -E "fuzz invariant violated|ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|SUMMARY|Test unit written" \
      "$log" >&2 || tail -40 "$log" >&2
    input=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    echo "fuzz target $target failed; its input is ${input:-in $log}; reproduce with:" >&2
    echo "  FUZZ_TRACE=1 $out/fuzz-$target ${input:-test-output/fuzz/$target-<crash file>}" >&2
  fi
done
exit $status
