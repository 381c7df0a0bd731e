// The 4Ms what-if as factors on the baseline run: time, energy (and so CO2e), and grid intensity.
#include "cost/whatif.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "core/error.hpp"
#include "units/format.hpp"

namespace isoflop::cost {
namespace {

// How a lever scales the baseline: wall-clock (and accelerator-hours), facility energy, grid intensity.
struct Factors {
  double time = 1;
  double energy = 1;
  double intensity = 1;
};

double reduction(double baseline, double row) {
  if (row > 0) return baseline / row;
  return baseline > 0 ? std::numeric_limits<double>::infinity() : 1.0;
}

WhatIfRow make_row(Lever lever, const RunCost& b, const Factors& f) {
  WhatIfRow r;
  r.lever = lever;
  r.time_s = b.time_s * f.time;
  r.energy_kwh = b.energy_kwh * f.energy;
  r.co2e_kg = b.co2e_kg * f.energy * f.intensity;
  r.net_co2e_kg = b.net_co2e_kg * f.energy * f.intensity;
  if (b.cost_usd) {
    r.cost_usd = b.compute_cost_usd.value_or(0) * f.time + b.energy_cost_usd.value_or(0) * f.energy;
    r.cost_factor = reduction(*b.cost_usd, *r.cost_usd);
  }
  r.energy_factor = reduction(b.energy_kwh, r.energy_kwh);
  r.co2e_factor = reduction(b.co2e_kg, r.co2e_kg);
  return r;
}

WhatIfRow not_applied(Lever lever, const RunCost& b, std::string note) {
  WhatIfRow r = make_row(lever, b, {});
  r.applied = false;
  r.change = "none";
  r.note = std::move(note);
  return r;
}

std::string fmt(double v) { return units::format_significant(v, 3); }

// A Machine candidate: the same accelerator count at the same utilisation on another accelerator.
struct MachineOption {
  const catalog::Accelerator* accelerator = nullptr;
  Factors factors;
  double cost_usd = 0;
  SystemPower power;       // the candidate's
  SystemPower base_power;  // the baseline's, on the same basis
};

// Like with like: both accelerators' measured system power when the catalog has both (Patterson et al. 2021
// Table 3), else both at TDP × utilisation plus the same host overhead; none when a TDP is unknown.
std::optional<MachineOption> machine_option(const catalog::Accelerator& base, const catalog::Accelerator& c,
                                            const RunCost& b, const WhatIfOptions& o) {
  MachineOption m;
  m.accelerator = &c;
  if (base.measured_power_w && c.measured_power_w) {
    m.power = system_power_per_accelerator(c, o.tdp_utilisation, o.host_overhead_w);
    m.base_power = system_power_per_accelerator(base, o.tdp_utilisation, o.host_overhead_w);
  } else {
    if (!(base.tdp_w > 0 && c.tdp_w > 0)) return std::nullopt;
    m.power = tdp_system_power(c, o.tdp_utilisation, o.host_overhead_w);
    m.base_power = tdp_system_power(base, o.tdp_utilisation, o.host_overhead_w);
  }
  m.factors.time = base.peak_16bit_flops / c.peak_16bit_flops;
  // Energy per FLOP at equal utilisation is power / peak.
  m.factors.energy = (m.power.watts / c.peak_16bit_flops) / (m.base_power.watts / base.peak_16bit_flops);
  m.cost_usd = b.compute_cost_usd.value_or(0) * m.factors.time + b.energy_cost_usd.value_or(0) * m.factors.energy;
  return m;
}

bool worse(const MachineOption& m, const RunCost& b) {
  constexpr double kSlack = 1e-12;
  return !(m.factors.energy < 1 - kSlack) || (b.cost_usd && m.cost_usd > *b.cost_usd * (1 + kSlack));
}

std::string perf_per_watt(const catalog::Accelerator& a, const SystemPower& p) {
  return fmt(a.peak_16bit_flops / 1e12 / p.watts) + " peak TFLOP/s per W (" + p.basis + ")";
}

}  // namespace

void WhatIfOptions::validate() const {
  if (!(model_factor >= 1) || !std::isfinite(model_factor))
    throw FieldError("whatif_model_factor", "must be at least 1 (a lever never adds compute), got " + fmt(model_factor));
  if (!(mechanization_pue >= 1)) throw FieldError("mechanization_pue", "must be at least 1");
  if (!(tdp_utilisation > 0 && tdp_utilisation <= 1)) throw FieldError("tdp_utilisation", "must be in (0, 1]");
  if (!(host_overhead_w >= 0)) throw FieldError("host_overhead_w", "must not be negative");
}

std::vector<WhatIfRow> four_ms(const RunCostInputs& in, const RunCost& b, const WhatIfOptions& o) {
  o.validate();
  std::vector<WhatIfRow> rows;
  Factors all;

  WhatIfRow base = make_row(Lever::kBaseline, b, {});
  base.change = "none";
  base.note = std::to_string(in.gpus) + " x " + o.accelerator.name + ", PUE " + fmt(in.pue) + ", " +
              fmt(in.intensity_kg_per_kwh * 1e3) + " g/kWh";
  rows.push_back(base);

  // Model: the same quality from less compute (sparse/MoE or efficient architectures).
  if (o.model_factor > 1) {
    const Factors f{1 / o.model_factor, 1 / o.model_factor, 1};
    WhatIfRow r = make_row(Lever::kModel, b, f);
    r.change = "compute / " + fmt(o.model_factor);
    r.note = "a sparse (MoE) or efficient model of equal quality needs " + fmt(o.model_factor) + "x less compute";
    rows.push_back(r);
    all.time *= f.time;
    all.energy *= f.energy;
  } else {
    rows.push_back(not_applied(Lever::kModel, b, "model factor 1: no compute saved"));
  }

  // Machine: the accelerator with the best performance per watt that lowers energy without raising money.
  {
    const SystemPower base_power = system_power_per_accelerator(o.accelerator, o.tdp_utilisation, o.host_overhead_w);
    std::optional<MachineOption> best;
    std::optional<MachineOption> rejected;  // the pinned one, when it would not help
    for (const auto& c : o.machines) {
      if (c.name == o.accelerator.name) continue;
      const std::optional<MachineOption> option = machine_option(o.accelerator, c, b, o);
      if (!option) continue;
      const MachineOption& m = *option;
      if (worse(m, b)) {
        if (o.machine_pinned) rejected = m;
        continue;
      }
      if (!best || m.factors.energy < best->factors.energy) best = m;
    }
    if (best) {
      WhatIfRow r = make_row(Lever::kMachine, b, best->factors);
      r.change = o.accelerator.name + " -> " + best->accelerator->name;
      r.note = perf_per_watt(*best->accelerator, best->power) + " against " +
               perf_per_watt(o.accelerator, best->base_power) +
               "; same count and utilisation" + (b.compute_cost_usd ? ", same price per accelerator-hour" : "");
      rows.push_back(r);
      all.time *= best->factors.time;
      all.energy *= best->factors.energy;
    } else if (rejected) {
      const bool more_energy = !(rejected->factors.energy < 1);
      rows.push_back(not_applied(Lever::kMachine, b,
                                 rejected->accelerator->name + " would " +
                                     (more_energy ? "need " + fmt(rejected->factors.energy) + "x the energy"
                                                  : "cost more (" + units::format_money(rejected->cost_usd) +
                                                        " at the same price per accelerator-hour)") +
                                     ": " + perf_per_watt(*rejected->accelerator, rejected->power) + " against " +
                                     perf_per_watt(o.accelerator, rejected->base_power) + "; kept the baseline"));
    } else if (o.machine_pinned && !o.machines.empty()) {
      rows.push_back(not_applied(Lever::kMachine, b, "the accelerator asked for is the baseline's"));
    } else {
      rows.push_back(not_applied(Lever::kMachine, b,
                                 "no accelerator in the catalog has better performance per watt than " +
                                     perf_per_watt(o.accelerator, base_power) +
                                     (b.compute_cost_usd ? " without raising the cost" : "")));
    }
  }

  // Mechanization: an efficient datacenter's PUE.
  if (o.mechanization_pue < in.pue) {
    const Factors f{1, o.mechanization_pue / in.pue, 1};
    WhatIfRow r = make_row(Lever::kMechanization, b, f);
    r.change = "PUE " + fmt(in.pue) + " -> " + fmt(o.mechanization_pue);
    r.note = "a hyperscale datacenter instead of this one";
    rows.push_back(r);
    all.energy *= f.energy;
  } else {
    rows.push_back(not_applied(Lever::kMechanization, b,
                               "baseline PUE " + fmt(in.pue) + " is already at or below " + fmt(o.mechanization_pue)));
  }

  // Map: the cleanest grid among the candidates.
  {
    const catalog::Grid* cleanest = nullptr;
    for (const auto& g : o.regions)
      if (!cleanest || g.intensity_kg_per_kwh < cleanest->intensity_kg_per_kwh) cleanest = &g;
    if (cleanest && cleanest->intensity_kg_per_kwh < in.intensity_kg_per_kwh) {
      const Factors f{1, 1, cleanest->intensity_kg_per_kwh / in.intensity_kg_per_kwh};
      WhatIfRow r = make_row(Lever::kMap, b, f);
      r.change = fmt(in.intensity_kg_per_kwh * 1e3) + " -> " + fmt(cleanest->intensity_kg_per_kwh * 1e3) + " g/kWh (" +
                 cleanest->name + ")";
      r.note = "the cleanest of " + std::to_string(o.regions.size()) + " candidate regions: " +
               cleanest->display_name + " (" + std::to_string(cleanest->year) + ")";
      rows.push_back(r);
      all.intensity *= f.intensity;
    } else {
      rows.push_back(not_applied(
          Lever::kMap, b,
          cleanest ? (o.regions.size() == 1
                          ? cleanest->name + " is not cleaner than the baseline's " +
                                fmt(in.intensity_kg_per_kwh * 1e3) + " g/kWh"
                          : "none of the " + std::to_string(o.regions.size()) +
                                " candidate regions is cleaner than the baseline's " +
                                fmt(in.intensity_kg_per_kwh * 1e3) + " g/kWh (another is named with --whatif-grid)")
                   : "no grid regions to compare"));
    }
  }

  for (std::size_t i = 1; i < rows.size(); ++i)
    if (o.published_ranges[i - 1][1] > 0) rows[i].published_range = o.published_ranges[i - 1];
  WhatIfRow combined = make_row(Lever::kAll, b, all);
  if (o.published_ranges[4][1] > 0) combined.published_range = o.published_ranges[4];
  combined.change = "every lever above that applies";
  combined.applied = all.time != 1 || all.energy != 1 || all.intensity != 1;
  combined.note = "the factors multiply";
  rows.push_back(combined);
  return rows;
}

}  // namespace isoflop::cost
