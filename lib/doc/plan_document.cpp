// JSON of the plan document.
#include "doc/plan_document.hpp"

#include "doc/allocation_json.hpp"
#include "doc/cost_json.hpp"
#include "doc/layout_document.hpp"
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
       {"budget", {{"flops", p.flops}, {"mfu", p.mfu}, {"iterations", p.iterations}, {"converged", p.converged}}},
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
  doc::read(budget, "flops", p.flops);
  doc::read(budget, "mfu", p.mfu);
  doc::read(budget, "iterations", p.iterations);
  doc::read(budget, "converged", p.converged);
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
