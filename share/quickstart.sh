#!/usr/bin/env bash
# isoflop quick start: install what is missing, build (Release), then run the main job or the tests.
#   share/quickstart.sh          build and run the main job on the built-in data
#   share/quickstart.sh test     build and run the whole test suite through ctest
# Environment: BUILD_DIR (default build), ISOFLOP_CMAKE_ARGS (extra configure arguments), JOBS.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"

packages=(build-essential cmake ninja-build pkg-config ccache groff
          libboost-program-options-dev libboost-math-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
          doctest-dev nlohmann-json3-dev libopenblas-dev libnlopt-dev libnlopt-cxx-dev
          libpugixml-dev python3 python3-jsonschema python3-lxml python3-yaml
          clang-14 libclang-rt-14-dev libomp-14-dev)  # clang: the fuzz targets (share/fuzz.sh)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  echo "quickstart: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

configure_and_build() {
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if [ ! -f "$build/CMakeCache.txt" ]; then
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release ${ISOFLOP_CMAKE_ARGS:-} >/dev/null
  fi
  local log="$build/quickstart-build.log"
  if ! cmake --build "$build" -j "$jobs" >"$log" 2>&1; then
    grep -E "error|FAILED" "$log" | head -40 >&2
    echo "quickstart: build failed; full log in $log" >&2
    return 1
  fi
}

install_missing
configure_and_build

case "${1:-}" in
  "")
    "$build/isoflop" plan --gpus 3360 --gpu a100-sxm4-80gb --days 30
    ;;
  test)
    ctest --test-dir "$build" --output-on-failure -j "$jobs"
    ;;
  *)
    echo "usage: share/quickstart.sh [test]" >&2
    exit 2
    ;;
esac
