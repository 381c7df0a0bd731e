// JSON of the arch document.
#include <cmath>

#include "doc/arch_document.hpp"
#include "doc/architecture_json.hpp"
#include "model/params.hpp"

namespace isoflop::model {

void to_json(doc::Json& j, const PreferredShape& p) {
  j = doc::Json::object();
  j["aspect_ratio"] = p.aspect > 0 ? doc::finite_or_null(p.aspect) : doc::Json(nullptr);
  j["d_model"] = p.d_model > 0 ? doc::Json(p.d_model) : doc::Json(nullptr);
  j["heads"] = p.heads > 0 ? doc::Json(p.heads) : doc::Json(nullptr);
  j["head_size"] = p.head_size;
  j["beyond_family"] = p.beyond_family;
}

void from_json(const doc::Json& j, PreferredShape& p) {
  p = PreferredShape{};
  p.aspect = doc::read_number_or(j, "aspect_ratio", 0);
  std::optional<long long> d_model;
  std::optional<int> heads;
  doc::read(j, "d_model", d_model);
  doc::read(j, "heads", heads);
  p.d_model = d_model.value_or(0);
  p.heads = heads.value_or(0);
  doc::read(j, "head_size", p.head_size);
  doc::read(j, "beyond_family", p.beyond_family);
}

void to_json(doc::Json& j, const MoeRecommendations& m) {
  j = {{"name", m.name},
       {"top_k", m.top_k},
       {"capacity_factor", m.capacity_factor},
       {"eval_capacity_factor", m.eval_capacity_factor},
       {"max_experts", m.max_experts},
       {"max_experts_per_device", m.max_experts_per_device},
       {"every", m.every},
       {"source", m.source}};
}

void from_json(const doc::Json& j, MoeRecommendations& m) {
  m = MoeRecommendations{};
  doc::read(j, "name", m.name);
  doc::read(j, "top_k", m.top_k);
  doc::read(j, "capacity_factor", m.capacity_factor);
  doc::read(j, "eval_capacity_factor", m.eval_capacity_factor);
  doc::read(j, "max_experts", m.max_experts);
  doc::read(j, "max_experts_per_device", m.max_experts_per_device);
  doc::read(j, "every", m.every);
  doc::read(j, "source", m.source);
}

}  // namespace isoflop::model

namespace isoflop::doc {
namespace {

// A candidate's own values; its counts follow from the architecture.
void write_candidate(Json& j, const model::FamilyShapeCandidate& c) {
  j["architecture"] = c.architecture;
  j["ratio"] = c.ratio;
  j["score"] = c.score;
  j["preferred"] = c.preferred;
}

model::FamilyShapeCandidate read_candidate(const Json& j) {
  model::FamilyShapeCandidate c;
  j.at("architecture").get_to(c.architecture);
  read(j, "ratio", c.ratio);
  read(j, "score", c.score);
  j.at("preferred").get_to(c.preferred);
  const model::ParamCount pc = model::count_params(c.architecture);
  c.params = pc.total();
  c.active_params = pc.active;
  return c;
}

}  // namespace

void to_json(Json& j, const ArchMoeRequest& r) {
  j = {{"experts", r.experts},
       {"top_k", or_null(r.top_k)},
       {"capacity_factor", or_null(r.capacity_factor)},
       {"eval_capacity_factor", or_null(r.eval_capacity_factor)},
       {"every", or_null(r.every)},
       {"ep", or_null(r.ep)}};
}

void from_json(const Json& j, ArchMoeRequest& r) {
  r = ArchMoeRequest{};
  read(j, "experts", r.experts);
  read(j, "top_k", r.top_k);
  read(j, "capacity_factor", r.capacity_factor);
  read(j, "eval_capacity_factor", r.eval_capacity_factor);
  read(j, "every", r.every);
  read(j, "ep", r.ep);
}

void to_json(Json& j, const ArchRequest& r) {
  j = Json::object();
  j["params"] = r.target_active ? Json(nullptr) : Json(r.params);
  j["active_params"] = r.target_active ? Json(r.params) : Json(nullptr);
  j["style"] = r.style;
  j["tp"] = r.tp;
  j["vocab"] = or_null(r.vocab);
  j["seq"] = or_null(r.seq);
  j["alternatives"] = r.alternatives;
  j["moe"] = or_null(r.moe);
}

void from_json(const Json& j, ArchRequest& r) {
  r = ArchRequest{};
  std::optional<double> params, active;
  read(j, "params", params);
  read(j, "active_params", active);
  if (params.has_value() == active.has_value()) fail_at(j, "give exactly one of params and active_params");
  r.target_active = active.has_value();
  r.params = active.value_or(params.value_or(0));
  read(j, "style", r.style);
  read(j, "tp", r.tp);
  read(j, "vocab", r.vocab);
  read(j, "seq", r.seq);
  read(j, "alternatives", r.alternatives);
  read(j, "moe", r.moe);
}

void to_json(Json& j, const ArchFamily& f) {
  j = {{"name", f.name},
       {"display_name", f.display_name},
       {"rule", enum_json(f.rule, model::kShapeRuleNames)},
       {"block", f.block},
       {"source", f.source}};
}

void from_json(const Json& j, ArchFamily& f) {
  read(j, "name", f.name);
  read(j, "display_name", f.display_name);
  read_enum(j, "rule", model::kShapeRuleNames, f.rule);
  read(j, "block", f.block);
  read(j, "source", f.source);
}

void to_json(Json& j, const ArchDocument& d) {
  j = Json::object();
  j["schema"] = schema_id("arch");
  j["inputs"] = d.inputs;
  j["family"] = d.family;
  j["architecture"] = d.best.architecture;
  j["target_params"] = d.inputs.params;
  j["ratio"] = d.best.ratio;
  j["score"] = d.best.score;
  j["preferred"] = d.best.preferred;
  j["d_model_multiple"] = d.d_model_multiple;
  j["params"] = model::count_params(d.best.architecture);
  j["flops_per_token"] = d.flops_per_token();
  j["dense_equivalent_params"] = d.dense_equivalent_params();
  Json alternatives = Json::array();
  for (size_t i = 0; i < d.alternatives.size(); ++i) {
    Json a = {{"rank", i + 2}};
    write_candidate(a, d.alternatives[i]);
    alternatives.push_back(std::move(a));
  }
  j["alternatives"] = std::move(alternatives);
  if (d.moe_recommended)
    j["moe_advice"] = {{"recommended", *d.moe_recommended}, {"departures", d.moe_departures}};
  else
    j["moe_advice"] = nullptr;
}

void from_json(const Json& j, ArchDocument& d) {
  d = ArchDocument{};
  j.at("inputs").get_to(d.inputs);
  j.at("family").get_to(d.family);
  Json best = {{"architecture", j.at("architecture")}, {"ratio", j.at("ratio")}, {"score", j.at("score")},
               {"preferred", j.at("preferred")}};
  d.best = read_candidate(best);
  read(j, "d_model_multiple", d.d_model_multiple);
  const Json& alternatives = j.at("alternatives");
  if (!alternatives.is_array()) fail_at(alternatives, "must be an array");
  for (const auto& a : alternatives) d.alternatives.push_back(read_candidate(a));
  const Json& advice = j.at("moe_advice");
  if (!advice.is_null()) {
    d.moe_recommended = advice.at("recommended").get<model::MoeRecommendations>();
    read(advice, "departures", d.moe_departures);
  }
}

}  // namespace isoflop::doc
