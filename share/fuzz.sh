#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer targets (tests/fuzz; clang 14 with ASan and UBSan) and runs each for SECONDS
# (default 30) from its seed corpus (tests/fuzz/corpus/<target>/). Any crash, sanitizer report, uncaught
# exception other than isoflop::Error, broken invariant, hang (> 25 s on one input) or > 2 GB of memory is a
# finding: its input is saved under $BUILD_DIR/findings/ and the script fails.
#   share/fuzz.sh [SECONDS] [TARGET...]   targets: quantity catalog job csv document proposal policy launch
#   (default: all)
# Environment: BUILD_DIR (default build-fuzz), JOBS (build parallelism), FUZZ_CC/FUZZ_CXX (default clang-14).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-fuzz}"
jobs="${JOBS:-$(nproc)}"
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(quantity catalog job csv document proposal policy launch)
case "$seconds" in ''|*[!0-9]*) echo "usage: share/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2 ;; esac

if [ ! -f "$build/CMakeCache.txt" ]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  CC="${FUZZ_CC:-clang-14}" CXX="${FUZZ_CXX:-clang++-14}" cmake -S "$root" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISOFLOP_FUZZ=ON -DISOFLOP_CUDA=OFF -DISOFLOP_TESTS=OFF >/dev/null
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
log="$build/fuzz-build.log"
if ! cmake --build "$build" -j "$jobs" --target "${build_targets[@]}" >"$log" 2>&1; then
  grep -E "error|FAILED" "$log" | head -40 >&2
  echo "fuzz: build failed; full log in $log" >&2
  exit 1
fi

mkdir -p "$build/findings"
failed=()
for t in "${targets[@]}"; do
  # New inputs go to a working corpus in the build folder; the seeds in the tree are only read.
  work="$build/corpus/$t"
  mkdir -p "$work"
  max_len=16384
  [ "$t" = quantity ] && max_len=256
  echo "== fuzz $t: ${seconds}s =="
  if ! ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_release_to_os_interval_ms=-1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
      "$build/fuzz/fuzz_$t" "$work" "$root/tests/fuzz/corpus/$t" \
      -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -max_len="$max_len" \
      -artifact_prefix="$build/findings/$t-" -print_final_stats=1 >"$build/fuzz-$t.log" 2>&1; then
    tail -60 "$build/fuzz-$t.log" >&2
    echo "fuzz: $t found a problem; input saved under $build/findings/, log in $build/fuzz-$t.log" >&2
    failed+=("$t")
  else
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units)" "$build/fuzz-$t.log" | tail -1
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all clean (${targets[*]}, ${seconds}s each)"
