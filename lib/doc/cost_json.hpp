// JSON of the run-cost section (cost::CostReport): one shape wherever a run is costed (`cost.cost`,
// `plan.cost`). Every key is always there, null where the value is unknown (an unpriced run's money, an
// unavailable energy method's figures) or infinite (a what-if factor over a zero row):
//   {"inputs": {"accelerator", "flops", "gpus", "gpus_per_node", "peak_flops_per_gpu", "mfu", "energy_method",
//               "node_power_w", "node_power_note", "power_per_gpu_w", "power_per_gpu_note", "tdp_w",
//               "tdp_utilisation", "host_overhead_w", "pue", "intensity_kg_per_kwh", "cfe",
//               "price_per_gpu_hour_usd", "price_per_kwh_usd", "embodied_kg_per_gpu", "embodied_lifetime_s",
//               "whatif": {"model_factor", "gpu", "grid", "mechanization_pue"}},
//    "time_s", "days", "gpu_hours", "energy_method", "power_w", "power_method", "it_energy_kwh", "energy_kwh",
//    "co2e_kg", "net_co2e_kg",
//    "energy_methods": [{"method", "chosen", "available", "assumptions", "power_w", "power_per_gpu_w",
//                        "it_energy_kwh", "energy_kwh", "co2e_kg", "net_co2e_kg"}…],
//    "embodied": null | {"share", "co2e_kg"}, "total_co2e_kg",
//    "compute_cost_usd", "energy_cost_usd", "cost_usd",
//    "whatif": [{"lever", "change", "applied", "note", "time_s", "days", "energy_kwh", "co2e_kg", "net_co2e_kg",
//                "cost_usd", "energy_factor", "co2e_factor", "cost_factor"}…]}
#pragma once

#include "cost/cost_report.hpp"
#include "doc/document.hpp"

namespace isoflop::cost {

void to_json(doc::Json& j, const WhatIfRow& row);
void from_json(const doc::Json& j, WhatIfRow& row);

void to_json(doc::Json& j, const CostReport& report);
void from_json(const doc::Json& j, CostReport& report);

}  // namespace isoflop::cost
