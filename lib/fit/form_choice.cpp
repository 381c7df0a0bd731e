// Leave-one-budget-out prediction error of the two parametric forms.
#include "fit/form_choice.hpp"

#include <cmath>
#include <set>
#include <string>

#include "core/error.hpp"
#include "fit/bootstrap.hpp"
#include "units/format.hpp"

namespace isoflop::fit {

void FormChoiceOptions::validate() const {
  if (!(min_improvement >= 0 && min_improvement < 1))
    throw FieldError("min_improvement", "must be from 0 to below 1 (a fraction of the held-out error)");
}

FormChoice choose_form(const std::vector<Run>& runs, const LawPoint& chinchilla, const InteractionPoint& interaction,
                       const FormChoiceOptions& options) {
  options.validate();
  std::set<double> budgets;
  for (const auto& r : runs) budgets.insert(r.flops);
  if (budgets.size() < 3)
    throw InputError(std::to_string(budgets.size()) + " budgets: holding one out leaves too few to compare the "
                     "two forms on a budget they were not fitted to; need 3");
  // From the full-data optimum the default stopping rules stop at once: the bootstrap's refit tolerances.
  const BootstrapOptions tight;
  const Approach3Options a3 = refit_options(options.approach3, tight);
  const InteractionOptions ia = refit_options(options.interaction, tight);
  FormChoice c;
  c.min_improvement = options.min_improvement;
  double sq3 = 0, sqi = 0;
  std::vector<Run> train;
  for (double held : budgets) {
    train.clear();
    for (const auto& r : runs)
      if (r.flops != held) train.push_back(r);
    if (const size_t distinct = distinct_points(train); distinct < 6)
      throw InputError("holding out the budget of " + units::format_scientific(held) + " FLOPs leaves " +
                       std::to_string(distinct) + " distinct (N, D); the interaction law needs 6");
    const Approach3Result f3 = fit_approach3_from(train, chinchilla, a3);
    const InteractionResult fi = fit_interaction_from(train, interaction, ia);
    for (const auto& r : runs) {
      if (r.flops != held) continue;
      const double log_l = std::log(r.loss);
      const double d3 = approach3_log_loss(f3.x, r.params, r.tokens) - log_l;
      const double di = interaction_log_loss(fi.x, r.params, r.tokens) - log_l;
      if (!std::isfinite(d3) || !std::isfinite(di))
        throw InputError("holding out the budget of " + units::format_scientific(held) +
                         " FLOPs, a refit predicts a non-finite loss");
      sq3 += d3 * d3;
      sqi += di * di;
      ++c.held_out_runs;
    }
    ++c.folds;
  }
  c.rms_chinchilla = std::sqrt(sq3 / c.held_out_runs);
  c.rms_interaction = std::sqrt(sqi / c.held_out_runs);
  // Both errors at rounding level (a law fitted to its own noise-free values) is a tie, whatever their ratio.
  constexpr double kRoundingLogLoss = 1e-12;
  const double cut = c.rms_chinchilla - c.rms_interaction;
  c.chosen = cut > options.min_improvement * c.rms_chinchilla && cut > kRoundingLogLoss ? ParametricForm::kInteraction
                                                                                        : ParametricForm::kAdditive;
  return c;
}

}  // namespace isoflop::fit
