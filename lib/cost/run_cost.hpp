// What a training run costs: time (FLOPs over accelerators × peak × utilisation), GPU-hours, power and energy
// (node power or measured per-accelerator power, × PUE), CO2e (× grid intensity, gross and net of
// carbon-free energy) and money (accelerator-hours × price, plus energy × price).
#pragma once

#include <optional>
#include <string>

#include "catalog/hardware.hpp"

namespace isoflop::cost {

struct RunCostInputs {
  double flops = 0;                    // training FLOPs
  int gpus = 0;                        // accelerators
  double peak_flops_per_gpu = 0;       // FLOP/s (16-bit dense peak)
  double utilisation = 0;              // achieved fraction of peak (MFU), in (0, 1]
  // Power: the node's maximum (per node of `gpus_per_node`), or a measured average per accelerator
  // (Patterson et al. 2021 §2.5), which wins when given.
  std::optional<double> node_power_w;
  int gpus_per_node = 8;
  std::optional<double> power_per_gpu_w;
  double pue = 1.0;                    // facility energy / IT energy, ≥ 1
  double intensity_kg_per_kwh = 0;     // grid carbon intensity (gross)
  double cfe_fraction = 0;             // carbon-free energy matched, in [0, 1): net = gross × (1 − cfe)
  double price_per_gpu_hour_usd = 0;   // 0 = not priced
  double price_per_kwh_usd = 0;

  void validate() const;  // throws InputError naming the option (--pue, --mfu, ...)
};

struct RunCost {
  double time_s = 0;
  double days = 0;
  double gpu_hours = 0;
  double power_w = 0;           // IT power drawn by the run (before PUE)
  std::string power_method;     // "node power" or "measured per-accelerator power"
  double it_energy_kwh = 0;     // energy drawn by the machines (power × time)
  double energy_kwh = 0;        // facility energy, PUE included
  double co2e_kg = 0;           // gross
  double net_co2e_kg = 0;       // after carbon-free energy
  double compute_cost_usd = 0;  // accelerator-hours × price
  double energy_cost_usd = 0;
  double cost_usd = 0;
};

RunCost estimate_run_cost(const RunCostInputs& inputs);

}  // namespace isoflop::cost
