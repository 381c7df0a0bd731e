// Chinchilla Approach 3: fit L(N, D) = E + A/N^α + B/D^β to final losses by minimising the Huber loss
// of log-space residuals with L-BFGS from a grid of starts (Hoffmann et al. 2022, §3.3, App. D.2 eq. 11).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "fit/runs.hpp"

namespace isoflop::fit {

// Huber terms summed (eq. 11 as written) or averaged (what Besiroglu et al. 2024 found the original fit
// effectively did: under default tolerances the optimiser then stops early).
ISOFLOP_NAMED_ENUM(Reduce, (kSum, "sum"), (kMean, "mean"));

// Parameters in the fitted space: x = (a, b, e, α, β) with A = e^a, B = e^b, E = e^e.
using LawPoint = std::array<double, 5>;
enum LawIndex { kA = 0, kB = 1, kE = 2, kAlpha = 3, kBeta = 4 };

// One grid axis: `count` evenly spaced values from `start` to `stop` (count 1 → start).
struct GridAxis {
  double start = 0, stop = 0;
  int count = 1;
  std::vector<double> values() const;
};

// The initialisation grid over (a, b, e, α, β).
struct InitGrid {
  GridAxis a, b, e, alpha, beta;
  size_t size() const;
  std::vector<LawPoint> points() const;  // a outermost … β innermost
  std::string describe() const;          // "a=0:25:6,b=0:25:6,e=-1:1:5,alpha=0:2:5,beta=0:2:5"
};

// Hoffmann et al. 2022, App. D.2: α, β ∈ {0, 0.5, …, 2}, e ∈ {−1, −0.5, …, 1}, a, b ∈ {0, 5, …, 25}.
InitGrid chinchilla_grid();
// 3 values per axis over the same ranges (243 starts), for quick fits and tests.
InitGrid coarse_grid();
// "chinchilla", "coarse", or a spec "a=0:25:6,b=0:25:6,e=-1:1:5,alpha=0:2:5,beta=0:2:5" (start:stop:count,
// or a single value; axes not named keep Chinchilla's). Throws InputError naming `what`.
InitGrid parse_grid(const std::string& text, const std::string& what = "grid");

struct Approach3Options {
  double huber_delta = 1e-3;     // δ of the Huber loss on log-loss residuals (Hoffmann et al. 2022, §3.3)
  Reduce reduce = Reduce::kSum;  // sum (eq. 11) or mean of the Huber terms
  InitGrid grid = chinchilla_grid();
  // Stopping rules, the ones scipy's L-BFGS-B applies by default: stop when an iteration improves the
  // objective by ≤ ftol·max(|f|, 1) (scipy's factr 1e7 × machine epsilon), when every gradient component
  // is ≤ gtol in magnitude (scipy's pgtol), or after max_evals evaluations.
  double ftol = 2.220446049250313e-9;
  double gtol = 1e-5;
  int max_evals = 15000;         // per start (scipy's default maxfun)
  // A start is in the best basin when its objective is within basin_rtol (relative) of the best one, or
  // all its parameters are within basin_rtol·1e3 of the best (absolute for e, α, β; relative for a, b).
  double basin_rtol = 1e-6;
  int threads = 0;               // OpenMP threads for the starts; 0 = the OpenMP default

  void validate() const;
};

// ln L(N, D) of the law at x: LSE(a − α ln N, b − β ln D, e).
double approach3_log_loss(const LawPoint& x, double params, double tokens);

// The Approach-3 objective and its analytic gradient at x over `runs` (grad may be null).
double approach3_objective(const LawPoint& x, const std::vector<Run>& runs, double huber_delta, Reduce reduce,
                           LawPoint* grad);

struct Approach3Result {
  LawPoint x{};                       // (a, b, e, α, β) at the best start
  double A = 0, B = 0, E = 0, alpha = 0, beta = 0;
  double objective = 0;               // at the best start, in the chosen reduction
  // Compute-optimal allocation implied by the law (Hoffmann et al. 2022, eq. 4): N_opt = G·(C/6)^a,
  // D_opt = G⁻¹·(C/6)^b with a = β/(α+β), b = α/(α+β), G = (αA/(βB))^(1/(α+β)).
  double a = 0, b = 0, G = 0;
  size_t starts = 0;                  // grid points tried
  size_t starts_in_best_basin = 0;
  size_t starts_failed = 0;           // NLopt reported a failure (non-finite objective, …); best point kept
  long long evaluations = 0;          // objective evaluations over all starts
  size_t runs = 0;
  bool operator==(const Approach3Result&) const = default;
};

// Fits the law from every start of options.grid (in parallel) and keeps the lowest objective (ties: the
// earliest start), so the result depends neither on thread count nor on the order of `runs`.
// Throws InputError when there are fewer runs than the 5 parameters.
Approach3Result fit_approach3(std::vector<Run> runs, const Approach3Options& options);

// One L-BFGS descent from `start` (no grid); used by the bootstrap. Returns the result with starts = 1.
Approach3Result fit_approach3_from(std::vector<Run> runs, const LawPoint& start, const Approach3Options& options);

// The compute-optimal allocation of eq. 4: N_opt = G·(C/6)^a, D_opt = G⁻¹·(C/6)^b.
struct Allocation {
  double a = 0, b = 0, G = 0;
};
Allocation allocation_of(double A, double B, double alpha, double beta);

// Fills a, b, G from α, β, A, B (eq. 4).
void set_allocation(Approach3Result* r);

// Why a fitted law is no scaling law, or nullopt: an exponent at or below 0 means the loss does not fall as
// parameters (α) or tokens (β) grow, and eq. 4's allocation (a = β/(α+β), G) is then undefined.
std::optional<std::string> approach3_exponent_problem(double alpha, double beta);

}  // namespace isoflop::fit
