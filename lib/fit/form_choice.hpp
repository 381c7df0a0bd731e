// Which parametric form describes a sweep's runs: Chinchilla's additive law or the interaction law
// (fit/interaction.hpp), chosen by how well each predicts a budget it was not fitted to.
//
// Leave one budget out: for each IsoFLOP budget, refit each form to the other budgets (one descent from its
// full-data optimum, with the bootstrap's tight refit tolerances) and predict the held-out budget's losses. The
// interaction form is chosen only when its root mean square of ln(predicted/measured) over every held-out run is
// below the additive form's by more than `min_improvement` (relative); otherwise the additive law, the simpler
// of two nested forms, is kept. The extra parameter γ is paid for in the held-out error, and the margin is its
// false-positive guard: with a sweep's few dozen runs the two held-out errors differ by chance even when the
// runs follow an additive law (by up to 19 % in 100 simulated sweeps of 5 budgets x 7 sizes at 0.5 % noise;
// form_choice_test).
// The smallest and largest budgets are held out too, so two of the folds test the form as an extrapolation,
// which is how a law is used.
#pragma once

#include <vector>

#include "core/enum_names.hpp"
#include "fit/approach3.hpp"
#include "fit/interaction.hpp"

namespace isoflop::fit {

// The two forms, named as `fit --form` names them: additive is Chinchilla's L = E + A/N^α + B/D^β (documents
// written before 2026-12-06 spell it "chinchilla", which their readers still take).
ISOFLOP_NAMED_ENUM(ParametricForm, (kAdditive, "additive"), (kInteraction, "interaction"));
inline constexpr std::string_view kAdditiveFormerName = "chinchilla";

struct FormChoiceOptions {
  double min_improvement = 0.3;  // the interaction form must cut the held-out rms by more than this fraction
  // The fits the folds refit, each with the bootstrap's tight refit tolerances (bootstrap.hpp refit_options).
  Approach3Options approach3;
  InteractionOptions interaction;
  void validate() const;
};

struct FormChoice {
  ParametricForm chosen = ParametricForm::kAdditive;
  int folds = 0;                      // budgets held out in turn
  int held_out_runs = 0;              // runs predicted over all folds
  double rms_chinchilla = 0;          // held-out rms of ln(L̂/L), the additive (Chinchilla's) law
  double rms_interaction = 0;         // the same, the interaction law
  double min_improvement = 0;         // the margin the choice used
  bool operator==(const FormChoice&) const = default;
};

// `chinchilla` and `interaction` are the full-data optima the folds start from. Throws InputError naming the
// reason when the forms cannot be compared: fewer than 3 budgets (by `flops`), a fold left with fewer than 6
// distinct (N, D), or a refit whose predictions are not finite.
FormChoice choose_form(const std::vector<Run>& runs, const LawPoint& chinchilla, const InteractionPoint& interaction,
                       const FormChoiceOptions& options = {});

}  // namespace isoflop::fit
