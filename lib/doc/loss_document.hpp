// The `loss` document: the question and every answering law's predicted loss (one without all_laws).
//   {"schema": "isoflop/loss/v2", "inputs": {"params", "tokens", "unique_tokens", "law", "law_params",
//    "all_laws"}, "losses": [{"law", "params", "tokens", "flops", "unique_tokens", "epochs", "loss"}…],
//    "skipped": [{"law", "reason"}…]}
#pragma once

#include <string>
#include <vector>

#include "doc/document.hpp"
#include "doc/optimal_document.hpp"
#include "scaling/query.hpp"

namespace isoflop::scaling {
void to_json(doc::Json& j, const LossRequest& r);
void from_json(const doc::Json& j, LossRequest& r);
void to_json(doc::Json& j, const LossEstimate& e);
void from_json(const doc::Json& j, LossEstimate& e);
}  // namespace isoflop::scaling

namespace isoflop::doc {

struct LossDocument {
  scaling::LossRequest inputs;
  std::vector<scaling::LossEstimate> losses;
  std::vector<scaling::SkippedLaw> skipped;

  bool operator==(const LossDocument&) const = default;
};

LossDocument loss_document(const catalog::Catalog& catalog, const scaling::LossRequest& request);

void to_json(Json& j, const LossDocument& d);
void from_json(const Json& j, LossDocument& d);

std::string render_loss(const LossDocument& d);

}  // namespace isoflop::doc
