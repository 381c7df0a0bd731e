// Energy, carbon and what-if options, and the report pieces for them.
#include "app/energy_options.hpp"

#include <cctype>
#include <cmath>

#include "core/error.hpp"
#include "cost/embodied.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"
#include "units/quantity.hpp"

namespace isoflop::app {
namespace {

using report::Json;

Json number_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

std::string factor_text(double f) { return std::isfinite(f) ? units::format_significant(f, 3) + "x" : "inf"; }

}  // namespace

double pue_value(const catalog::Catalog& cat, const std::string& text) {
  if (const auto* p = cat.find_pue_preset(text)) return p->pue;
  if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')) {
    const double v = units::parse_number(text, "--pue");
    if (v < 1) throw InputError("--pue: " + text + " is below 1 (facility energy cannot be less than IT energy)");
    return v;
  }
  return cat.pue_preset(text).pue;
}

double grid_value(const catalog::Catalog& cat, const std::string& text) {
  if (const auto* g = cat.find_grid(text)) return g->intensity_kg_per_kwh;
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])))
    return units::parse_intensity_kg_per_kwh(text, "--grid", units::Sign::kNonNegative);
  return cat.grid(text).intensity_kg_per_kwh;
}

void add_energy_options(po::options_description& options) {
  options.add_options()
      ("energy-method", po::value<std::string>()->value_name("NAME"),
       "node|measured|tdp: which power gives the energy (default: measured with --power-w, else node)")
      ("power-w", po::value<std::string>()->value_name("W"), "measured average system power per accelerator, watts")
      ("node-power-kw", po::value<std::string>()->value_name("P"), "node power, kW (default: the node's maximum)")
      ("tdp-utilisation", po::value<std::string>()->value_name("U"),
       "tdp method: average draw as a fraction of TDP (default from cost.yaml)")
      ("host-overhead-w", po::value<std::string>()->value_name("W"),
       "tdp method: host and infrastructure watts per accelerator (default from cost.yaml)")
      ("pue", po::value<std::string>()->value_name("NAME|VALUE"), "PUE preset or value (default hyperscaler)")
      ("grid", po::value<std::string>()->value_name("NAME|VALUE"), "grid region or intensity (default us)")
      ("cfe", po::value<std::string>()->value_name("F"), "carbon-free energy fraction for net CO2e")
      ("embodied", po::bool_switch(), "add the embodied carbon share (LLMCarbon, 5-year lifetime)")
      ("embodied-kg-per-gpu", po::value<std::string>()->value_name("KG"),
       "embodied kg CO2e per accelerator instead of the catalog's (implies --embodied)")
      ("price-per-gpu-hour", po::value<std::string>()->value_name("USD"), "accelerator price per hour")
      ("price-per-kwh", po::value<std::string>()->value_name("USD"), "energy price per kWh");
}

void add_whatif_options(po::options_description& options, bool with_switch) {
  if (with_switch) options.add_options()("whatif", po::bool_switch(), "show the 4Ms what-if table");
  options.add_options()
      ("whatif-gpu", po::value<std::string>()->value_name("NAME"),
       "Machine lever: this accelerator (default: the catalog's best performance per watt)")
      ("whatif-grid", po::value<std::string>()->value_name("NAME"),
       "Map lever: this grid region (default: the catalog's cleanest)")
      ("whatif-model-factor", po::value<std::string>()->value_name("F"),
       "Model lever: compute saved at equal quality, >= 1 (default from cost.yaml: 3)");
}

