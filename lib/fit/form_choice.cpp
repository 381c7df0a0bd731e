// Leave-one-budget-out prediction error of the two parametric forms.
#include "fit/form_choice.hpp"

#include <cmath>
#include <set>

#include "core/error.hpp"

namespace isoflop::fit {
namespace {

// ln L̂ of Chinchilla's law (eq. 2) at x.
double chinchilla_log_loss(const LawPoint& x, double params, double tokens) {
  return std::log(std::exp(x[kE]) + std::exp(x[kA] - x[kAlpha] * std::log(params)) +
                  std::exp(x[kB] - x[kBeta] * std::log(tokens)));
}

}  // namespace

std::optional<FormChoice> choose_form(const std::vector<Run>& runs, const LawPoint& chinchilla,
                                      const InteractionPoint& interaction) {
  std::set<double> budgets;
  for (const auto& r : runs) budgets.insert(r.flops);
  if (budgets.size() < 3) return std::nullopt;
  // Tight tolerances, as the bootstrap's refits: from the full-data optimum the default rules stop at once.
  Approach3Options a3;
  a3.ftol = 1e-13;
  a3.gtol = 1e-12;
  InteractionOptions ia;
  ia.rules.ftol = 1e-13;
  ia.rules.gtol = 1e-12;
  FormChoice c;
  double sq3 = 0, sqi = 0;
  std::vector<Run> train;
  std::set<std::pair<double, double>> distinct;
  for (double held : budgets) {
    train.clear();
    distinct.clear();
    for (const auto& r : runs)
      if (r.flops != held) {
        train.push_back(r);
        distinct.insert({r.params, r.tokens});
      }
    if (distinct.size() < 6) return std::nullopt;
    Approach3Result f3;
    InteractionResult fi;
    try {
      f3 = fit_approach3_from(train, chinchilla, a3);
      fi = fit_interaction_from(train, interaction, ia);
    } catch (const InputError&) {
      return std::nullopt;
    }
    for (const auto& r : runs) {
      if (r.flops != held) continue;
      const double log_l = std::log(r.loss);
      const double d3 = chinchilla_log_loss(f3.x, r.params, r.tokens) - log_l;
      const double di = interaction_log_loss(fi.x, r.params, r.tokens) - log_l;
      sq3 += d3 * d3;
      sqi += di * di;
      ++c.held_out_runs;
    }
    ++c.folds;
  }
  c.rms_chinchilla = std::sqrt(sq3 / c.held_out_runs);
  c.rms_interaction = std::sqrt(sqi / c.held_out_runs);
  // A fold whose refit diverged gives a non-finite error: that form is not chosen.
  const bool interaction_better = std::isfinite(c.rms_interaction) &&
                                  (!std::isfinite(c.rms_chinchilla) || c.rms_interaction < c.rms_chinchilla);
  c.chosen = interaction_better ? ParametricForm::kInteraction : ParametricForm::kChinchilla;
  return c;
}

}  // namespace isoflop::fit
