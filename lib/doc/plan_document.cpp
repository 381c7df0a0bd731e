// JSON of the plan document: its own sections, then those of the layout document, then the run cost.
#include "doc/plan_document.hpp"

#include "doc/allocation_json.hpp"
#include "doc/cost_json.hpp"
#include "doc/layout_document.hpp"
#include "doc/layout_json.hpp"
#include "model/params.hpp"

namespace isoflop::doc {
// Why the plan cannot be acted on, and the changes that would fix it.
template <>
inline constexpr auto fields<plan::PlanProblem> =
    std::tuple{field("reason", &plan::PlanProblem::reason), field("changes", &plan::PlanProblem::changes)};
}  // namespace isoflop::doc

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
    doc::group("budget", field("flops_convention", &P::flops_convention, doc::names(kFlopsConventionNames)),
               field("flops", &P::flops), field("tokens", &P::tokens), field("tokens_per_s", &P::tokens_per_s),
               field("time_s", &P::time_s), field("mfu", &P::mfu), field("min_mfu", &P::min_mfu),
               field("iterations", &P::iterations), field("converged", &P::converged)),
    doc::group("batch",
               doc::via(&P::batch, field("target_tokens", &BatchChoice::target_tokens),
                        field("ceiling_tokens", &BatchChoice::ceiling_tokens), field("tokens", &BatchChoice::tokens),
                        field("sequences", &BatchChoice::sequences), field("pinned", &BatchChoice::pinned),
                        field("rule", &BatchChoice::rule), field("note", &BatchChoice::note))),
    field("problem", &P::problem),  // null when the plan can be acted on
    field("allocation", &P::allocation),
    field("band", &P::band),
    doc::group("shape", doc::derived("target_params", [](const P& p) { return p.allocation.params; }),
               doc::derived("params", [](const P& p) { return model::count_params(p.job.architecture).total(); }),
               doc::derived("params_ratio_to_target", [](const P& p) { return p.params_ratio_to_target(); }),
               doc::added_later(field("depth_note", &P::depth_note, doc::null_when_empty())),
               doc::added_later(field("positions_note", &P::positions_note, doc::null_when_empty()))),
    LayoutSectionsOfPlan{},
    field("cost", &P::cost)};

}  // namespace

void to_json(Json& j, const PlanResult& p) { doc::write_fields(j, p, kPlan); }
void from_json(const Json& j, PlanResult& p) { doc::read_fields(j, p, kPlan); }

}  // namespace isoflop::plan
