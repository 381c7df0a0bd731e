// The `loss` document: the question and every answering law's predicted loss (one without all_laws).
#pragma once

#include <string>
#include <vector>

#include "doc/document.hpp"
#include "doc/optimal_document.hpp"
#include "scaling/query.hpp"

namespace isoflop::doc {

struct LossDocument {
  scaling::LossRequest inputs;
  std::vector<scaling::LossEstimate> losses;
  std::vector<scaling::SkippedLaw> skipped;

  bool operator==(const LossDocument&) const = default;
};

LossDocument loss_document(const catalog::Catalog& catalog, const scaling::LossRequest& request);

template <>
inline constexpr auto fields<scaling::LossRequest> =
    std::tuple{field("params", &scaling::LossRequest::params), field("tokens", &scaling::LossRequest::tokens),
               field("unique_tokens", &scaling::LossRequest::unique_tokens), flat(&scaling::LossRequest::laws)};

template <>
inline constexpr auto fields<scaling::LossEstimate> =
    std::tuple{field("law", &scaling::LossEstimate::law),
               field("params", &scaling::LossEstimate::params),
               field("tokens", &scaling::LossEstimate::tokens),
               field("flops", &scaling::LossEstimate::flops),
               field("unique_tokens", &scaling::LossEstimate::unique_tokens),
               field("epochs", &scaling::LossEstimate::epochs),
               field("loss", &scaling::LossEstimate::loss),
               field("parameters", &scaling::LossEstimate::parameters),
               field("dataset", &scaling::LossEstimate::dataset),
               field("note", &scaling::LossEstimate::note),
               added_later(field("extrapolation", &scaling::LossEstimate::extrapolation, null_when_empty()))};

template <>
inline constexpr auto fields<LossDocument> =
    std::tuple{schema_key("loss"), field("inputs", &LossDocument::inputs), field("losses", &LossDocument::losses),
               field("skipped", &LossDocument::skipped)};

std::string render_loss(const LossDocument& d);

}  // namespace isoflop::doc
