// Timing sgemm with the trainer's threads for the CPU's peak.
#include "train/cpu/sgemm_peak.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace isoflop::train {

double measure_sgemm_peak_flops() {
  constexpr int n = 512;
  const int threads = omp_get_max_threads();
  std::vector<std::vector<float>> a(threads), c(threads);
  for (int t = 0; t < threads; ++t) {
    a[t].assign(static_cast<size_t>(n) * n, 0.5f / static_cast<float>(t + 1));
    c[t].assign(a[t].size(), 0.0f);
  }
  double best = 1e30;
  for (int round = 0; round < 4; ++round) {  // the first round warms the pool and the caches
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a[t].data(), n, a[t].data(), n, 0.0f,
                  c[t].data(), n);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (round > 0) best = std::min(best, s);
  }
  return 2.0 * n * n * static_cast<double>(n) * threads / best;
}

}  // namespace isoflop::train
