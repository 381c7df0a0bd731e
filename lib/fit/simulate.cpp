// Simulating IsoFLOP sweeps from a known law with seeded log-normal noise.
#include "fit/simulate.hpp"

#include <cmath>
#include <random>

#include "core/error.hpp"

namespace isoflop::fit {

double TrueLaw::loss(double n, double d) const {
  const double reducible = A / std::pow(n, alpha) + B / std::pow(d, beta);
  return E + (gamma == 1 ? reducible : std::pow(reducible, gamma));
}

std::vector<double> chinchilla_budgets() { return {6e18, 1e19, 3e19, 6e19, 1e20, 3e20, 6e20, 1e21, 3e21}; }

std::vector<Run> simulate_runs(const SimulationSpec& s) {
  if (!(s.min_tokens_per_param > 0 && s.min_tokens_per_param < s.max_tokens_per_param))
    throw InputError("simulation: need 0 < min_tokens_per_param < max_tokens_per_param");
  if (s.sizes.empty() && s.sizes_per_budget < 2) throw InputError("simulation: sizes_per_budget must be at least 2");
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<Run> runs;
  for (double c : s.budgets_flops) {
    // D/N = C/(6N²) ⇒ N = sqrt(C / (6·D/N)).
    const double n_max = std::sqrt(c / (6 * s.min_tokens_per_param)), n_min = std::sqrt(c / (6 * s.max_tokens_per_param));
    std::vector<double> sizes;
    if (s.sizes.empty()) {
      for (int i = 0; i < s.sizes_per_budget; ++i)
        sizes.push_back(n_min * std::pow(n_max / n_min, static_cast<double>(i) / (s.sizes_per_budget - 1)));
    } else {
      for (double n : s.sizes)
        if (n >= n_min && n <= n_max) sizes.push_back(n);
    }
    for (double n : sizes) {
      Run r;
      r.params = n;
      r.flops = c;
      r.tokens = c / (6 * n);
      r.loss = s.law.loss(n, r.tokens) * std::exp(s.noise * normal(rng));
      runs.push_back(r);
    }
  }
  return runs;
}

}  // namespace isoflop::fit
