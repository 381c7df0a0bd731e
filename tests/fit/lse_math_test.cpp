// The branch-free exp and log behind the Approach-3 objective against the C library, over their whole
// domains, and the objective against a long-double reference evaluation.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "fit/approach3.hpp"
#include "fit/lse_math.hpp"
#include "fit/simulate.hpp"

using namespace isoflop::fit;

TEST_CASE("exp_nonpositive matches std::exp to two ulp on [-708, 0]") {
  double worst = 0;
  for (int i = 0; i <= 200000; ++i) {
    const double x = -708.0 * i / 200000.0;
    const double want = std::exp(x);
    worst = std::max(worst, std::fabs(exp_nonpositive(x) - want) / want);
  }
  CHECK(worst < 4.5e-16);
  CHECK(exp_nonpositive(0.0) == 1.0);  // the LSE's largest term is exactly one
  // Below the clamp the result stays a tiny normal number, never a subnormal, a NaN or garbage.
  CHECK(exp_nonpositive(-1e6) == doctest::Approx(std::exp(-708.0)).epsilon(1e-12));
  CHECK(std::isnan(exp_nonpositive(std::nan(""))));
}

TEST_CASE("log_reciprocal_one_to_three matches std::log to two ulp and 1/s to three on [1, 3]") {
  double worst_log = 0, worst_reciprocal = 0;
  for (int i = 0; i <= 200000; ++i) {
    const double s = 1.0 + 2.0 * i / 200000.0;
    const LogReciprocal lr = log_reciprocal_one_to_three(s);
    worst_log = std::max(worst_log, std::fabs(lr.log - std::log(s)));
    worst_reciprocal = std::max(worst_reciprocal, std::fabs(lr.reciprocal * s - 1.0));
  }
  CHECK(worst_log < 5e-16);
  CHECK(worst_reciprocal < 7e-16);
  CHECK(log_reciprocal_one_to_three(1.0).log == 0.0);
  CHECK(log_reciprocal_one_to_three(1.0).reciprocal == 1.0);
  CHECK(std::isnan(log_reciprocal_one_to_three(std::nan("")).log));
  CHECK(std::isnan(log_reciprocal_one_to_three(std::nan("")).reciprocal));
}

TEST_CASE("the objective and its gradient agree with a long-double evaluation of eq. 11") {
  SimulationSpec spec;
  spec.budgets_flops = chinchilla_budgets();
  spec.noise = 0.01;
  spec.seed = 3;
  const std::vector<Run> runs = simulate_runs(spec);
  const double delta = 1e-3;
  // Points near the optimum and far from it (the grid's corners), where different terms dominate.
  const std::vector<LawPoint> points = {
      {std::log(406.4), std::log(410.7), std::log(1.69), 0.34, 0.28},
      {0, 0, -1, 0, 0},
      {25, 25, 1, 2, 2},
      {5, 20, 0.5, 0.5, 1.5},
      {20, 5, -0.5, 1.5, 0.5}};
  for (const auto& x : points) {
    long double f = 0, g[5] = {0, 0, 0, 0, 0};
    for (const auto& r : runs) {
      const long double ln = std::log((long double)r.params), ld = std::log((long double)r.tokens);
      const long double eu = std::exp(x[kA] - x[kAlpha] * ln), ev = std::exp(x[kB] - x[kBeta] * ld),
                        ee = std::exp((long double)x[kE]);
      const long double s = eu + ev + ee;
      const long double res = std::log(s) - std::log((long double)r.loss);
      const long double psi = std::fabs(res) <= delta ? res : (res > 0 ? delta : -delta);
      f += std::fabs(res) <= delta ? 0.5L * res * res : delta * (std::fabs(res) - 0.5L * delta);
      g[kA] += psi * eu / s;
      g[kB] += psi * ev / s;
      g[kE] += psi * ee / s;
      g[kAlpha] -= psi * eu / s * ln;
      g[kBeta] -= psi * ev / s * ld;
    }
    LawPoint grad{};
    const double got = approach3_objective(x, runs, delta, Reduce::kSum, &grad);
    CHECK(std::fabs(got - (double)f) <= 1e-12 * std::fabs((double)f));
    for (int k = 0; k < 5; ++k) CHECK(std::fabs(grad[k] - (double)g[k]) <= 1e-11 * (std::fabs((double)g[k]) + 1e-12));
  }
}
