// JSON of the plan document.
#include "doc/plan_document.hpp"

#include "doc/allocation_json.hpp"
#include "doc/cost_json.hpp"
#include "doc/layout_document.hpp"
#include "doc/layout_json.hpp"
#include "model/params.hpp"

namespace isoflop::plan {

void to_json(doc::Json& j, const PlanResult& p) {
  const Budget& b = p.budget;
  j = {{"schema", doc::schema_id("plan")},
       {"inputs",
        {{"budget",
          {{"flops", doc::or_null(b.flops)},
           {"time_s", doc::or_null(b.time_s)},
           {"usd", doc::or_null(b.usd)},
           {"energy_kwh", doc::or_null(b.energy_kwh)},
           {"co2e_kg", doc::or_null(b.co2e_kg)}}},
         {"family", p.family},
         {"global_batch_tokens", p.global_batch_tokens}}},
       {"budget",
        {{"flops_convention", kFlopsConventionNames.name(p.flops_convention)},
         {"flops", p.flops},
         {"tokens", p.tokens},
         {"tokens_per_s", p.tokens_per_s},
         {"time_s", p.time_s},
         {"mfu", p.mfu},
         {"min_mfu", p.min_mfu},
         {"iterations", p.iterations},
         {"converged", p.converged}}},
       {"batch",
        {{"target_tokens", p.batch.target_tokens},
         {"ceiling_tokens", p.batch.ceiling_tokens},
         {"tokens", p.batch.tokens},
         {"sequences", p.batch.sequences},
         {"pinned", p.batch.pinned},
         {"rule", p.batch.rule},
         {"note", p.batch.note}}},
       {"problem", p.problem ? doc::Json{{"reason", p.problem->reason}, {"changes", p.problem->changes}}
                             : doc::Json(nullptr)},
       {"allocation", p.allocation},
       {"band", p.band},
       {"shape",
        {{"target_params", p.allocation.params},
         {"params", model::count_params(p.job.architecture).total()},
         {"params_ratio_to_target", p.params_ratio_to_target()}}}};
  doc::write_layout_sections(j, {p.job, p.cluster, p.search, p.layouts});
  j["cost"] = p.cost ? doc::Json(*p.cost) : doc::Json(nullptr);
}

void from_json(const doc::Json& j, PlanResult& p) {
  const doc::Json& inputs = j.at("inputs");
  const doc::Json& b = inputs.at("budget");
  doc::read(b, "flops", p.budget.flops);
  doc::read(b, "time_s", p.budget.time_s);
  doc::read(b, "usd", p.budget.usd);
  doc::read(b, "energy_kwh", p.budget.energy_kwh);
  doc::read(b, "co2e_kg", p.budget.co2e_kg);
  doc::read(inputs, "family", p.family);
  doc::read(inputs, "global_batch_tokens", p.global_batch_tokens);
  const doc::Json& budget = j.at("budget");
  std::string convention;
  doc::read(budget, "flops_convention", convention);
  p.flops_convention = kFlopsConventionNames.parse(convention, "budget.flops_convention");
  doc::read(budget, "flops", p.flops);
  doc::read(budget, "tokens", p.tokens);
  doc::read(budget, "tokens_per_s", p.tokens_per_s);
  doc::read(budget, "time_s", p.time_s);
  doc::read(budget, "mfu", p.mfu);
  doc::read(budget, "min_mfu", p.min_mfu);
  doc::read(budget, "iterations", p.iterations);
  doc::read(budget, "converged", p.converged);
  const doc::Json& batch = j.at("batch");
  doc::read(batch, "target_tokens", p.batch.target_tokens);
  doc::read(batch, "ceiling_tokens", p.batch.ceiling_tokens);
  doc::read(batch, "tokens", p.batch.tokens);
  doc::read(batch, "sequences", p.batch.sequences);
  doc::read(batch, "pinned", p.batch.pinned);
  doc::read(batch, "rule", p.batch.rule);
  doc::read(batch, "note", p.batch.note);
  if (const doc::Json& problem = j.at("problem"); !problem.is_null()) {
    p.problem.emplace();
    doc::read(problem, "reason", p.problem->reason);
    doc::read_array(problem, "changes", p.problem->changes);
  }
  j.at("allocation").get_to(p.allocation);
  j.at("band").get_to(p.band);
  const doc::LayoutSections sections = doc::read_layout_sections(j);
  p.job = sections.job;
  p.cluster = sections.cluster;
  p.search = sections.options;
  p.layouts = sections.result;
  doc::read(j, "cost", p.cost);
}

}  // namespace isoflop::plan
