// --pue NAME|VALUE and --grid NAME|VALUE: a catalog preset or region, or a number with its unit.
#pragma once

#include <string>

#include "catalog/catalog.hpp"

namespace isoflop::app {

// A PUE preset's value, or a number ≥ 1.
double pue_value(const catalog::Catalog& catalog, const std::string& text);

// A grid region's intensity, or an intensity with a unit ("429g/kWh"), in kg CO2e per kWh.
double grid_value(const catalog::Catalog& catalog, const std::string& text);

}  // namespace isoflop::app
