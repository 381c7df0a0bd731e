// What the fit and validation figures share, after Hoffmann et al. 2022 Fig. 3: a panel of loss against
// parameters N coloured by compute budget, and each budget's fitted Approach 2 parabola.
#pragma once

#include <string>

#include "fit/approach2.hpp"
#include "report/svg_plot.hpp"

namespace isoflop::doc {

// An empty panel: parameters N on a log axis across, loss (`loss_label`, on `loss_scale`) up, and a colour bar of
// compute budgets (`budget_label`) on a log scale.
report::PlotSpec isoflop_panel_axes(const std::string& title, const std::string& loss_label,
                                    report::AxisScale loss_scale, const std::string& budget_label);

// Budget `b`'s fitted parabola, coloured by its budget, at 61 log-spaced sizes over [lo, hi].
report::Series budget_parabola(const fit::BudgetFit& b, double lo, double hi);

}  // namespace isoflop::doc
