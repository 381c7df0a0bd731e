// isoflop cost: time, GPU-hours, power, energy (three methods), CO2e, money and the 4Ms what-if of a training
// run; and the inverse, the FLOPs a duration affords.
#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/energy_options.hpp"
#include "app/layout_options.hpp"
#include "core/error.hpp"
#include "cost/run_cost.hpp"
#include "cost/whatif.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "cost",
    "isoflop cost (--flops C | --params N --tokens D | --time T [--params N]) (--gpu NAME | --node NAME)\n"
    "             (--gpus N | --nodes K) [options]",
    "Turns a workload into days, GPU-hours, power, energy, CO2e and money. The work is FLOPs (or 6·N·D) run at a\n"
    "utilisation (--mfu, or an achieved --tflops-per-gpu), or a measured duration (--time). With --time and a\n"
    "utilisation it also gives the inverse: the FLOPs that duration affords (and with --params N, the tokens).\n"
    "Energy is shown by three methods, each with its assumptions: node power (e.g. DGX A100 6.5 kW maximum),\n"
    "a measured average per accelerator (--power-w; Patterson et al. 2021), and TDP x utilisation + host\n"
    "overhead (--energy-method tdp); times the PUE. CO2e is energy times the grid intensity, gross and net of a\n"
    "carbon-free fraction (--cfe), plus the embodied share with --embodied (LLMCarbon). --whatif adds the 4Ms\n"
    "table (Patterson et al. 2022): Model, Machine, Mechanization, Map and all four together.",
    {"isoflop cost --node dgx-a100 --nodes 420 --time 720h            # 2.73 MW, 1,965.6 MWh",
     "isoflop cost --flops 3.14e23 --tflops-per-gpu 24.6 --gpu v100-sxm2-32gb --gpus 10000 --power-w 330 --pue 1.1",
     "isoflop cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --grid fr -o json",
     "isoflop cost --gpu a100-sxm4-80gb --gpus 3360 --time 30d --mfu 0.4   # affordable FLOPs in 30 days",
     "isoflop cost --params 70B --tokens 1.4T --gpu h100-sxm5-80gb --gpus 1024 --mfu 0.4 --whatif --embodied"}};

// The cluster: a catalog node (given, or the accelerator's reference node), or — for an accelerator the
// catalog houses in no node, such as a TPU — just the accelerator and a count (node power is unavailable).
struct CostCluster {
  catalog::Accelerator accelerator;
  const catalog::Node* node = nullptr;
  int gpus = 0;
  int gpus_per_node = 1;
};

CostCluster resolve(const catalog::Catalog& cat, const po::variables_map& vm) {
  const parallel::ClusterRequest request = cluster_request(vm);
  CostCluster c;
  if (request.gpu && !request.node) {
    const catalog::Accelerator& acc = cat.accelerator(*request.gpu);
    if (acc.reference_node.empty()) {
      if (request.nodes)
        throw InputError("--nodes: accelerator '" + acc.name + "' has no node in the catalog; give --gpus N");
      if (!request.gpus) throw InputError("missing cluster size; give --gpus N");
      if (*request.gpus < 1 || *request.gpus > 100'000'000) throw InputError("--gpus: must be in [1, 1e8]");
      if (request.gpus_per_node && *request.gpus_per_node < 1) throw InputError("--gpus-per-node: must be positive");
      c.accelerator = acc;
      c.gpus = static_cast<int>(*request.gpus);
      c.gpus_per_node = static_cast<int>(request.gpus_per_node.value_or(1));
      return c;
    }
  }
  const parallel::ResolvedCluster cluster = parallel::resolve_cluster(cat, request);
  c.accelerator = cluster.spec.accelerator;
  c.node = &cat.node(cluster.spec.node_name);
  c.gpus = cluster.spec.gpus;
  c.gpus_per_node = cluster.spec.gpus_per_node;
  return c;
}

// Which of the three work forms was given; anything else is a conflict.
enum class Work { kFlops, kParamsTokens, kTime };

