// The `optimal` document: the question, every answering law's allocation (one without all_laws), and the
// laws that could not answer.
//   {"schema": "isoflop/optimal/v2", "inputs": {...}, "allocations": [allocation…], "skipped": [...],
//    "notes": [...]}
// allocations[i] has the shape of doc/allocation_json.hpp (the same object as plan.allocation).
#pragma once

#include <string>
#include <vector>

#include "doc/allocation_json.hpp"
#include "doc/document.hpp"
#include "scaling/query.hpp"

namespace isoflop::scaling {
void to_json(doc::Json& j, const LawChoice& c);  // {"law", "law_params", "all_laws"} (the inputs' keys)
void from_json(const doc::Json& j, LawChoice& c);
void to_json(doc::Json& j, const OptimalRequest& r);
void from_json(const doc::Json& j, OptimalRequest& r);
}  // namespace isoflop::scaling

namespace isoflop::doc {

struct OptimalDocument {
  scaling::OptimalRequest inputs;
  std::vector<scaling::Allocation> allocations;
  std::vector<scaling::SkippedLaw> skipped;
  std::vector<std::string> notes;

  bool operator==(const OptimalDocument&) const = default;
};

// Answers `request` with the catalog's laws.
OptimalDocument optimal_document(const catalog::Catalog& catalog, const scaling::OptimalRequest& request);

void to_json(Json& j, const OptimalDocument& d);
void from_json(const Json& j, OptimalDocument& d);

// The human page: key/values for one allocation, a table for several.
std::string render_optimal(const OptimalDocument& d);

}  // namespace isoflop::doc
