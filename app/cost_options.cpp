// Energy, carbon, price and what-if options.
#include "app/cost_options.hpp"

namespace isoflop::app {

const OptionList& energy_options() {
  static const OptionList list = declared_options("options", "energy");
  return list;
}

OptionList whatif_options(bool with_switch) {
  OptionList list = with_switch ? declared_options("options", "whatif-switch") : OptionList{};
  const OptionList levers = declared_options("options", "whatif");
  list.insert(list.end(), levers.begin(), levers.end());
  return list;
}

bool whatif_table(const po::variables_map& vm) {
  return get_switch(vm, "whatif") || has(vm, "whatif-gpu") || has(vm, "whatif-grid") || has(vm, "whatif-model-factor");
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
          .price_per_gpu_hour_usd = get_money_usd(vm, "price-per-gpu-hour", nonnegative, "$2.50, 2.5"),
          .price_per_kwh_usd = get_money_usd(vm, "price-per-kwh", nonnegative, "$0.12, 0.12"),
          .whatif_gpu = get_string(vm, "whatif-gpu"),
          .whatif_grid = get_string(vm, "whatif-grid"),
          .whatif_model_factor = get_number(vm, "whatif-model-factor")};
}

}  // namespace isoflop::app
