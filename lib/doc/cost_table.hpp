// The human pages of a run cost: the `cost` command's page, and the sections `plan` shows too (the run cost's
// key figures, the energy methods and the 4Ms table).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cost/cost_report.hpp"
#include "doc/cost_document.hpp"

namespace isoflop::doc {

// Time, GPU-hours, power, energy, CO2e (and embodied), money as key-value rows (report::render_key_values).
std::vector<std::pair<std::string, std::string>> cost_key_values(const cost::CostReport& report);

// "Energy by method (PUE 1.1)" and the table of the three methods with their assumptions.
std::string energy_methods_section(const cost::CostReport& report);
std::string energy_methods_table(const cost::CostReport& report);

// "4Ms what-if (Patterson et al. 2022)" and the table of levers, with the notes under it.
std::string whatif_section(const cost::CostReport& report);
std::string whatif_table(const cost::CostReport& report);

// The page of `isoflop cost`; the what-if table only with `show_whatif`.
std::string render_cost_page(const CostDocument& document, bool show_whatif);

}  // namespace isoflop::doc
