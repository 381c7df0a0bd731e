// One L-BFGS descent with scipy's default stopping rules, shared by the parametric fits (Approach 3 and its
// interaction form): NLopt's L-BFGS, the best point evaluated kept whatever status it ends with, and scipy's
// projected-gradient test as a forced stop.
#pragma once

#include <nlopt.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "fit/descent_rules.hpp"

namespace isoflop::fit {

template <std::size_t N>
struct DescentResult {
  std::array<double, N> x{};
  double f = std::numeric_limits<double>::infinity();
  long long evaluations = 0;
  bool failed = false;  // NLopt reported an error (not running out of evaluations or reaching round-off)
};

namespace detail {

template <std::size_t N, class Objective>
struct DescentContext {
  const Objective* objective;
  double gtol;
  nlopt_opt opt;
  const std::array<double, N>* lower;
  const std::array<double, N>* upper;
  double best_f = std::numeric_limits<double>::infinity();
  std::array<double, N> best_x{};
  long long evaluations = 0;
};

template <std::size_t N, class Objective>
double nlopt_trampoline(unsigned, const double* x, double* grad, void* data) {
  auto* c = static_cast<DescentContext<N, Objective>*>(data);
  ++c->evaluations;
  const double f = (*c->objective)(x, grad);
  // Keep the best point evaluated: whatever status NLopt ends with, the answer is a point we have seen.
  if (f < c->best_f) {
    c->best_f = f;
    std::copy(x, x + N, c->best_x.begin());
  }
  // scipy's projected-gradient test: the step x − ∇f clipped to the bounds, minus x, has every component ≤ gtol
  // in magnitude (without bounds, every |∂f/∂x_k| ≤ gtol). Near a bound the gradient counts only as far as the
  // bound; at it, a gradient pointing out of the box counts as 0.
  if (grad && std::isfinite(f)) {
    double g = 0;
    for (std::size_t k = 0; k < N; ++k) {
      double step = x[k] - grad[k];
      if (c->lower) step = std::max(step, (*c->lower)[k]);
      if (c->upper) step = std::min(step, (*c->upper)[k]);
      g = std::max(g, std::fabs(step - x[k]));
    }
    if (g <= c->gtol) nlopt_force_stop(c->opt);
  }
  return std::isfinite(f) ? f : std::numeric_limits<double>::max();
}

}  // namespace detail

// `objective(const double* x, double* grad)` returns f and fills grad when it is not null. `lower`/`upper`
// bound the coordinates (±infinity for none).
template <std::size_t N, class Objective>
DescentResult<N> lbfgs_descent(const Objective& objective, const std::array<double, N>& start, const DescentRules& rules,
                               const std::array<double, N>* lower = nullptr,
                               const std::array<double, N>* upper = nullptr) {
  DescentResult<N> r;
  nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, static_cast<unsigned>(N));
  if (!opt) {
    r.x = start;
    r.failed = true;
    return r;
  }
  detail::DescentContext<N, Objective> context{&objective, rules.gtol, opt, lower, upper};
  nlopt_set_min_objective(opt, detail::nlopt_trampoline<N, Objective>, &context);
  // scipy's L-BFGS-B rule (f_k − f_{k+1}) ≤ ftol·max(|f_k|, |f_{k+1}|, 1) is NLopt's relative and
  // absolute tolerances together (NLopt stops when either holds).
  nlopt_set_ftol_rel(opt, rules.ftol);
  nlopt_set_ftol_abs(opt, rules.ftol);
  nlopt_set_maxeval(opt, rules.max_evals);
  nlopt_set_vector_storage(opt, 10);  // scipy's default memory m = 10
  if (lower) nlopt_set_lower_bounds(opt, lower->data());
  if (upper) nlopt_set_upper_bounds(opt, upper->data());
  std::array<double, N> x = start;
  double f = 0;
  const nlopt_result status = nlopt_optimize(opt, x.data(), &f);
  nlopt_destroy(opt);
  r.x = context.best_f <= f || !std::isfinite(f) ? context.best_x : x;
  r.f = std::min(context.best_f, std::isfinite(f) ? f : context.best_f);
  r.evaluations = context.evaluations;
  // Running out of evaluations or reaching round-off are normal endings for a start; errors are failures.
  r.failed = status < 0 && status != NLOPT_ROUNDOFF_LIMITED && status != NLOPT_FORCED_STOP;
  return r;
}

// `descend(start)` from every start in parallel (OpenMP threads, 0 = its default), each result at its start's
// index, so the outcome depends neither on thread count nor on scheduling.
template <std::size_t N, class Descend>
std::vector<DescentResult<N>> descend_from_all(const std::vector<std::array<double, N>>& starts, int threads,
                                               const Descend& descend) {
  std::vector<DescentResult<N>> results(starts.size());
  const int n_threads = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 8) num_threads(n_threads)
  for (long i = 0; i < static_cast<long>(starts.size()); ++i) results[i] = descend(starts[i]);
  return results;
}

// The index of the lowest objective (ties: the earliest start).
template <std::size_t N>
std::size_t best_start(const std::vector<DescentResult<N>>& results) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < results.size(); ++i)
    if (results[i].f < results[best].f) best = i;
  return best;
}

}  // namespace isoflop::fit
