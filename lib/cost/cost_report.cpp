// The run-cost section: the run cost and its what-if, with the inputs and levers behind them.
#include "cost/cost_report.hpp"

namespace isoflop::cost {

WhatIfLevers levers_of(const WhatIfOptions& o) {
  WhatIfLevers l;
  l.model_factor = o.model_factor;
  if (o.machine_pinned && !o.machines.empty()) l.machine = o.machines.front().name;
  if (o.region_pinned && !o.regions.empty()) l.region = o.regions.front().name;
  l.mechanization_pue = o.mechanization_pue;
  return l;
}

CostReport report_run_cost(const RunCostInputs& inputs, const WhatIfOptions& whatif) {
  CostReport r;
  r.accelerator = whatif.accelerator.name;
  r.inputs = inputs;
  r.levers = levers_of(whatif);
  r.result = estimate_run_cost(inputs);
  r.whatif = four_ms(inputs, r.result, whatif);
  return r;
}

}  // namespace isoflop::cost
