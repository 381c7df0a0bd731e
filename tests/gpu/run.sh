#!/usr/bin/env bash
# The GPU check in one go, on a machine with an NVIDIA GPU: build with CUDA (Release), run the CUDA-vs-CPU
# parity tests, a short training job in bf16 and in fp32, and the throughput benchmark (GPT-2-small shape and
# a tiny shape), then write one results file. Every step has a timeout and the whole run stays under about
# eight minutes; a failed step is recorded and the next one still runs.
#   tests/gpu/run.sh                  results in $OUT, or ./gpu-results when OUT is unset
# Environment: BUILD_DIR (default <repo>/build-gpu-check; an existing build is reused), JOBS (default nproc),
# OUT, GPU_BUDGET_S (default 470), PREBUILT=1 (BUILD_DIR already holds isoflop, libisoflop_cuda.so and tests/test_gpu built on another
# machine: no packages are installed and nothing is built, for a GPU machine without a package archive).
# Exit status: 0 when every step passed, 1 otherwise.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-gpu-check}"
jobs="${JOBS:-$(nproc)}"
out="${OUT:-$PWD/gpu-results}"
work="$build/gpu-check"  # job outputs (checkpoints are large): kept out of $out
results="$out/gpu-results.json"
logs="$out/logs"
start=$(date +%s)
total_budget_s="${GPU_BUDGET_S:-470}"  # the whole run, seconds
mkdir -p "$out" "$logs"

# Debian packages the build needs: the same list as share/quickstart.sh.
packages=(build-essential cmake ninja-build pkg-config ccache groff
          libboost-program-options-dev libboost-math-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
          doctest-dev nlohmann-json3-dev libopenblas-dev libnlopt-dev libnlopt-cxx-dev)

say() { echo "gpu-check: $*" >&2; }
elapsed() { echo $(( $(date +%s) - start )); }
json_string() { printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\n\t' '  ')"; }

# Step records, joined into the results file at the end.
records=()
failed=0
record() {  # name status seconds [extra JSON members]
  local name="$1" status="$2" seconds="$3" extra="${4:-}"
  [ "$status" = ok ] || failed=1
  records+=("$(json_string "$name"): {\"status\": $(json_string "$status"), \"seconds\": $seconds${extra:+, $extra}}")
  say "$name: $status (${seconds}s)"
}

# Seconds a step may take: its own cap, or what is left of the whole budget.
budget() {
  local left=$(( total_budget_s - $(elapsed) ))
  [ "$left" -lt "$1" ] && echo $(( left > 5 ? left : 5 )) || echo "$1"
}

# Runs a command under a timeout; SIGINT first (isoflop train then saves and writes its partial results).
timed() {  # seconds log command...
  local seconds="$1" log="$2"
  shift 2
  timeout --signal=INT --kill-after=15 "$seconds" "$@" >"$log" 2>&1
}
status_of() {  # exit code → ok | timeout | failed (exit N)
  case "$1" in
    0) echo ok ;;
    124 | 130 | 137) echo timeout ;;
    *) echo "failed (exit $1)" ;;
  esac
}

write_results() {
  local gpu driver commit
  gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  {
    echo "{"
    echo "  \"schema\": \"isoflop/gpu-check/v1\","
    echo "  \"date\": $(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)"),"
    echo "  \"gpu\": $(json_string "$gpu"),"
    echo "  \"driver\": $(json_string "$driver"),"
    echo "  \"commit\": $(json_string "$commit"),"
    echo "  \"total_s\": $(elapsed),"
    echo "  \"passed\": $([ "$failed" -eq 0 ] && echo true || echo false),"
    echo "  \"steps\": {"
    local i
    for i in "${!records[@]}"; do
      printf '    %s%s\n' "${records[$i]}" "$([ "$i" -lt $((${#records[@]} - 1)) ] && echo ,)"
    done
    echo "  }"
    echo "}"
  } >"$results.tmp" && mv "$results.tmp" "$results"
  say "results in $results"
}

# ---- packages -------------------------------------------------------------------------------------------
missing=()
[ "${PREBUILT:-0}" = 1 ] && packages=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  t0=$(date +%s)
  sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  say "installing ${missing[*]}"
  if timed "$(budget 150)" "$logs/packages.log" bash -c "${sudo[*]} apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive ${sudo[*]} apt-get install -y -qq --no-install-recommends ${missing[*]}"; then
    record packages ok $(( $(date +%s) - t0 )) "\"installed\": $(json_string "${missing[*]}")"
  else
    record packages "failed" $(( $(date +%s) - t0 )) "\"missing\": $(json_string "${missing[*]}")"
  fi
fi

