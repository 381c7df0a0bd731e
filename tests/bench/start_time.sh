#!/usr/bin/env bash
# Whole-process start time and memory of every non-train command: the median wall time of N runs (bash's
# $EPOCHREALTIME around each run, output to /dev/null) and the largest maximum resident set size of the same
# command run under /usr/bin/time -f %M. The commands are the golden invocations of tests/golden.
#   tests/bench/start_time.sh [path/to/isoflop] [runs]      defaults: build/isoflop, 50 runs
# Prints one line per command: name, median ms, min ms, max RSS MB.
set -euo pipefail

bin="${1:-build/isoflop}"
runs="${2:-50}"
[ -x "$bin" ] || { echo "start_time.sh: no executable $bin" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "start_time.sh: needs /usr/bin/time (Debian package time)" >&2; exit 2; }

commands=(
  "version|--version"
  "optimal|optimal --flops 5.76e23 --law chinchilla -o json"
  "loss|loss --params 6.34B --tokens 242B --unique-tokens 25B --law muennighoff-2023 -o json"
  "flops|flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron -o json"
  "cost|cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --grid fr --whatif -o json"
  "arch|arch --params 70B --tp 8 -o json"
  "catalog|catalog hardware -o json"
  "plan|plan --gpus 3360 --gpu a100-sxm4-80gb --days 30 -o json"
)

printf '%-8s %10s %8s %11s\n' command median_ms min_ms max_rss_mb
for entry in "${commands[@]}"; do
  name="${entry%%|*}"
  read -r -a args <<<"${entry#*|}"
  "$bin" "${args[@]}" >/dev/null 2>&1 || true  # warm the page cache
  times=()
  for ((i = 0; i < runs; i++)); do
    t0=$EPOCHREALTIME
    "$bin" "${args[@]}" >/dev/null 2>&1
    t1=$EPOCHREALTIME
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) * 1000 }')")
  done
  rss=0
  for ((i = 0; i < 5; i++)); do
    kb=$(/usr/bin/time -f %M "$bin" "${args[@]}" 2>&1 >/dev/null | tail -1)
    [ "$kb" -gt "$rss" ] && rss=$kb
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v name="$name" -v rss="$rss" '
    { t[NR] = $1 }
    END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
          printf "%-8s %10.2f %8.2f %11.1f\n", name, m, t[1], rss / 1024 }'
done
