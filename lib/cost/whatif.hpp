// The 4Ms what-if (Patterson et al. 2022): the baseline run and each lever applied alone — Model (a sparse or
// efficient model at equal quality needs less compute), Machine (an accelerator with better performance per
// watt, like with like: measured with measured, else TDP with TDP and the same host overhead), Mechanization
// (a hyperscale datacenter's PUE), Map (the cleanest of the candidate regions) — and all four together. Each lever
// is a factor on time, energy and carbon; a lever that would make anything worse is not applied. Each row
// carries Patterson et al. 2022's published range beside its own factor.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "catalog/grids.hpp"
#include "catalog/hardware.hpp"
#include "core/enum_names.hpp"
#include "cost/run_cost.hpp"

namespace isoflop::cost {

ISOFLOP_NAMED_ENUM(Lever, (kBaseline, "baseline"), (kModel, "model"), (kMachine, "machine"),
                   (kMechanization, "mechanization"), (kMap, "map"), (kAll, "all"));

struct WhatIfOptions {
  double model_factor = 3;                     // ≥ 1: compute saved at equal quality (Model 3–10×)
  catalog::Accelerator accelerator;            // the baseline's accelerator
  std::vector<catalog::Accelerator> machines;  // Machine candidates (the catalog's, or the one asked for)
  bool machine_pinned = false;                 // the single candidate was asked for
  double tdp_utilisation = 1.0;                // system power of accelerators without a measurement:
  double host_overhead_w = 0;                  //   TDP × utilisation + host overhead
  double mechanization_pue = 1.1;              // ≥ 1
  std::vector<catalog::Grid> regions;          // Map candidates (the catalog's map candidates, or the one asked for)
  bool region_pinned = false;                  // the single region was asked for
  // Published (low, high) factor of model, machine, mechanization, map, all (energy, CO2e); zeros = none.
  std::array<std::array<double, 2>, 5> published_ranges{};
  void validate() const;                       // throws FieldError naming the field
};

struct WhatIfRow {
  Lever lever = Lever::kBaseline;
  std::string change;   // what the lever changes, e.g. "a100-sxm4-80gb -> tpu-v4"
  bool applied = true;  // false: the lever would not help, the row keeps the baseline
  std::string note;     // the reason or the assumption behind the factor
  double time_s = 0;
  double energy_kwh = 0;  // facility energy
  double co2e_kg = 0;     // gross operational
  double net_co2e_kg = 0;
  std::optional<double> cost_usd;  // unset when the run is not priced
  // baseline ÷ row: how many times less (1 = unchanged); +inf when the row is zero and the baseline is not
  double energy_factor = 1;
  double co2e_factor = 1;
  std::optional<double> cost_factor;  // unset when the run is not priced
  // Patterson et al. 2022's range for this lever, times less (low, high); for "all", energy and CO2e
  // upper bounds. Unset for the baseline or when the catalog gives none.
  std::optional<std::array<double, 2>> published_range;
  bool operator==(const WhatIfRow&) const = default;
};

// Rows in the order baseline, model, machine, mechanization, map, all; `baseline` is estimate_run_cost(inputs).
// No row's energy, CO2e or money exceeds the baseline's.
std::vector<WhatIfRow> four_ms(const RunCostInputs& inputs, const RunCost& baseline, const WhatIfOptions& options);

}  // namespace isoflop::cost