# ---- build ----------------------------------------------------------------------------------------------
command -v nvidia-smi >/dev/null && nvidia-smi >"$logs/nvidia-smi.txt" 2>&1
t0=$(date +%s)
generator=()  # only for a fresh build folder: an existing one keeps its generator
[ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null && generator=(-G Ninja)
if [ "${PREBUILT:-0}" = 1 ]; then
  test -x "$build/isoflop" && test -f "$build/libisoflop_cuda.so" && test -x "$build/tests/test_gpu"
  code=$?
  record build "$([ $code -eq 0 ] && echo ok || echo "failed (prebuilt files missing)")" 0 '"prebuilt": true'
else
  timed "$(budget 330)" "$logs/build.log" bash -c "
    cmake -S '$root' -B '$build' ${generator[*]} -DCMAKE_BUILD_TYPE=Release -DISOFLOP_CUDA=ON &&
    cmake --build '$build' -j '$jobs' --target isoflop isoflop_cuda test_gpu"
  code=$?
  record build "$(status_of $code)" $(( $(date +%s) - t0 ))
fi
# The binary links no CUDA library: `train` loads libisoflop_cuda.so only for a cuda job.
ldd "$build/isoflop" >"$logs/ldd.txt" 2>&1
if [ "$code" -ne 0 ]; then
  grep -E "error|FAILED" "$logs/build.log" | head -40 >&2
  write_results
  exit 1
fi
isoflop="$build/isoflop"
test_gpu="$build/tests/test_gpu"

# ---- parity: the CUDA backend against the CPU reference ------------------------------------------------------
t0=$(date +%s)
# test_gpu loads the CUDA module (built next to isoflop) as `train` does; it is not next to it, so name it.
timed "$(budget 120)" "$logs/parity.log" env ISOFLOP_CUDA_MODULE="$build/libisoflop_cuda.so" "$test_gpu"
code=$?
summary="$(grep -E '^\[doctest\] (test cases|assertions):' "$logs/parity.log" | tr -s ' ' | paste -sd ';' -)"
skipped=$(grep -c "gpu test skipped" "$logs/parity.log")
status="$(status_of $code)"
[ "$code" -eq 0 ] && [ "$skipped" -gt 0 ] && status="skipped (no device)"
record parity "$status" $(( $(date +%s) - t0 )) "\"summary\": $(json_string "$summary")"

# ---- training jobs and benchmarks through `isoflop train` -------------------------------------------------------
mkdir -p "$work" "$out/jobs"

# job NAME LAYERS D_MODEL HEADS SEQ VOCAB BATCH TOKENS PRECISION DATA_TOKENS LR EVAL_EVERY
job() {
  cat >"$work/$1.yaml" <<EOF
# $1: written by tests/gpu/run.sh
model: {layers: $2, d_model: $3, heads: $4, seq: $5, vocab: $6}
train: {tokens: $8, batch: $7, lr: ${11}, warmup: $(( $7 * $5 * 8 )), weight_decay: 0.1, clip: 1.0, seed: 1}
data: {source: markov, tokens: ${10}, order: 1, branching: 8, seed: 1, val_fraction: 0.1}
backend: cuda
precision: $9
eval: {every: ${12}, tokens: $(( $7 * $5 ))}
checkpoint: {every: 0}
output: $1-run
EOF
  cp "$work/$1.yaml" "$out/jobs/"
}

run_job() {  # name cap_s
  local name="$1" t0 code
  t0=$(date +%s)
  rm -rf "$work/$name-run"  # an old checkpoint would make the run refuse to start
  timed "$(budget "$2")" "$logs/$name.log" "$isoflop" train "$work/$name.yaml" -o json
  code=$?
  local result="null"
  if [ -s "$work/$name-run/results.json" ]; then
    mkdir -p "$out/$name"
    cp "$work/$name-run/results.json" "$work/$name-run/loss_curve.csv" "$out/$name/" 2>/dev/null
    result="$(cat "$work/$name-run/results.json")"
  fi
  record "$name" "$(status_of $code)" $(( $(date +%s) - t0 )) "\"result\": $result"
}

# Short training runs on the markov source (entropy floor known): bf16 (the training mode) and fp32.
job train-bf16 2 128 4 128 64 32 2000000 bf16 1000000 3e-3 100
job train-fp32 2 128 4 128 64 32 2000000 fp32 1000000 3e-3 100
run_job train-bf16 60
run_job train-fp32 60

# Throughput: the GPT-2-small shape (12 layers, d 768, 12 heads, seq 1024, vocab 50257), bf16, 64 steps of
# 16 sequences; then a tiny shape. tokens_per_s, achieved_tflops and mfu are in each result.
job bench-gpt2-small-bf16 12 768 12 1024 50257 16 1048576 bf16 2000000 6e-4 0
job bench-tiny-d256-bf16 4 256 4 256 256 32 4194304 bf16 5000000 1e-3 0
run_job bench-gpt2-small-bf16 150
run_job bench-tiny-d256-bf16 60

write_results
exit "$failed"
