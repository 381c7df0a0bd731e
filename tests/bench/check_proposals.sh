#!/bin/sh
# Whole-process speed of `isoflop check` over 500 proposals in one call: the five example proposals, each
# copied 100 times with its own token count (1T to 1.99T, so every copy is planned afresh), against the default
# policy.
# Prints the wall-clock seconds of the one call and the seconds per proposal.
# Usage: tests/bench/check_proposals.sh [path/to/isoflop]
set -eu
bin=${1:-build/isoflop}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for f in "$root"/share/examples/proposals/*.yaml; do
  name=$(basename "$f" .yaml)
  i=0
  while [ $i -lt 100 ]; do
    sed "s/^tokens: .*/tokens: $((1000 + i * 10))B/" "$f" > "$dir/$name-$i.yaml"
    i=$((i + 1))
  done
done
n=$(ls "$dir"/*.yaml | wc -l)
start=$(date +%s.%N)
status=0
"$bin" check "$dir"/*.yaml --policy "$root/share/examples/policies/default.yaml" -o json -q > "$dir/out.json" || status=$?
end=$(date +%s.%N)
[ "$status" -le 1 ] || { echo "check exited $status" >&2; exit 1; }
echo "$n proposals in one call: $(echo "$end - $start" | bc) s, $(echo "scale=4; ($end - $start) / $n" | bc) s per proposal"