void apply_energy_options(const po::variables_map& vm, const catalog::Catalog& cat, const catalog::Accelerator& acc,
                          const catalog::Node* node, cost::RunCostInputs* in) {
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  in->pue = pue_value(cat, get_string(vm, "pue").value_or("hyperscaler"));
  in->intensity_kg_per_kwh = grid_value(cat, get_string(vm, "grid").value_or("us"));
  if (auto f = get_number(vm, "cfe", units::Sign::kNonNegative)) in->cfe_fraction = *f;
  if (auto p = get_string(vm, "price-per-gpu-hour"))
    in->price_per_gpu_hour_usd = units::parse_money_usd(*p, "--price-per-gpu-hour", units::Sign::kNonNegative);
  if (auto p = get_string(vm, "price-per-kwh"))
    in->price_per_kwh_usd = units::parse_money_usd(*p, "--price-per-kwh", units::Sign::kNonNegative);

  // (a) node power: the node's rated maximum, or the given one.
  if (node) {
    in->node_power_w = node->max_power_w;
    in->node_power_note = node->name + " maximum";
  }
  if (auto kw = get_number(vm, "node-power-kw")) {
    in->node_power_w = *kw * 1e3;
    in->node_power_note = "given";
  }
  // (b) measured: the given average, or the catalog's (Patterson et al. 2021) where it has one.
  if (auto w = get_number(vm, "power-w")) {
    in->power_per_gpu_w = *w;
    in->power_per_gpu_note = "given";
  } else if (acc.measured_power_w) {
    in->power_per_gpu_w = *acc.measured_power_w;
    in->power_per_gpu_note = "catalog";
  }
  // (c) TDP × utilisation + host overhead.
  in->tdp_w = acc.tdp_w;
  in->tdp_utilisation = get_number(vm, "tdp-utilisation").value_or(k.tdp_utilisation);
  in->host_overhead_w = get_number(vm, "host-overhead-w", units::Sign::kNonNegative).value_or(k.host_overhead_w);

  if (auto m = get_string(vm, "energy-method")) {
    in->energy_method = cost::kEnergyMethodNames.parse(*m, "--energy-method");
  } else if (has(vm, "power-w")) {
    in->energy_method = cost::EnergyMethod::kMeasured;
  } else if (in->node_power_w) {
    in->energy_method = cost::EnergyMethod::kNode;
  } else if (in->power_per_gpu_w) {
    in->energy_method = cost::EnergyMethod::kMeasured;
  } else {
    in->energy_method = cost::EnergyMethod::kTdp;
  }

  in->embodied_lifetime_s = k.lifetime_s;
  if (auto kg = get_number(vm, "embodied-kg-per-gpu")) {
    in->embodied_kg_per_gpu = *kg;
  } else if (vm.count("embodied") && vm["embodied"].as<bool>()) {
    const catalog::EmbodiedCarbon* die = cat.find_embodied_carbon(acc.name);
    if (!die) {
      std::vector<std::string> names;
      for (const auto& e : cat.embodied_carbon) names.push_back(e.name);
      throw InputError("--embodied: no embodied-carbon entry for accelerator '" + acc.name +
                       "' in the catalog (cost.yaml embodied_carbon); give --embodied-kg-per-gpu KG, or use one of " +
                       join(names));
    }
    in->embodied_kg_per_gpu = cost::embodied_kg_per_accelerator(*die, acc, k.memory_kg_per_gb);
  }
}

cost::WhatIfOptions whatif_options(const po::variables_map& vm, const catalog::Catalog& cat,
                                   const catalog::Accelerator& acc, const cost::RunCostInputs& in) {
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  cost::WhatIfOptions o;
  o.model_factor = get_number(vm, "whatif-model-factor").value_or(k.model_factor);
  o.accelerator = acc;
  if (auto name = get_string(vm, "whatif-gpu")) {
    o.machines = {cat.accelerator(*name, "--whatif-gpu")};
    o.machine_pinned = true;
  } else {
    o.machines = cat.accelerators;
  }
  o.tdp_utilisation = in.tdp_utilisation;
  o.host_overhead_w = in.host_overhead_w;
  o.mechanization_pue = k.mechanization_pue;
  if (auto name = get_string(vm, "whatif-grid")) {
    o.regions = {cat.grid(*name, "--whatif-grid")};
  } else {
    o.regions = cat.grids;
  }
  o.validate();
  return o;
}

