// Parsing grids.yaml entries.
#include "catalog/grids.hpp"

namespace isoflop::catalog {

Grid parse_grid(FieldReader& r) {
  Grid g;
  g.name = r.string("name");
  g.display_name = r.string_or("display_name", g.name);
  g.kind = r.string_or("kind", "region");
  if (g.kind != "world" && g.kind != "country" && g.kind != "region" && g.kind != "cloud")
    r.fail("kind", "'" + g.kind + "' is not one of world|country|region|cloud");
  g.intensity_kg_per_kwh = r.intensity_kg_per_kwh("intensity");
  g.year = r.int_in("year", 1800, 2500);
  g.map_candidate = r.boolean_or("map_candidate", false);
  g.source = r.string("source");
  g.file = r.where("name");
  return g;
}

PuePreset parse_pue_preset(FieldReader& r) {
  PuePreset p;
  p.name = r.string("name");
  p.display_name = r.string_or("display_name", p.name);
  p.pue = r.positive("pue");
  if (p.pue < 1) r.fail("pue", "must be at least 1 (facility energy over IT energy)");
  p.source = r.string("source");
  p.file = r.where("name");
  return p;
}

}  // namespace isoflop::catalog
