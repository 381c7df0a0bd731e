// What `isoflop fit` is asked: the runs (and curves) files, their columns, which approaches, the run
// selection, the fit settings, the bootstrap, and the outputs (a saved law, a figure). Validated in the
// library's words; errors name the field ("budget_tolerance").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fit/approach1.hpp"
#include "fit/approach2.hpp"
#include "fit/approach3.hpp"
#include "fit/bootstrap.hpp"
#include "fit/form_choice.hpp"
#include "fit/interaction.hpp"
#include "fit/runs.hpp"

namespace isoflop::fit {

// Which parametric law Approach 3 fits: Chinchilla's additive law, the interaction law (fit/interaction.hpp), or
// both with the one that predicts held-out budgets better (fit/form_choice.hpp).
ISOFLOP_NAMED_ENUM(FormRequest, (kAdditive, "additive"), (kInteraction, "interaction"), (kAuto, "auto"));

struct FitRequest {
  std::string runs_file;
  std::optional<std::string> curves_file;  // training curves (Approach 1)
  RunColumns columns;
  std::vector<int> approaches;             // 1, 2, 3 in increasing order (default: 3, and 1 with curves)
  FormRequest form = FormRequest::kAdditive;  // the interaction law needs Approach 3 too
  Selection selection;
  double huber_delta = 1e-3;
  Reduce reduce = Reduce::kSum;
  std::string grid = "chinchilla";         // a grid name or spec (parse_grid); the document echoes the full spec
  double ftol = 2.220446049250313e-9;
  double gtol = 1e-5;
  int threads = 0;                         // 0: every core (not echoed: results do not depend on it)
  double budget_tolerance = 0.05;
  int a1_points = 1500;
  int bootstrap = 0;                       // resamples (0: none)
  std::optional<std::uint64_t> seed;       // the bootstrap's seed (default 0)
  std::optional<std::string> save_law;     // law name written as <catalog_dir>/<name>.yaml
  std::optional<std::string> catalog_dir;  // not echoed: where the law goes is saved_law.file
  std::optional<std::string> plot;         // figure file

  bool uses(int approach) const;
  Approach3Options approach3_options() const;
  // The interaction fit: Approach 3's Huber δ, stopping rules and threads (always the sum of the Huber terms),
  // from its own grid of starts (the coarse grid at four γ₀).
  InteractionOptions interaction_options() const;
  Approach2Options approach2_options() const;
  Approach1Options approach1_options() const;
  // Cross-field rules and each option's range; fills `approaches` when empty.
  void resolve();
  // <catalog_dir>/<save_law>.yaml, the file a saved law goes to (the name checked); nullopt without both.
  std::optional<std::string> law_file() const;

  bool operator==(const FitRequest&) const = default;
};

// "1,3", "all" (1 only with curves) → the sorted approach numbers; FieldError("approach") otherwise.
std::vector<int> parse_approaches(const std::string& list, bool have_curves);

}  // namespace isoflop::fit
