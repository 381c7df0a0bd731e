// The validation figure, after Hoffmann et al. 2022 Fig. 3: IsoFLOP curves (loss against N at each budget)
// with their fitted parabolas and minima, and N_opt(C) from the minima, extrapolated to the plan's budget.
#include <algorithm>
#include <cmath>

#include "doc/isoflop_panel.hpp"
#include "report/svg_plot.hpp"
#include "units/format.hpp"
#include "validate/report_document.hpp"

namespace isoflop::doc {
namespace {

using report::AxisScale;
using report::TickFormat;

report::PlotSpec isoflop_panel(const ValidationDocument& d) {
  report::PlotSpec p =
      isoflop_panel_axes("IsoFLOP curves", "validation loss (nats/token)", AxisScale::kLinear, "budget C (FLOPs)");
  report::Series runs;
  runs.name = "runs";
  runs.style = report::SeriesStyle::kPoints;
  for (const auto& r : d.runs) {
    if (!r.finished) continue;
    runs.x.push_back(r.params);
    runs.y.push_back(r.loss);
    runs.point_color_values.push_back(r.budget_flops);
  }
  p.series.push_back(runs);
  if (const auto& a2 = d.report.approach2) {
    bool first = true;
    for (const auto& b : a2->budgets) {
      // A minimum outside the sizes tried is the parabola extrapolated: drawn over the sizes only, and not marked.
      const bool inside = !b.extrapolated;
      const double lo = (inside ? std::min(b.min_params, b.params_opt) : b.min_params) / 1.2;
      const double hi = (inside ? std::max(b.max_params, b.params_opt) : b.max_params) * 1.2;
      report::Series parabola = budget_parabola(b, lo, hi);
      if (first) parabola.name = "fitted parabolas";
      first = false;
      p.series.push_back(parabola);
      if (inside)
        p.marked.push_back({b.params_opt, b.loss_opt, "minima", "#000000", report::MarkerShape::kDiamond, 5,
                            p.marked.empty(), false});
      else
        p.notes.push_back("budget " + units::format_scientific(b.flops) + ": minimum " + validate::outside_side(b) +
                          ", left out of a");
    }
  }
  if (d.report.floor) {
    report::Series floor;
    floor.name = "exact floor of the source";
    floor.color = "#7f7f7f";
    floor.dashed = true;
    double lo = INFINITY, hi = 0;
    for (double n : runs.x) lo = std::min(lo, n), hi = std::max(hi, n);
    if (hi > 0) {
      floor.x = {lo, hi};
      floor.y = {*d.report.floor, *d.report.floor};
      p.series.push_back(floor);
    }
  }
  if (d.report.failed > 0)
    p.notes.push_back(std::to_string(d.report.failed) + " failed run(s) not drawn: see the report");
  if (runs.x.empty()) {
    // Nothing finished yet: the axes span the sizes the sweep will train, with nothing on them.
    double lo = INFINITY, hi = 0, c_lo = INFINITY, c_hi = 0;
    for (const auto& r : d.runs) {
      if (r.params > 0) lo = std::min(lo, r.params), hi = std::max(hi, r.params);
      if (r.budget_flops > 0) c_lo = std::min(c_lo, r.budget_flops), c_hi = std::max(c_hi, r.budget_flops);
    }
    p.x.min = hi > 0 ? lo / 1.2 : 1;
    p.x.max = hi > 0 ? hi * 1.2 : 10;
    p.y.min = 0, p.y.max = 1;
    p.color_scale->min = c_hi > 0 ? c_lo / 2 : 1;
    p.color_scale->max = c_hi > 0 ? c_hi * 2 : 10;
    p.notes.push_back("no finished runs yet: nothing to draw");
  }
  return p;
}

report::PlotSpec allocation_panel(const ValidationDocument& d) {
  report::PlotSpec p;
  p.title = "Compute-optimal N, extrapolated";
  p.x = {"compute C (FLOPs)", AxisScale::kLog, TickFormat::kScientific, std::nullopt, std::nullopt};
  p.y = {"parameters N_opt", AxisScale::kLog, TickFormat::kCount, std::nullopt, std::nullopt};
  const auto& a2 = *d.report.approach2;
  const double cmin = a2.budgets.front().flops / 2, cmax = std::max(d.plan.budget_flops, a2.budgets.back().flops) * 2;
  report::Series sweep_law, plan_law;
  sweep_law.name = "sweep: N_opt ∝ C^" + units::format_significant(a2.a, 3);
  sweep_law.color = "#1f77b4";
  plan_law.name = "plan's law " + d.plan.law + ": a = " + units::format_significant(d.plan.a, 3);
  plan_law.color = "#7f7f7f";
  plan_law.dashed = true;
  for (int k = 0; k <= 80; ++k) {
    const double c = cmin * std::pow(cmax / cmin, k / 80.0);
    sweep_law.x.push_back(c);
    sweep_law.y.push_back(a2.k_params * std::pow(c, a2.a));
    plan_law.x.push_back(c);
    plan_law.y.push_back(d.plan.params_opt * std::pow(c / d.plan.budget_flops, d.plan.a));
  }
  report::Series minima;
  minima.name = "budget minima";
  minima.style = report::SeriesStyle::kPoints;
  minima.color = "#000000";
  minima.marker = report::MarkerShape::kDiamond;
  for (const auto& b : a2.budgets)
    if (!b.extrapolated) minima.x.push_back(b.flops), minima.y.push_back(b.params_opt);
  p.series = {sweep_law, plan_law, minima};
  const double extrapolated = a2.k_params * std::pow(d.plan.budget_flops, a2.a);
  p.marked.push_back({d.plan.budget_flops, d.plan.params_opt, "plan's N_opt " + units::format_count(d.plan.params_opt),
                      "#7f7f7f", report::MarkerShape::kStar, 7, true, false});
  p.marked.push_back({d.plan.budget_flops, extrapolated, "sweep at the plan's budget " + units::format_count(extrapolated),
                      "#1f77b4", report::MarkerShape::kStar, 7, true, false});
  return p;
}

}  // namespace

std::string render_validation_figure(const ValidationDocument& d) {
  std::vector<report::PlotSpec> panels = {isoflop_panel(d)};
  if (d.report.approach2) panels.push_back(allocation_panel(d));
  return report::render_svg_grid(panels, static_cast<int>(panels.size()));
}

}  // namespace isoflop::doc
