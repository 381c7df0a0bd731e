// isoflop plan: the main job — budget → N, D (and the band across laws) → architecture → layouts → cost and
// the 4Ms what-if.
#include <spdlog/spdlog.h>

#include <cmath>

#include "app/cli.hpp"
#include "app/energy_options.hpp"
#include "app/command.hpp"
#include "app/law_options.hpp"
#include "app/layout_json.hpp"
#include "app/layout_options.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "model/params.hpp"
#include "plan/plan.hpp"
#include "report/svg_plot.hpp"
#include "report/text_table.hpp"
#include "scaling/loss_law.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "plan",
    "isoflop plan (--flops C | --days D | --time T | --budget-usd X | --energy E | --co2e M) --gpu NAME --gpus N [options]",
    "The main job. From a budget it finds the compute-optimal parameters and tokens under a scaling law (and the\n"
    "spread across every law in the catalog), shapes an architecture for that size after a reference family,\n"
    "searches the parallel layouts on the cluster, and costs the run: days, GPU-hours, energy (three methods, as\n"
    "in 'isoflop cost'), CO2e and money, with the 4Ms what-if table (Model, Machine, Mechanization, Map).\n"
    "With a time-like budget (GPU-days, dollars, energy, CO2e) the utilisation is the best layout's predicted\n"
    "MFU, iterated until the plan is self-consistent.",
    {"isoflop plan --gpus 3360 --gpu a100-sxm4-80gb --days 30        # the 420-node DGX A100 month",
     "isoflop plan --flops 5.76e23 --gpu a100-sxm4-80gb --gpus 1024 --law chinchilla",
     "isoflop plan --budget-usd 2M --price-per-gpu-hour 2 --gpu h100-sxm5-80gb --gpus 512 -o json",
     "isoflop plan --gpus 3360 --gpu a100-sxm4-80gb --days 30 --plot isoflop.svg"}};

// Loss along the budget's IsoFLOP curve, N from a tenth to ten times the optimum, for each law with a loss.
std::string isoflop_plot(const plan::PlanResult& r, const std::vector<catalog::LawSpec>& laws, const std::string& law) {
  report::PlotSpec spec;
  spec.title = "IsoFLOP curve at C = " + units::format_scientific(r.flops) + " FLOPs";
  spec.x = {"parameters N", report::AxisScale::kLog, report::TickFormat::kCount, std::nullopt, std::nullopt};
  spec.y = {"predicted loss (nats/token)", report::AxisScale::kLinear, report::TickFormat::kPlain, std::nullopt,
            std::nullopt};
  for (const auto& l : laws) {
    if (!scaling::has_loss(l) || l.kind == catalog::LawKind::kKaplan) continue;
    report::Series s;
    s.name = l.name;
    for (int i = 0; i <= 80; ++i) {
      const double n = r.allocation.params * std::pow(10.0, -1.0 + 2.0 * i / 80);
      s.x.push_back(n);
      s.y.push_back(scaling::predicted_loss(l, n, r.flops / (6 * n)));
    }
    if (l.name == law) s.line_width_px = 2.6;
    spec.series.push_back(std::move(s));
  }
  for (const auto& a : r.band.laws)
    if (a.loss && a.law != law && a.law.rfind("kaplan", 0) != 0) {  // Kaplan's loss is on another scale
      report::MarkedPoint p{a.params, *a.loss, "", "#555555", report::MarkerShape::kCircle, 3.5, false, false};
      spec.marked.push_back(p);
    }
  if (r.allocation.loss)
    spec.marked.push_back({r.allocation.params, *r.allocation.loss,
                           "optimum (" + law + "): N = " + units::format_count(r.allocation.params),
                           "#d62728", report::MarkerShape::kStar, 7, true, true});
  return report::render_svg(spec);
}

}  // namespace

