// Parsing grids.yaml entries.
#include "catalog/grids.hpp"

#include "catalog/entry_fields.hpp"

namespace isoflop::catalog {

Grid parse_grid(FieldReader& r) {
  return read_named_entry<Grid>(r, [&](Grid& g) {
    g.kind = r.string_or("kind", "region");
    if (g.kind != "world" && g.kind != "country" && g.kind != "region" && g.kind != "cloud")
      r.fail("kind", "'" + g.kind + "' is not one of world|country|region|cloud");
    g.intensity_kg_per_kwh = r.intensity_kg_per_kwh("intensity");
    g.year = r.int_in("year", 1800, 2500);
    g.map_candidate = r.boolean_or("map_candidate", false);
  });
}

PuePreset parse_pue_preset(FieldReader& r) {
  return read_named_entry<PuePreset>(r, [&](PuePreset& p) {
    p.pue = r.positive("pue");
    if (p.pue < 1) r.fail("pue", "must be at least 1 (facility energy over IT energy)");
  });
}

}  // namespace isoflop::catalog
