// Benchmark: CPU training throughput (tokens/s, GFLOP/s) for 4 layers, d 256, 4 heads, seq 256, batch 16,
// against the machine's fp32 GEMM peak measured in the same run (a large cblas_sgemm), and the ratio.
// Run: cmake --build build --target bench_train_cpu && build/tests/bench_train_cpu [steps]
// (`isoflop train` picks OpenBLAS's AVX-512/AVX2 kernels itself when OpenBLAS falls back to Prescott; this
// benchmark reports what it got: set OPENBLAS_CORETYPE=SkylakeX to compare.)
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/flops.hpp"
#include "train/backend.hpp"
#include "train/cpu/sgemm_peak.hpp"
#include "train/layout.hpp"
#include "train/optimizer.hpp"
#include "train/rng.hpp"
#include "train/trainer.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Best of several n×n×n sgemm calls: 2n³ FLOPs each.
double sgemm_peak_flops(int n, int repeats) {
  std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size());
  isoflop::train::Rng rng(1);
  for (auto& x : a) x = static_cast<float>(rng.uniform() - 0.5);
  for (auto& x : b) x = static_cast<float>(rng.uniform() - 0.5);
  double best = 1e30;
  for (int r = 0; r < repeats + 1; ++r) {
    const auto t = Clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    const double s = seconds_since(t);
    if (r > 0) best = std::min(best, s);  // the first call warms the thread pool and caches
  }
  return 2.0 * n * n * static_cast<double>(n) / best;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace isoflop;
  const int steps = argc > 1 ? std::atoi(argv[1]) : 10;
  const train::ModelConfig config{4, 256, 4, 256, 256};  // vocabulary 256: byte-level text
  const int batch = 16;

  const double peak = sgemm_peak_flops(2048, 5);

  const double flops_per_token =
      model::chinchilla_training_flops_per_sequence(train::architecture_of(config), config.seq) / config.seq;

  auto backend = train::make_cpu_backend(config, batch);
  const auto layout = train::parameter_layout(config);
  std::vector<float> params(layout.total);
  train::init_parameters(config, layout, 1, params.data());
  backend->set_parameters(params.data());
  const size_t span = static_cast<size_t>(batch) * config.seq;
  std::vector<int32_t> tokens(span + 1);
  train::Rng rng(2);
  for (auto& t : tokens) t = static_cast<int32_t>(rng.below(config.vocab));
  auto step = [&](long long t) {
    backend->forward_backward(tokens.data(), tokens.data() + 1);
    train::AdamWStep s;
    s.lr = 1e-3;
    s.t = t;
    s.grad_scale = train::clip_scale(backend->grad_norm(), 1.0);
    backend->update(s);
  };
  step(1);  // warm-up: first touch of every buffer
  const auto start = Clock::now();
  for (int i = 0; i < steps; ++i) step(i + 2);
  const double seconds = seconds_since(start);
  const double tokens_per_s = static_cast<double>(span) * steps / seconds;
  const double achieved = tokens_per_s * flops_per_token;

  std::printf("threads: %d (OpenMP), OpenBLAS kernels %s, sgemm peak (2048^3, best of 5): %.1f GFLOP/s\n",
              omp_get_max_threads(), openblas_get_corename(), peak / 1e9);
  std::printf("train 4 layers, d 256, 4 heads, seq 256, batch 16, V 256 (%zu params): %.1f ms/step over %d steps\n",
              layout.total, 1e3 * seconds / steps, steps);
  std::printf("  %.0f tokens/s, %.1f GFLOP/s (chinchilla App. F: %.3g FLOPs/token), %.1f %% of the sgemm peak\n",
              tokens_per_s, achieved / 1e9, flops_per_token, 100.0 * achieved / peak);
  const double trainer_peak = train::measure_sgemm_peak_flops();  // what `isoflop train` reports MFU against
  std::printf("  MFU as the trainer reports it: %.1f %% of %.1f GFLOP/s (512^3 per thread, single-threaded BLAS)\n",
              100.0 * achieved / trainer_peak, trainer_peak / 1e9);
  std::printf("  memory: %.1f MiB allocated by the backend\n", static_cast<double>(backend->memory_bytes()) / 1048576.0);
  return 0;
}
