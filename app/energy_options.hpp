// Energy, carbon and 4Ms options shared by `cost` and `plan`: --pue NAME|VALUE and --grid NAME|VALUE (a
// catalog preset or region, or a number with its unit), the three energy methods, embodied carbon, the
// what-if levers; and the JSON and table pieces both commands print.
#pragma once

#include <string>
#include <vector>

#include "app/cli.hpp"
#include "catalog/catalog.hpp"
#include "cost/run_cost.hpp"
#include "cost/whatif.hpp"

namespace isoflop::app {

// A PUE preset's value, or a number ≥ 1.
double pue_value(const catalog::Catalog& catalog, const std::string& text);

// A grid region's intensity, or an intensity with a unit ("429g/kWh"), in kg CO2e per kWh.
double grid_value(const catalog::Catalog& catalog, const std::string& text);

// --pue --grid --cfe --energy-method --power-w --node-power-kw --tdp-utilisation --host-overhead-w
// --embodied --embodied-kg-per-gpu --price-per-gpu-hour --price-per-kwh
void add_energy_options(po::options_description& options);
// --whatif-gpu --whatif-grid --whatif-model-factor, and --whatif itself when `with_switch` (plan always shows it).
void add_whatif_options(po::options_description& options, bool with_switch);

// Fills the power, PUE, grid, price and embodied fields of `inputs` for `accelerator` housed in `node` (null
// when it has none) from the options, with the catalog's defaults (cost.yaml, hardware.yaml). Leaves the work,
// counts, peak and utilisation alone.
void apply_energy_options(const po::variables_map& vm, const catalog::Catalog& catalog,
                          const catalog::Accelerator& accelerator, const catalog::Node* node,
                          cost::RunCostInputs* inputs);

// The 4Ms levers: cost.yaml defaults, the catalog's accelerators and grids, or the ones asked for.
cost::WhatIfOptions whatif_options(const po::variables_map& vm, const catalog::Catalog& catalog,
                                   const catalog::Accelerator& accelerator, const cost::RunCostInputs& inputs);

// JSON: `energy_methods` (each method with its assumptions, the chosen one marked), `embodied`, `whatif` rows.
report::Json energy_methods_json(const cost::RunCost& cost);
report::Json embodied_json(const cost::RunCost& cost, const cost::RunCostInputs& inputs);
report::Json whatif_json(const std::vector<cost::WhatIfRow>& rows);

// Human sections: the energy methods and the 4Ms table (with the notes under it).
std::string energy_methods_table(const cost::RunCost& cost);
std::string whatif_table(const std::vector<cost::WhatIfRow>& rows);

}  // namespace isoflop::app
