// Run-cost constants from cost.yaml: the TDP-based energy method, LLMCarbon-style embodied carbon per
// accelerator, and the 4Ms what-if levers.
#pragma once

#include <array>
#include <string>

#include "catalog/field_reader.hpp"

namespace isoflop::catalog {

// The single `run_cost` entry named "default" (a user overlay replaces it by that name).
struct RunCostConstants {
  std::string name;  // "default"
  // Energy method (c): accelerator power = TDP × utilisation + host overhead per accelerator.
  double tdp_utilisation = 0;  // average draw as a fraction of TDP, in (0, 1]
  double host_overhead_w = 0;  // host, network and infrastructure share per accelerator, W
  std::string tdp_source;
  // Embodied carbon (LLMCarbon): amortised over the hardware's lifetime.
  double lifetime_s = 0;        // service life of an accelerator
  double memory_kg_per_gb = 0;  // embodied kg CO2e per GB of device memory (DRAM)
  std::string embodied_source;
  // 4Ms what-if (Patterson et al. 2022).
  double model_factor = 0;  // ≥ 1: compute a sparse/efficient model saves at equal quality
  std::string model_source;
  double mechanization_pue = 0;  // ≥ 1: PUE of an efficient datacenter
  std::string mechanization_source;
  // Patterson et al. 2022's published range per lever (low, high: times less), in the order model, machine,
  // mechanization, map, all (the last is energy, CO2e).
  std::array<std::array<double, 2>, 5> published_ranges{};
  std::string ranges_source;
  std::string default_pue;  // PUE preset of a run when none is given
  std::string default_pue_source;
  // The plan's batch ceiling B = batch_coefficient · C^batch_exponent (tokens, C in FLOPs) and MFU floor.
  double batch_coefficient = 0, batch_exponent = 0;
  std::string batch_source;
  double min_mfu = 0;
  std::string min_mfu_source;
  // Past these a stated input is taken as a unit slip and refused; 0: no bound (an overlay without `plausible`).
  double max_pue = 0;
  double max_grid_kg_per_kwh = 0;
  std::array<double, 2> power_tdp_ratio{};  // [low, high]: stated power per accelerator over its TDP
  double min_utilisation = 0;               // a stated utilisation (or achieved rate over peak) below it
  double max_price_per_gpu_hour_usd = 0;
  double max_price_per_kwh_usd = 0;
  std::string plausible_source;
  std::string file;
};

// Embodied carbon of one accelerator's die (LLMCarbon: CO2e_chip = area × carbon per area); the device
// memory adds memory_gb × RunCostConstants::memory_kg_per_gb.
struct EmbodiedCarbon {
  std::string name;  // accelerator id
  double die_area_cm2 = 0;
  double kg_per_cm2 = 0;  // carbon per area of the process node
  std::string source;
  std::string file;
};

RunCostConstants parse_run_cost_constants(FieldReader& reader);
EmbodiedCarbon parse_embodied_carbon(FieldReader& reader);

}  // namespace isoflop::catalog
