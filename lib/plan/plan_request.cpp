// Resolving a plan request against the catalog.
#include "plan/plan_request.hpp"

#include "core/error.hpp"
#include "parallel/layout_request.hpp"
#include "units/format.hpp"
#include "units/integer_limits.hpp"
#include "units/si.hpp"

namespace isoflop::plan {

Budget make_budget(const BudgetRequest& r) {
  Budget b{.flops = r.flops, .time_s = r.time_s, .usd = r.usd, .energy_kwh = std::nullopt, .co2e_kg = r.co2e_kg};
  if (r.days) b.time_s = *r.days * units::kSecondsPerDay;
  if (r.energy_j) b.energy_kwh = *r.energy_j / units::kJoulesPerKwh;
  return b;
}

ResolvedPlan resolve_plan(const catalog::Catalog& cat, const PlanRequest& request) {
  ResolvedPlan resolved;
  PlanOptions& o = resolved.options;
  if (request.law.all_laws) throw FieldError("all_laws", "a plan allocates under one law; the band shows all of them");
  o.law = scaling::select_laws(cat, request.law).front();
  // The band: the allocation's law first, so that it holds the laws counting parameters as that law does.
  o.band_laws = {o.law};
  for (const auto& law : cat.laws)
    if (law.name != o.law.name) o.band_laws.push_back(law);
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
  if (request.global_batch_tokens && request.global_batch_sequences)
    throw FieldError("global_batch_sequences", "give the batch in tokens or in sequences, not both");
  if (request.global_batch_sequences && *request.global_batch_sequences < 1)
    throw FieldError("global_batch_sequences",
                     "must be at least 1, got " + std::to_string(*request.global_batch_sequences));
  if (request.global_batch_tokens) {
    // A batch is at most a training run's tokens: past that its sequence count leaves a 64-bit integer.
    if (!(*request.global_batch_tokens > 0 && *request.global_batch_tokens <= units::kMaxTrainingTokens))
      throw FieldError("global_batch_tokens", "must be positive and at most " +
                                                  units::format_scientific(units::kMaxTrainingTokens) +
                                                  " tokens (a training run's most), got " +
                                                  units::format_scientific(*request.global_batch_tokens));
    o.global_batch_tokens = *request.global_batch_tokens;
    o.global_batch_pinned = true;
  }
  if (request.global_batch_sequences) {
    o.global_batch_sequences = request.global_batch_sequences;
    o.global_batch_pinned = true;
    const long long seq = o.architecture && o.architecture->seq > 0 ? o.architecture->seq : o.family.seq;
    o.global_batch_tokens = static_cast<double>(*request.global_batch_sequences * seq);
  }
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  o.batch_rule.coefficient = k.batch_coefficient;
  o.batch_rule.exponent = k.batch_exponent;
  o.batch_rule.source = k.batch_source;
  o.min_mfu = request.min_mfu.value_or(k.min_mfu);
  o.search = request.search;
  o.job_settings = request.job_settings;
  if (!o.architecture) o.positions_note = use_trainer_positions(o.family, o.search.trainer);
  // A node of another size than the catalog's (--gpus-per-node) draws its node's power per GPU, as cost says.
  o.run_cost.gpus_per_node = o.cluster.gpus_per_node;
  cost::resolve_energy(request.energy, cat, o.cluster.accelerator, &o.node, &o.run_cost);
  o.whatif = cost::whatif_options(cost::resolve_levers(request.energy, cat), cat, o.cluster.accelerator, o.run_cost);
  return resolved;
}

std::string use_trainer_positions(model::Architecture& family, const catalog::TrainerRules& trainer) {
  const std::string positions(model::kPositionalEncodingNames.name(family.positional));
  const std::string rotary(model::kPositionalEncodingNames.name(model::PositionalEncoding::kRotary));
  if (!trainer.loaded() || trainer.positions.spells(positions) || !trainer.positions.spells(rotary)) return "";
  family.positional = model::PositionalEncoding::kRotary;
  return rotary + ": " + trainer.display_name + " builds no " + positions + " positions, the family's";
}

PlannedRun plan_budget(const catalog::Catalog& catalog, const Budget& budget, PlanRequest request) {
  parallel::resolve_trainer(catalog, request.search);
  const ResolvedPlan resolved = resolve_plan(catalog, request);
  PlannedRun run{make_plan(budget, resolved.options), resolved.cluster_note, std::nullopt};
  // A plan with no layout stops iterating at once: it is infeasible (said in its problem), not unsettled.
  if (!run.result.converged && run.result.layouts.feasible())
    run.warning = "utilisation did not settle within " + std::to_string(resolved.options.max_iterations) + " iterations";
  return run;
}

}  // namespace isoflop::plan
