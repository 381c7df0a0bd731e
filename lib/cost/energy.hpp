// The power a run draws, by three methods, each with its assumptions: (a) node power × nodes (e.g. DGX A100
// 6.5 kW maximum), (b) measured average system power per accelerator × accelerators (Patterson et al. 2021
// §2.5), (c) per accelerator TDP × utilisation + host overhead (Luccioni et al. 2023).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/hardware.hpp"
#include "core/enum_names.hpp"

namespace isoflop::cost {

ISOFLOP_NAMED_ENUM(EnergyMethod, (kNode, "node"), (kMeasured, "measured"), (kTdp, "tdp"));

// What the three methods need; a method whose input is missing is unavailable.
struct PowerInputs {
  int gpus = 0;
  int gpus_per_node = 8;
  std::optional<double> node_power_w;      // (a) power of one node, W
  std::string node_power_note;             // e.g. "dgx-a100 maximum"; shown with the assumptions
  std::optional<double> measured_power_w;  // (b) average system power per accelerator, W
  std::string measured_power_note;         // e.g. "given", "catalog: Patterson et al. 2021 Table 4"
  double tdp_w = 0;                        // (c) accelerator TDP, W; 0 = unknown
  double tdp_utilisation = 1.0;            // average draw as a fraction of TDP, in (0, 1]
  double host_overhead_w = 0;              // host and infrastructure share per accelerator, W
};

struct PowerEstimate {
  EnergyMethod method = EnergyMethod::kNode;
  bool available = false;
  double power_w = 0;          // IT power of the whole run (before PUE)
  double power_per_gpu_w = 0;  // power_w / accelerators
  std::string assumptions;     // the numbers behind it, or why the method is unavailable
  bool operator==(const PowerEstimate&) const = default;
};

// All three methods, in the order node, measured, tdp.
std::vector<PowerEstimate> estimate_power(const PowerInputs& inputs);

// The method used when none is chosen: measured when given, else node, else tdp.
EnergyMethod default_energy_method(const PowerInputs& inputs);

// Average system power of one accelerator for like-for-like comparisons between accelerators (the Machine
// lever): its measured system power where the catalog has one (Patterson et al. 2021), else method (c).
struct SystemPower {
  double watts = 0;
  std::string basis;  // "measured 283 W" or "TDP 700 W x 1 + host 237 W"
};
SystemPower system_power_per_accelerator(const catalog::Accelerator& accelerator, double tdp_utilisation,
                                         double host_overhead_w);
// Method (c) alone, TDP × utilisation + host overhead, whether or not a measurement exists.
SystemPower tdp_system_power(const catalog::Accelerator& accelerator, double tdp_utilisation, double host_overhead_w);

}  // namespace isoflop::cost
