// What a training run costs: time (FLOPs over accelerators × peak × utilisation), GPU-hours, power and energy
// by three methods (node power, measured per-accelerator power, TDP × utilisation + host overhead; × PUE),
// CO2e (× grid intensity, gross and net of carbon-free energy, optionally plus the embodied share) and money
// (accelerator-hours × price, plus energy × price). And the inverse: the FLOPs a given time affords.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/energy.hpp"
#include "units/si.hpp"

namespace isoflop::cost {

struct RunCostInputs {
  double flops = 0;               // training FLOPs
  int gpus = 0;                   // accelerators
  double peak_flops_per_gpu = 0;  // FLOP/s (16-bit dense peak)
  double utilisation = 0;         // achieved fraction of peak (MFU), in (0, 1]
  // Only the duration is known (cost --time without a utilisation): `flops` is that duration's work at the full
  // peak (utilisation 1), which sets the time and nothing else; documents write both as null.
  bool work_unknown = false;
  // Power, method (a): the node's power (per node of `gpus_per_node`).
  std::optional<double> node_power_w;
  std::string node_power_note;  // e.g. "dgx-a100 maximum"
  int gpus_per_node = 8;
  // Method (b): a measured average system power per accelerator (Patterson et al. 2021 §2.5).
  std::optional<double> power_per_gpu_w;
  std::string power_per_gpu_note;
  // Method (c): TDP × utilisation + host overhead per accelerator (0 TDP = unavailable).
  double tdp_w = 0;
  double tdp_utilisation = 1.0;
  double host_overhead_w = 0;
  // The method that gives energy_kwh and co2e_kg; default: measured when given, else node, else tdp.
  std::optional<EnergyMethod> energy_method;
  double pue = 1.0;                   // facility energy / IT energy, ≥ 1
  double intensity_kg_per_kwh = 0;    // grid carbon intensity (gross)
  // The catalog grid (region) the intensity is of ("us", "fr"); unset when the intensity was given as a number.
  std::optional<std::string> grid;
  double cfe_fraction = 0;            // carbon-free energy matched, in [0, 1): net = gross × (1 − cfe)
  std::optional<double> price_per_gpu_hour_usd;  // unset = not priced (its share of the money is unknown)
  std::optional<double> price_per_kwh_usd;
  // Embodied carbon (LLMCarbon): kg CO2e per accelerator, amortised by run time / lifetime; unset = not counted.
  std::optional<double> embodied_kg_per_gpu;
  double embodied_lifetime_s = 5 * units::kSecondsPerYear;

  void validate() const;  // throws FieldError naming the field ("pue", "utilisation", ...)
  PowerInputs power_inputs() const;
  bool operator==(const RunCostInputs&) const = default;
};

// One energy method applied to the run.
struct EnergyMethodResult {
  PowerEstimate power;
  double it_energy_kwh = 0;
  double energy_kwh = 0;  // PUE included
  double co2e_kg = 0;     // gross, operational
  double net_co2e_kg = 0;
  bool operator==(const EnergyMethodResult&) const = default;
};

struct RunCost {
  double time_s = 0;
  double days = 0;
  double gpu_hours = 0;
  EnergyMethod energy_method = EnergyMethod::kNode;  // the method behind the figures below
  double power_w = 0;                                // IT power drawn by the run (before PUE)
  std::string power_method;  // "node power", "measured per-accelerator power" or "TDP-based power"
  double it_energy_kwh = 0;  // energy drawn by the machines (power × time)
  double energy_kwh = 0;     // facility energy, PUE included
  double co2e_kg = 0;        // gross operational
  double net_co2e_kg = 0;    // after carbon-free energy
  std::vector<EnergyMethodResult> energy_methods;  // all three, available or not (node, measured, tdp)
  bool embodied = false;                           // whether the embodied share was counted
  double embodied_share = 0;                       // run time / hardware lifetime
  double embodied_co2e_kg = 0;                     // accelerators × embodied kg × share
  double total_co2e_kg = 0;                        // gross operational + embodied
  std::optional<double> compute_cost_usd;          // accelerator-hours × price; unset when not priced
  std::optional<double> energy_cost_usd;           // facility energy × price; unset when not priced
  std::optional<double> cost_usd;  // the priced parts together; unset when neither price is known
  bool operator==(const RunCost&) const = default;
};

RunCost estimate_run_cost(const RunCostInputs& inputs);

// The inverse of the time identity: FLOPs that `gpus` accelerators of `peak_flops_per_gpu` do in `time_s` at
// `utilisation` (Narayanan et al. 2021 eq. 4 turned around). Throws InputError on a non-positive input.
double affordable_flops(int gpus, double peak_flops_per_gpu, double utilisation, double time_s);

// "node power", "measured per-accelerator power", "TDP-based power".
std::string power_method_label(EnergyMethod method);

}  // namespace isoflop::cost
