// The run-cost section that `cost` and `plan` both print under "cost": what the run was costed from, what it
// costs (time, energy by three methods, CO2e, money) and the 4Ms what-if, with the levers it was asked with.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/run_cost.hpp"
#include "cost/whatif.hpp"

namespace isoflop::cost {

// The 4Ms levers as asked (the part of WhatIfOptions a document carries; a catalog turns them back into
// WhatIfOptions, see energy_request.hpp).
struct WhatIfLevers {
  double model_factor = 3;             // ≥ 1: compute saved at equal quality
  std::optional<std::string> machine;  // the accelerator asked for; unset = the catalog's best per watt
  std::optional<std::string> region;   // the grid asked for; unset = the catalog's cleanest
  double mechanization_pue = 1.1;      // an efficient datacenter's PUE
  bool operator==(const WhatIfLevers&) const = default;
};

struct CostReport {
  std::string accelerator;  // catalog name of the accelerator (the what-if baseline)
  RunCostInputs inputs;
  WhatIfLevers levers;
  RunCost result;
  std::vector<WhatIfRow> whatif;  // baseline, model, machine, mechanization, map, all
  bool operator==(const CostReport&) const = default;
};

// The levers that `options` stand for.
WhatIfLevers levers_of(const WhatIfOptions& options);

// Costs the run and its 4Ms what-if. Throws FieldError for a bad input.
CostReport report_run_cost(const RunCostInputs& inputs, const WhatIfOptions& whatif);

}  // namespace isoflop::cost
