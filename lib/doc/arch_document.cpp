// `arch`: a parameter budget → an architecture after a shape family, with the catalog's defaults resolved.
#include "doc/arch_document.hpp"

#include "core/error.hpp"
#include "model/flops.hpp"
#include "model/moe_advice.hpp"

namespace isoflop::doc {

double ArchDocument::flops_per_token() const {
  const model::Architecture& a = best.architecture;
  if (a.seq < 1) return 0;
  // MoE layers run top-k × capacity factor experts per token plus the router: a dense-equivalent cost.
  return model::chinchilla_training_flops_per_sequence(a, a.seq) / static_cast<double>(a.seq);
}

ArchDocument design_architecture(const catalog::Catalog& cat, const ArchRequest& request) {
  ArchDocument d;
  d.inputs = request;
  const model::ShapeFamily& family = cat.shape_family(request.style, "style");
  d.family = {family.name, family.display_name, family.rule, family.block, family.source};
  model::FamilyShapeOptions o;
  o.family = family;
  o.block = cat.model(family.block, "shape family '" + family.name + "' block").architecture;
  o.tp = request.tp;
  o.vocab = request.vocab.value_or(0);
  o.seq = request.seq.value_or(0);
  o.alternatives = request.alternatives;
  o.target_active = request.target_active;
  if (request.moe) {
    const ArchMoeRequest& m = *request.moe;
    model::MoeRecommendations advice = cat.moe_recommendation();
    advice.file.clear();
    o.moe.experts = m.experts;
    o.moe.top_k = m.top_k.value_or(advice.top_k);
    o.moe.capacity_factor = m.capacity_factor.value_or(advice.capacity_factor);
    o.moe.eval_capacity_factor = m.eval_capacity_factor.value_or(advice.eval_capacity_factor);
    o.moe.every = m.every.value_or(advice.every);
    if (m.experts < 2) throw FieldError("experts", "a mixture needs at least 2 experts, got " + std::to_string(m.experts));
    const int ep = m.ep.value_or(0);
    if (m.ep && ep < 1) throw FieldError("ep", "must be at least 1");
    if (ep > 0 && m.experts % ep != 0)
      throw FieldError("ep", std::to_string(ep) + " does not divide the " + std::to_string(m.experts) +
                                 " experts (each device must hold the same number of experts)");
    d.moe_departures = model::moe_departures(o.moe, ep, advice);
    d.moe_recommended = advice;
  }
  const model::FamilyShapeResult r = model::shape_by_family(request.params, o);
  d.best = r.best;
  d.alternatives = r.alternatives;
  d.d_model_multiple = r.d_model_step;
  return d;
}

}  // namespace isoflop::doc
