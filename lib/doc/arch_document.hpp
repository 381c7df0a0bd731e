// The arch document: an architecture for a parameter count after a reference family of shapes.yaml, with the
// runners-up and, for a mixture of experts, ST-MoE's recommendations and the request's departures from them.
//
//   {"schema", "inputs", "family", "architecture" (doc/architecture_json.hpp), "target_params", "ratio", "score",
//    "preferred", "d_model_multiple", "params" (by component), "flops_per_token", "dense_equivalent_params",
//    "alternatives": [{"rank", "architecture", "ratio", "score", "preferred"}…],
//    "moe_advice": null | {"recommended", "departures": [text…]}}
// Inputs the user left to the family or the catalog are null. "target_params", "params", "flops_per_token",
// "dense_equivalent_params" and each alternative's "rank" are derived (from the inputs and the architecture).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "doc/architecture_json.hpp"
#include "model/shape.hpp"
#include "model/shape_family.hpp"

namespace isoflop::doc {

struct ArchMoeRequest {
  int experts = 0;           // experts per MoE layer (at least 2)
  std::optional<int> top_k;  // null: the catalog's ST-MoE recommendation, as the next three
  std::optional<double> capacity_factor;
  std::optional<double> eval_capacity_factor;
  std::optional<int> every;
  std::optional<int> ep;  // expert-parallel devices; must divide the experts
  bool operator==(const ArchMoeRequest&) const = default;
};

struct ArchRequest {
  double params = 0;  // the target: total parameters, or active ones with target_active
  bool target_active = false;
  std::string style = "chinchilla";   // shape family of shapes.yaml
  int tp = 1;                         // tensor-parallel degree, a power of 2
  std::optional<long long> vocab;     // null: the family's block
  std::optional<long long> seq;       // null: the family's block
  int alternatives = 3;               // runners-up to list
  std::optional<ArchMoeRequest> moe;  // null: a dense model
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
  long long d_model_multiple = 0;                            // d_model is a multiple of this
  std::optional<model::MoeRecommendations> moe_recommended;  // sparse models: ST-MoE's recommendations
  std::vector<std::string> moe_departures;                   // one line per departure from them
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

// What the family prefers: null where its rule has no preference.
template <>
inline constexpr auto fields<model::PreferredShape> = std::tuple{
    field("aspect_ratio", &model::PreferredShape::aspect, null_when(0.0)),
    field("d_model", &model::PreferredShape::d_model, null_when(0LL)),
    field("heads", &model::PreferredShape::heads, null_when(0)), field("head_size", &model::PreferredShape::head_size),
    field("beyond_family", &model::PreferredShape::beyond_family)};

template <>
inline constexpr auto fields<model::MoeRecommendations> =
    std::tuple{field("name", &model::MoeRecommendations::name),
               field("top_k", &model::MoeRecommendations::top_k),
               field("capacity_factor", &model::MoeRecommendations::capacity_factor),
               field("eval_capacity_factor", &model::MoeRecommendations::eval_capacity_factor),
               field("max_experts", &model::MoeRecommendations::max_experts),
               field("max_experts_per_device", &model::MoeRecommendations::max_experts_per_device),
               field("every", &model::MoeRecommendations::every), field("source", &model::MoeRecommendations::source)};

template <>
inline constexpr auto fields<ArchMoeRequest> =
    std::tuple{field("experts", &ArchMoeRequest::experts),
               field("top_k", &ArchMoeRequest::top_k), field("capacity_factor", &ArchMoeRequest::capacity_factor),
               field("eval_capacity_factor", &ArchMoeRequest::eval_capacity_factor),
               field("every", &ArchMoeRequest::every), field("ep", &ArchMoeRequest::ep)};

// The target is "params" or "active_params" (the other null).
template <>
inline constexpr auto fields<ArchRequest> = std::tuple{
    derived("params", [](const ArchRequest& r) { return r.target_active ? Json(nullptr) : Json(r.params); }),
    derived("active_params", [](const ArchRequest& r) { return r.target_active ? Json(r.params) : Json(nullptr); }),
    field("style", &ArchRequest::style), field("tp", &ArchRequest::tp), field("vocab", &ArchRequest::vocab),
    field("seq", &ArchRequest::seq), field("alternatives", &ArchRequest::alternatives), field("moe", &ArchRequest::moe),
    on_read([](const Json& j, ArchRequest& r) {
      std::optional<double> params, active;
      read(j, "params", params);
      read(j, "active_params", active);
      if (params.has_value() == active.has_value()) fail_at(j, "give exactly one of params and active_params");
      r.target_active = active.has_value();
      r.params = active.value_or(params.value_or(0));
    })};

template <>
inline constexpr auto fields<ArchFamily> =
    std::tuple{field("name", &ArchFamily::name), field("display_name", &ArchFamily::display_name),
               field("rule", &ArchFamily::rule, names(model::kShapeRuleNames)), field("block", &ArchFamily::block),
               field("source", &ArchFamily::source)};

void to_json(Json& j, const ArchDocument& d);
void from_json(const Json& j, ArchDocument& d);

}  // namespace isoflop::doc
