// JSON of the run-cost section: one table for both directions; the energy methods depend on the chosen one.
#include "doc/cost_json.hpp"

#include "doc/document.hpp"

namespace isoflop::cost {
namespace {

using doc::field;
using doc::Json;
using doc::names;

// An unavailable method's figures are null.
Json methods_json(const CostReport& r) {
  Json methods = Json::array();
  for (const auto& m : r.result.energy_methods) {
    const bool a = m.power.available;
    auto value = [a](double v) { return a ? Json(v) : Json(nullptr); };
    methods.push_back({{"method", doc::enum_json(m.power.method, kEnergyMethodNames)},
                       {"chosen", m.power.method == r.result.energy_method},
                       {"available", a},
                       {"assumptions", m.power.assumptions},
                       {"power_w", value(m.power.power_w)},
                       {"power_per_gpu_w", value(m.power.power_per_gpu_w)},
                       {"it_energy_kwh", value(m.it_energy_kwh)},
                       {"energy_kwh", value(m.energy_kwh)},
                       {"co2e_kg", value(m.co2e_kg)},
                       {"net_co2e_kg", value(m.net_co2e_kg)}});
  }
  return methods;
}

void read_methods(const Json& methods, CostReport& r) {
  if (!methods.is_array()) doc::fail_at(methods, "must be an array");
  using P = PowerEstimate;
  constexpr auto kEnergy =
      std::tuple{doc::via(&EnergyMethodResult::power, field("method", &P::method, names(kEnergyMethodNames)),
                          field("available", &P::available), field("assumptions", &P::assumptions),
                          field("power_w", &P::power_w, doc::null_when(0.0)),
                          field("power_per_gpu_w", &P::power_per_gpu_w, doc::null_when(0.0))),
                 field("it_energy_kwh", &EnergyMethodResult::it_energy_kwh, doc::null_when(0.0)),
                 field("energy_kwh", &EnergyMethodResult::energy_kwh, doc::null_when(0.0)),
                 field("co2e_kg", &EnergyMethodResult::co2e_kg, doc::null_when(0.0)),
                 field("net_co2e_kg", &EnergyMethodResult::net_co2e_kg, doc::null_when(0.0))};
  for (const auto& m : methods) doc::read_fields(m, r.result.energy_methods.emplace_back(), kEnergy);
}

using I = RunCostInputs;

// The work's FLOPs and utilisation, null where only the duration is known (RunCostInputs::work_unknown); read
// back as the full peak over the run's time (from_json).
constexpr auto work_json(double I::*member) {
  return [member](const I& in) { return in.work_unknown ? Json(nullptr) : Json(in.*member); };
}
constexpr auto read_work(double I::*member) {
  return [member](const Json& v, I& in) {
    if (v.is_null()) {
      in.work_unknown = true;
      in.*member = 0;
    } else {
      doc::read_value(v, in.*member);
    }
  };
}
using L = WhatIfLevers;
using C = RunCost;

constexpr auto kCostReport = std::tuple{
    doc::group("inputs", field("accelerator", &CostReport::accelerator),
               doc::via(&CostReport::inputs, doc::custom("flops", work_json(&I::flops), read_work(&I::flops)),
                        field("gpus", &I::gpus), field("gpus_per_node", &I::gpus_per_node),
                        field("peak_flops_per_gpu", &I::peak_flops_per_gpu),
                        doc::custom("mfu", work_json(&I::utilisation), read_work(&I::utilisation)),
                        field("energy_method", &I::energy_method, names(kEnergyMethodNames)),
                        field("node_power_w", &I::node_power_w), field("node_power_note", &I::node_power_note),
                        field("power_per_gpu_w", &I::power_per_gpu_w),
                        field("power_per_gpu_note", &I::power_per_gpu_note), field("tdp_w", &I::tdp_w),
                        field("tdp_utilisation", &I::tdp_utilisation), field("host_overhead_w", &I::host_overhead_w),
                        field("pue", &I::pue), field("intensity_kg_per_kwh", &I::intensity_kg_per_kwh),
                        doc::added_later(field("grid_region", &I::grid)), field("cfe", &I::cfe_fraction),
                        field("price_per_gpu_hour_usd", &I::price_per_gpu_hour_usd),
                        field("price_per_kwh_usd", &I::price_per_kwh_usd),
                        field("embodied_kg_per_gpu", &I::embodied_kg_per_gpu),
                        field("embodied_lifetime_s", &I::embodied_lifetime_s)),
               doc::group("whatif", doc::via(&CostReport::levers, field("model_factor", &L::model_factor),
                                             field("gpu", &L::machine), field("grid", &L::region),
                                             field("mechanization_pue", &L::mechanization_pue)))),
    doc::via(&CostReport::result, field("time_s", &C::time_s), field("days", &C::days),
             field("gpu_hours", &C::gpu_hours), field("energy_method", &C::energy_method, names(kEnergyMethodNames)),
             field("power_w", &C::power_w), field("power_method", &C::power_method),
             field("it_energy_kwh", &C::it_energy_kwh), field("energy_kwh", &C::energy_kwh),
             field("co2e_kg", &C::co2e_kg), field("net_co2e_kg", &C::net_co2e_kg)),
    doc::custom("energy_methods", methods_json, read_methods),
    doc::via(&CostReport::result,
             doc::group_if("embodied", &C::embodied, field("share", &C::embodied_share),
                           field("co2e_kg", &C::embodied_co2e_kg)),
             field("total_co2e_kg", &C::total_co2e_kg), field("compute_cost_usd", &C::compute_cost_usd),
             field("energy_cost_usd", &C::energy_cost_usd), field("cost_usd", &C::cost_usd)),
    field("whatif", &CostReport::whatif)};

}  // namespace

void to_json(Json& j, const CostReport& r) { doc::write_fields(j, r, kCostReport); }
void from_json(const Json& j, CostReport& r) {
  doc::read_fields(j, r, kCostReport);
  if (r.inputs.work_unknown) {  // the stand-ins the run was costed with: its time at the full peak
    const Json& in = j.at("inputs");
    for (const char* key : {"flops", "mfu"})
      if (!in.at(key).is_null())
        doc::fail_at(in.at(key), "must be null, as flops and mfu are together when only the run's time is known");
    r.inputs.utilisation = 1;
    r.inputs.flops = r.result.time_s * r.inputs.gpus * r.inputs.peak_flops_per_gpu;
  }
}

}  // namespace isoflop::cost
