// isoflop cost: time, GPU-hours, power, energy, CO2e and money of a training run.
#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/energy_options.hpp"
#include "app/layout_options.hpp"
#include "core/error.hpp"
#include "cost/run_cost.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "cost",
    "isoflop cost (--flops C | --params N --tokens D | --time T) (--gpu NAME | --node NAME) (--gpus N | --nodes K) [options]",
    "Turns a workload into days, GPU-hours, power, energy, CO2e and money. The work is FLOPs (or 6·N·D) run at a\n"
    "utilisation (--mfu, or an achieved --tflops-per-gpu), or a measured duration (--time). Power is the node's\n"
    "maximum (e.g. DGX A100 6.5 kW), or a measured average per accelerator (--power-w; Patterson et al. 2021),\n"
    "times the PUE; CO2e is energy times the grid intensity, gross and net of a carbon-free fraction (--cfe).",
    {"isoflop cost --node dgx-a100 --nodes 420 --time 720h            # 2.73 MW, 1,965.6 MWh",
     "isoflop cost --flops 3.14e23 --tflops-per-gpu 24.6 --gpu v100-sxm2-32gb --gpus 10000 --power-w 330 --pue 1.1",
     "isoflop cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --grid fr -o json"}};

}  // namespace

int run_cost(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("flops", po::value<std::string>()->value_name("C"), "the work in FLOPs")
      ("params", po::value<std::string>()->value_name("N"), "model parameters (with --tokens: 6·N·D)")
      ("tokens", po::value<std::string>()->value_name("D"), "training tokens")
      ("time", po::value<std::string>()->value_name("T"), "a measured wall-clock duration instead (14.8d, 720h)")
      ("mfu", po::value<std::string>()->value_name("U"), "utilisation of the 16-bit peak, in (0, 1]")
      ("tflops-per-gpu", po::value<std::string>()->value_name("X"), "achieved TFLOP/s per accelerator")
      ("power-w", po::value<std::string>()->value_name("W"), "measured average power per accelerator, watts")
      ("node-power-kw", po::value<std::string>()->value_name("P"), "node power, kW (default: the node's maximum)")
      ("pue", po::value<std::string>()->value_name("NAME|VALUE"), "PUE preset or value (default hyperscaler)")
      ("grid", po::value<std::string>()->value_name("NAME|VALUE"), "grid region or intensity (default us)")
      ("cfe", po::value<std::string>()->value_name("F"), "carbon-free energy fraction for net CO2e")
      ("price-per-gpu-hour", po::value<std::string>()->value_name("USD"), "accelerator price per hour")
      ("price-per-kwh", po::value<std::string>()->value_name("USD"), "energy price per kWh");
  add_cluster_options(options);
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"flops", "params", "time"});
  require_one_of(vm, {"mfu", "tflops-per-gpu"}, false);
  require_one_of(vm, {"power-w", "node-power-kw"}, false);
  if (has(vm, "params") != has(vm, "tokens")) throw InputError("--params and --tokens go together (work = 6·N·D)");
  const catalog::Catalog cat = load_catalog(parsed->common);
  const parallel::ResolvedCluster cluster = parallel::resolve_cluster(cat, cluster_request(vm));
  const catalog::Node& node = cat.node(cluster.spec.node_name);

  cost::RunCostInputs in;
  in.gpus = cluster.spec.gpus;
  in.gpus_per_node = cluster.spec.gpus_per_node;
  in.peak_flops_per_gpu = cluster.spec.accelerator.peak_16bit_flops;
  if (auto u = get_number(vm, "mfu")) in.utilisation = *u;
  if (auto x = get_number(vm, "tflops-per-gpu")) in.utilisation = *x * 1e12 / in.peak_flops_per_gpu;
  if (auto t = get_duration_s(vm, "time")) {
    // A measured run: its work is what the cluster did in that time at the stated utilisation (or full peak
    // when none is given, so the work figure is an upper bound).
    if (in.utilisation == 0) in.utilisation = 1;
    in.flops = *t * in.gpus * in.peak_flops_per_gpu * in.utilisation;
  } else {
    if (in.utilisation == 0) throw InputError("missing utilisation; give --mfu U or --tflops-per-gpu X");
    in.flops = has(vm, "flops") ? *get_count(vm, "flops") : 6 * *get_count(vm, "params") * *get_count(vm, "tokens");
  }
  if (auto w = get_number(vm, "power-w")) in.power_per_gpu_w = *w;
  in.node_power_w = node.max_power_w;
  if (auto kw = get_number(vm, "node-power-kw")) in.node_power_w = *kw * 1e3;
  in.pue = pue_value(cat, get_string(vm, "pue").value_or("hyperscaler"));
  in.intensity_kg_per_kwh = grid_value(cat, get_string(vm, "grid").value_or("us"));
  if (auto f = get_number(vm, "cfe", units::Sign::kNonNegative)) in.cfe_fraction = *f;
  if (auto p = get_string(vm, "price-per-gpu-hour"))
    in.price_per_gpu_hour_usd = units::parse_money_usd(*p, "--price-per-gpu-hour", units::Sign::kNonNegative);
  if (auto p = get_string(vm, "price-per-kwh"))
    in.price_per_kwh_usd = units::parse_money_usd(*p, "--price-per-kwh", units::Sign::kNonNegative);
  const cost::RunCost c = cost::estimate_run_cost(in);

  Json doc = {{"schema", "isoflop/cost/v1"},
              {"inputs",
               {{"gpu", cluster.spec.accelerator.name},
                {"node", cluster.spec.node_name},
                {"gpus", in.gpus},
                {"utilisation", in.utilisation},
                {"pue", in.pue},
                {"intensity_kg_per_kwh", in.intensity_kg_per_kwh},
                {"cfe", in.cfe_fraction}}},
              {"flops", in.flops},
              {"gpus", in.gpus},
              {"time_s", c.time_s},
              {"days", c.days},
              {"gpu_hours", c.gpu_hours},
              {"power_kw", c.power_w / 1e3},
              {"power_method", c.power_method},
              {"it_energy_kwh", c.it_energy_kwh},
              {"energy_kwh", c.energy_kwh},
              {"co2e_kg", c.co2e_kg},
              {"net_co2e_kg", c.net_co2e_kg},
              {"compute_cost_usd", c.compute_cost_usd},
              {"energy_cost_usd", c.energy_cost_usd},
              {"cost_usd", c.cost_usd}};
  auto table = [&] {
    return report::render_key_values(
        {{"work", units::format_scientific(in.flops, 4) + " FLOPs at " + units::format_significant(100 * in.utilisation) +
                      "% of " + units::format_significant(in.peak_flops_per_gpu / 1e12) + " TFLOP/s"},
         {"accelerators", std::to_string(in.gpus) + " x " + cluster.spec.accelerator.name},
         {"time", units::format_duration(c.time_s, 4)},
         {"GPU-hours", units::format_count(c.gpu_hours, 4)},
         {"power", units::format_power(c.power_w) + " (" + c.power_method + ")"},
         {"energy", units::format_energy(c.it_energy_kwh * 3.6e6) + " at the machines, " +
                        units::format_energy(c.energy_kwh * 3.6e6) + " with PUE " + units::format_significant(in.pue)},
         {"CO2e", units::format_mass(c.co2e_kg) + " gross, " + units::format_mass(c.net_co2e_kg) + " net"},
         {"money", c.cost_usd > 0 ? units::format_money(c.cost_usd) : "not priced (--price-per-gpu-hour, --price-per-kwh)"}},
        0);
  };
  write_result(parsed->common, doc, table);
  return 0;
}

}  // namespace isoflop::app
