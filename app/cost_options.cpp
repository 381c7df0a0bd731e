// Energy, carbon, price and what-if options.
#include "app/cost_options.hpp"

namespace isoflop::app {

const OptionList& energy_options() {
  static const OptionList list = {
      "energy-method NAME: node|measured|tdp: which power gives the energy (default: measured with --power-w, "
      "else node)",
      "power-w W: measured average system power per accelerator, watts",
      "node-power-kw P: node power, kW (default: the node's maximum)",
      "tdp-utilisation U: tdp method: average draw as a fraction of TDP (default from cost.yaml)",
      "host-overhead-w W: tdp method: host and infrastructure watts per accelerator (default from cost.yaml)",
      "pue NAME|VALUE: PUE preset or value (default typical: 1.56; hyperscaler 1.10)",
      "grid NAME|VALUE: grid region or intensity (default us)",
      "cfe F: carbon-free energy fraction for net CO2e",
      "embodied: add the embodied carbon share (LLMCarbon, 5-year lifetime)",
      "embodied-kg-per-gpu KG: embodied kg CO2e per accelerator instead of the catalog's (implies --embodied)",
      "price-per-gpu-hour USD: accelerator price per hour",
      "price-per-kwh USD: energy price per kWh"};
  return list;
}

OptionList whatif_options(bool with_switch) {
  OptionList list = {
      "whatif-gpu NAME: Machine lever: this accelerator (default: the catalog's best performance per watt)",
      "whatif-grid NAME: Map lever: this grid region (default: the cleanest of grids.yaml's map candidates)",
      "whatif-model-factor F: Model lever: compute saved at equal quality, >= 1 (default from cost.yaml: 3)"};
  if (with_switch) list.insert(list.begin(), "whatif: show the 4Ms what-if table");
  return list;
}

cost::EnergyRequest energy_request(const po::variables_map& vm) {
  require_one_of(vm, {"power-w", "node-power-kw"}, false);
  const auto node_power_kw = get_number(vm, "node-power-kw");
  const auto nonnegative = units::Sign::kNonNegative;
  return {.pue = get_string(vm, "pue"),
          .grid = get_string(vm, "grid"),
          .cfe_fraction = get_number(vm, "cfe", nonnegative),
          .energy_method = get_enum(vm, "energy-method", cost::kEnergyMethodNames),
          .power_per_gpu_w = get_number(vm, "power-w"),
          .node_power_w = node_power_kw ? std::optional<double>(*node_power_kw * 1e3) : std::nullopt,
          .tdp_utilisation = get_number(vm, "tdp-utilisation"),
          .host_overhead_w = get_number(vm, "host-overhead-w", nonnegative),
          .embodied = get_switch(vm, "embodied"),
          .embodied_kg_per_gpu = get_number(vm, "embodied-kg-per-gpu"),
          .price_per_gpu_hour_usd = get_money_usd(vm, "price-per-gpu-hour", nonnegative),
          .price_per_kwh_usd = get_money_usd(vm, "price-per-kwh", nonnegative),
          .whatif_gpu = get_string(vm, "whatif-gpu"),
          .whatif_grid = get_string(vm, "whatif-grid"),
          .whatif_model_factor = get_number(vm, "whatif-model-factor")};
}

}  // namespace isoflop::app
