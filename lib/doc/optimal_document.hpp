// The `optimal` document: the question, every answering law's allocation (one without all_laws), and the
// laws that could not answer. allocations[i] has the shape of doc/allocation_json.hpp (as plan.allocation).
#pragma once

#include <string>
#include <vector>

#include "doc/allocation_json.hpp"
#include "doc/document.hpp"
#include "scaling/query.hpp"

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

// Written into the inputs that hold it.
template <>
inline constexpr auto fields<scaling::LawChoice> =
    std::tuple{field("law", &scaling::LawChoice::law), field("law_params", &scaling::LawChoice::law_params),
               field("all_laws", &scaling::LawChoice::all_laws)};

template <>
inline constexpr auto fields<scaling::OptimalRequest> =
    std::tuple{field("flops", &scaling::OptimalRequest::flops),
               field("params", &scaling::OptimalRequest::params), field("tokens", &scaling::OptimalRequest::tokens),
               field("target_loss", &scaling::OptimalRequest::target_loss),
               field("unique_tokens", &scaling::OptimalRequest::unique_tokens),
               field("inference_tokens", &scaling::OptimalRequest::inference_tokens),
               flat(&scaling::OptimalRequest::laws)};

template <>
inline constexpr auto fields<OptimalDocument> =
    std::tuple{schema_key("optimal"), field("inputs", &OptimalDocument::inputs),
               field("allocations", &OptimalDocument::allocations), field("skipped", &OptimalDocument::skipped),
               field("notes", &OptimalDocument::notes)};

// The human page: key/values for one allocation, a table for several.
std::string render_optimal(const OptimalDocument& d);

}  // namespace isoflop::doc
