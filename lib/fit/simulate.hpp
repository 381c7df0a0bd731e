// Simulated runs from a known law, for tests and benchmarks: IsoFLOP sweeps with log-normal noise.
#pragma once

#include <cstdint>
#include <vector>

#include "fit/runs.hpp"

namespace isoflop::fit {

struct TrueLaw {
  double E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28;  // Hoffmann et al. 2022, eq. 10 (rounded)
  double gamma = 1;  // L = E + (A/N^α + B/D^β)^γ: 1 is the additive law (fit/interaction.hpp)
  double loss(double params, double tokens) const;
};

struct SimulationSpec {
  TrueLaw law;
  std::vector<double> budgets_flops;   // IsoFLOP budgets C
  // Model sizes to draw from; a size is used at a budget when its tokens per parameter D/N = C/(6N²)
  // lies in [min_tokens_per_param, max_tokens_per_param]. Empty: `sizes_per_budget` log-spaced sizes
  // spanning that window at each budget.
  std::vector<double> sizes;
  // The defaults (27 sizes per budget, D/N from 1 to 3,000) span the tokens-per-parameter range of
  // Chinchilla's IsoFLOP and training-horizon runs (Hoffmann et al. 2022, §3.1–3.2, Table A9 sizes).
  int sizes_per_budget = 27;
  double min_tokens_per_param = 1, max_tokens_per_param = 3000;
  double noise = 0.01;                 // σ of the multiplicative log-normal noise on the loss
  std::uint64_t seed = 1;
};

// Runs (params, tokens = C/(6N), flops = C, loss = L(N, D)·exp(σ·z)), deterministic for a seed.
std::vector<Run> simulate_runs(const SimulationSpec& spec);

// Chinchilla's nine IsoFLOP budgets, 6e18 … 3e21 FLOPs (Hoffmann et al. 2022, Fig. 3).
std::vector<double> chinchilla_budgets();

}  // namespace isoflop::fit
