// Tests for the bootstrap: seeded reproducibility, and interval widths that follow noise and run count.
#include "fit/bootstrap.hpp"

#include <doctest/doctest.h>

#include "fit/simulate.hpp"
#include "support/expect_close.hpp"

namespace isoflop::fit {
namespace {

// Chinchilla's nine IsoFLOP budgets with `sizes_per_budget` model sizes each (default noise and seed).
SimulationSpec chinchilla_design(int sizes_per_budget) {
  SimulationSpec s;
  s.budgets_flops = chinchilla_budgets();
  s.sizes_per_budget = sizes_per_budget;
  return s;
}

// Approach 3 from the coarse grid's 243 starts: enough for these simulated runs, fast for many refits.
Approach3Options coarse_options() {
  Approach3Options o;
  o.grid = coarse_grid();
  return o;
}

struct Widths {
  double alpha, beta, a;
};

Widths widths(double noise, int sizes_per_budget, std::uint64_t seed = 11) {
  SimulationSpec s = chinchilla_design(sizes_per_budget);
  s.noise = noise;
  s.seed = seed;
  const auto runs = simulate_runs(s);
  Approach3Options o = coarse_options();
  const auto fit = fit_approach3(runs, o);
  BootstrapOptions b;
  b.resamples = 60;
  b.seed = 5;
  const auto r = bootstrap(runs, fit.x, o, {}, b);
  CHECK(r.approach3_failed == 0);
  auto w = [&](const char* k) { return r.approach3.at(k).p90 - r.approach3.at(k).p10; };
  return {w("alpha"), w("beta"), w("a")};
}

}  // namespace

TEST_CASE("bootstrap intervals widen as noise grows") {
  const Widths low = widths(0.003, 15), high = widths(0.03, 15);
  CHECK(high.alpha > 2 * low.alpha);
  CHECK(high.beta > 2 * low.beta);
  CHECK(high.a > 2 * low.a);
}

TEST_CASE("bootstrap intervals narrow as runs are added") {
  const Widths few = widths(0.01, 5), many = widths(0.01, 45);  // 9× the runs: about 1/3 the width
  CHECK(many.alpha < few.alpha);
  CHECK(many.beta < few.beta);
  CHECK(many.a < few.a);
}

TEST_CASE("a seeded bootstrap is reproducible, percentiles are ordered, progress is reported") {
  const auto runs = simulate_runs(chinchilla_design(8));
  Approach3Options o = coarse_options();
  const auto fit = fit_approach3(runs, o);
  BootstrapOptions b;
  b.resamples = 20;
  b.seed = 42;
  b.approach2 = true;
  int calls = 0, last = 0, reported_total = 0;
  b.progress = [&](int done, int total) {
    ++calls;
    last = done;
    reported_total = total;
  };
  const auto r1 = bootstrap(runs, fit.x, o, {}, b);
  CHECK(calls == 20);
  CHECK(last == 20);
  CHECK(reported_total == 20);
  o.threads = 1;
  b.progress = nullptr;
  const auto r2 = bootstrap(runs, fit.x, o, {}, b);
  for (const auto& [k, v] : r1.approach3) {
    CHECK(v.p10 == r2.approach3.at(k).p10);
    CHECK(v.p97_5 == r2.approach3.at(k).p97_5);
    CHECK(v.p2_5 <= v.p10);
    CHECK(v.p10 <= v.p50);
    CHECK(v.p50 <= v.p90);
    CHECK(v.p90 <= v.p97_5);
  }
  CHECK(r1.approach2.count("a") == 1);
  b.seed = 43;
  const auto r3 = bootstrap(runs, fit.x, o, {}, b);
  CHECK(r3.approach3.at("alpha").p50 != r1.approach3.at("alpha").p50);
}

TEST_CASE("bootstrap spread matches the spread of fits to independent noise draws") {
  // The honest check on an interval: refitting fresh noise realisations of the same design should scatter
  // about as much as the bootstrap says. Early-stopped refits would make the bootstrap far too narrow.
  SimulationSpec s = chinchilla_design(10);
  const Approach3Options o = coarse_options();
  std::vector<double> alphas;
  for (std::uint64_t seed = 100; seed < 112; ++seed) {
    s.seed = seed;
    alphas.push_back(fit_approach3(simulate_runs(s), o).alpha);
  }
  const double spread = quantile(alphas, 0.9) - quantile(alphas, 0.1);
  s.seed = 100;
  const auto runs = simulate_runs(s);
  BootstrapOptions b;
  b.resamples = 60;
  const auto r = bootstrap(runs, fit_approach3(runs, o).x, o, {}, b);
  const double width = r.approach3.at("alpha").p90 - r.approach3.at("alpha").p10;
  INFO("bootstrap 10-90 width " << width << ", spread over noise draws " << spread);
  CHECK(width > spread / 3);
  CHECK(width < spread * 3);
  // With the default (scipy-style) tolerances the refits stop at once and the interval collapses.
  b.refit_ftol = o.ftol;
  b.refit_gtol = o.gtol;
  const auto early = bootstrap(runs, fit_approach3(runs, o).x, o, {}, b);
  CHECK(early.approach3.at("alpha").p90 - early.approach3.at("alpha").p10 < width / 3);
}

TEST_CASE("quantiles interpolate like numpy") {
  CHECK(quantile({1, 2, 3, 4}, 0.5) == 2.5);
  EXPECT_CLOSE(quantile({4, 1, 3, 2}, 0.1), 1.3, 1e-12);
  CHECK(quantile({7}, 0.9) == 7);
}

}  // namespace isoflop::fit
