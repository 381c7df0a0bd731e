// isoflop cost: time, GPU-hours, power, energy (three methods), CO2e, money and the 4Ms what-if of a training
// run; the inverse, the FLOPs a duration affords; and an earlier run recosted (--from).
#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/cost_options.hpp"
#include "app/layout_options.hpp"
#include "core/error.hpp"
#include "doc/cost_document.hpp"
#include "doc/cost_table.hpp"

namespace isoflop::app {
namespace {

const CommandHelp kHelp = {
    "cost",
    "isoflop cost (--flops C | --params N --tokens D | --time T [--params N]) (--gpu NAME | --node NAME)\n"
    "             (--gpus N | --nodes K) [options]\n"
    "       isoflop cost --from FILE|- [energy, carbon and price options]",
    "Turns a workload into days, GPU-hours, power, energy, CO2e and money. The work is FLOPs (or 6·N·D) run at a\n"
    "utilisation (--mfu, or an achieved --tflops-per-gpu), or a measured duration (--time). With --time and a\n"
    "utilisation it also gives the inverse: the FLOPs that duration affords (and with --params N, the tokens).\n"
    "Energy is shown by three methods, each with its assumptions: node power (e.g. DGX A100 6.5 kW maximum),\n"
    "a measured average per accelerator (--power-w; Patterson et al. 2021), and TDP x utilisation + host\n"
    "overhead (--energy-method tdp); times the PUE. CO2e is energy times the grid intensity, gross and net of a\n"
    "carbon-free fraction (--cfe), plus the embodied share with --embodied (LLMCarbon). --whatif adds the 4Ms\n"
    "table (Patterson et al. 2022): Model, Machine, Mechanization, Map and all four together.\n"
    "--from reads the run cost of an earlier cost or plan document (-o json) and recosts it with the energy,\n"
    "carbon and price options given (--grid, --pue, --cfe, --price-per-gpu-hour ...); with none it is the same.",
    {"isoflop cost --node dgx-a100 --nodes 420 --time 720h            # 2.73 MW, 1,965.6 MWh",
     "isoflop cost --flops 3.14e23 --tflops-per-gpu 24.6 --gpu v100-sxm2-32gb --gpus 10000 --power-w 330 --pue 1.1",
     "isoflop cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --grid fr -o json",
     "isoflop cost --gpu a100-sxm4-80gb --gpus 3360 --time 30d --mfu 0.4   # affordable FLOPs in 30 days",
     "isoflop cost --params 70B --tokens 1.4T --gpu h100-sxm5-80gb --gpus 1024 --mfu 0.4 --whatif --embodied",
     "isoflop cost --from plan.json --grid fr --price-per-gpu-hour 2     # the plan's run elsewhere, priced"}};

const OptionList kOptions = {
    "flops C: the work in FLOPs",
    "params N: model parameters (with --tokens: 6·N·D; with --time: affordable tokens)",
    "tokens D: training tokens",
    "time T: a wall-clock duration instead (14.8d, 720h)",
    "mfu U: utilisation of the 16-bit peak, in (0, 1]",
    "tflops-per-gpu X: achieved TFLOP/s per accelerator"};

// The work and cluster options, which --from does not take (the document carries them).
const std::vector<std::string> kRunOptions = {"flops", "params", "tokens", "time", "mfu", "tflops-per-gpu",
                                              "gpu", "node", "gpus", "nodes", "gpus-per-node"};

}  // namespace

int run_cost(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {kOptions, from_option("a cost or plan document"), energy_options(),
                                                  whatif_options(true), cluster_options()});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const cost::EnergyRequest energy = energy_request(vm);
  const catalog::Catalog cat = load_catalog(parsed->common);

  doc::CostDocument document;
  if (auto from = read_from(vm, {"cost", "plan"})) {
    for (const auto& name : kRunOptions)
      if (has(vm, name)) throw InputError("--" + name + ": not with --from (the document gives the run)");
    document = doc::recost_document(*from, energy, cat);
  } else {
    require_one_of(vm, {"mfu", "tflops-per-gpu"}, false);
    document = doc::make_cost_document({get_count(vm, "flops"), get_count(vm, "params"), get_count(vm, "tokens"),
                                        get_duration_s(vm, "time"), get_number(vm, "mfu"),
                                        get_number(vm, "tflops-per-gpu"), cluster_request(vm), energy},
                                       cat);
  }
  write_document(parsed->common, doc::Json(document),
                 [&] { return doc::render_cost_page(document, get_switch(vm, "whatif")); });
  return 0;
}

}  // namespace isoflop::app
