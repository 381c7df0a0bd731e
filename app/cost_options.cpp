// Energy, carbon, price and what-if options.
#include "app/cost_options.hpp"

namespace isoflop::app {

void add_energy_options(po::options_description& options) {
  options.add_options()
      ("energy-method", po::value<std::string>()->value_name("NAME"),
       "node|measured|tdp: which power gives the energy (default: measured with --power-w, else node)")
      ("power-w", po::value<std::string>()->value_name("W"), "measured average system power per accelerator, watts")
      ("node-power-kw", po::value<std::string>()->value_name("P"), "node power, kW (default: the node's maximum)")
      ("tdp-utilisation", po::value<std::string>()->value_name("U"),
       "tdp method: average draw as a fraction of TDP (default from cost.yaml)")
      ("host-overhead-w", po::value<std::string>()->value_name("W"),
       "tdp method: host and infrastructure watts per accelerator (default from cost.yaml)")
      ("pue", po::value<std::string>()->value_name("NAME|VALUE"),
       "PUE preset or value (default typical: 1.56; hyperscaler 1.10)")
      ("grid", po::value<std::string>()->value_name("NAME|VALUE"), "grid region or intensity (default us)")
      ("cfe", po::value<std::string>()->value_name("F"), "carbon-free energy fraction for net CO2e")
      ("embodied", po::bool_switch(), "add the embodied carbon share (LLMCarbon, 5-year lifetime)")
      ("embodied-kg-per-gpu", po::value<std::string>()->value_name("KG"),
       "embodied kg CO2e per accelerator instead of the catalog's (implies --embodied)")
      ("price-per-gpu-hour", po::value<std::string>()->value_name("USD"), "accelerator price per hour")
      ("price-per-kwh", po::value<std::string>()->value_name("USD"), "energy price per kWh");
}

void add_whatif_options(po::options_description& options, bool with_switch) {
  if (with_switch) options.add_options()("whatif", po::bool_switch(), "show the 4Ms what-if table");
  options.add_options()
      ("whatif-gpu", po::value<std::string>()->value_name("NAME"),
       "Machine lever: this accelerator (default: the catalog's best performance per watt)")
      ("whatif-grid", po::value<std::string>()->value_name("NAME"),
       "Map lever: this grid region (default: the cleanest of grids.yaml's map candidates)")
      ("whatif-model-factor", po::value<std::string>()->value_name("F"),
       "Model lever: compute saved at equal quality, >= 1 (default from cost.yaml: 3)");
}

cost::EnergyRequest energy_request(const po::variables_map& vm) {
  require_one_of(vm, {"power-w", "node-power-kw"}, false);
  cost::EnergyRequest r;
  r.pue = get_string(vm, "pue");
  r.grid = get_string(vm, "grid");
  r.cfe_fraction = get_number(vm, "cfe", units::Sign::kNonNegative);
  if (auto m = get_string(vm, "energy-method")) r.energy_method = cost::kEnergyMethodNames.parse(*m, "--energy-method");
  r.power_per_gpu_w = get_number(vm, "power-w");
  if (auto kw = get_number(vm, "node-power-kw")) r.node_power_w = *kw * 1e3;
  r.tdp_utilisation = get_number(vm, "tdp-utilisation");
  r.host_overhead_w = get_number(vm, "host-overhead-w", units::Sign::kNonNegative);
  r.embodied = vm.count("embodied") && vm["embodied"].as<bool>();
  r.embodied_kg_per_gpu = get_number(vm, "embodied-kg-per-gpu");
  if (auto p = get_string(vm, "price-per-gpu-hour"))
    r.price_per_gpu_hour_usd = units::parse_money_usd(*p, "--price-per-gpu-hour", units::Sign::kNonNegative);
  if (auto p = get_string(vm, "price-per-kwh"))
    r.price_per_kwh_usd = units::parse_money_usd(*p, "--price-per-kwh", units::Sign::kNonNegative);
  r.whatif_gpu = get_string(vm, "whatif-gpu");
  r.whatif_grid = get_string(vm, "whatif-grid");
  r.whatif_model_factor = get_number(vm, "whatif-model-factor");
  return r;
}

}  // namespace isoflop::app
