// JSON of the plan document: its own sections, then those of the layout document, then the run cost.
#include "doc/plan_document.hpp"

#include "doc/allocation_json.hpp"
#include "doc/cost_json.hpp"
#include "doc/layout_document.hpp"

namespace isoflop::plan {
namespace {

using doc::field;
using doc::Json;

// The layout document's sections, made of the plan's job, cluster, search options and result.
struct LayoutSectionsOfPlan {
  void write(Json& j, const PlanResult& p) const {
    doc::write_layout_sections(j, {p.job, p.cluster, p.search, p.layouts});
  }
  void read(const Json& j, PlanResult& p) const {
    const auto s = j.get<doc::LayoutSections>();
    p.job = s.job;
    p.cluster = s.cluster;
    p.search = s.options;
    p.layouts = s.result;
  }
};

using P = PlanResult;
using B = Budget;
constexpr auto kPlan = std::tuple{
    doc::schema_key("plan"),
    doc::group("inputs",
               doc::group("budget", doc::via(&P::budget, field("flops", &B::flops), field("time_s", &B::time_s),
                                             field("usd", &B::usd), field("energy_kwh", &B::energy_kwh),
                                             field("co2e_kg", &B::co2e_kg))),
               field("family", &P::family), field("global_batch_tokens", &P::global_batch_tokens)),
    doc::group("budget", field("flops", &P::flops), field("mfu", &P::mfu), field("iterations", &P::iterations),
               field("converged", &P::converged)),
    field("allocation", &P::allocation), field("band", &P::band),
    doc::group("shape", doc::derived("target_params", [](const P& p) { return p.allocation.params; }),
               doc::derived("params", [](const P& p) { return model::count_params(p.job.architecture).total(); }),
               doc::derived("params_ratio_to_target", [](const P& p) { return p.params_ratio_to_target(); })),
    LayoutSectionsOfPlan{},
    field("cost", &P::cost)};

}  // namespace

void to_json(Json& j, const PlanResult& p) { doc::write_fields(j, p, kPlan); }
void from_json(const Json& j, PlanResult& p) { doc::read_fields(j, p, kPlan); }

}  // namespace isoflop::plan
