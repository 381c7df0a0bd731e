// Tests for choosing between Chinchilla's additive law and the interaction law by held-out budgets.
#include "fit/form_choice.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "fit/simulate.hpp"

namespace isoflop::fit {
namespace {

std::vector<Run> runs_of(double gamma, double noise, std::uint64_t seed, std::vector<double> budgets) {
  SimulationSpec s;
  if (gamma != 1) {  // Chinchilla's magnitudes with the reducible part as (·)^γ (interaction_test.cpp)
    s.law.A = std::pow(406.4, 1 / gamma);
    s.law.B = std::pow(410.7, 1 / gamma);
    s.law.alpha = 0.34 / gamma;
    s.law.beta = 0.28 / gamma;
    s.law.gamma = gamma;
  }
  s.budgets_flops = std::move(budgets);
  s.sizes_per_budget = 7;
  s.noise = noise;
  s.seed = seed;
  return simulate_runs(s);
}

struct Fitted {
  Approach3Result additive;
  InteractionResult interaction;
};

Fitted fit_both(const std::vector<Run>& runs) {
  Approach3Options a3;
  a3.grid = coarse_grid();
  Fitted f{fit_approach3(runs, a3), {}};
  f.interaction = fit_interaction(runs, InteractionOptions{}, {interaction_point(f.additive.x)});
  return f;
}

}  // namespace

TEST_CASE("runs of a bottleneck law: the interaction form predicts held-out budgets better and is chosen") {
  const auto runs = runs_of(0.5, 0.005, 1, {1e19, 3e19, 1e20, 3e20, 1e21});
  const Fitted f = fit_both(runs);
  const auto c = choose_form(runs, f.additive.x, f.interaction.x);
  REQUIRE(c);
  CHECK(c->folds == 5);
  CHECK(c->held_out_runs == static_cast<int>(runs.size()));
  CHECK(c->chosen == ParametricForm::kInteraction);
  // Its held-out error is the noise (0.5 % in ln L, a little more out of sample); the additive form's is not.
  CHECK(c->rms_interaction < 0.008);
  CHECK(c->rms_chinchilla > 2 * c->rms_interaction);
}

TEST_CASE("runs of Chinchilla's additive law: gamma near 1, and the additive form is chosen") {
  // γ brings nothing a held-out budget can see, and refitted without the budget it would predict, γ wanders: the
  // interaction form's held-out error is the same or larger. Every seed tried (2–6) chooses the additive form.
  for (std::uint64_t seed = 2; seed <= 6; ++seed) {
    const auto runs = runs_of(1, 0.005, seed, {1e19, 3e19, 1e20, 3e20, 1e21});
    const Fitted f = fit_both(runs);
    INFO("seed " << seed);
    CHECK(std::fabs(f.interaction.gamma - 1) < 0.1);
    const auto c = choose_form(runs, f.additive.x, f.interaction.x);
    REQUIRE(c);
    CHECK(c->rms_chinchilla < 0.008);  // the noise, 0.5 % in ln L, a little more out of sample
    CHECK(c->rms_interaction >= c->rms_chinchilla);
    CHECK(c->chosen == ParametricForm::kChinchilla);
  }
}

TEST_CASE("fewer than 3 budgets: no held-out choice") {
  const auto runs = runs_of(0.5, 0.005, 3, {1e19, 1e20});
  const Fitted f = fit_both(runs);
  CHECK_FALSE(choose_form(runs, f.additive.x, f.interaction.x));
}

}  // namespace isoflop::fit
