// MoE lints after ST-MoE (Zoph et al. 2022): the number of experts, the training capacity factor and top-k
// routing against its recommendations (data/shapes.yaml moe_recommendation), or the policy's own bounds.
#include "check/rules.hpp"
#include "model/moe_advice.hpp"

namespace isoflop::check {
namespace {

const model::MoeConfig* moe(const Facts& f) {
  return f.architecture && f.architecture->moe.enabled() ? &f.architecture->moe : nullptr;
}
constexpr const char* kDense = "a dense model: no experts";

// ST-MoE's recommendation where the policy sets no bound of its own.
RuleSetting with_default(RuleSetting s, const char* key, double recommended) {
  if (!s.number(key) && recommended > 0) s.numbers[key] = recommended;
  return s;
}

Finding experts(const RuleSetting& s, const Facts& f) {
  const auto* m = moe(f);
  if (!m) return not_applicable(kDense);
  const auto& rec = f.catalog->moe_recommendation();
  return bounded(m->experts, with_default(s, "max", rec.max_experts), "experts per MoE layer", "");
}

Finding capacity_factor(const RuleSetting& s, const Facts& f) {
  const auto* m = moe(f);
  if (!m) return not_applicable(kDense);
  const auto& rec = f.catalog->moe_recommendation();
  RuleSetting bounds = s;
  if (!s.number("min") && !s.number("max")) bounds = with_default(with_default(s, "min", 1.0), "max", rec.capacity_factor);
  return bounded(m->capacity_factor, bounds, "training capacity factor", "");
}

Finding top_k(const RuleSetting& s, const Facts& f) {
  const auto* m = moe(f);
  if (!m) return not_applicable(kDense);
  const auto& rec = f.catalog->moe_recommendation();
  return bounded(m->top_k, with_default(s, "max", rec.top_k), "experts per token (top-k)", "");
}

// Every departure model::moe_departures names, experts per device included.
Finding st_moe(const RuleSetting&, const Facts& f) {
  const auto* m = moe(f);
  if (!m) return not_applicable(kDense);
  const int ep = f.proposed_layout ? f.proposed_layout->ep : 0;
  const auto departures = model::moe_departures(*m, ep, f.catalog->moe_recommendation());
  Finding r;
  r.value = static_cast<double>(departures.size());
  r.threshold = 0;
  r.holds = departures.empty();
  r.reason = departures.empty() ? "routing follows ST-MoE's recommendations" : departures.front();
  for (size_t i = 1; i < departures.size(); ++i) r.reason += "; " + departures[i];
  return r;
}

}  // namespace

void add_moe_rules(std::vector<RuleInfo>& t) {
  const char* src = "Zoph et al. 2022 (ST-MoE) recommendations, data/shapes.yaml";
  // A count of experts: a bound below one would pass no model.
  const std::vector<SettingSpec> counts = {{"max", SettingKind::kNumber, true, 1},
                                           {"min", SettingKind::kNumber, true, 1}};
  t.push_back({"moe_experts", "experts per MoE layer (default max: ST-MoE's)", "experts", src, "arch|params", counts,
               experts, true});
  t.push_back({"moe_capacity_factor",
               "training capacity factor (default: 1 to ST-MoE's 1.25)",
               "",
               src,
               "arch|params",
               {{"min", SettingKind::kNumber, true}, {"max", SettingKind::kNumber, true}},
               capacity_factor,
               true});
  t.push_back({"moe_top_k", "experts each token is routed to (default max: ST-MoE's top-2)", "experts", src,
               "arch|params", counts, top_k, true});
  t.push_back({"moe_st_moe", "every departure from ST-MoE's routing advice, experts per device included",
               "departures", src, "arch|params", {}, st_moe});
}

}  // namespace isoflop::check