Json energy_methods_json(const cost::RunCost& c) {
  Json out = Json::array();
  for (const auto& m : c.energy_methods) {
    Json j = {{"method", std::string(cost::kEnergyMethodNames.name(m.power.method))},
              {"chosen", m.power.method == c.energy_method},
              {"available", m.power.available},
              {"assumptions", m.power.assumptions}};
    if (m.power.available) {
      j["power_kw"] = m.power.power_w / 1e3;
      j["power_per_gpu_w"] = m.power.power_per_gpu_w;
      j["it_energy_kwh"] = m.it_energy_kwh;
      j["energy_kwh"] = m.energy_kwh;
      j["co2e_kg"] = m.co2e_kg;
      j["net_co2e_kg"] = m.net_co2e_kg;
    }
    out.push_back(j);
  }
  return out;
}

Json embodied_json(const cost::RunCost& c, const cost::RunCostInputs& in) {
  if (!c.embodied) return nullptr;
  return {{"kg_per_gpu", *in.embodied_kg_per_gpu},
          {"lifetime_years", in.embodied_lifetime_s / (365 * 86400.0)},
          {"share", c.embodied_share},
          {"co2e_kg", c.embodied_co2e_kg},
          {"method",
           "LLMCarbon: accelerators x (die area x carbon per area + memory x carbon per GB) x time / lifetime"}};
}

Json whatif_json(const std::vector<cost::WhatIfRow>& rows) {
  Json out = Json::array();
  for (const auto& r : rows)
    out.push_back({{"lever", std::string(cost::kLeverNames.name(r.lever))},
                   {"change", r.change},
                   {"applied", r.applied},
                   {"note", r.note},
                   {"time_s", r.time_s},
                   {"days", r.time_s / 86400.0},
                   {"energy_kwh", r.energy_kwh},
                   {"co2e_kg", r.co2e_kg},
                   {"net_co2e_kg", r.net_co2e_kg},
                   {"cost_usd", r.cost_usd},
                   {"energy_factor", number_or_null(r.energy_factor)},
                   {"co2e_factor", number_or_null(r.co2e_factor)},
                   {"cost_factor", number_or_null(r.cost_factor)}});
  return out;
}

std::string energy_methods_table(const cost::RunCost& c) {
  report::TextTable t({"method", "power", "energy", "CO2e", "assumptions"}, {false, true, true, true, false});
  for (const auto& m : c.energy_methods) {
    const std::string name = std::string(cost::kEnergyMethodNames.name(m.power.method)) +
                             (m.power.method == c.energy_method ? " (used)" : "");
    if (m.power.available) {
      t.add_row({name, units::format_power(m.power.power_w), units::format_energy(m.energy_kwh * 3.6e6),
                 units::format_mass(m.co2e_kg), m.power.assumptions});
    } else {
      t.add_row({name, "-", "-", "-", m.power.assumptions});
    }
  }
  return t.render();
}

std::string whatif_table(const std::vector<cost::WhatIfRow>& rows) {
  const bool priced = !rows.empty() && rows.front().cost_usd > 0;
  std::vector<std::string> header = {"lever", "change", "time", "energy", "CO2e", "energy cut", "CO2e cut"};
  std::vector<bool> right = {false, false, true, true, true, true, true};
  if (priced) {
    header.push_back("money");
    right.push_back(true);
  }
  report::TextTable t(header, right);
  std::string notes;
  for (const auto& r : rows) {
    const std::string lever = std::string(cost::kLeverNames.name(r.lever));
    std::vector<std::string> cells = {lever,
                                      r.change,
                                      units::format_duration(r.time_s),
                                      units::format_energy(r.energy_kwh * 3.6e6),
                                      units::format_mass(r.co2e_kg),
                                      factor_text(r.energy_factor),
                                      factor_text(r.co2e_factor)};
    if (priced) cells.push_back(units::format_money(r.cost_usd));
    t.add_row(cells);
    if (!r.note.empty()) notes += "  " + lever + (r.applied ? ": " : " (not applied): ") + r.note + "\n";
  }
  return t.render() + notes;
}

}  // namespace isoflop::app
