// Parsing grids.yaml entries.
#include "catalog/grids.hpp"

#include "catalog/entry_fields.hpp"

namespace isoflop::catalog {

Grid parse_grid(FieldReader& r) {
  Grid g;
  read_names(r, g);
  g.kind = r.string_or("kind", "region");
  if (g.kind != "world" && g.kind != "country" && g.kind != "region" && g.kind != "cloud")
    r.fail("kind", "'" + g.kind + "' is not one of world|country|region|cloud");
  g.intensity_kg_per_kwh = r.intensity_kg_per_kwh("intensity");
  g.year = r.int_in("year", 1800, 2500);
  g.map_candidate = r.boolean_or("map_candidate", false);
  read_source(r, g);
  return g;
}

PuePreset parse_pue_preset(FieldReader& r) {
  PuePreset p;
  read_names(r, p);
  p.pue = r.positive("pue");
  if (p.pue < 1) r.fail("pue", "must be at least 1 (facility energy over IT energy)");
  read_source(r, p);
  return p;
}

}  // namespace isoflop::catalog
