// The `fit` document: the request echoed, the runs used, each approach's fit, the bootstrap intervals and
// the saved law.
//   {"schema": "isoflop/fit/v2", "inputs": {...}, "runs": {"read", "used", "dropped", "points": [...]},
//    "approach3": {...}|null, "approach2": {...}|null, "approach1": {...}|null, "bootstrap": {...}|null,
//    "saved_law": {"name", "file"}|null}
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doc/document.hpp"
#include "fit/fit_request.hpp"

namespace isoflop::fit {
void to_json(doc::Json& j, const FitRequest& r);
void from_json(const doc::Json& j, FitRequest& r);
void to_json(doc::Json& j, const Run& r);
void from_json(const doc::Json& j, Run& r);
void to_json(doc::Json& j, const Approach3Result& r);
void from_json(const doc::Json& j, Approach3Result& r);
void to_json(doc::Json& j, const BudgetFit& b);
void from_json(const doc::Json& j, BudgetFit& b);
void to_json(doc::Json& j, const Approach2Result& r);
void from_json(const doc::Json& j, Approach2Result& r);
void to_json(doc::Json& j, const EnvelopePoint& p);
void from_json(const doc::Json& j, EnvelopePoint& p);
void to_json(doc::Json& j, const Approach1Result& r);
void from_json(const doc::Json& j, Approach1Result& r);
void to_json(doc::Json& j, const Interval& i);
void from_json(const doc::Json& j, Interval& i);
}  // namespace isoflop::fit

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
  std::optional<int> approach2_failed;                            // when Approach 2 was refitted
  std::optional<std::map<std::string, fit::Interval>> approach2;
  bool operator==(const FitBootstrap&) const = default;
};

struct SavedLaw {
  std::string name;
  std::string file;
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

  bool operator==(const FitDocument&) const = default;
};

// Reads the files, selects the runs and fits (request.resolve() first). `progress(done, total)` is called
// during the bootstrap when set. Writes nothing.
FitDocument fit_document(fit::FitRequest request, const std::function<void(int, int)>& progress = {});

// The saved law as catalog YAML (checked to load), for saved_law.file; the document must have approach3.
std::string fit_law_yaml(const FitDocument& d);

// The figure: loss against compute with the frontier, IsoFLOP profiles, and optimal N and D against compute.
std::string render_fit_figure(const FitDocument& d);

void to_json(Json& j, const FitRuns& r);
void from_json(const Json& j, FitRuns& r);
void to_json(Json& j, const FitBootstrap& b);
void from_json(const Json& j, FitBootstrap& b);
void to_json(Json& j, const SavedLaw& s);
void from_json(const Json& j, SavedLaw& s);
void to_json(Json& j, const FitDocument& d);
void from_json(const Json& j, FitDocument& d);

std::string render_fit(const FitDocument& d);

}  // namespace isoflop::doc
