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
namespace {

const CommandHelp kHelp = {
    "plan",
    "isoflop plan (--flops C | --days D | --time T | --budget-usd X | --energy E | --co2e M) --gpu NAME --gpus N [options]",
    "The main job. From a budget it finds the compute-optimal parameters and tokens under a scaling law (and the\n"
    "spread across the catalog laws that count parameters alike), shapes an architecture for that size after a\n"
    "reference family or takes a given one (--arch: its exact parameter count, tokens C/(6N)), searches the\n"
    "parallel layouts on the cluster, and costs the run: days, GPU-hours, energy (three methods, as in 'isoflop\n"
    "cost'), CO2e and money, with the 4Ms what-if table (Model, Machine, Mechanization, Map). With a time-like\n"
    "budget (GPU-days, dollars, energy, CO2e) the tokens are what the best layout's throughput affords, iterated\n"
    "until the plan is self-consistent. Its JSON (isoflop/plan/v2) is read back by 'cost --from', 'layout\n"
    "--from' and 'flops --from'. FLOPs, MFU and cost count the chosen layout's model FLOPs, so days = tokens /\n"
    "the layout's tokens/s. The global batch starts at 4M tokens and doubles while the MFU gains, up to DeepSeek\n"
    "LLM's B = 0.292 C^0.327 tokens. When no layout fits, or the MFU is under --min-mfu, it prints the plan with\n"
    "the reason and the changes that would do (fewer GPUs, a larger batch) and exits 1.",
    {"isoflop plan --gpus 3360 --gpu a100-sxm4-80gb --days 30        # the 420-node DGX A100 month",
     "isoflop plan --flops 5.76e23 --gpu a100-sxm4-80gb --gpus 1024 --law chinchilla",
     "isoflop plan --arch chinchilla-70b --gpus 1024 --gpu a100-sxm4-80gb --days 30   # a given model",
     "isoflop plan --budget-usd 2M --price-per-gpu-hour 2 --gpu h100-sxm5-80gb --gpus 512 -o json",
     "isoflop plan --gpus 3360 --gpu a100-sxm4-80gb --days 30 -o json > plan.json; isoflop cost --from plan.json --grid fr",
     "isoflop plan --gpus 3360 --gpu a100-sxm4-80gb --days 30 --plot isoflop.svg"}};

const OptionList kOptions = {
    "flops C: budget: training compute in FLOPs",
    "days D: budget: days on the whole cluster",
    "time T: budget: wall-clock on the cluster (30d, 720h)",
    "budget-usd X: budget: money ($2M), with --price-per-gpu-hour",
    "energy E: budget: facility energy (2GWh)",
    "co2e M: budget: gross emissions (500t)",
    "law NAME: scaling law for the allocation (default epoch-2024)",
    "law-params E,A,B,alpha,beta: a parametric law given inline",
    "family MODEL: reference architecture family for shaping (default chinchilla-70b)",
    "arch NAME|FILE: plan this model as it is: catalog model, architecture YAML file, or document (- reads stdin)",
    "global-batch-tokens T: tokens per iteration, pinned (default: 4M, grown with the cluster up to the batch "
    "ceiling)",
    "min-mfu U: refuse the plan (exit 1) when the best layout's MFU is under U (default from cost.yaml: 0.25)"};

plan::Budget budget_from(const po::variables_map& vm) {
  require_one_of(vm, {"flops", "days", "time", "budget-usd", "energy", "co2e"});
  plan::Budget b;
  b.flops = get_count(vm, "flops");
  if (auto d = get_number(vm, "days")) b.time_s = *d * 86400.0;
  if (auto t = get_duration_s(vm, "time")) b.time_s = *t;
  b.usd = get_money_usd(vm, "budget-usd");
  if (auto e = get_string(vm, "energy")) b.energy_kwh = units::parse_energy_j(*e, "--energy") / 3.6e6;
  if (auto m = get_string(vm, "co2e")) b.co2e_kg = units::parse_mass_kg(*m, "--co2e");
  return b;
}

}  // namespace

OptionList plan_options() {
  OptionList list = kOptions;
  for (const OptionList& shared : {energy_options(), whatif_options(false), cluster_options(), layout_options()})
    list.insert(list.end(), shared.begin(), shared.end());
  return list;
}

plan::PlanResult plan_from_options(const po::variables_map& vm, const catalog::Catalog& cat, std::string* cluster_note) {
  const plan::Budget budget = budget_from(vm);
  require_one_of(vm, {"law", "law-params"}, false);
  plan::PlanRequest request;
  request.law = {get_string(vm, "law"), get_string(vm, "law-params"), false};
  request.family = get_string(vm, "family");
  request.global_batch_tokens = get_count(vm, "global-batch-tokens");
  request.min_mfu = get_number(vm, "min-mfu", units::Sign::kNonNegative);
  request.cluster = cluster_request(vm);
  request.search = search_options(vm);
  request.job_settings = job_settings(vm);
  request.energy = energy_request(vm);
  resolve_trainer(cat, request.search);
  if (auto a = get_string(vm, "arch")) request.architecture = doc::resolve_architecture(cat, *a);
  const plan::ResolvedPlan resolved = plan::resolve_plan(cat, request);
  plan::PlanResult r = plan::make_plan(budget, resolved.options);
  if (!r.converged) spdlog::warn("utilisation did not settle within {} iterations", resolved.options.max_iterations);
  if (cluster_note) *cluster_note = resolved.cluster_note;
  return r;
}

int run_plan(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {plan_options(), {"plot FILE.svg: write the IsoFLOP figure"}});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const auto plot_path = get_string(vm, "plot");
  if (plot_path) check_output_file(parsed->common, *plot_path, "--plot");
  const catalog::Catalog cat = load_catalog(parsed->common);
  std::string cluster_note;
  const plan::PlanResult r = plan_from_options(vm, cat, &cluster_note);
  if (plot_path && r.feasible())
    write_output_file(parsed->common, *plot_path, doc::render_isoflop_figure(r, cat.laws), "--plot");

  write_document(parsed->common, doc::Json(r), [&] { return doc::render_plan_page(r, cluster_note); },
                 "layouts");
  if (r.acceptable()) return 0;
  parallel::Infeasibility why;
  why.reason = r.problem->reason;
  why.changes = r.problem->changes;
  std::fprintf(stderr, "isoflop: %s: %s\n", r.feasible() ? "refused" : "infeasible", infeasible_message(why).c_str());
  return static_cast<int>(ExitStatus::kFailed);
}

}  // namespace isoflop::app
