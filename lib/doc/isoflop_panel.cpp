// The IsoFLOP panel parts shared by the fit and validation figures.
#include "doc/isoflop_panel.hpp"

#include <cmath>
#include <optional>

namespace isoflop::doc {

using report::AxisScale;
using report::TickFormat;

report::PlotSpec isoflop_panel_axes(const std::string& title, const std::string& loss_label, AxisScale loss_scale,
                                    const std::string& budget_label) {
  report::PlotSpec p;
  p.title = title;
  p.x = {"parameters N", AxisScale::kLog, TickFormat::kCount, std::nullopt, std::nullopt};
  p.y = {loss_label, loss_scale, TickFormat::kAuto, std::nullopt, std::nullopt};
  p.color_scale =
      report::ColorScale{budget_label, AxisScale::kLog, TickFormat::kScientific, std::nullopt, std::nullopt};
  return p;
}

report::Series budget_parabola(const fit::BudgetFit& b, double lo, double hi) {
  report::Series parabola;
  parabola.color_value = b.flops;
  for (int k = 0; k <= 60; ++k) {
    const double n = lo * std::pow(hi / lo, k / 60.0);
    parabola.x.push_back(n);
    parabola.y.push_back(b.loss_at(n));
  }
  return parabola;
}

}  // namespace isoflop::doc
