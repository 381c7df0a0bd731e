// isoflop plan: the main job — budget → N, D (and the band across laws) → architecture → layouts → cost and
// the 4Ms what-if.
#include <spdlog/spdlog.h>

#include <cstdio>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/cost_options.hpp"
#include "app/layout_options.hpp"
#include "app/plan_options.hpp"
#include "core/error.hpp"
#include "doc/architecture_input.hpp"
#include "doc/plan_document.hpp"
#include "plan/plan_request.hpp"
#include "units/quantity.hpp"

namespace isoflop::app {

OptionList plan_options() {
  OptionList list = declared_options("plan");
  for (const OptionList& shared : {energy_options(), whatif_options(false), cluster_options(), layout_options()})
    list.insert(list.end(), shared.begin(), shared.end());
  return list;
}

// --days is a number of days; a valid duration with its unit (720h) is --time's, which the message then says.
static std::optional<double> days_option(const po::variables_map& vm) {
  try {
    return get_number(vm, "days");
  } catch (const InputError& e) {
    const std::string text = *get_string(vm, "days");
    try {
      units::parse_duration_s(text, "days");
    } catch (const InputError&) {
      throw InputError(std::string(e.what()) + "; --days takes a number of days, e.g. 30");  // no duration either
    }
    throw InputError("--days: '" + text +
                     "' has a unit, and --days takes a number of days; a duration with its unit "
                     "is --time " +
                     text);
  }
}

plan::PlanResult plan_from_options(const po::variables_map& vm, const catalog::Catalog& cat, std::string* cluster_note) {
  require_one_of(vm, {"flops", "days", "time", "budget-usd", "energy", "co2e"});
  const auto energy = get_string(vm, "energy"), co2e = get_string(vm, "co2e");
  const plan::Budget budget =
      plan::make_budget({.flops = get_count(vm, "flops"),
                         .days = days_option(vm),
                         .time_s = get_duration_s(vm, "time"),
                         .usd = get_money_usd(vm, "budget-usd"),
                         .energy_j = energy ? std::optional(units::parse_energy_j(*energy, "--energy")) : std::nullopt,
                         .co2e_kg = co2e ? std::optional(units::parse_mass_kg(*co2e, "--co2e")) : std::nullopt});
  require_one_of(vm, {"law", "law-params"}, false);
  plan::PlanRequest request;
  request.law = {get_string(vm, "law"), get_string(vm, "law-params"), false};
  request.family = get_string(vm, "family");
  request.global_batch_tokens = get_count(vm, "global-batch-tokens");
  request.min_mfu = get_number(vm, "min-mfu", units::Sign::kNonNegative);
  request.cluster = cluster_request(vm);
  request.search = parallel::search_options(layout_request(vm));
  request.job_settings = job_settings(vm);
  request.energy = energy_request(vm);
  if (auto a = get_string(vm, "arch")) request.architecture = doc::resolve_architecture(cat, *a);
  const plan::PlannedRun run = plan::plan_budget(cat, budget, request);
  if (run.warning) spdlog::warn("{}", *run.warning);
  if (cluster_note) *cluster_note = run.cluster_note;
  return run.result;
}

int run_plan(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("plan"), args, {plan_options(), declared_options("plan", "plot")});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const auto plot_path = get_plot_path(vm);
  const NamedOutputs outputs = named_outputs(parsed->common);
  if (plot_path) outputs.check(*plot_path, "plot");
  const catalog::Catalog cat = load_catalog(parsed->common);
  std::string cluster_note;
  const plan::PlanResult r = plan_from_options(vm, cat, &cluster_note);
  if (plot_path && r.feasible())
    outputs.write(*plot_path, doc::render_isoflop_figure(r, cat.laws), "plot");

  write_document(parsed->common, doc::Json(r), [&] { return doc::render_plan_page(r, cluster_note); },
                 "layouts");
  if (r.acceptable()) return 0;
  std::fprintf(stderr, "isoflop: %s: %s\n", r.feasible() ? "refused" : "infeasible",
               infeasible_message(r.problem->reason, r.problem->changes,
                                  r.feasible() ? parallel::kToReachFloor : parallel::kToFit)
                   .c_str());
  return static_cast<int>(ExitStatus::kFailed);
}

}  // namespace isoflop::app
