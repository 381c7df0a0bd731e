// Benchmark: the 4,500-start Approach-3 fit on 240 simulated runs (Chinchilla law, 1 % noise).
// Usage: bench_fit_approach3 [--repeat N] [--write-csv FILE] [--threads T]
// Prints the median and best wall time over the repeats, and the fit; --write-csv saves the exact runs for
// tests/bench/fit_scipy.py.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fit/approach3.hpp"
#include "fit/runs.hpp"
#include "fit/simulate.hpp"

using namespace isoflop::fit;

int main(int argc, char** argv) {
  int repeat = 9, threads = 0;
  std::string csv;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--repeat") repeat = std::atoi(argv[i + 1]);
    else if (flag == "--write-csv") csv = argv[i + 1];
    else if (flag == "--threads") threads = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--repeat N] [--write-csv FILE] [--threads T]\n", argv[0]);
      return 2;
    }
  }
  if (repeat < 1) repeat = 1;
  // 9 budgets × 27 sizes = 243 runs; Epoch's outlier rule (drop the highest losses) leaves 240.
  SimulationSpec spec;
  spec.budgets_flops = chinchilla_budgets();
  spec.noise = 0.01;
  spec.seed = 1;
  Selection selection;
  selection.drop_highest_loss = 3;
  const std::vector<Run> runs = select_runs(simulate_runs(spec), selection);
  if (!csv.empty()) {
    FILE* f = std::fopen(csv.c_str(), "w");
    if (!f) return 2;
    std::fprintf(f, "params,tokens,flops,loss\n");
    for (const auto& r : runs) std::fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", r.params, r.tokens, r.flops, r.loss);
    std::fclose(f);
  }
  Approach3Options options;  // Chinchilla's 4,500-start grid, δ = 1e-3, sum, scipy's default tolerances
  options.threads = threads;
  std::vector<double> seconds;
  Approach3Result fit;
  for (int k = 0; k < repeat; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    fit = fit_approach3(runs, options);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  const double median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  std::printf("runs %zu starts %zu evaluations %lld threads %d median_of_%d_s %.4f best_s %.4f\n", runs.size(),
              fit.starts, fit.evaluations, threads > 0 ? threads : omp_get_max_threads(), repeat, median, seconds[0]);
  std::printf("objective %.12g E %.6f A %.4f B %.4f alpha %.6f beta %.6f a %.5f in_best_basin %zu failed %zu\n",
              fit.objective, fit.E, fit.A, fit.B, fit.alpha, fit.beta, fit.a, fit.starts_in_best_basin, fit.starts_failed);
  return 0;
}