int run_plan(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("flops", po::value<std::string>()->value_name("C"), "budget: training compute in FLOPs")
      ("days", po::value<std::string>()->value_name("D"), "budget: days on the whole cluster")
      ("time", po::value<std::string>()->value_name("T"), "budget: wall-clock on the cluster (30d, 720h)")
      ("budget-usd", po::value<std::string>()->value_name("X"), "budget: money ($2M), with --price-per-gpu-hour")
      ("energy", po::value<std::string>()->value_name("E"), "budget: facility energy (2GWh)")
      ("co2e", po::value<std::string>()->value_name("M"), "budget: gross emissions (500t)")
      ("law", po::value<std::string>()->value_name("NAME"), "scaling law for the allocation (default epoch-2024)")
      ("law-params", po::value<std::string>()->value_name("E,A,B,alpha,beta"), "a parametric law given inline")
      ("family", po::value<std::string>()->value_name("MODEL"),
       "reference architecture family for shaping (default chinchilla-70b)")
      ("global-batch-tokens", po::value<std::string>()->value_name("T"), "target tokens per iteration (default 4M)")
      ("plot", po::value<std::string>()->value_name("FILE.svg"), "write the IsoFLOP figure");
  add_energy_options(options);
  add_whatif_options(options, false);
  add_cluster_options(options);
  add_layout_options(options);
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"flops", "days", "time", "budget-usd", "energy", "co2e"});
  require_one_of(vm, {"law", "law-params"}, false);
  plan::Budget budget;
  budget.flops = get_count(vm, "flops");
  if (auto d = get_number(vm, "days")) budget.time_s = *d * 86400.0;
  if (auto t = get_duration_s(vm, "time")) budget.time_s = *t;
  if (auto u = get_string(vm, "budget-usd")) budget.usd = units::parse_money_usd(*u, "--budget-usd");
  if (auto e = get_string(vm, "energy")) budget.energy_kwh = units::parse_energy_j(*e, "--energy") / 3.6e6;
  if (auto m = get_string(vm, "co2e")) budget.co2e_kg = units::parse_mass_kg(*m, "--co2e");
  const auto plot_path = get_string(vm, "plot");
  if (plot_path && plot_path->empty()) throw InputError("--plot: empty file name");

  const catalog::Catalog cat = load_catalog(parsed->common);
  plan::PlanOptions o;
  if (auto text = get_string(vm, "law-params")) {
    o.law = scaling::law_from_params(*text);
  } else {
    o.law = cat.law(get_string(vm, "law").value_or(scaling::kDefaultLaw));
  }
  if (!scaling::has_loss(o.law) && o.law.kind != catalog::LawKind::kAllocationTable)
    spdlog::debug("law {} has no loss", o.law.name);
  o.band_laws = cat.laws;
  const parallel::ResolvedCluster cluster = parallel::resolve_cluster(cat, cluster_request(vm));
  o.cluster = cluster.spec;
  o.node = cat.node(cluster.spec.node_name);
  o.family = cat.model(get_string(vm, "family").value_or("chinchilla-70b"), "--family").architecture;
  if (auto t = get_count(vm, "global-batch-tokens")) o.global_batch_tokens = *t;
  o.search = search_options(vm);
  require_one_of(vm, {"power-w", "node-power-kw"}, false);
  apply_energy_options(vm, cat, o.cluster.accelerator, &o.node, &o.run_cost);
  o.whatif = whatif_options(vm, cat, o.cluster.accelerator, o.run_cost);

  const plan::PlanResult r = plan::make_plan(budget, o);
  if (!r.converged) spdlog::warn("utilisation did not settle within {} iterations", o.max_iterations);
  if (plot_path) write_file_atomically(*plot_path, isoflop_plot(r, cat.laws, o.law.name), "--plot");

  const auto& arch = r.job.architecture;
  const model::ParamCount pc = model::count_params(arch);
  Json band = Json::array();
  for (const auto& a : r.band.laws) band.push_back(allocation_json(a));
  Json budget_json = {{"flops", r.flops}};
  if (budget.time_s) budget_json["time_s"] = *budget.time_s;
  if (budget.usd) budget_json["usd"] = *budget.usd;
  if (budget.energy_kwh) budget_json["energy_kwh"] = *budget.energy_kwh;
  if (budget.co2e_kg) budget_json["co2e_kg"] = *budget.co2e_kg;
  budget_json["mfu"] = r.mfu;
  budget_json["iterations"] = r.iterations;
  const auto& c = r.cost;
  Json doc = {{"schema", "isoflop/plan/v1"},
              {"inputs",
               {{"gpu", o.cluster.accelerator.name},
                {"node", o.cluster.node_name},
                {"gpus", o.cluster.gpus},
                {"law", o.law.name},
                {"energy_method", std::string(cost::kEnergyMethodNames.name(r.cost.energy_method))},
                {"pue", r.cost_inputs.pue},
                {"intensity_kg_per_kwh", r.cost_inputs.intensity_kg_per_kwh},
                {"cfe", r.cost_inputs.cfe_fraction}}},
              {"budget", budget_json},
              {"allocation", allocation_json(r.allocation)},
              {"band", band},
              {"architecture",
               {{"layers", arch.layers},
                {"d_model", arch.d_model},
                {"heads", arch.heads},
                {"head_size", arch.effective_head_size()},
                {"ffn", model::mlp_hidden_size(arch)},
                {"vocab", arch.vocab},
                {"seq", arch.seq},
                {"params", pc.total()},
                {"params_ratio_to_target", r.shape.best.ratio},
                {"global_batch", r.job.global_batch}}},
              {"layouts", search_json(r.layouts)["layouts"]},
              {"cost",
               {{"time_s", c.time_s},
                {"days", c.days},
                {"gpu_hours", c.gpu_hours},
                {"power_kw", c.power_w / 1e3},
                {"power_method", c.power_method},
                {"energy_method", std::string(cost::kEnergyMethodNames.name(c.energy_method))},
                {"it_energy_kwh", c.it_energy_kwh},
                {"energy_kwh", c.energy_kwh},
                {"co2e_kg", c.co2e_kg},
                {"net_co2e_kg", c.net_co2e_kg},
                {"energy_methods", energy_methods_json(c)},
                {"embodied", embodied_json(c, r.cost_inputs)},
                {"total_co2e_kg", c.total_co2e_kg},
                {"compute_cost_usd", c.compute_cost_usd},
                {"energy_cost_usd", c.energy_cost_usd},
                {"cost_usd", c.cost_usd},
                {"whatif", whatif_json(r.whatif)}}}};
  auto table = [&] {
    std::string out = "isoflop plan: " + std::to_string(o.cluster.gpus) + " x " + o.cluster.accelerator.name + " (" +
                      cluster.note + ")\n\n";
    out += "Budget\n" + report::render_key_values({{"compute", units::format_scientific(r.flops) + " FLOPs"},
                                                   {"utilisation", units::format_significant(100 * r.mfu) +
                                                                       "% MFU (best layout, " +
                                                                       std::to_string(r.iterations) + " iterations)"}});
    out += "\nAllocation (" + o.law.name + ")\n";
    std::vector<std::pair<std::string, std::string>> alloc = {
        {"parameters", units::format_count(r.allocation.params)},
        {"tokens", units::format_count(r.allocation.tokens)},
        {"tokens per parameter", units::format_significant(r.allocation.tokens_per_param)}};
    if (r.allocation.loss) alloc.push_back({"predicted loss", units::format_significant(*r.allocation.loss, 4)});
    out += report::render_key_values(alloc);
    out += "\nBand across laws\n";
    report::TextTable t({"law", "parameters", "tokens", "D/N", "loss"});
    for (const auto& a : r.band.laws)
      t.add_row({a.law, units::format_count(a.params), units::format_count(a.tokens),
                 units::format_significant(a.tokens_per_param), a.loss ? units::format_significant(*a.loss, 4) : "-"});
    out += t.render();
    out += "\nArchitecture\n" +
           report::render_key_values({{"layers x d_model", std::to_string(arch.layers) + " x " + std::to_string(arch.d_model)},
                                      {"heads x head size", std::to_string(arch.heads) + " x " + std::to_string(arch.effective_head_size())},
                                      {"ffn", std::to_string(model::mlp_hidden_size(arch))},
                                      {"parameters (exact)", units::format_count(pc.total(), 4) + " (" +
                                                                 units::format_significant(100 * r.shape.best.ratio, 4) + "% of target)"},
                                      {"global batch", std::to_string(r.job.global_batch) + " x " + std::to_string(r.job.seq) + " tokens"}});
    out += "\nLayouts\n" + layouts_table(r.layouts);
    const double pue = r.cost_inputs.pue;
    std::vector<std::pair<std::string, std::string>> cost_kv = {
        {"time", units::format_duration(c.time_s)},
        {"GPU-hours", units::format_count(c.gpu_hours)},
        {"power", units::format_power(c.power_w) + " (" + c.power_method + ")"},
        {"energy", units::format_energy(c.energy_kwh * 3.6e6) + " (PUE " + units::format_significant(pue) + ")"},
        {"CO2e", units::format_mass(c.co2e_kg) + " gross, " + units::format_mass(c.net_co2e_kg) + " net"}};
    if (c.embodied)
      cost_kv.push_back({"embodied CO2e", units::format_mass(c.embodied_co2e_kg) + " (total " +
                                              units::format_mass(c.total_co2e_kg) + ")"});
    cost_kv.push_back(
        {"money", c.cost_usd > 0 ? units::format_money(c.cost_usd) : "not priced (--price-per-gpu-hour)"});
    out += "\nCost\n" + report::render_key_values(cost_kv);
    out += "\nEnergy by method (PUE " + units::format_significant(pue) + ")\n" + energy_methods_table(c);
    out += "\n4Ms what-if (Patterson et al. 2022)\n" + whatif_table(r.whatif);
    return out;
  };
  write_result(parsed->common, doc, table, &doc["layouts"]);
  return 0;
}

}  // namespace isoflop::app
