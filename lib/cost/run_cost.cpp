// Run cost arithmetic (Patterson et al. 2021 §2.5: kWh = hours × processors × average power × PUE / 1000;
// tCO2e = kWh × kg/kWh / 1000).
#include "cost/run_cost.hpp"

#include <cmath>

#include "core/error.hpp"

namespace isoflop::cost {
namespace {
constexpr double kSecondsPerHour = 3600.0;
constexpr double kSecondsPerDay = 86400.0;
constexpr double kWattHoursPerKwh = 1000.0;
}  // namespace

void RunCostInputs::validate() const {
  if (!(flops > 0) || !std::isfinite(flops)) throw InputError("--flops: the work must be positive");
  if (gpus < 1) throw InputError("--gpus: must be at least 1");
  if (!(peak_flops_per_gpu > 0)) throw InputError("--gpu: the accelerator's peak must be positive");
  if (!(utilisation > 0 && utilisation <= 1))
    throw InputError("--mfu: utilisation must be in (0, 1], got " + std::to_string(utilisation));
  if (!(pue >= 1)) throw InputError("--pue: must be at least 1 (facility energy over IT energy)");
  if (intensity_kg_per_kwh < 0) throw InputError("--grid: intensity must not be negative");
  if (!(cfe_fraction >= 0 && cfe_fraction < 1)) throw InputError("--cfe: must be in [0, 1)");
  if (node_power_w && !(*node_power_w > 0)) throw InputError("--node-power-kw: must be positive");
  if (power_per_gpu_w && !(*power_per_gpu_w > 0)) throw InputError("--power-w: must be positive");
  if (!node_power_w && !power_per_gpu_w) throw InputError("cost: give a node power or a power per accelerator");
  if (price_per_gpu_hour_usd < 0 || price_per_kwh_usd < 0) throw InputError("prices must not be negative");
}

RunCost estimate_run_cost(const RunCostInputs& in) {
  in.validate();
  RunCost c;
  c.time_s = in.flops / (in.gpus * in.peak_flops_per_gpu * in.utilisation);
  c.days = c.time_s / kSecondsPerDay;
  c.gpu_hours = in.gpus * c.time_s / kSecondsPerHour;
  if (in.power_per_gpu_w) {
    c.power_w = *in.power_per_gpu_w * in.gpus;
    c.power_method = "measured per-accelerator power";
  } else {
    const double nodes = std::ceil(static_cast<double>(in.gpus) / in.gpus_per_node);
    c.power_w = *in.node_power_w * nodes;
    c.power_method = "node power";
  }
  c.it_energy_kwh = c.power_w * (c.time_s / kSecondsPerHour) / kWattHoursPerKwh;
  c.energy_kwh = c.it_energy_kwh * in.pue;
  c.co2e_kg = c.energy_kwh * in.intensity_kg_per_kwh;
  c.net_co2e_kg = c.co2e_kg * (1 - in.cfe_fraction);
  c.compute_cost_usd = c.gpu_hours * in.price_per_gpu_hour_usd;
  c.energy_cost_usd = c.energy_kwh * in.price_per_kwh_usd;
  c.cost_usd = c.compute_cost_usd + c.energy_cost_usd;
  return c;
}

}  // namespace isoflop::cost
