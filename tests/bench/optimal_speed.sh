#!/bin/sh
# Whole-process speed of `isoflop optimal --flops 5.76e23 -o json`: median of 200 runs with hyperfine.
# Usage: tests/bench/optimal_speed.sh [path/to/isoflop]
set -eu
bin=${1:-build/isoflop}
hyperfine -N --warmup 10 --runs 200 "$bin optimal --flops 5.76e23 -o json"
