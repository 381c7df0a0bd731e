// Tests for choosing between Chinchilla's additive law and the interaction law by held-out budgets.
#include "fit/form_choice.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

#include "fit/simulate.hpp"

namespace isoflop::fit {
namespace {

// Options with the margin `m` and the fits' defaults.
FormChoiceOptions margin(double m) {
  FormChoiceOptions o;
  o.min_improvement = m;
  return o;
}

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
  const FormChoice c = choose_form(runs, f.additive.x, f.interaction.x);
  CHECK(c.folds == 5);
  CHECK(c.held_out_runs == static_cast<int>(runs.size()));
  CHECK(c.chosen == ParametricForm::kInteraction);
  CHECK(c.min_improvement == 0.3);
  // Its held-out error is the noise (0.5 % in ln L, a little more out of sample); the additive form's is not.
  CHECK(c.rms_interaction < 0.008);
  CHECK(c.rms_chinchilla > 2 * c.rms_interaction);
}

TEST_CASE("runs of Chinchilla's additive law, 5 budgets x 7 sizes, seeds 1 to 100: the additive form is kept") {
  // The margin's false-positive rate. γ brings nothing a held-out budget can see, but with 35 runs the two
  // held-out errors still differ by chance, either way: the interaction form's is lower for 27 of these 100
  // seeds, by up to 19 %. The 30 % margin keeps the additive form at every one; the kept cpu records' cut is
  // 55–57 %.
  double lowest_ratio = 2;
  int interaction_lower = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const auto runs = runs_of(1, 0.005, seed, {1e19, 3e19, 1e20, 3e20, 1e21});
    const Fitted f = fit_both(runs);
    INFO("seed " << seed);
    const FormChoice c = choose_form(runs, f.additive.x, f.interaction.x);
    CHECK(c.rms_chinchilla < 0.0125);  // the noise, 0.5 % in ln L, more where a fold extrapolates
    CHECK(c.chosen == ParametricForm::kAdditive);
    lowest_ratio = std::min(lowest_ratio, c.rms_interaction / c.rms_chinchilla);
    interaction_lower += c.rms_interaction < c.rms_chinchilla;
  }
  // 27 here (README); one seed's ratio is 1.00015, so a build that rounds differently may count one more or less.
  CHECK(interaction_lower >= 20);
  CHECK(interaction_lower <= 35);
  CHECK(lowest_ratio == doctest::Approx(0.806).epsilon(0.005));  // a 19 % cut (README)
  CHECK(lowest_ratio < 1);  // the test does see chance wins, which the margin absorbs
  CHECK(lowest_ratio > 1 - FormChoiceOptions{}.min_improvement);
  MESSAGE("lowest held-out ratio, interaction / additive: " << lowest_ratio);
}

TEST_CASE("the margin: the same law in both forms keeps the additive form, and the margin moves the choice") {
  const auto runs = runs_of(1, 0, 7, {1e19, 3e19, 1e20, 3e20});
  const TrueLaw t;
  const LawPoint x = {std::log(t.A), std::log(t.B), std::log(t.E), t.alpha, t.beta};
  // Noise-free runs of the law itself: every fold refits to the law, both forms predict to rounding.
  const FormChoice tie = choose_form(runs, x, interaction_point(x));
  CHECK(tie.rms_chinchilla < 1e-6);
  CHECK(tie.rms_interaction < 1e-6);
  CHECK(tie.chosen == ParametricForm::kAdditive);
  const auto bottleneck = runs_of(0.5, 0.005, 1, {1e19, 3e19, 1e20, 3e20, 1e21});
  const Fitted f = fit_both(bottleneck);
  // The bottleneck's cut is large, so no reasonable margin changes the choice; one of 0.95 does.
  CHECK(choose_form(bottleneck, f.additive.x, f.interaction.x, margin(0)).chosen ==
        ParametricForm::kInteraction);
  CHECK(choose_form(bottleneck, f.additive.x, f.interaction.x, margin(0.95)).chosen ==
        ParametricForm::kAdditive);
}

TEST_CASE("bad input: fewer than 3 budgets, a fold with too few distinct runs, a margin below 0 or from 1 up") {
  const auto two = runs_of(0.5, 0.005, 3, {1e19, 1e20});
  const Fitted f = fit_both(two);
  CHECK_THROWS_WITH_AS(choose_form(two, f.additive.x, f.interaction.x),
                       doctest::Contains("2 budgets: holding one out leaves too few"), InputError);
  // Three budgets of 3 runs each: every fold keeps 6 runs, but one budget repeats one run three times.
  std::vector<Run> runs = runs_of(1, 0.005, 4, {1e19, 1e20, 1e21});
  std::vector<Run> thin;
  for (const auto& r : runs) {
    const bool first_budget = r.flops == 1e19;
    if (std::count_if(thin.begin(), thin.end(), [&](const Run& t) { return t.flops == r.flops; }) < 3)
      thin.push_back(first_budget ? runs.front() : r);
  }
  const Fitted g = fit_both(runs);
  CHECK_THROWS_WITH_AS(choose_form(thin, g.additive.x, g.interaction.x), doctest::Contains("distinct (N, D)"),
                       InputError);
  CHECK_THROWS_AS(choose_form(runs, g.additive.x, g.interaction.x, margin(1.0)), FieldError);
  CHECK_THROWS_AS(choose_form(runs, g.additive.x, g.interaction.x, margin(-0.1)), FieldError);
}

}  // namespace isoflop::fit
