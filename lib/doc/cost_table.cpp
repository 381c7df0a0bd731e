// The human pages of a run cost.
#include "doc/cost_table.hpp"

#include <cmath>

#include "report/text_table.hpp"
#include "units/format.hpp"
#include "units/si.hpp"

namespace isoflop::doc {
namespace {

using units::kJoulesPerKwh;
using units::kSecondsPerYear;

std::string factor_text(double f) { return std::isfinite(f) ? units::format_significant(f, 3) + "x" : "inf"; }

}  // namespace

std::vector<std::pair<std::string, std::string>> cost_key_values(const cost::CostReport& r) {
  const cost::RunCostInputs& in = r.inputs;
  const cost::RunCost& c = r.result;
  std::vector<std::pair<std::string, std::string>> kv;
  kv.push_back({"time", units::format_duration(c.time_s, 4)});
  kv.push_back({"GPU-hours", units::format_count(c.gpu_hours, 4)});
  kv.push_back({"power", units::format_power(c.power_w) + " (" + c.power_method + ")"});
  kv.push_back({"energy", units::format_energy(c.it_energy_kwh * kJoulesPerKwh) + " at the machines, " +
                              units::format_energy(c.energy_kwh * kJoulesPerKwh) + " with PUE " +
                              units::format_significant(in.pue)});
  kv.push_back({"CO2e", units::format_mass(c.co2e_kg) + " gross, " + units::format_mass(c.net_co2e_kg) + " net (" +
                            units::format_significant(in.intensity_kg_per_kwh * 1e3) + " g/kWh)"});
  if (c.embodied && in.embodied_kg_per_gpu)
    kv.push_back({"embodied CO2e", units::format_mass(c.embodied_co2e_kg) + " (" + std::to_string(in.gpus) + " x " +
                                       units::format_mass(*in.embodied_kg_per_gpu) + " x " +
                                       units::format_significant(100 * c.embodied_share, 3) + "% of a " +
                                       units::format_significant(in.embodied_lifetime_s / kSecondsPerYear) +
                                       "-year life); total " + units::format_mass(c.total_co2e_kg)});
  std::string money = c.cost_usd ? units::format_money(*c.cost_usd) : "not priced (no price per GPU-hour or kWh)";
  // Both parts priced: what each is (the GPU-hours' price, the facility energy's).
  if (c.compute_cost_usd && c.energy_cost_usd && in.price_per_gpu_hour_usd && in.price_per_kwh_usd)
    money += " (" + units::format_money(*c.compute_cost_usd) + " GPU-hours at " +
             units::format_money(*in.price_per_gpu_hour_usd) + "/GPU-h, " + units::format_money(*c.energy_cost_usd) +
             " energy at " + units::format_money(*in.price_per_kwh_usd) + "/kWh)";
  kv.push_back({"money", money});
  return kv;
}

std::string energy_methods_table(const cost::CostReport& r) {
  const cost::RunCost& c = r.result;
  report::TextTable t({"method", "power", "energy", "CO2e", "assumptions"}, {false, true, true, true, false});
  for (const auto& m : c.energy_methods) {
    const std::string name = std::string(cost::kEnergyMethodNames.name(m.power.method)) +
                             (m.power.method == c.energy_method ? " (used)" : "");
    if (m.power.available) {
      t.add_row({name, units::format_power(m.power.power_w), units::format_energy(m.energy_kwh * kJoulesPerKwh),
                 units::format_mass(m.co2e_kg), m.power.assumptions});
    } else {
      t.add_row({name, "-", "-", "-", m.power.assumptions});
    }
  }
  return t.render();
}

std::string energy_methods_section(const cost::CostReport& r) {
  return "Energy by method (PUE " + units::format_significant(r.inputs.pue) + ")\n" + energy_methods_table(r);
}

// Patterson et al. 2022's range for the lever; for "all" the energy and CO2e bounds.
std::string published_text(const cost::WhatIfRow& row) {
  if (!row.published_range) return "-";
  const auto& [low, high] = *row.published_range;
  const std::string lo = units::format_significant(low, 2), hi = units::format_significant(high, 2);
  return row.lever == cost::Lever::kAll ? "<=" + lo + "x / <=" + hi + "x" : lo + "-" + hi + "x";
}

std::string whatif_table(const cost::CostReport& r) {
  const bool priced = !r.whatif.empty() && r.whatif.front().cost_usd.has_value();
  std::vector<std::string> header = {"lever",      "change",   "time",     "energy",
                                     "CO2e",       "energy cut", "CO2e cut", "published"};
  std::vector<bool> right = {false, false, true, true, true, true, true, true};
  if (priced) {
    header.push_back("money");
    right.push_back(true);
  }
  report::TextTable t(header, right);
  std::string notes;
  for (const auto& row : r.whatif) {
    const std::string lever = std::string(cost::kLeverNames.name(row.lever));
    std::vector<std::string> cells = {lever,
                                      row.change,
                                      units::format_duration(row.time_s),
                                      units::format_energy(row.energy_kwh * kJoulesPerKwh),
                                      units::format_mass(row.co2e_kg),
                                      factor_text(row.energy_factor),
                                      factor_text(row.co2e_factor),
                                      published_text(row)};
    if (priced) cells.push_back(row.cost_usd ? units::format_money(*row.cost_usd) : "-");
    t.add_row(cells);
    if (!row.note.empty()) notes += "  " + lever + (row.applied ? ": " : " (not applied): ") + row.note + "\n";
  }
  return t.render() + notes;
}

std::string whatif_section(const cost::CostReport& r) {
  return "4Ms what-if (Patterson et al. 2022)\n" + whatif_table(r);
}

std::string render_cost_page(const CostDocument& d, bool show_whatif) {
  const CostInputs& echo = d.inputs;
  const cost::RunCostInputs& in = d.cost.inputs;
  const cost::RunCost& c = d.cost.result;
  std::string work;
  if (echo.work == CostWork::kTime && !echo.affordable_flops) {
    // Recosting a document takes no utilisation: the hint is for a fresh `cost --time`.
    work = "a run of " + units::format_duration(c.time_s, 4) +
           (echo.from ? std::string(" (work not given)") : " (work not given; --mfu adds the FLOPs it affords)");
  } else {
    work = units::format_scientific(in.flops, 4) + " FLOPs at " + units::format_significant(100 * in.utilisation) +
           "% of " + units::format_significant(in.peak_flops_per_gpu / 1e12) + " TFLOP/s";
  }
  std::vector<std::pair<std::string, std::string>> kv = {
      {"work", work},
      {"accelerators", std::to_string(in.gpus) + " x " + echo.gpu +
                           (echo.node ? " (" + *echo.node + ")" : " (no node in the catalog)")}};
  if (echo.from) kv.push_back({"recosted from", *echo.from});
  if (echo.affordable_flops) {
    std::string text = units::format_scientific(*echo.affordable_flops, 4) + " FLOPs in " +
                       units::format_duration(c.time_s, 4);
    if (echo.affordable_tokens && echo.params)
      text += " = " + units::format_count(*echo.affordable_tokens, 4) + " tokens for " +
              units::format_count(*echo.params, 4) + " parameters (6ND)";
    kv.push_back({"affordable", text});
  }
  for (auto& row : cost_key_values(d.cost)) kv.push_back(std::move(row));
  std::string out = report::render_key_values(kv, 0);
  out += "\n" + energy_methods_section(d.cost);
  if (show_whatif) out += "\n" + whatif_section(d.cost);
  return out;
}

}  // namespace isoflop::doc
