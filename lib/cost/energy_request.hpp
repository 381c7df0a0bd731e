// What a user asked about energy, carbon, money and the 4Ms levers — a PUE preset or value, a grid region or
// intensity, a carbon-free fraction, an energy method and its powers, embodied carbon, prices, the what-if
// levers — resolved against the catalog into the run-cost inputs and what-if options. Shared by every command
// that costs a run (`cost`, `plan`). Errors are FieldErrors naming the request's field ("pue", "grid").
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "cost/cost_report.hpp"
#include "cost/run_cost.hpp"
#include "cost/whatif.hpp"

namespace isoflop::cost {

// Everything optional: unset means "the catalog's default" for a new run, "unchanged" for a run costed before.
struct EnergyRequest {
  std::optional<std::string> pue;             // a PUE preset ("hyperscaler") or a value ≥ 1 ("1.1")
  std::optional<std::string> grid;            // a grid region ("fr") or an intensity with its unit ("429g/kWh")
  std::optional<double> cfe_fraction;         // carbon-free energy matched, in [0, 1)
  std::optional<EnergyMethod> energy_method;  // which power gives the energy
  std::optional<double> power_per_gpu_w;      // measured average system power per accelerator, W
  std::optional<double> node_power_w;         // power of one node, W
  std::optional<double> tdp_utilisation;      // tdp method: average draw as a fraction of TDP
  std::optional<double> host_overhead_w;      // tdp method: host and infrastructure W per accelerator
  bool embodied = false;                      // count the embodied share (the catalog's kg per accelerator)
  std::optional<double> embodied_kg_per_gpu;  // ... or this many kg CO2e per accelerator
  std::optional<double> price_per_gpu_hour_usd;
  std::optional<double> price_per_kwh_usd;
  std::optional<std::string> whatif_gpu;           // Machine lever: this accelerator
  std::optional<std::string> whatif_grid;          // Map lever: this grid region
  std::optional<double> whatif_model_factor;       // Model lever: compute saved at equal quality, ≥ 1
};

// A PUE preset's value, or a number from 1 to the catalog's plausible bound. FieldError "pue" otherwise.
double pue_value(const catalog::Catalog& catalog, const std::string& text);
// A grid region's intensity, or an intensity with a unit ("429g/kWh") up to the catalog's plausible bound, in kg CO2e
// per kWh. FieldError "grid".
double grid_value(const catalog::Catalog& catalog, const std::string& text);

// The power, PUE, grid, price and embodied fields of `inputs` for `accelerator` housed in `node` (null when it
// has none): the catalog's defaults (cost.yaml, hardware.yaml, grid "us", cost.yaml's default_pue), then what the
// request gives. Leaves the work, counts, peak and utilisation alone.
void resolve_energy(const EnergyRequest& request, const catalog::Catalog& catalog,
                    const catalog::Accelerator& accelerator, const catalog::Node* node, RunCostInputs* inputs);

// For a run costed before: changes only what the request gives. A new power per accelerator (or per node)
// switches the energy method to it unless the request names one.
void apply_energy_request(const EnergyRequest& request, const catalog::Catalog& catalog,
                          const catalog::Accelerator& accelerator, RunCostInputs* inputs);

// The levers: cost.yaml's defaults, or `previous` (a run costed before), changed by what the request gives.
WhatIfLevers resolve_levers(const EnergyRequest& request, const catalog::Catalog& catalog,
                            const WhatIfLevers* previous = nullptr);

// The what-if options for `accelerator`: the levers' pins, or the catalog's accelerators and map-candidate grids.
WhatIfOptions whatif_options(const WhatIfLevers& levers, const catalog::Catalog& catalog,
                             const catalog::Accelerator& accelerator, const RunCostInputs& inputs);

// A run costed before (a cost or plan document's section), recosted with what the request changes.
CostReport recost(const CostReport& previous, const EnergyRequest& request, const catalog::Catalog& catalog);

}  // namespace isoflop::cost
