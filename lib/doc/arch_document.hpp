// The arch document: an architecture for a parameter count after a reference family of shapes.yaml, with the
// runners-up and, for a mixture of experts, ST-MoE's recommendations and the request's departures from them.
//
//   {"schema": "isoflop/arch/v2",
//    "inputs": {"params", "active_params", "style", "tp", "vocab", "seq", "alternatives",
//               "moe": null | {"experts", "top_k", "capacity_factor", "eval_capacity_factor", "every", "ep"}},
//    "family": {"name", "display_name", "rule", "block", "source"},
//    "architecture": {…architecture_json.hpp…},
//    "target_params", "ratio", "score", "preferred": {"aspect_ratio", "d_model", "heads", "head_size", "beyond_family"},
//    "d_model_multiple", "params": {…by component…}, "flops_per_token", "dense_equivalent_params",
//    "alternatives": [{"rank", "architecture", "ratio", "score", "preferred"}…],
//    "moe_advice": null | {"recommended": {"name", "top_k", "capacity_factor", "eval_capacity_factor",
//                          "max_experts", "max_experts_per_device", "every", "source"}, "departures": [text…]}}
//
// Inputs the user left to the family or the catalog are null. "target_params", "params", "flops_per_token",
// "dense_equivalent_params" and each alternative's "rank" are derived (from the inputs and the architecture).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "doc/document.hpp"
#include "model/shape.hpp"
#include "model/shape_family.hpp"

namespace isoflop::model {

void to_json(doc::Json& j, const PreferredShape& preferred);
void from_json(const doc::Json& j, PreferredShape& preferred);
void to_json(doc::Json& j, const MoeRecommendations& recommendations);
void from_json(const doc::Json& j, MoeRecommendations& recommendations);

}  // namespace isoflop::model

namespace isoflop::doc {

struct ArchMoeRequest {
  int experts = 0;                            // experts per MoE layer (at least 2)
  std::optional<int> top_k;                   // null: the catalog's ST-MoE recommendation, as the next three
  std::optional<double> capacity_factor;
  std::optional<double> eval_capacity_factor;
  std::optional<int> every;
  std::optional<int> ep;                      // expert-parallel devices; must divide the experts
  bool operator==(const ArchMoeRequest&) const = default;
};

struct ArchRequest {
  double params = 0;                          // the target: total parameters, or active ones with target_active
  bool target_active = false;
  std::string style = "chinchilla";           // shape family of shapes.yaml
  int tp = 1;                                 // tensor-parallel degree, a power of 2
  std::optional<long long> vocab;             // null: the family's block
  std::optional<long long> seq;               // null: the family's block
  int alternatives = 3;                       // runners-up to list
  std::optional<ArchMoeRequest> moe;          // null: a dense model
  bool operator==(const ArchRequest&) const = default;
};

// The family a shape follows, as the document names it.
struct ArchFamily {
  std::string name;
  std::string display_name;
  model::ShapeRule rule = model::ShapeRule::kAspect;
  std::string block;
  std::string source;
  bool operator==(const ArchFamily&) const = default;
};

struct ArchDocument {
  ArchRequest inputs;
  ArchFamily family;
  model::FamilyShapeCandidate best;
  std::vector<model::FamilyShapeCandidate> alternatives;
  long long d_model_multiple = 0;             // d_model is a multiple of this
  std::optional<model::MoeRecommendations> moe_recommended;  // sparse models: ST-MoE's recommendations
  std::vector<std::string> moe_departures;    // one line per departure from them
  // FLOPs per token in Hoffmann et al. 2022 App. F (backward = 2 × forward), and the dense N whose 6·N matches.
  double flops_per_token() const;
  double dense_equivalent_params() const { return flops_per_token() / 6; }
  bool operator==(const ArchDocument&) const = default;
};

// Shapes the architecture: resolves the family and its block, and the MoE defaults, from the catalog. Throws
// FieldError naming the request's field (params, tp, experts, ep, moe_top_k, …) or InfeasibleError.
ArchDocument design_architecture(const catalog::Catalog& catalog, const ArchRequest& request);

// The human page.
std::string render_arch_page(const ArchDocument& document);
// "Parameters by component" as a table (arch and flops pages); `nonzero_only` leaves out empty components.
std::string render_params_table(const model::Architecture& architecture, bool nonzero_only);

void to_json(Json& j, const ArchMoeRequest& r);
void from_json(const Json& j, ArchMoeRequest& r);
void to_json(Json& j, const ArchRequest& r);
void from_json(const Json& j, ArchRequest& r);
void to_json(Json& j, const ArchFamily& f);
void from_json(const Json& j, ArchFamily& f);
void to_json(Json& j, const ArchDocument& d);
void from_json(const Json& j, ArchDocument& d);

}  // namespace isoflop::doc
