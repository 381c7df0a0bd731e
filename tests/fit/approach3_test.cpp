// Tests for Approach 3: gradient against finite differences, recovery of known laws, order independence,
// the mean-reduction early stop, and grids.
#include "fit/approach3.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"
#include "fit/simulate.hpp"
#include "support/expect_close.hpp"

namespace isoflop::fit {
namespace {

std::vector<Run> chinchilla_runs(double noise, std::uint64_t seed) {
  SimulationSpec s;
  s.budgets_flops = chinchilla_budgets();
  s.noise = noise;
  s.seed = seed;
  return simulate_runs(s);
}

Approach3Options coarse() {
  Approach3Options o;
  o.grid = coarse_grid();
  return o;
}

}  // namespace

TEST_CASE("the Approach-3 gradient matches central finite differences") {
  const auto runs = chinchilla_runs(0.01, 3);
  // Points in the Huber-linear regime, near the quadratic one, and at a grid corner.
  for (const LawPoint& x : {LawPoint{6.0, 6.0, 0.5, 0.34, 0.28}, LawPoint{6.3, 6.1, 0.52, 0.35, 0.29},
                            LawPoint{25, 0, -1, 0, 2}, LawPoint{10, 12, 0.1, 0.8, 0.6}}) {
    for (Reduce reduce : {Reduce::kSum, Reduce::kMean}) {
      for (double delta : {1e-3, 0.1}) {
        LawPoint g{};
        approach3_objective(x, runs, delta, reduce, &g);
        for (int k = 0; k < 5; ++k) {
          const double h = 1e-6 * std::max(1.0, std::fabs(x[k]));
          LawPoint xp = x, xm = x;
          xp[k] += h;
          xm[k] -= h;
          const double fd = (approach3_objective(xp, runs, delta, reduce, nullptr) -
                             approach3_objective(xm, runs, delta, reduce, nullptr)) / (2 * h);
          INFO("k=" << k << " delta=" << delta);
          CHECK(std::fabs(g[k] - fd) <= 1e-5 * std::max(1e-3, std::fabs(fd)) + 1e-9);
        }
      }
    }
  }
}

TEST_CASE("the objective is the Huber sum of log-sum-exp residuals (eq. 11)") {
  std::vector<Run> runs = {{1e9, 2e10, 0, 0, 0}};
  const TrueLaw law;
  runs[0].loss = law.loss(1e9, 2e10) * std::exp(0.01);  // a residual of exactly 0.01 in log space
  const LawPoint x = {std::log(law.A), std::log(law.B), std::log(law.E), law.alpha, law.beta};
  EXPECT_CLOSE(approach3_objective(x, runs, 1e-3, Reduce::kSum, nullptr), 1e-3 * (0.01 - 0.5e-3), 1e-9);
  EXPECT_CLOSE(approach3_objective(x, runs, 0.1, Reduce::kSum, nullptr), 0.5 * 0.01 * 0.01, 1e-9);
}

TEST_CASE("noise-free Chinchilla data recovers the parameters to 1e-4") {
  const auto r = fit_approach3(chinchilla_runs(0, 1), coarse());
  const TrueLaw t;
  EXPECT_CLOSE(r.E, t.E, 1e-4);
  EXPECT_CLOSE(r.A, t.A, 1e-4);
  EXPECT_CLOSE(r.B, t.B, 1e-4);
  EXPECT_CLOSE(r.alpha, t.alpha, 1e-4);
  EXPECT_CLOSE(r.beta, t.beta, 1e-4);
  // Eq. 4 with the rounded parameters: a = 0.4516, G = 1.34471 (reference §9, check 3).
  EXPECT_CLOSE(r.a, 0.28 / 0.62, 1e-4);
  EXPECT_CLOSE(r.G, 1.34471, 1e-3);
  CHECK(r.starts == 243);
  CHECK(r.starts_in_best_basin >= 1);
}

TEST_CASE("1 % log-normal noise: alpha and beta within 0.02, E within 2 %") {
  // 243 runs over Chinchilla's nine budgets. Across seeds 1–10, 9 of 10 meet the tolerance (the one
  // that does not is off by 0.021 in beta); this is seed 1, not a hand-picked outlier.
  const auto r = fit_approach3(chinchilla_runs(0.01, 1), coarse());
  CHECK(std::fabs(r.alpha - 0.34) < 0.02);
  CHECK(std::fabs(r.beta - 0.28) < 0.02);
  CHECK(std::fabs(r.E / 1.69 - 1) < 0.02);
}

TEST_CASE("results do not depend on row order or thread count") {
  auto runs = chinchilla_runs(0.01, 5);
  Approach3Options o = coarse();
  o.threads = 1;
  const auto a = fit_approach3(runs, o);
  std::mt19937 rng(7);
  std::shuffle(runs.begin(), runs.end(), rng);
  o.threads = 2;
  const auto b = fit_approach3(runs, o);
  CHECK(a.objective == b.objective);
  for (int k = 0; k < 5; ++k) CHECK(a.x[k] == b.x[k]);
  CHECK(a.starts_in_best_basin == b.starts_in_best_basin);
}

TEST_CASE("the coarse grid and the full 4,500-start grid reach the same optimum") {
  CHECK(chinchilla_grid().size() == 4500);
  const auto runs = chinchilla_runs(0.01, 2);
  Approach3Options full;
  full.grid = parse_grid("a=0:25:6,b=0:25:6,e=-1:1:5,alpha=0:2:5,beta=0:2:5");
  CHECK(full.grid.size() == 4500);
  CHECK(full.grid.describe() == chinchilla_grid().describe());
  const auto f = fit_approach3(runs, full);
  const auto c = fit_approach3(runs, coarse());
  EXPECT_CLOSE(f.objective, c.objective, 1e-6);
  EXPECT_CLOSE(f.alpha, c.alpha, 1e-3);
  EXPECT_CLOSE(f.beta, c.beta, 1e-3);
  CHECK(f.starts_in_best_basin > c.starts_in_best_basin);
}

TEST_CASE("--reduce mean under default tolerances stops early: a worse sum objective, other parameters") {
  // Besiroglu et al. 2024: averaging the Huber terms shrinks the objective and gradient by 1/n, so the
  // default stopping rules fire before convergence. Nothing is special-cased: only the reduction changes.
  const auto runs = chinchilla_runs(0.01, 1);
  Approach3Options sum = coarse(), mean = coarse();
  mean.reduce = Reduce::kMean;
  const auto s = fit_approach3(runs, sum);
  const auto m = fit_approach3(runs, mean);
  const double mean_as_sum = approach3_objective(m.x, runs, 1e-3, Reduce::kSum, nullptr);
  EXPECT_CLOSE(m.objective * runs.size(), mean_as_sum, 1e-9);
  CHECK(mean_as_sum > s.objective * (1 + 1e-5));
  CHECK(std::fabs(m.beta - s.beta) > 1e-4);
  CHECK(m.starts_in_best_basin < s.starts_in_best_basin);
  // With tight tolerances the mean reaches the same optimum: the early stop is the tolerance, not the model.
  mean.ftol = 1e-15;
  mean.gtol = 1e-12;
  const auto tight = fit_approach3(runs, mean);
  EXPECT_CLOSE(approach3_objective(tight.x, runs, 1e-3, Reduce::kSum, nullptr), s.objective, 1e-6);
}

TEST_CASE("grids: named, custom, and bad specs") {
  CHECK(coarse_grid().size() == 243);
  const InitGrid g = parse_grid("alpha=0.3,beta=0.3:0.5:3");
  CHECK(g.size() == 6 * 6 * 5 * 1 * 3);
  CHECK(g.describe() == "a=0:25:6,b=0:25:6,e=-1:1:5,alpha=0.3,beta=0.3:0.5:3");
  CHECK(chinchilla_grid().points().front() == LawPoint{0, 0, -1, 0, 0});
  CHECK_THROWS_WITH_AS(parse_grid("alpah=0:2:5"), doctest::Contains("did you mean 'alpha'"), InputError);
  CHECK_THROWS_AS(parse_grid("a=0:25"), InputError);
  CHECK_THROWS_AS(parse_grid("a=0:25:0"), InputError);
  CHECK_THROWS_AS(parse_grid("a=x:1:2"), InputError);
  CHECK_THROWS_AS(parse_grid("nonsense"), InputError);
}

TEST_CASE("fewer runs than parameters and bad options are rejected") {
  auto runs = chinchilla_runs(0, 1);
  runs.resize(4);
  CHECK_THROWS_WITH_AS(fit_approach3(runs, coarse()), doctest::Contains("only 4 distinct (N, D)"), InputError);
  // Eight runs of four points are still four points.
  const auto four = runs;
  runs.insert(runs.end(), four.begin(), four.end());
  CHECK_THROWS_WITH_AS(fit_approach3(runs, coarse()), doctest::Contains("only 4 distinct (N, D)"), InputError);
  Approach3Options o = coarse();
  o.huber_delta = 0;
  CHECK_THROWS_AS(o.validate(), InputError);
  o = coarse();
  o.ftol = -1;
  CHECK_THROWS_AS(o.validate(), InputError);
}

TEST_CASE("an exponent at or below 0 is no scaling law: the problem names which and why") {
  CHECK_FALSE(approach3_exponent_problem(0.34, 0.28));
  const auto alpha = approach3_exponent_problem(-0.05, 0.28);
  REQUIRE(alpha);
  CHECK(*alpha == "alpha = -0.05 is not positive: in these runs the loss does not fall as parameters grow");
  const auto beta = approach3_exponent_problem(0.34, 0);
  REQUIRE(beta);
  CHECK(*beta == "beta = 0 is not positive: in these runs the loss does not fall as tokens grow");
  CHECK(approach3_exponent_problem(std::nan(""), 0.28));
}

}  // namespace isoflop::fit
