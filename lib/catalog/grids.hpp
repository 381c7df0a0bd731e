// Grid carbon intensities and PUE presets from grids.yaml.
#pragma once

#include <string>

#include "catalog/field_reader.hpp"

namespace isoflop::catalog {

struct Grid {
  std::string name;                 // "us", "world", "gcp-europe-north1"
  std::string display_name;
  std::string kind;                 // "world" | "country" | "region" | "cloud"
  double intensity_kg_per_kwh = 0;  // gross operational carbon intensity
  int year = 0;
  bool map_candidate = false;       // among the regions the 4Ms Map lever chooses from by default
  std::string source;
  std::string file;
};

struct PuePreset {
  std::string name;   // "hyperscaler", "industry-average"
  std::string display_name;
  double pue = 0;     // ≥ 1
  std::string source;
  std::string file;
};

Grid parse_grid(FieldReader& reader);
PuePreset parse_pue_preset(FieldReader& reader);

}  // namespace isoflop::catalog
