// Parsing cost.yaml entries.
#include "catalog/cost_constants.hpp"

#include "catalog/entry_fields.hpp"
#include "units/si.hpp"

namespace isoflop::catalog {
RunCostConstants parse_run_cost_constants(FieldReader& r) {
  RunCostConstants c;
  c.name = r.string("name");
  {
    FieldReader t(r.child("tdp_method"), r.file(), "tdp_method of run_cost '" + c.name + "'");
    c.tdp_utilisation = t.fraction("tdp_utilisation");
    c.host_overhead_w = t.power_w("host_overhead");
    if (c.host_overhead_w < 0) t.fail("host_overhead", "must not be negative");
    c.tdp_source = t.string("source");
    t.finish();
  }
  {
    FieldReader e(r.child("embodied"), r.file(), "embodied of run_cost '" + c.name + "'");
    c.lifetime_s = e.positive("lifetime_years") * units::kSecondsPerYear;
    c.memory_kg_per_gb = e.non_negative_or("memory_kg_per_gb", 0);
    c.embodied_source = e.string("source");
    e.finish();
  }
  {
    FieldReader w(r.child("whatif"), r.file(), "whatif of run_cost '" + c.name + "'");
    c.model_factor = w.positive("model_factor");
    if (c.model_factor < 1) w.fail("model_factor", "must be at least 1 (a lever never adds compute)");
    c.model_source = w.string("model_source");
    c.mechanization_pue = w.positive("mechanization_pue");
    if (c.mechanization_pue < 1) w.fail("mechanization_pue", "must be at least 1 (facility energy over IT energy)");
    c.mechanization_source = w.string("mechanization_source");
    FieldReader ranges(w.child("published_ranges"), r.file(), "published_ranges of run_cost '" + c.name + "'");
    const char* levers[] = {"model", "machine", "mechanization", "map", "all"};
    for (std::size_t i = 0; i < c.published_ranges.size(); ++i) c.published_ranges[i] = ranges.range(levers[i], 1);
    ranges.finish();
    c.ranges_source = w.string("ranges_source");
    w.finish();
  }
  c.default_pue = r.string("default_pue");
  c.default_pue_source = r.string("default_pue_source");
  {
    FieldReader p(r.child("plan"), r.file(), "plan of run_cost '" + c.name + "'");
    c.batch_coefficient = p.positive("batch_coefficient");
    c.batch_exponent = p.positive("batch_exponent");
    c.batch_source = p.string("batch_source");
    c.min_mfu = p.fraction("min_mfu");
    c.min_mfu_source = p.string("min_mfu_source");
    p.finish();
  }
  if (const auto node = r.optional_child("plausible")) {
    FieldReader p(*node, r.file(), "plausible of run_cost '" + c.name + "'");
    c.max_pue = p.positive("max_pue");
    if (c.max_pue < 1) p.fail("max_pue", "must be at least 1 (facility energy over IT energy)");
    const std::string pue_source = p.string("max_pue_source");
    c.max_grid_kg_per_kwh = p.intensity_kg_per_kwh("max_grid_intensity");
    if (!(c.max_grid_kg_per_kwh > 0)) p.fail("max_grid_intensity", "must be positive");
    const std::string grid_source = p.string("max_grid_intensity_source");
    c.power_tdp_ratio = p.range("accelerator_power_tdp", 0);
    if (!(c.power_tdp_ratio[0] > 0)) p.fail("accelerator_power_tdp", "must be [low, high] with low above 0");
    const std::string power_source = p.string("accelerator_power_source");
    c.plausible_source = pue_source + "; " + grid_source + "; " + power_source;
    // Optional within `plausible`: each with its source when given.
    const auto optional_bound = [&](const char* key, const char* source_key, double* value) {
      if (!p.has(key)) return;
      *value = p.positive(key);
      c.plausible_source += "; " + p.string(source_key);
    };
    optional_bound("min_utilisation", "min_utilisation_source", &c.min_utilisation);
    if (c.min_utilisation >= 1) p.fail("min_utilisation", "must be a fraction below 1 of the 16-bit peak");
    optional_bound("max_price_per_gpu_hour_usd", "max_price_per_gpu_hour_source", &c.max_price_per_gpu_hour_usd);
    optional_bound("max_price_per_kwh_usd", "max_price_per_kwh_source", &c.max_price_per_kwh_usd);
    p.finish();
  }
  c.file = r.where("name");
  return c;
}

EmbodiedCarbon parse_embodied_carbon(FieldReader& r) {
  EmbodiedCarbon e;
  e.name = r.string("name");
  e.die_area_cm2 = r.positive("die_area_cm2");
  e.kg_per_cm2 = r.positive("kg_per_cm2");
  read_source(r, e);
  return e;
}

}  // namespace isoflop::catalog