Work work_form(const po::variables_map& vm) {
  const bool flops = has(vm, "flops"), params = has(vm, "params"), tokens = has(vm, "tokens"), time = has(vm, "time");
  const std::string forms = "give one of --flops C, --params N --tokens D, or --time T";
  if (flops + tokens + time > 1 || (flops && params))
    throw InputError("conflicting work specifications; " + forms);
  if (flops) return Work::kFlops;
  if (tokens) {
    if (!params) throw InputError("--tokens needs --params (work = 6·N·D)");
    return Work::kParamsTokens;
  }
  if (time) return Work::kTime;
  if (params) throw InputError("--params needs --tokens (work = 6·N·D) or --time (the tokens that time affords)");
  throw InputError("missing work; " + forms);
}

}  // namespace

int run_cost(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("flops", po::value<std::string>()->value_name("C"), "the work in FLOPs")
      ("params", po::value<std::string>()->value_name("N"),
       "model parameters (with --tokens: 6·N·D; with --time: affordable tokens)")
      ("tokens", po::value<std::string>()->value_name("D"), "training tokens")
      ("time", po::value<std::string>()->value_name("T"), "a wall-clock duration instead (14.8d, 720h)")
      ("mfu", po::value<std::string>()->value_name("U"), "utilisation of the 16-bit peak, in (0, 1]")
      ("tflops-per-gpu", po::value<std::string>()->value_name("X"), "achieved TFLOP/s per accelerator");
  add_energy_options(options);
  add_whatif_options(options, true);
  add_cluster_options(options);
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const Work work = work_form(vm);
  require_one_of(vm, {"mfu", "tflops-per-gpu"}, false);
  require_one_of(vm, {"power-w", "node-power-kw"}, false);
  const catalog::Catalog cat = load_catalog(parsed->common);
  const CostCluster cluster = resolve(cat, vm);

  cost::RunCostInputs in;
  in.gpus = cluster.gpus;
  in.gpus_per_node = cluster.gpus_per_node;
  in.peak_flops_per_gpu = cluster.accelerator.peak_16bit_flops;
  if (auto u = get_number(vm, "mfu")) in.utilisation = *u;
  if (auto x = get_number(vm, "tflops-per-gpu")) in.utilisation = *x * 1e12 / in.peak_flops_per_gpu;
  std::optional<double> affordable, affordable_tokens;
  if (work == Work::kTime) {
    const double t = *get_duration_s(vm, "time");
    // The run lasts `t`. With a utilisation, the work is what the cluster does in that time — the FLOPs it
    // affords; without one the work is unknown and the figure at full peak is an upper bound.
    if (in.utilisation > 0) {
      affordable = cost::affordable_flops(in.gpus, in.peak_flops_per_gpu, in.utilisation, t);
      if (auto n = get_count(vm, "params")) affordable_tokens = *affordable / (6 * *n);
    } else {
      in.utilisation = 1;
    }
    in.flops = t * in.gpus * in.peak_flops_per_gpu * in.utilisation;
  } else {
    if (in.utilisation == 0) throw InputError("missing utilisation; give --mfu U or --tflops-per-gpu X");
    in.flops = work == Work::kFlops ? *get_count(vm, "flops") : 6 * *get_count(vm, "params") * *get_count(vm, "tokens");
  }
  apply_energy_options(vm, cat, cluster.accelerator, cluster.node, &in);
  const cost::WhatIfOptions whatif = whatif_options(vm, cat, cluster.accelerator, in);
  const cost::RunCost c = cost::estimate_run_cost(in);
  const std::vector<cost::WhatIfRow> rows = cost::four_ms(in, c, whatif);

  const std::string node_name = cluster.node ? cluster.node->name : "";
  Json doc = {{"schema", "isoflop/cost/v1"},
              {"inputs",
               {{"work", work == Work::kFlops ? "flops" : work == Work::kParamsTokens ? "6nd" : "time"},
                {"gpu", cluster.accelerator.name},
                {"node", cluster.node ? Json(node_name) : Json(nullptr)},
                {"gpus", in.gpus},
                {"utilisation", in.utilisation},
                {"energy_method", std::string(cost::kEnergyMethodNames.name(c.energy_method))},
                {"tdp_utilisation", in.tdp_utilisation},
                {"host_overhead_w", in.host_overhead_w},
                {"pue", in.pue},
                {"intensity_kg_per_kwh", in.intensity_kg_per_kwh},
                {"cfe", in.cfe_fraction}}},
              {"flops", in.flops},
              {"affordable_flops", affordable ? Json(*affordable) : Json(nullptr)},
              {"affordable_tokens", affordable_tokens ? Json(*affordable_tokens) : Json(nullptr)},
              {"gpus", in.gpus},
              {"time_s", c.time_s},
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
              {"embodied", embodied_json(c, in)},
              {"total_co2e_kg", c.total_co2e_kg},
              {"compute_cost_usd", c.compute_cost_usd},
              {"energy_cost_usd", c.energy_cost_usd},
              {"cost_usd", c.cost_usd},
              {"whatif", whatif_json(rows)}};
  const bool show_whatif = vm["whatif"].as<bool>();
  auto table = [&] {
    std::string work_text;
    if (work == Work::kTime && !affordable) {
      work_text = "a run of " + units::format_duration(c.time_s, 4) +
                  " (work not given; --mfu U adds the FLOPs it affords)";
    } else {
      work_text = units::format_scientific(in.flops, 4) + " FLOPs at " +
                  units::format_significant(100 * in.utilisation) + "% of " +
                  units::format_significant(in.peak_flops_per_gpu / 1e12) + " TFLOP/s";
    }
    std::vector<std::pair<std::string, std::string>> kv = {
        {"work", work_text},
        {"accelerators", std::to_string(in.gpus) + " x " + cluster.accelerator.name +
                             (cluster.node ? " (" + node_name + ")" : " (no node in the catalog)")}};
    if (affordable) {
      std::string text = units::format_scientific(*affordable, 4) + " FLOPs in " + units::format_duration(c.time_s, 4);
      if (affordable_tokens)
        text += " = " + units::format_count(*affordable_tokens, 4) + " tokens for " +
                units::format_count(*get_count(vm, "params"), 4) + " parameters (6ND)";
      kv.push_back({"affordable", text});
    }
    kv.push_back({"time", units::format_duration(c.time_s, 4)});
    kv.push_back({"GPU-hours", units::format_count(c.gpu_hours, 4)});
    kv.push_back({"power", units::format_power(c.power_w) + " (" + c.power_method + ")"});
    kv.push_back({"energy", units::format_energy(c.it_energy_kwh * 3.6e6) + " at the machines, " +
                                units::format_energy(c.energy_kwh * 3.6e6) + " with PUE " +
                                units::format_significant(in.pue)});
    kv.push_back({"CO2e", units::format_mass(c.co2e_kg) + " gross, " + units::format_mass(c.net_co2e_kg) + " net (" +
                              units::format_significant(in.intensity_kg_per_kwh * 1e3) + " g/kWh)"});
    if (c.embodied)
      kv.push_back({"embodied CO2e", units::format_mass(c.embodied_co2e_kg) + " (" + std::to_string(in.gpus) + " x " +
                                         units::format_mass(*in.embodied_kg_per_gpu) + " x " +
                                         units::format_significant(100 * c.embodied_share, 3) + "% of a " +
                                         units::format_significant(in.embodied_lifetime_s / (365 * 86400.0)) +
                                         "-year life); total " + units::format_mass(c.total_co2e_kg)});
    kv.push_back({"money", c.cost_usd > 0 ? units::format_money(c.cost_usd)
                                          : "not priced (--price-per-gpu-hour, --price-per-kwh)"});
    std::string out = report::render_key_values(kv, 0);
    out += "\nEnergy by method (PUE " + units::format_significant(in.pue) + ", --energy-method chooses)\n" +
           energy_methods_table(c);
    if (show_whatif) out += "\n4Ms what-if (Patterson et al. 2022)\n" + whatif_table(rows);
    return out;
  };
  write_result(parsed->common, doc, table);
  return 0;
}

}  // namespace isoflop::app
