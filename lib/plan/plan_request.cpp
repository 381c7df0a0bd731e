// Resolving a plan request against the catalog.
#include "plan/plan_request.hpp"

#include "core/error.hpp"

namespace isoflop::plan {

ResolvedPlan resolve_plan(const catalog::Catalog& cat, const PlanRequest& request) {
  ResolvedPlan resolved;
  PlanOptions& o = resolved.options;
  if (request.law.all_laws) throw FieldError("all_laws", "a plan allocates under one law; the band shows all of them");
  o.law = scaling::select_laws(cat, request.law).front();
  o.band_laws = cat.laws;
  const parallel::ResolvedCluster cluster = parallel::resolve_cluster(cat, request.cluster);
  resolved.cluster_note = cluster.note;
  o.cluster = cluster.spec;
  o.node = cat.node(cluster.spec.node_name);
  if (request.architecture && request.family)
    throw FieldError("family", "a given architecture is planned as it is; a reference family is only for shaping one");
  const std::string family = request.family.value_or("chinchilla-70b");
  o.family = cat.model(family, "family").architecture;
  o.family.name = family;
  o.architecture = request.architecture;
  if (request.global_batch_tokens) o.global_batch_tokens = *request.global_batch_tokens;
  o.search = request.search;
  cost::resolve_energy(request.energy, cat, o.cluster.accelerator, &o.node, &o.run_cost);
  o.whatif = cost::whatif_options(cost::resolve_levers(request.energy, cat), cat, o.cluster.accelerator, o.run_cost);
  return resolved;
}

}  // namespace isoflop::plan
