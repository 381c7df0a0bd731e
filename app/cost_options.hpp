// Energy, carbon, price and 4Ms options shared by `cost` and `plan`: their declarations, and the request they
// fill (resolved against the catalog by lib/cost/energy_request.hpp).
#pragma once

#include "app/cli.hpp"
#include "cost/energy_request.hpp"

namespace isoflop::app {

// --pue --grid --cfe --energy-method --power-w --node-power-kw --tdp-utilisation --host-overhead-w
// --embodied --embodied-kg-per-gpu --price-per-gpu-hour --price-per-kwh
const OptionList& energy_options();
// --whatif-gpu --whatif-grid --whatif-model-factor, and --whatif itself when `with_switch` (plan always shows it).
OptionList whatif_options(bool with_switch);
// Whether cost's page shows the 4Ms table: --whatif, or any of its levers (a lever given asks for its row).
bool whatif_table(const po::variables_map& vm);

// What the options above ask (numbers parsed, names left for the catalog). Throws InputError naming the flag
// for a malformed value or for --power-w with --node-power-kw.
cost::EnergyRequest energy_request(const po::variables_map& vm);

}  // namespace isoflop::app
