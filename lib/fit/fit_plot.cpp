// Building the fit figure from runs and fits (Hoffmann et al. 2022, Figs. 2–3 in spirit).
#include "fit/fit_plot.hpp"

#include <algorithm>
#include <cmath>

#include "units/format.hpp"

namespace isoflop::fit {
namespace {

using report::AxisScale;
using report::TickFormat;

double law_loss(const Approach3Result& f, double n, double d) {
  return f.E + f.A / std::pow(n, f.alpha) + f.B / std::pow(d, f.beta);
}

}  // namespace

std::vector<report::PlotSpec> fit_plot_panels(const std::vector<Run>& runs, const Approach3Result* a3,
                                              const Approach2Result* a2, const Approach1Result* a1,
                                              double budget_tolerance) {
  double cmin = INFINITY, cmax = 0;
  for (const auto& r : runs) cmin = std::min(cmin, r.flops), cmax = std::max(cmax, r.flops);
  if (cmax <= cmin) cmin /= 2, cmax *= 2;

  // ---- panel 1: loss against compute, runs coloured by size, the frontier ------------------
  report::PlotSpec p;
  p.title = "Runs and the compute-optimal frontier";
  p.x = {"compute C (FLOPs)", AxisScale::kLog, TickFormat::kScientific, std::nullopt, std::nullopt};
  p.y = {"final loss (nats/token)", AxisScale::kLog, TickFormat::kAuto, std::nullopt, std::nullopt};
  p.color_scale = report::ColorScale{"parameters N", AxisScale::kLog, TickFormat::kCount, std::nullopt, std::nullopt};
  report::Series points;
  points.name = "runs";
  points.style = report::SeriesStyle::kPoints;
  for (const auto& r : runs) {
    points.x.push_back(r.flops);
    points.y.push_back(r.loss);
    points.point_color_values.push_back(r.params);
  }
  p.series.push_back(points);
  if (a3) {
    report::Series frontier;
    frontier.name = "Approach 3 frontier (a = " + units::format_significant(a3->a, 3) + ")";
    frontier.color = "#d62728";
    for (int k = 0; k <= 120; ++k) {
      const double c = cmin * std::pow(cmax / cmin, k / 120.0);
      const double n = a3->G * std::pow(c / 6, a3->a), d = c / (6 * n);
      frontier.x.push_back(c);
      frontier.y.push_back(law_loss(*a3, n, d));
    }
    p.series.push_back(frontier);
  }
  if (a1) {
    report::Series envelope;
    envelope.name = "Approach 1 envelope";
    envelope.color = "#333333";
    envelope.dashed = true;
    const size_t stride = std::max<size_t>(1, a1->envelope.size() / 300);
    for (size_t i = 0; i < a1->envelope.size(); i += stride) {
      envelope.x.push_back(a1->envelope[i].flops);
      envelope.y.push_back(a1->envelope[i].loss);
    }
    p.series.push_back(envelope);
  }

  // ---- panel 2: IsoFLOP profiles -----------------------------------------------------------
  report::PlotSpec q;
  q.title = "IsoFLOP profiles";
  q.x = {"parameters N", AxisScale::kLog, TickFormat::kCount, std::nullopt, std::nullopt};
  q.y = {"final loss (nats/token)", AxisScale::kLog, TickFormat::kAuto, std::nullopt, std::nullopt};
  q.color_scale = report::ColorScale{"compute C (FLOPs)", AxisScale::kLog, TickFormat::kScientific, std::nullopt,
                                     std::nullopt};
  report::Series profile_points;
  profile_points.style = report::SeriesStyle::kPoints;
  profile_points.name = "runs";
  for (const auto& r : runs) {
    profile_points.x.push_back(r.params);
    profile_points.y.push_back(r.loss);
    profile_points.point_color_values.push_back(r.flops);
  }
  q.series.push_back(profile_points);
  std::vector<std::pair<double, std::pair<double, double>>> budgets;  // C, (N range)
  if (a2) {
    for (const auto& b : a2->budgets) budgets.push_back({b.flops, {b.min_params, b.max_params}});
  } else {
    for (const auto& g : group_budgets(runs, budget_tolerance)) {
      if (g.size() < 3) continue;
      double lc = 0, lo = INFINITY, hi = 0;
      for (const auto& r : g) lc += std::log(r.flops), lo = std::min(lo, r.params), hi = std::max(hi, r.params);
      budgets.push_back({std::exp(lc / static_cast<double>(g.size())), {lo, hi}});
    }
  }
  bool first_law = true, first_parabola = true;
  for (size_t i = 0; i < budgets.size() && a3; ++i) {
    const double c = budgets[i].first, lo = budgets[i].second.first / 1.5, hi = budgets[i].second.second * 1.5;
    report::Series curve;
    curve.color_value = c;
    if (first_law) curve.name = "Approach 3 law";
    for (int k = 0; k <= 80; ++k) {
      const double n = lo * std::pow(hi / lo, k / 80.0);
      curve.x.push_back(n);
      curve.y.push_back(law_loss(*a3, n, c / (6 * n)));
    }
    q.series.push_back(curve);
    first_law = false;
    const double n_opt = a3->G * std::pow(c / 6, a3->a);
    q.marked.push_back({n_opt, law_loss(*a3, n_opt, c / (6 * n_opt)), "", "#d62728", report::MarkerShape::kStar, 5,
                        false});
  }
  if (a2) {
    for (const auto& b : a2->budgets) {
      report::Series parabola;
      parabola.color_value = b.flops;
      parabola.dashed = true;
      parabola.line_width_px = 1.2;
      if (first_parabola) parabola.name = "Approach 2 parabolas";
      first_parabola = false;
      for (int k = 0; k <= 60; ++k) {
        const double n = b.min_params * std::pow(b.max_params / b.min_params, k / 60.0);
        parabola.x.push_back(n);
        parabola.y.push_back(b.loss_at(n));
      }
      q.series.push_back(parabola);
      q.marked.push_back({b.params_opt, b.loss_opt, "", "#ffffff", report::MarkerShape::kDiamond, 4, false});
    }
  }
  if (a3) {
    // One legend entry for the optima.
    for (auto& m : q.marked)
      if (m.shape == report::MarkerShape::kStar) {
        m.label = "Approach 3 optimum";
        m.in_legend = true;
        m.label_on_plot = false;
        break;
      }
  }
  return {p, q};
}

}  // namespace isoflop::fit
