// Energy, carbon, price and what-if requests resolved against the catalog.
#include "cost/energy_request.hpp"

#include <cctype>

#include "core/error.hpp"
#include "cost/embodied.hpp"
#include "units/format.hpp"
#include "units/quantity.hpp"

namespace isoflop::cost {
namespace {

constexpr const char* kDefaultGrid = "us";

// Runs a units parser that names `field` and turns its InputError into a FieldError of that field.
template <class Parse>
double parse_field(const std::string& field, Parse parse) {
  try {
    return parse();
  } catch (const FieldError&) {
    throw;
  } catch (const InputError& e) {
    std::string message = e.what();
    if (message.rfind(field + ": ", 0) == 0) message = message.substr(field.size() + 2);
    throw FieldError(field, message);
  }
}

bool starts_like_number(const std::string& text) {
  return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' || text[0] == '-');
}

// The embodied kg CO2e of one `accelerator` from the catalog (cost.yaml embodied_carbon).
double catalog_embodied_kg(const catalog::Catalog& cat, const catalog::Accelerator& acc) {
  const catalog::EmbodiedCarbon* die = cat.find_embodied_carbon(acc.name);
  if (!die) {
    std::vector<std::string> names;
    for (const auto& e : cat.embodied_carbon) names.push_back(e.name);
    throw FieldError("embodied", "no embodied-carbon entry for accelerator '" + acc.name +
                                     "' in the catalog (cost.yaml embodied_carbon); give the kg CO2e per "
                                     "accelerator, or use one of " + join(names));
  }
  return embodied_kg_per_accelerator(*die, acc, cat.run_cost_constants().memory_kg_per_gb);
}

std::string ratio_text(double ratio) { return units::format_significant(ratio, 3) + "x"; }

// Refuses a stated power per accelerator or per node outside the catalog's plausible ratio to the TDP it stands
// for (cost.yaml `plausible`), as the unit slip it most likely is: a node's kilowatts given as an accelerator's
// watts. (A typed PUE or grid intensity is held to its bound where it is parsed: pue_value, grid_value.)
void check_power_plausible(const EnergyRequest& r, const catalog::RunCostConstants& k, const catalog::Accelerator& acc,
                           int gpus_per_node) {
  const double low = k.power_tdp_ratio[0], high = k.power_tdp_ratio[1];
  if (!(low > 0) || !(acc.tdp_w > 0)) return;
  const auto check = [&](const char* field, double stated_w, double tdp_w, const std::string& of, const char* other) {
    const double ratio = stated_w / tdp_w;
    if (ratio >= low && ratio <= high) return;
    throw FieldError(field, units::format_power(stated_w) + " is " +
                                (ratio < low ? "under " + ratio_text(low) : "over " + ratio_text(high)) + " the " +
                                units::format_power(tdp_w) + " TDP of " + of + "; accepted: " + ratio_text(low) +
                                " to " + ratio_text(high) + " of it (" + units::format_power(low * tdp_w) + " to " +
                                units::format_power(high * tdp_w) + ")" + other);
  };
  if (r.power_per_gpu_w)
    check("power_w", *r.power_per_gpu_w, acc.tdp_w, "one " + acc.name,
          *r.power_per_gpu_w > acc.tdp_w ? "; a whole node's power is --node-power-kw" : "");
  if (r.node_power_w && gpus_per_node > 0)
    check("node_power_kw", *r.node_power_w, acc.tdp_w * gpus_per_node, std::to_string(gpus_per_node) + " x " + acc.name,
          "");
}

// Refuses a stated price past the catalog's plausible bound (cost.yaml `plausible`): a node's hourly price given per
// accelerator, cents given as dollars.
void check_price_plausible(const EnergyRequest& r, const catalog::RunCostConstants& k) {
  const auto check = [](const char* field, const std::optional<double>& usd, double most, const char* per,
                        const char* hint) {
    if (!usd || !(most > 0) || *usd <= most) return;
    throw FieldError(field, units::format_money(*usd) + " per " + per + " is above " + units::format_money(most) +
                                ", more than any published list price; accepted: 0 to " + units::format_money(most) +
                                " (" + hint + ")");
  };
  check("price_per_gpu_hour_usd", r.price_per_gpu_hour_usd, k.max_price_per_gpu_hour_usd, "GPU-hour",
        "the price of one accelerator for one hour, not of a node");
  check("price_per_kwh_usd", r.price_per_kwh_usd, k.max_price_per_kwh_usd, "kWh", "in dollars, not cents");
}

}  // namespace

// A preset or grid named from the catalog (an overlay's included) is the catalog's own fact; a typed value past
// the catalog's plausible bound (cost.yaml `plausible`) is refused as the unit slip it most likely is (a PUE as a
// percentage, a grid in g/kWh given as kg/kWh).
double pue_value(const catalog::Catalog& cat, const std::string& text) {
  if (const auto* p = cat.find_pue_preset(text)) return p->pue;
  if (starts_like_number(text)) {
    const double v = parse_field("pue", [&] { return units::parse_number(text, "pue", units::Sign::kAny); });
    if (!(v >= 1)) throw FieldError("pue", text + " is below 1 (facility energy cannot be less than IT energy)");
    const double most = cat.run_cost_constants().max_pue;
    if (most > 0 && v > most)
      throw FieldError("pue", text + " is above " + units::format_significant(most, 3) +
                                  ", more facility energy per IT kWh than any datacenter reports; a PUE is a ratio, "
                                  "e.g. 1.1 (hyperscale) to 1.6 (typical)");
    return v;
  }
  return cat.pue_preset(text, "pue").pue;
}

double grid_value(const catalog::Catalog& cat, const std::string& text) {
  if (const auto* g = cat.find_grid(text)) return g->intensity_kg_per_kwh;
  if (starts_like_number(text)) {
    const double v =
        parse_field("grid", [&] { return units::parse_intensity_kg_per_kwh(text, "grid", units::Sign::kNonNegative); });
    const double most = cat.run_cost_constants().max_grid_kg_per_kwh;
    if (most > 0 && v > most)
      throw FieldError("grid", text + " is " + units::format_significant(v * 1e3, 4) +
                                   " g/kWh, more than a coal plant emits; accepted: up to " +
                                   units::format_significant(most, 3) +
                                   " kg/kWh with its unit, or a grid of isoflop catalog grids");
    return v;
  }
  return cat.grid(text, "grid").intensity_kg_per_kwh;
}

void resolve_energy(const EnergyRequest& request, const catalog::Catalog& cat, const catalog::Accelerator& acc,
                    const catalog::Node* node, RunCostInputs* in) {
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  in->pue = pue_value(cat, k.default_pue);
  in->intensity_kg_per_kwh = grid_value(cat, kDefaultGrid);
  in->grid = kDefaultGrid;
  in->cfe_fraction = 0;
  in->price_per_gpu_hour_usd.reset();
  in->price_per_kwh_usd.reset();
  // (a) node power: the node's rated maximum; (b) measured: the catalog's (Patterson et al. 2021) where it has
  // one; (c) TDP × utilisation + host overhead.
  in->node_power_w.reset();
  in->node_power_note.clear();
  if (node) {
    in->node_power_w = node->max_power_w;
    in->node_power_note = node->name + " maximum";
    // A node of another size than the catalog's (--gpus-per-node) draws the catalog node's power per GPU: a
    // DGX A100's 6.5 kW is for its 8 GPUs, not for 64 or 4.
    if (in->gpus_per_node > 0 && node->gpus_per_node > 0 && in->gpus_per_node != node->gpus_per_node) {
      in->node_power_w = node->max_power_w / node->gpus_per_node * in->gpus_per_node;
      in->node_power_note = node->name + " maximum per GPU x " + std::to_string(in->gpus_per_node);
    }
  }
  in->power_per_gpu_w = acc.measured_power_w;
  in->power_per_gpu_note = acc.measured_power_w ? "catalog" : "";
  in->tdp_w = acc.tdp_w;
  in->tdp_utilisation = k.tdp_utilisation;
  in->host_overhead_w = k.host_overhead_w;
  // Node power when there is a node (the hardware as installed), else the catalog's measurement, else TDP.
  in->energy_method = in->node_power_w ? EnergyMethod::kNode
                      : in->power_per_gpu_w ? EnergyMethod::kMeasured
                                            : EnergyMethod::kTdp;
  in->embodied_kg_per_gpu.reset();
  in->embodied_lifetime_s = k.lifetime_s;
  apply_energy_request(request, cat, acc, in);
}

void apply_energy_request(const EnergyRequest& r, const catalog::Catalog& cat, const catalog::Accelerator& acc,
                          RunCostInputs* in) {
  if (r.pue) in->pue = pue_value(cat, *r.pue);
  if (r.grid) {
    in->intensity_kg_per_kwh = grid_value(cat, *r.grid);
    const catalog::Grid* named = cat.find_grid(*r.grid);
    in->grid = named ? std::optional<std::string>(named->name) : std::nullopt;
  }
  if (r.cfe_fraction) in->cfe_fraction = *r.cfe_fraction;
  if (r.price_per_gpu_hour_usd) in->price_per_gpu_hour_usd = r.price_per_gpu_hour_usd;
  if (r.price_per_kwh_usd) in->price_per_kwh_usd = r.price_per_kwh_usd;
  if (r.node_power_w) {
    in->node_power_w = r.node_power_w;
    in->node_power_note = "given";
    in->energy_method = EnergyMethod::kNode;
  }
  if (r.power_per_gpu_w) {
    in->power_per_gpu_w = r.power_per_gpu_w;
    in->power_per_gpu_note = "given";
    in->energy_method = EnergyMethod::kMeasured;
  }
  if (r.tdp_utilisation) in->tdp_utilisation = *r.tdp_utilisation;
  if (r.host_overhead_w) in->host_overhead_w = *r.host_overhead_w;
  if (r.energy_method) in->energy_method = r.energy_method;
  check_power_plausible(r, cat.run_cost_constants(), acc, in->gpus_per_node);
  check_price_plausible(r, cat.run_cost_constants());
  if (r.embodied_kg_per_gpu) {
    in->embodied_kg_per_gpu = r.embodied_kg_per_gpu;
  } else if (r.embodied && !in->embodied_kg_per_gpu) {
    in->embodied_kg_per_gpu = catalog_embodied_kg(cat, acc);
  }
}

WhatIfLevers resolve_levers(const EnergyRequest& r, const catalog::Catalog& cat, const WhatIfLevers* previous) {
  WhatIfLevers l;
  if (previous) {
    l = *previous;
  } else {
    l.model_factor = cat.run_cost_constants().model_factor;
    l.mechanization_pue = cat.run_cost_constants().mechanization_pue;
  }
  if (r.whatif_model_factor) l.model_factor = *r.whatif_model_factor;
  if (r.whatif_gpu) l.machine = cat.accelerator(*r.whatif_gpu, "whatif_gpu").name;
  if (r.whatif_grid) l.region = cat.grid(*r.whatif_grid, "whatif_grid").name;
  return l;
}

WhatIfOptions whatif_options(const WhatIfLevers& l, const catalog::Catalog& cat, const catalog::Accelerator& acc,
                             const RunCostInputs& in) {
  WhatIfOptions o;
  o.model_factor = l.model_factor;
  o.accelerator = acc;
  if (l.machine) {
    o.machines = {cat.accelerator(*l.machine, "whatif_gpu")};
    o.machine_pinned = true;
  } else {
    o.machines = cat.accelerators;
  }
  o.tdp_utilisation = in.tdp_utilisation;
  o.host_overhead_w = in.host_overhead_w;
  o.mechanization_pue = l.mechanization_pue;
  if (l.region) {
    o.regions = {cat.grid(*l.region, "whatif_grid")};
    o.region_pinned = true;
  } else {
    for (const auto& g : cat.grids)
      if (g.map_candidate) o.regions.push_back(g);
  }
  o.published_ranges = cat.run_cost_constants().published_ranges;
  o.validate();
  return o;
}

CostReport recost(const CostReport& previous, const EnergyRequest& request, const catalog::Catalog& cat) {
  const catalog::Accelerator* found = cat.find_accelerator(previous.accelerator);
  if (!found)
    throw InputError("the run's accelerator '" + previous.accelerator + "' is not in the catalog (see 'isoflop catalog')");
  const catalog::Accelerator& acc = *found;
  RunCostInputs in = previous.inputs;
  apply_energy_request(request, cat, acc, &in);
  const WhatIfLevers levers = resolve_levers(request, cat, &previous.levers);
  return report_run_cost(in, whatif_options(levers, cat, acc, in));
}

}  // namespace isoflop::cost
