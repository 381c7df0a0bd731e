// Run cost arithmetic (Patterson et al. 2021 §2.5: kWh = hours × processors × average power × PUE / 1000;
// tCO2e = kWh × kg/kWh / 1000; LLMCarbon: embodied = time × CO2e_chip / lifetime).
#include "cost/run_cost.hpp"

#include <cmath>

#include "core/error.hpp"
#include "cost/embodied.hpp"
#include "units/format.hpp"
#include "units/si.hpp"

namespace isoflop::cost {
namespace {
using units::kSecondsPerDay;
using units::kSecondsPerHour;
constexpr double kWattHoursPerKwh = 1000.0;

void check_utilisation(double u) {
  if (!(u > 0 && u <= 1))
    throw FieldError("utilisation", "must be in (0, 1] (achieved fraction of peak), got " +
                                        units::format_significant(u, 6));
}
}  // namespace

std::string power_method_label(EnergyMethod method) {
  switch (method) {
    case EnergyMethod::kNode:
      return "node power";
    case EnergyMethod::kMeasured:
      return "measured per-accelerator power";
    case EnergyMethod::kTdp:
      return "TDP-based power";
  }
  return "?";
}

PowerInputs RunCostInputs::power_inputs() const {
  return {.gpus = gpus,
          .gpus_per_node = gpus_per_node,
          .node_power_w = node_power_w,
          .node_power_note = node_power_note,
          .measured_power_w = power_per_gpu_w,
          .measured_power_note = power_per_gpu_note,
          .tdp_w = tdp_w,
          .tdp_utilisation = tdp_utilisation,
          .host_overhead_w = host_overhead_w};
}

void RunCostInputs::validate() const {
  if (!(flops > 0) || !std::isfinite(flops)) throw FieldError("flops", "the work must be positive");
  if (gpus < 1) throw FieldError("gpus", "must be at least 1");
  if (gpus_per_node < 1) throw FieldError("gpus_per_node", "must be at least 1");
  if (!(peak_flops_per_gpu > 0)) throw FieldError("peak_flops_per_gpu", "the accelerator's peak must be positive");
  check_utilisation(utilisation);
  if (!(pue >= 1))
    throw FieldError("pue",
                     "must be at least 1 (facility energy over IT energy), got " + units::format_significant(pue, 6));
  if (!(intensity_kg_per_kwh >= 0)) throw FieldError("intensity_kg_per_kwh", "must not be negative");
  // 1 is a site matched hour by hour with carbon-free energy: its net emissions are zero.
  if (!(cfe_fraction >= 0 && cfe_fraction <= 1))
    throw FieldError("cfe_fraction",
                     "must be in [0, 1] (the carbon-free share), got " + units::format_significant(cfe_fraction, 6));
  if (node_power_w && !(*node_power_w > 0)) throw FieldError("node_power_w", "must be positive");
  if (power_per_gpu_w && !(*power_per_gpu_w > 0)) throw FieldError("power_per_gpu_w", "must be positive");
  if (!(tdp_w >= 0)) throw FieldError("tdp_w", "the accelerator's TDP must not be negative");
  if (!(tdp_utilisation > 0 && tdp_utilisation <= 1))
    throw FieldError("tdp_utilisation", "must be in (0, 1], got " + units::format_significant(tdp_utilisation, 6));
  if (!(host_overhead_w >= 0)) throw FieldError("host_overhead_w", "must not be negative");
  if (price_per_gpu_hour_usd && !(*price_per_gpu_hour_usd >= 0))
    throw FieldError("price_per_gpu_hour_usd", "must not be negative");
  if (price_per_kwh_usd && !(*price_per_kwh_usd >= 0)) throw FieldError("price_per_kwh_usd", "must not be negative");
  if (embodied_kg_per_gpu && !(*embodied_kg_per_gpu > 0))
    throw FieldError("embodied_kg_per_gpu", "kg CO2e per accelerator must be positive");
  if (!(embodied_lifetime_s > 0)) throw FieldError("embodied_lifetime_s", "the hardware lifetime must be positive");
  const EnergyMethod method = energy_method.value_or(default_energy_method(power_inputs()));
  for (const auto& p : estimate_power(power_inputs())) {
    if (p.method == method && !p.available && method == EnergyMethod::kMeasured && energy_method)
      throw FieldError("energy_method", "measured: the catalog has no measured power for this accelerator",
                       "power_per_gpu_w");
    if (p.method == method && !p.available)
      throw FieldError(energy_method ? "energy_method" : "power_per_gpu_w",
                       energy_method ? std::string(kEnergyMethodNames.name(method)) + ": " + p.assumptions
                                     : "no power for the run; give the power per accelerator or per node");
  }
}

RunCost estimate_run_cost(const RunCostInputs& in) {
  in.validate();
  RunCost c;
  c.time_s = in.flops / (in.gpus * in.peak_flops_per_gpu * in.utilisation);
  c.days = c.time_s / kSecondsPerDay;
  c.gpu_hours = in.gpus * c.time_s / kSecondsPerHour;
  c.energy_method = in.energy_method.value_or(default_energy_method(in.power_inputs()));
  for (const PowerEstimate& p : estimate_power(in.power_inputs())) {
    EnergyMethodResult r;
    r.power = p;
    r.it_energy_kwh = p.power_w * (c.time_s / kSecondsPerHour) / kWattHoursPerKwh;
    r.energy_kwh = r.it_energy_kwh * in.pue;
    r.co2e_kg = r.energy_kwh * in.intensity_kg_per_kwh;
    r.net_co2e_kg = r.co2e_kg * (1 - in.cfe_fraction);
    if (p.method == c.energy_method) {
      c.power_w = p.power_w;
      c.it_energy_kwh = r.it_energy_kwh;
      c.energy_kwh = r.energy_kwh;
      c.co2e_kg = r.co2e_kg;
      c.net_co2e_kg = r.net_co2e_kg;
    }
    c.energy_methods.push_back(std::move(r));
  }
  c.power_method = power_method_label(c.energy_method);
  if (in.embodied_kg_per_gpu) {
    c.embodied = true;
    c.embodied_share = c.time_s / in.embodied_lifetime_s;
    c.embodied_co2e_kg = amortised_embodied_kg(in.gpus, *in.embodied_kg_per_gpu, c.time_s, in.embodied_lifetime_s);
  }
  c.total_co2e_kg = c.co2e_kg + c.embodied_co2e_kg;
  if (in.price_per_gpu_hour_usd) c.compute_cost_usd = c.gpu_hours * *in.price_per_gpu_hour_usd;
  if (in.price_per_kwh_usd) c.energy_cost_usd = c.energy_kwh * *in.price_per_kwh_usd;
  if (c.compute_cost_usd || c.energy_cost_usd) c.cost_usd = c.compute_cost_usd.value_or(0) + c.energy_cost_usd.value_or(0);
  // Each price is finite, but a vast one times a long run may not be: no cost is written as "$inf".
  if (c.compute_cost_usd && !std::isfinite(*c.compute_cost_usd))
    throw FieldError("price_per_gpu_hour_usd",
                     "is too large: the run's cost would overflow a double (1.8e308 dollars)");
  if (c.energy_cost_usd && !std::isfinite(*c.energy_cost_usd))
    throw FieldError("price_per_kwh_usd", "is too large: the run's cost would overflow a double (1.8e308 dollars)");
  if (c.cost_usd && !std::isfinite(*c.cost_usd))  // each part finite, their sum not
    throw FieldError("price_per_kwh_usd",
                     "is too large: with the compute cost the run's cost would overflow a double (1.8e308 dollars)");
  return c;
}

double affordable_flops(int gpus, double peak_flops_per_gpu, double utilisation, double time_s) {
  if (gpus < 1) throw FieldError("gpus", "must be at least 1");
  if (!(peak_flops_per_gpu > 0)) throw FieldError("peak_flops_per_gpu", "the accelerator's peak must be positive");
  check_utilisation(utilisation);
  if (!(time_s > 0) || !std::isfinite(time_s)) throw FieldError("time", "must be positive");
  return time_s * gpus * peak_flops_per_gpu * utilisation;
}

}  // namespace isoflop::cost
