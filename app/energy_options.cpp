// --pue and --grid resolution.
#include "app/energy_options.hpp"

#include <cctype>

#include "core/error.hpp"
#include "units/quantity.hpp"

namespace isoflop::app {

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

}  // namespace isoflop::app
