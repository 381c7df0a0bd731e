// JSON of the run-cost section: written and read back field by field.
#include "doc/cost_json.hpp"

#include <limits>

namespace isoflop::cost {

using doc::finite_or_null;
using doc::Json;
using doc::or_null;
using doc::read;

namespace {

constexpr double kSecondsPerDay = 86400.0;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

Json inputs_json(const CostReport& r) {
  const RunCostInputs& in = r.inputs;
  Json j = Json::object();
  j["accelerator"] = r.accelerator;
  j["flops"] = in.flops;
  j["gpus"] = in.gpus;
  j["gpus_per_node"] = in.gpus_per_node;
  j["peak_flops_per_gpu"] = in.peak_flops_per_gpu;
  j["mfu"] = in.utilisation;
  j["energy_method"] = in.energy_method ? doc::enum_json(*in.energy_method, kEnergyMethodNames) : Json(nullptr);
  j["node_power_w"] = or_null(in.node_power_w);
  j["node_power_note"] = in.node_power_note;
  j["power_per_gpu_w"] = or_null(in.power_per_gpu_w);
  j["power_per_gpu_note"] = in.power_per_gpu_note;
  j["tdp_w"] = in.tdp_w;
  j["tdp_utilisation"] = in.tdp_utilisation;
  j["host_overhead_w"] = in.host_overhead_w;
  j["pue"] = in.pue;
  j["intensity_kg_per_kwh"] = in.intensity_kg_per_kwh;
  j["cfe"] = in.cfe_fraction;
  j["price_per_gpu_hour_usd"] = or_null(in.price_per_gpu_hour_usd);
  j["price_per_kwh_usd"] = or_null(in.price_per_kwh_usd);
  j["embodied_kg_per_gpu"] = or_null(in.embodied_kg_per_gpu);
  j["embodied_lifetime_s"] = in.embodied_lifetime_s;
  j["whatif"] = {{"model_factor", r.levers.model_factor},
                 {"gpu", or_null(r.levers.machine)},
                 {"grid", or_null(r.levers.region)},
                 {"mechanization_pue", r.levers.mechanization_pue}};
  return j;
}

void read_inputs(const Json& j, CostReport& r) {
  RunCostInputs& in = r.inputs;
  read(j, "accelerator", r.accelerator);
  read(j, "flops", in.flops);
  read(j, "gpus", in.gpus);
  read(j, "gpus_per_node", in.gpus_per_node);
  read(j, "peak_flops_per_gpu", in.peak_flops_per_gpu);
  read(j, "mfu", in.utilisation);
  in.energy_method.reset();
  if (!j.at("energy_method").is_null()) {
    EnergyMethod m{};
    doc::read_enum(j, "energy_method", kEnergyMethodNames, m);
    in.energy_method = m;
  }
  read(j, "node_power_w", in.node_power_w);
  read(j, "node_power_note", in.node_power_note);
  read(j, "power_per_gpu_w", in.power_per_gpu_w);
  read(j, "power_per_gpu_note", in.power_per_gpu_note);
  read(j, "tdp_w", in.tdp_w);
  read(j, "tdp_utilisation", in.tdp_utilisation);
  read(j, "host_overhead_w", in.host_overhead_w);
  read(j, "pue", in.pue);
  read(j, "intensity_kg_per_kwh", in.intensity_kg_per_kwh);
  read(j, "cfe", in.cfe_fraction);
  read(j, "price_per_gpu_hour_usd", in.price_per_gpu_hour_usd);
  read(j, "price_per_kwh_usd", in.price_per_kwh_usd);
  read(j, "embodied_kg_per_gpu", in.embodied_kg_per_gpu);
  read(j, "embodied_lifetime_s", in.embodied_lifetime_s);
  const Json& w = j.at("whatif");
  if (!w.is_object()) doc::fail_at(w, "must be an object");
  read(w, "model_factor", r.levers.model_factor);
  read(w, "gpu", r.levers.machine);
  read(w, "grid", r.levers.region);
  read(w, "mechanization_pue", r.levers.mechanization_pue);
}

Json method_json(const EnergyMethodResult& m, EnergyMethod chosen) {
  const bool a = m.power.available;
  auto value = [a](double v) { return a ? Json(v) : Json(nullptr); };
  return {{"method", doc::enum_json(m.power.method, kEnergyMethodNames)},
          {"chosen", m.power.method == chosen},
          {"available", a},
          {"assumptions", m.power.assumptions},
          {"power_w", value(m.power.power_w)},
          {"power_per_gpu_w", value(m.power.power_per_gpu_w)},
          {"it_energy_kwh", value(m.it_energy_kwh)},
          {"energy_kwh", value(m.energy_kwh)},
          {"co2e_kg", value(m.co2e_kg)},
          {"net_co2e_kg", value(m.net_co2e_kg)}};
}

EnergyMethodResult read_method(const Json& j) {
  EnergyMethodResult m;
  doc::read_enum(j, "method", kEnergyMethodNames, m.power.method);
  read(j, "available", m.power.available);
  read(j, "assumptions", m.power.assumptions);
  m.power.power_w = doc::read_number_or(j, "power_w", 0);
  m.power.power_per_gpu_w = doc::read_number_or(j, "power_per_gpu_w", 0);
  m.it_energy_kwh = doc::read_number_or(j, "it_energy_kwh", 0);
  m.energy_kwh = doc::read_number_or(j, "energy_kwh", 0);
  m.co2e_kg = doc::read_number_or(j, "co2e_kg", 0);
  m.net_co2e_kg = doc::read_number_or(j, "net_co2e_kg", 0);
  return m;
}

}  // namespace

void to_json(Json& j, const WhatIfRow& r) {
  j = Json::object();
  j["lever"] = doc::enum_json(r.lever, kLeverNames);
  j["change"] = r.change;
  j["applied"] = r.applied;
  j["note"] = r.note;
  j["time_s"] = r.time_s;
  j["days"] = r.time_s / kSecondsPerDay;
  j["energy_kwh"] = r.energy_kwh;
  j["co2e_kg"] = r.co2e_kg;
  j["net_co2e_kg"] = r.net_co2e_kg;
  j["cost_usd"] = or_null(r.cost_usd);
  j["energy_factor"] = finite_or_null(r.energy_factor);
  j["co2e_factor"] = finite_or_null(r.co2e_factor);
  j["cost_factor"] = r.cost_factor ? finite_or_null(*r.cost_factor) : Json(nullptr);
  j["published_range"] = r.published_range ? Json(*r.published_range) : Json(nullptr);
}

void from_json(const Json& j, WhatIfRow& r) {
  r = WhatIfRow{};
  doc::read_enum(j, "lever", kLeverNames, r.lever);
  read(j, "change", r.change);
  read(j, "applied", r.applied);
  read(j, "note", r.note);
  read(j, "time_s", r.time_s);
  read(j, "energy_kwh", r.energy_kwh);
  read(j, "co2e_kg", r.co2e_kg);
  read(j, "net_co2e_kg", r.net_co2e_kg);
  read(j, "cost_usd", r.cost_usd);
  r.energy_factor = doc::read_number_or(j, "energy_factor", kInfinity);
  r.co2e_factor = doc::read_number_or(j, "co2e_factor", kInfinity);
  // A priced row's null factor is infinite (the row costs nothing); an unpriced row has none.
  if (r.cost_usd) r.cost_factor = doc::read_number_or(j, "cost_factor", kInfinity);
  read(j, "published_range", r.published_range);
}

void to_json(Json& j, const CostReport& r) {
  const RunCost& c = r.result;
  j = Json::object();
  j["inputs"] = inputs_json(r);
  j["time_s"] = c.time_s;
  j["days"] = c.days;
  j["gpu_hours"] = c.gpu_hours;
  j["energy_method"] = doc::enum_json(c.energy_method, kEnergyMethodNames);
  j["power_w"] = c.power_w;
  j["power_method"] = c.power_method;
  j["it_energy_kwh"] = c.it_energy_kwh;
  j["energy_kwh"] = c.energy_kwh;
  j["co2e_kg"] = c.co2e_kg;
  j["net_co2e_kg"] = c.net_co2e_kg;
  Json methods = Json::array();
  for (const auto& m : c.energy_methods) methods.push_back(method_json(m, c.energy_method));
  j["energy_methods"] = std::move(methods);
  j["embodied"] = c.embodied ? Json{{"share", c.embodied_share}, {"co2e_kg", c.embodied_co2e_kg}} : Json(nullptr);
  j["total_co2e_kg"] = c.total_co2e_kg;
  j["compute_cost_usd"] = or_null(c.compute_cost_usd);
  j["energy_cost_usd"] = or_null(c.energy_cost_usd);
  j["cost_usd"] = or_null(c.cost_usd);
  j["whatif"] = r.whatif;
}

void from_json(const Json& j, CostReport& r) {
  r = CostReport{};
  const Json& in = j.at("inputs");
  if (!in.is_object()) doc::fail_at(in, "must be an object");
  read_inputs(in, r);
  RunCost& c = r.result;
  read(j, "time_s", c.time_s);
  c.days = c.time_s / kSecondsPerDay;
  read(j, "gpu_hours", c.gpu_hours);
  doc::read_enum(j, "energy_method", kEnergyMethodNames, c.energy_method);
  c.power_method = power_method_label(c.energy_method);
  read(j, "power_w", c.power_w);
  read(j, "it_energy_kwh", c.it_energy_kwh);
  read(j, "energy_kwh", c.energy_kwh);
  read(j, "co2e_kg", c.co2e_kg);
  read(j, "net_co2e_kg", c.net_co2e_kg);
  const Json& methods = j.at("energy_methods");
  if (!methods.is_array()) doc::fail_at(methods, "must be an array");
  for (const auto& m : methods) c.energy_methods.push_back(read_method(m));
  const Json& e = j.at("embodied");
  if (!e.is_null()) {
    if (!e.is_object()) doc::fail_at(e, "must be an object or null");
    c.embodied = true;
    read(e, "share", c.embodied_share);
    read(e, "co2e_kg", c.embodied_co2e_kg);
  }
  read(j, "total_co2e_kg", c.total_co2e_kg);
  read(j, "compute_cost_usd", c.compute_cost_usd);
  read(j, "energy_cost_usd", c.energy_cost_usd);
  read(j, "cost_usd", c.cost_usd);
  doc::read_array(j, "whatif", r.whatif);
}

}  // namespace isoflop::cost
