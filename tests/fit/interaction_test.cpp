// Tests for the interaction law L = E + (A/N^α + B/D^β)^γ: its gradient, that γ = 1 is Chinchilla's law, recovery
// of known laws with and without the interaction, and bad input.
#include "fit/interaction.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "core/error.hpp"
#include "fit/simulate.hpp"
#include "support/expect_close.hpp"

namespace isoflop::fit {
namespace {

// Chinchilla's law with its reducible part squared and the square root taken: the same magnitudes at Chinchilla's
// budgets, but a bottleneck (γ = 0.5) in place of a sum.
TrueLaw bottleneck_law() {
  TrueLaw t;
  t.A = 406.4 * 406.4;
  t.B = 410.7 * 410.7;
  t.alpha = 0.68;
  t.beta = 0.56;
  t.gamma = 0.5;
  return t;
}

std::vector<Run> runs_of(const TrueLaw& law, double noise, std::uint64_t seed) {
  SimulationSpec s;
  s.law = law;
  s.budgets_flops = chinchilla_budgets();
  s.sizes_per_budget = 9;
  s.noise = noise;
  s.seed = seed;
  return simulate_runs(s);
}

InteractionPoint point_of(const TrueLaw& t) {
  return {std::log(t.A), std::log(t.B), std::log(t.E), t.alpha, t.beta, std::log(t.gamma)};
}

}  // namespace

TEST_CASE("the interaction objective's gradient matches central finite differences") {
  const auto runs = runs_of(bottleneck_law(), 0.01, 3);
  for (const InteractionPoint& x : {point_of(bottleneck_law()), InteractionPoint{6.0, 6.0, 0.5, 0.34, 0.28, 0.0},
                                    InteractionPoint{12, 11, 0.4, 0.7, 0.5, -0.9}, InteractionPoint{25, 0, -1, 0, 2, 1}}) {
    for (double delta : {1e-3, 0.1}) {
      InteractionPoint g{};
      interaction_objective(x, runs, delta, &g);
      for (int k = 0; k < 6; ++k) {
        const double h = 1e-6 * std::max(1.0, std::fabs(x[k]));
        InteractionPoint xp = x, xm = x;
        xp[k] += h;
        xm[k] -= h;
        const double fd =
            (interaction_objective(xp, runs, delta, nullptr) - interaction_objective(xm, runs, delta, nullptr)) / (2 * h);
        INFO("k=" << k << " delta=" << delta);
        CHECK(std::fabs(g[k] - fd) <= 1e-5 * std::max(1e-3, std::fabs(fd)) + 1e-9);
      }
    }
  }
}

TEST_CASE("gamma = 1 is Chinchilla's law: the same objective at the same point") {
  const auto runs = runs_of(TrueLaw{}, 0.01, 4);
  for (const LawPoint& x : {LawPoint{6.0, 6.0, 0.5, 0.34, 0.28}, LawPoint{10, 12, 0.1, 0.8, 0.6}}) {
    const double chinchilla = approach3_objective(x, runs, 1e-3, Reduce::kSum, nullptr);
    EXPECT_CLOSE(interaction_objective(interaction_point(x), runs, 1e-3, nullptr), chinchilla, 1e-10);
  }
  // And the loss itself: ln L̂ = ln(E + A/N^α + B/D^β).
  const TrueLaw t;
  const InteractionPoint x = interaction_point({std::log(t.A), std::log(t.B), std::log(t.E), t.alpha, t.beta});
  EXPECT_CLOSE(interaction_log_loss(x, 7e10, 1.4e12), std::log(t.loss(7e10, 1.4e12)), 1e-13);
}

TEST_CASE("noise-free runs of a bottleneck law (gamma = 0.5) give back its parameters") {
  const TrueLaw t = bottleneck_law();
  const InteractionResult r = fit_interaction(runs_of(t, 0, 1), InteractionOptions{});
  EXPECT_CLOSE(r.E, t.E, 1e-4);
  EXPECT_CLOSE(r.gamma, t.gamma, 1e-4);
  EXPECT_CLOSE(r.alpha, t.alpha, 1e-4);
  EXPECT_CLOSE(r.beta, t.beta, 1e-4);
  EXPECT_CLOSE(r.A, t.A, 1e-3);
  // Eq. 4's allocation, which γ does not move: a = β/(α+β) = 0.56/1.24.
  EXPECT_CLOSE(r.a, 0.56 / 1.24, 1e-4);
  CHECK(r.starts == coarse_grid().size() * 4);
  CHECK(r.starts_failed == 0);
}

TEST_CASE("noise-free runs of Chinchilla's additive law give gamma = 1 and Chinchilla's parameters") {
  const TrueLaw t;
  const InteractionResult r = fit_interaction(runs_of(t, 0, 1), InteractionOptions{});
  EXPECT_CLOSE(r.gamma, 1.0, 1e-4);
  EXPECT_CLOSE(r.E, t.E, 1e-4);
  EXPECT_CLOSE(r.alpha, t.alpha, 1e-4);
  EXPECT_CLOSE(r.beta, t.beta, 1e-4);
}

TEST_CASE("the additive law misreads a bottleneck: E and a off, where the interaction law is not") {
  // What the cpu preset's runs show (README): fitted to runs of a γ = 0.5 law, Chinchilla's form puts E and a
  // elsewhere, and its residuals are far above the noise.
  const TrueLaw t = bottleneck_law();
  const auto runs = runs_of(t, 0.002, 5);
  Approach3Options a3;
  a3.grid = coarse_grid();
  const Approach3Result additive = fit_approach3(runs, a3);
  const InteractionResult inter = fit_interaction(runs, InteractionOptions{}, {interaction_point(additive.x)});
  CHECK(std::fabs(inter.E / t.E - 1) < 0.01);
  CHECK(std::fabs(inter.a - 0.56 / 1.24) < 0.01);
  CHECK(std::fabs(additive.E / t.E - 1) > 0.02);
  CHECK(inter.objective < 0.5 * additive.objective);
}

TEST_CASE("the interaction fit: bad input") {
  std::vector<Run> five = runs_of(TrueLaw{}, 0, 1);
  five.resize(5);
  CHECK_THROWS_WITH_AS(fit_interaction(five, InteractionOptions{}),
                       doctest::Contains("6 parameters (E, A, B, alpha, beta, gamma) but only 5 distinct (N, D)"),
                       InputError);
  // Many runs, but all at one (N, D): as few as one.
  const std::vector<Run> same(40, five.front());
  CHECK_THROWS_WITH_AS(fit_interaction_from(same, interaction_point({6, 6, 0.5, 0.34, 0.28}), InteractionOptions{}),
                       doctest::Contains("only 1 distinct (N, D)"), InputError);
  InteractionOptions o;
  o.gammas = {};
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("gammas"), FieldError);
  o = {};
  o.gammas = {0.5, -1};
  CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("positive"), FieldError);
  o = {};
  o.min_log_gamma = 3;
  CHECK_THROWS_AS(o.validate(), FieldError);
  o = {};
  o.huber_delta = 0;
  CHECK_THROWS_AS(o.validate(), FieldError);
}

}  // namespace isoflop::fit
