// The `fit` document: the request echoed, the runs used, each approach's fit, the bootstrap intervals and
// the saved law.
//   {"schema": "isoflop/fit/v2", "inputs": {...}, "runs": {"read", "used", "dropped", "points": [...]},
//    "approach3": {...}|null, "approach2": {...}|null, "approach1": {...}|null, "bootstrap": {...}|null,
//    "saved_law": {"name", "file", "form"}|null, "interaction": {...}|null, "form_choice": {...}|null}
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/output_path.hpp"
#include "doc/fit_json.hpp"

namespace isoflop::doc {

struct FitRuns {
  long long read = 0, used = 0, dropped = 0;
  std::vector<fit::Run> points;  // the runs fitted, in canonical order
  bool operator==(const FitRuns&) const = default;
};

struct FitBootstrap {
  int resamples = 0;
  std::uint64_t seed = 0;
  int approach3_failed = 0;
  std::map<std::string, fit::Interval> approach3;
  std::optional<int> approach2_failed;  // when Approach 2 was refitted
  std::optional<std::map<std::string, fit::Interval>> approach2;
  std::optional<int> interaction_failed;  // when the interaction law was refitted (--form interaction or auto)
  std::optional<std::map<std::string, fit::Interval>> interaction;
  bool operator==(const FitBootstrap&) const = default;
};

struct SavedLaw {
  std::string name;
  std::string file;
  fit::ParametricForm form = fit::ParametricForm::kAdditive;  // which fit it is
  bool operator==(const SavedLaw&) const = default;
};

struct FitDocument {
  fit::FitRequest inputs;
  FitRuns runs;
  std::optional<fit::Approach3Result> approach3;
  std::optional<fit::Approach2Result> approach2;
  std::optional<fit::Approach1Result> approach1;  // envelope thinned to at most 301 points
  std::optional<FitBootstrap> bootstrap;
  std::optional<SavedLaw> saved_law;
  std::optional<fit::InteractionResult> interaction;  // --form interaction or auto
  std::optional<fit::FormChoice> form_choice;         // --form auto: held-out budgets choose
  std::vector<std::string> caveats;                   // what the runs cannot tell the fit (doc/fit_document.cpp)

  bool operator==(const FitDocument&) const = default;
};

// Reads the files, selects the runs and fits (request.resolve() first). `progress(done, total)` is called
// during the bootstrap when set. Writes nothing.
FitDocument fit_document(fit::FitRequest request, const std::function<void(int, int)>& progress = {});

// The saved law as catalog YAML (checked to load), for saved_law.file: the fit saved_law.form names.
std::string fit_law_yaml(const FitDocument& d);

// The figure: loss against compute with the frontier, IsoFLOP profiles, and optimal N and D against compute.
std::string render_fit_figure(const FitDocument& d);

// The bootstrap's progress for a terminal line: "bootstrap [###         ] 4/40", the bar 30 columns wide.
std::string fit_progress_bar(int done, int total);

// Before the fit: the runs and curves files noted as inputs, which no output may replace, and the law file taken
// off them (fit reads no catalog: in the catalog folder it is only the output); `plot` checked, and the law
// file when the catalog folder exists (a missing one is made before writing).
void check_fit_outputs(const fit::FitRequest& request, const NamedOutputs& outputs);

// After it: the saved law and the figure rendered (each checked) before either is written; then the law written
// (its catalog folder created when missing) and the figure.
void write_fit_outputs(const fit::FitRequest& request, const FitDocument& d, const NamedOutputs& outputs);

template <>
inline constexpr auto fields<FitRuns> =
    std::tuple{field("read", &FitRuns::read), field("used", &FitRuns::used), field("dropped", &FitRuns::dropped),
               field("points", &FitRuns::points)};

template <>
inline constexpr auto fields<FitBootstrap> = std::tuple{field("resamples", &FitBootstrap::resamples),
                                                        field("seed", &FitBootstrap::seed),
                                                        field("approach3_failed", &FitBootstrap::approach3_failed),
                                                        field("approach3", &FitBootstrap::approach3),
                                                        field("approach2_failed", &FitBootstrap::approach2_failed),
                                                        field("approach2", &FitBootstrap::approach2),
                                                        added_later(field("interaction_failed",
                                                                          &FitBootstrap::interaction_failed),
                                                                    field("interaction", &FitBootstrap::interaction))};

template <>
inline constexpr auto fields<SavedLaw> =
    std::tuple{field("name", &SavedLaw::name), field("file", &SavedLaw::file),
               added_later(field("form", &SavedLaw::form, kParametricFormCodec))};

template <>
inline constexpr auto fields<FitDocument> =
    std::tuple{schema_key("fit"),
               field("inputs", &FitDocument::inputs),
               field("runs", &FitDocument::runs),
               field("approach3", &FitDocument::approach3),
               field("approach2", &FitDocument::approach2),
               field("approach1", &FitDocument::approach1),
               field("bootstrap", &FitDocument::bootstrap),
               field("saved_law", &FitDocument::saved_law),
               added_later(field("interaction", &FitDocument::interaction),
                           field("form_choice", &FitDocument::form_choice), field("caveats", &FitDocument::caveats))};

std::string render_fit(const FitDocument& d);

}  // namespace isoflop::doc
