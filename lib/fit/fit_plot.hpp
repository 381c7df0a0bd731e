// The `isoflop fit --plot` figure: runs and fitted laws as two panels (loss vs compute with the
// compute-optimal frontier; IsoFLOP profiles loss vs parameters with Approach 2's parabolas).
#pragma once

#include <vector>

#include "fit/approach1.hpp"
#include "fit/approach2.hpp"
#include "fit/approach3.hpp"
#include "report/svg_plot.hpp"

namespace isoflop::fit {

// Panels for report::render_svg_grid(panels, 2). Any of the fits may be null; budgets for the IsoFLOP
// panel come from `a2` when given, else from grouping the runs with `budget_tolerance`.
std::vector<report::PlotSpec> fit_plot_panels(const std::vector<Run>& runs, const Approach3Result* a3,
                                              const Approach2Result* a2, const Approach1Result* a1,
                                              double budget_tolerance);

}  // namespace isoflop::fit
