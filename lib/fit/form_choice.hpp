// Which parametric form describes a sweep's runs: Chinchilla's additive law or the interaction law
// (fit/interaction.hpp), chosen by how well each predicts a budget it was not fitted to.
//
// Leave one budget out: for each IsoFLOP budget, refit each form to the other budgets (one descent from its
// full-data optimum, to tight tolerances) and predict the held-out budget's losses. The form with the smaller root
// mean square of ln(predicted/measured) over every held-out run is chosen; a tie keeps Chinchilla's. The extra
// parameter γ is paid for in the held-out error: it is chosen only when it predicts unseen budgets better, not
// because it fits the seen ones more closely. The smallest and largest budgets are held out too, so half the
// folds test the form as an extrapolation, which is how a law is used.
#pragma once

#include <optional>
#include <vector>

#include "core/enum_names.hpp"
#include "fit/approach3.hpp"
#include "fit/interaction.hpp"

namespace isoflop::fit {

ISOFLOP_NAMED_ENUM(ParametricForm, (kChinchilla, "chinchilla"), (kInteraction, "interaction"));

struct FormChoice {
  ParametricForm chosen = ParametricForm::kChinchilla;
  int folds = 0;                      // budgets held out in turn
  int held_out_runs = 0;              // runs predicted over all folds
  double rms_chinchilla = 0;          // held-out rms of ln(L̂/L), Chinchilla's law
  double rms_interaction = 0;         // the same, the interaction law
  bool operator==(const FormChoice&) const = default;
};

// Needs at least 3 budgets (by `flops`) and, in every fold, at least 6 distinct (N, D) to refit; returns nothing
// otherwise. `chinchilla` and `interaction` are the full-data optima the folds start from.
std::optional<FormChoice> choose_form(const std::vector<Run>& runs, const LawPoint& chinchilla,
                                      const InteractionPoint& interaction);

}  // namespace isoflop::fit
