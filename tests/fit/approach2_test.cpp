// Tests for Approach 2 (IsoFLOP parabolas) and Approach 1 (training-curve envelope).
#include "fit/approach2.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "core/error.hpp"
#include "fit/approach1.hpp"
#include "fit/simulate.hpp"
#include "support/expect_close.hpp"

namespace isoflop::fit {

TEST_CASE("Approach 2 recovers the allocation exponent a = beta/(alpha+beta) within 0.03 under 1 % noise") {
  SimulationSpec s;
  s.budgets_flops = chinchilla_budgets();
  s.noise = 0.01;
  s.seed = 1;
  const auto r = fit_approach2(simulate_runs(s), {});
  CHECK(r.budgets.size() == 9);
  const double a_true = 0.28 / (0.34 + 0.28);
  CHECK(std::fabs(r.a - a_true) < 0.03);
  EXPECT_CLOSE(r.a + r.b, 1.0, 1e-9);  // D_opt = C/(6·N_opt)
  for (const auto& b : r.budgets) CHECK(b.runs == 27);
}

TEST_CASE("Approach 2 on noise-free data: minima close to the law's IsoFLOP optima") {
  SimulationSpec s;
  s.budgets_flops = chinchilla_budgets();
  s.noise = 0;
  s.min_tokens_per_param = 5;  // a narrower window, where the profile is close to a parabola
  s.max_tokens_per_param = 500;
  const auto r = fit_approach2(simulate_runs(s), {});
  const TrueLaw t;
  const double G = std::pow(t.alpha * t.A / (t.beta * t.B), 1 / (t.alpha + t.beta));
  for (const auto& b : r.budgets) {
    const double n_opt = G * std::pow(b.flops / 6, t.beta / (t.alpha + t.beta));
    EXPECT_CLOSE(b.params_opt, n_opt, 0.05);
    CHECK_FALSE(b.extrapolated);
  }
  CHECK(std::fabs(r.a - t.beta / (t.alpha + t.beta)) < 0.01);
}

TEST_CASE("a budget with fewer than 3 runs is an error naming file, line and column") {
  std::vector<Run> runs;
  for (double n : {1e8, 2e8, 4e8}) runs.push_back({n, 1e20 / (6 * n), 1e20, 3.0 + std::pow(std::log(n / 2e8), 2), 10});
  runs.push_back({1e8, 1e21 / 6e8, 1e21, 2.5, 14});
  runs.push_back({2e8, 1e21 / 12e8, 1e21, 2.4, 15});
  Approach2Options o;
  o.file = "runs.csv";
  CHECK_THROWS_WITH_AS(fit_approach2(runs, o),
                       doctest::Contains("runs.csv:14: column 'flops': the budget of 1e21 FLOPs (lines 14, 15) has 2"),
                       InputError);
}

TEST_CASE("a profile that curves downwards has no minimum, named in its input's words") {
  // Rows of a CSV file: the budget is named by file, FLOPs column and lines.
  std::vector<Run> runs;
  int line = 2;
  for (double c : {1e20, 1e21})
    for (double n : {1e8, 2e8, 4e8}) runs.push_back({n, c / (6 * n), c, 3.0 - std::pow(std::log(n / 2e8), 2), line++});
  Approach2Options o;
  o.file = "runs.csv";
  CHECK_THROWS_WITH_AS(fit_approach2(runs, o),
                       doctest::Contains("runs.csv:2: column 'flops': the budget of 1e20 FLOPs (lines 2, 3, 4): the "
                                         "losses do not curve upwards in log N, so the profile has no minimum"),
                       InputError);
  // Runs of a sweep have names: the budget is named by its runs, with no file, column or line.
  o.run_name = [](const Run& r) { return "b" + std::to_string(r.flops > 5e20) + "-s" + std::to_string((r.line - 2) % 3); };
  try {
    fit_approach2(runs, o);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "the budget of 1e20 FLOPs (runs b0-s0, b0-s1, b0-s2): the losses do not curve upwards in log N, so the "
          "profile has no minimum");
  }
}

TEST_CASE("budget grouping uses the relative tolerance") {
  std::vector<Run> runs = {{1, 1, 1.00e20, 1, 0}, {1, 1, 1.04e20, 1, 0}, {1, 1, 1.2e20, 1, 0}, {1, 1, 3e20, 1, 0}};
  CHECK(group_budgets(runs, 0.05).size() == 3);
  CHECK(group_budgets(runs, 0.25).size() == 2);
  CHECK(group_budgets(runs, 0).size() == 4);
}

TEST_CASE("power-law fit is exact on exact power laws") {
  const auto [k, p] = fit_power_law({1e18, 1e20, 1e22}, {2 * std::pow(1e18, 0.5), 2 * std::pow(1e20, 0.5), 2 * std::pow(1e22, 0.5)});
  EXPECT_CLOSE(p, 0.5, 1e-12);
  EXPECT_CLOSE(k, 2, 1e-9);
}

TEST_CASE("Approach 1: the envelope of training curves recovers the allocation exponent") {
  // Dense, log-spaced model sizes; each trained to D/N = 1000, logging 60 points (Hoffmann et al. 2022,
  // §3.1 train each size over several horizons; here the law itself stands in for the smoothed curve).
  const TrueLaw t;
  std::vector<CurvePoint> curves;
  for (int i = 0; i < 40; ++i) {
    const double n = 3e7 * std::pow(10.0, i * 0.06);
    for (int j = 0; j < 60; ++j) {
      const double d = n * std::pow(10.0, -0.5 + j * 3.5 / 59);
      curves.push_back({"run" + std::to_string(i), n, d, t.loss(n, d), 0});
    }
  }
  const auto r = fit_approach1(curves, {});
  CHECK(r.curves == 40);
  CHECK(r.envelope.size() > 300);
  CHECK(r.envelope.size() < 1500);  // the ends, where the smallest or largest size wins, are left out
  CHECK(r.sizes_on_envelope > 20);
  CHECK(std::fabs(r.a - t.beta / (t.alpha + t.beta)) < 0.03);
  EXPECT_CLOSE(r.a + r.b, 1.0, 1e-9);
}

TEST_CASE("Approach 1 rejects curves that cannot form an envelope") {
  std::vector<CurvePoint> one = {{"r", 1e8, 1e9, 3, 2}};
  CHECK_THROWS_WITH_AS(fit_approach1(one, {}), doctest::Contains("fewer than 2"), InputError);
  std::vector<CurvePoint> same = {{"r", 1e8, 1e9, 3, 2}, {"r", 1e8, 1e10, 2.5, 3}};
  CHECK_THROWS_WITH_AS(fit_approach1(same, {}), doctest::Contains("needs at least 2"), InputError);
  std::vector<CurvePoint> two = {{"r", 1e8, 1e9, 3, 2}, {"r", 1e8, 1e10, 2.5, 3}, {"s", 2e8, 1e9, 2.9, 4},
                                 {"s", 2e8, 1e10, 2.4, 5}};
  CHECK_THROWS_WITH_AS(fit_approach1(two, {}), doctest::Contains("needs at least 2"), InputError);
  Approach1Options o;
  o.points = 1;
  CHECK_THROWS_AS(o.validate(), InputError);
}

}  // namespace isoflop::fit
