#!/usr/bin/env bash
# The GPU preset of `isoflop validate` in one call, on a machine with one H100/H200 and binaries built elsewhere:
# emit the gpu preset sweep of a law's plan (4 budgets x 6 sizes, 2e16 FLOPs in all), run it here as CUDA train
# jobs (one at a time, so each run's tokens/s is its own), report it, and write everything into one file.
#   tests/gpu/validate.sh [FOLDER]      results in FOLDER/validate-gpu.json (and the sweep folder, without its
#                                      checkpoints, in validate-gpu-sweep.tar.gz), else $OUT, else ./validate-gpu-results
# Environment: ISOFLOP (default <repo>/build-gpu-check/isoflop, with libisoflop_cuda.so beside it), LAW (default
# chinchilla), FLOPS (the plan's full budget, default 1e21), RUN_BUDGET_S (seconds for the runs, default 400: the
# runs still going then are interrupted and resume on the next call), JOBS (runs at a time, default 1), PRESET
# (default gpu; smoke tries the script on a CPU).
# Exit status: 0 when the sweep ran and was reported, 1 otherwise.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
isoflop="${ISOFLOP:-$root/build-gpu-check/isoflop}"
out="${1:-${OUT:-$PWD/validate-gpu-results}}"
work="$(mktemp -d "${TMPDIR:-/tmp}/isoflop-validate-gpu.XXXXXX")"
sweep="$work/sweep"
results="$out/validate-gpu.json"
start=$(date +%s)
mkdir -p "$out"
say() { echo "validate-gpu: $*" >&2; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$work/gpu.txt" 2>&1
say "$(cat "$work/gpu.txt")"

code=0
"$isoflop" validate --flops "${FLOPS:-1e21}" --law "${LAW:-chinchilla}" --preset "${PRESET:-gpu}" --emit "$sweep" -q \
  -o json > "$work/design.json" 2> "$work/design.err" || code=$?
if [ "$code" -eq 0 ]; then
  say "running $(grep -c '"id"' "$work/design.json") runs, at most ${RUN_BUDGET_S:-400} s"
  timeout --signal=INT --kill-after=30 "${RUN_BUDGET_S:-400}" \
    "$isoflop" validate run "$sweep" -j "${JOBS:-1}" > "$work/run.out" 2> "$work/run.err"
  run_code=$?
  "$isoflop" validate report "$sweep" -o json > "$work/report.json" 2> "$work/report.err"
  report_code=$?
fi

# One file: the GPU, the sweep document, each run's train document (its curve left out), the runner's lines and
# the report with its exit status.
python3 - "$work" "$sweep" "$results" "$code" "${run_code:-null}" "${report_code:-null}" "$(( $(date +%s) - start ))" <<'PY'
import json, os, sys
work, sweep, results, code, run_code, report_code, total_s = sys.argv[1:]
def text(name):
    path = os.path.join(work, name)
    return open(path, errors="replace").read() if os.path.exists(path) else None
def document(name):
    try:
        return json.loads(text(name) or "null")
    except ValueError:
        return {"unreadable": text(name)}
runs = {}
design = document("design.json")
for run in (design or {}).get("runs", []):
    path = os.path.join(sweep, run["folder"], "results.json")
    if os.path.exists(path):
        r = json.load(open(path))
        r.pop("curve", None)
        runs[run["id"]] = r
    else:
        failed = os.path.join(sweep, run["folder"], "failed.txt")
        runs[run["id"]] = {"failed": open(failed).read().strip()} if os.path.exists(failed) else None
out = {"schema": "isoflop/validate-gpu/v1", "gpu": (text("gpu.txt") or "").strip(), "total_s": int(total_s),
       "design_exit": int(code), "design_errors": text("design.err"), "sweep": design,
       "run_exit": None if run_code == "null" else int(run_code), "run_log": text("run.err"), "runs": runs,
       "report_exit": None if report_code == "null" else int(report_code), "report": document("report.json"),
       "report_errors": text("report.err")}
with open(results + ".tmp", "w") as f:
    json.dump(out, f, indent=1)
os.replace(results + ".tmp", results)
PY
# The sweep folder without its checkpoints, to report again elsewhere ('isoflop validate report sweep').
tar czf "$out/validate-gpu-sweep.tar.gz" -C "$work" --exclude=checkpoint.bin sweep 2>/dev/null
say "results in $results ($(( $(date +%s) - start )) s)"
[ "$code" -eq 0 ] && [ "${run_code:-1}" -eq 0 ] && [ "${report_code:-1}" -eq 0 ]
