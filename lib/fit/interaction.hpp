// Approach 3 with an interaction exponent: L(N, D) = E + (A/N^α + B/D^β)^γ, fitted like Chinchilla's law (Huber
// loss of log residuals, L-BFGS from a grid of starts).
//
// γ = 1 is Hoffmann et al. 2022's eq. 2. Kaplan et al. 2020's eq. 1.5, L = [(N_c/N)^(α_N/α_D) + D_c/D]^α_D, is the
// case E = 0, β = 1, γ = α_D. With γ < 1 the larger of the two shortfalls dominates the reducible loss: a
// bottleneck, where adding data does little for a model too small to use it and the other way round, which an
// additive law cannot express. At fixed compute C = 6ND the loss is least where A/N^α + B/D^β is, whatever γ, so
// the allocation is eq. 4's: a = β/(α+β), G = (αA/(βB))^(1/(α+β)).
#pragma once

#include <array>
#include <vector>

#include "fit/approach3.hpp"
#include "fit/descent_rules.hpp"
#include "fit/runs.hpp"

namespace isoflop::fit {

// Parameters in the fitted space: (a, b, e, α, β, g) with A = e^a, B = e^b, E = e^e, γ = e^g; the first five are
// indexed as LawIndex.
using InteractionPoint = std::array<double, 6>;
inline constexpr int kLogGamma = 5;

struct InteractionOptions {
  double huber_delta = 1e-3;  // as Approach 3 (Hoffmann et al. 2022, §3.3)
  // Starts: every point of `grid` at every γ₀ of `gammas`, with a, b, α and β divided by γ₀ so that the
  // reducible loss starts near the additive law of that grid point (γ₀·α is the exponent L falls with in N
  // alone); fit_interaction also takes extra starts (the Chinchilla optimum at γ = 1).
  InitGrid grid = coarse_grid();
  std::vector<double> gammas = {1.0, 0.7, 0.5, 0.35};
  // γ is kept within [e^min_log_gamma, e^max_log_gamma] = [0.018, 7.4]. Beyond it the data cannot tell γ apart
  // from the other parameters: as γ → 0 the reducible loss becomes max(A/N^α, B/D^β)^γ with α, β and the scale
  // growing as 1/γ, and as γ grows the two terms' sum is again one power of the larger, so a descent drifts
  // along a ridge instead of stopping.
  double min_log_gamma = -4, max_log_gamma = 2;
  DescentRules rules;
  int threads = 0;  // OpenMP threads for the starts; 0 = the OpenMP default
  void validate() const;
};

struct InteractionResult {
  InteractionPoint x{};
  double A = 0, B = 0, E = 0, alpha = 0, beta = 0, gamma = 0;
  double objective = 0;  // Σ Huber over the runs
  double a = 0, b = 0, G = 0;  // eq. 4's allocation: N_opt = G·(C/6)^a, D_opt = G⁻¹·(C/6)^b
  size_t starts = 0, starts_failed = 0;
  long long evaluations = 0;
  size_t runs = 0;
  bool operator==(const InteractionResult&) const = default;
};

// ln L(N, D) of the law at x.
double interaction_log_loss(const InteractionPoint& x, double params, double tokens);

// Σ Huber_δ(ln L̂ − ln L) over the runs, and its analytic gradient when grad is not null.
double interaction_objective(const InteractionPoint& x, const std::vector<Run>& runs, double huber_delta,
                             InteractionPoint* grad);

// The Chinchilla point x as an interaction point with γ = 1 (the same law).
InteractionPoint interaction_point(const LawPoint& chinchilla);

// Fits from every start (options' grid × gammas, then `extra_starts`) in parallel and keeps the lowest objective
// (ties: the earliest start). Throws InputError with fewer than 6 distinct (N, D).
InteractionResult fit_interaction(std::vector<Run> runs, const InteractionOptions& options,
                                  const std::vector<InteractionPoint>& extra_starts = {});

// One descent from `start` (cross-validation folds and bootstrap refits).
InteractionResult fit_interaction_from(std::vector<Run> runs, const InteractionPoint& start,
                                       const InteractionOptions& options);

}  // namespace isoflop::fit
