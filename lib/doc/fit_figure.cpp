// The `fit --plot` figure from a fit document (Hoffmann et al. 2022, Figs. 2–3 in spirit): loss against
// compute with the frontier, IsoFLOP profiles, and the optimal N and D against compute; the interaction law
// (fit --form interaction or auto) beside Approach 3's, in its own colour.
#include <algorithm>
#include <cmath>

#include "doc/fit_document.hpp"
#include "doc/isoflop_panel.hpp"
#include "report/svg_plot.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {

using fit::Approach1Result;
using fit::Approach2Result;
using fit::Approach3Result;
using fit::Run;

using report::AxisScale;
using report::TickFormat;

double law_loss(const Approach3Result& f, double n, double d) {
  return f.E + f.A / std::pow(n, f.alpha) + f.B / std::pow(d, f.beta);
}

// The interaction law (--form interaction or auto), drawn beside Approach 3's in its own colour.
constexpr const char* kInteractionColor = "#9467bd";
double law_loss(const fit::InteractionResult& f, double n, double d) {
  return std::exp(fit::interaction_log_loss(f.x, n, d));
}
// The shapes drawn for either law (eq. 4's allocation N = G·(C/6)^a, D = C/(6N)), the law's loss through the
// law_loss overloads above.
template <class Law>
double optimal_params(const Law& law, double flops) {
  return law.G * std::pow(flops / 6, law.a);
}
// The compute-optimal frontier: the loss at the optimum for 121 log-spaced budgets from cmin to cmax.
template <class Law>
report::Series frontier_of(const Law& law, double cmin, double cmax) {
  report::Series frontier;
  for (int k = 0; k <= 120; ++k) {
    const double c = cmin * std::pow(cmax / cmin, k / 120.0);
    const double n = optimal_params(law, c);
    frontier.x.push_back(c);
    frontier.y.push_back(law_loss(law, n, c / (6 * n)));
  }
  return frontier;
}
// One budget's IsoFLOP profile of the law from lo to hi parameters (81 log-spaced sizes).
template <class Law>
report::Series profile_of(const Law& law, double flops, double lo, double hi) {
  report::Series curve;
  for (int k = 0; k <= 80; ++k) {
    const double n = lo * std::pow(hi / lo, k / 80.0);
    curve.x.push_back(n);
    curve.y.push_back(law_loss(law, n, flops / (6 * n)));
  }
  return curve;
}
// The law's optimum on that budget, as a star.
template <class Law>
report::MarkedPoint optimum_of(const Law& law, double flops, const std::string& color) {
  const double n = optimal_params(law, flops);
  return {n, law_loss(law, n, flops / (6 * n)), "", color, report::MarkerShape::kStar, 5, false, true};
}

std::string interaction_name(const fit::InteractionResult& f) {
  return "interaction law (gamma = " + units::format_significant(f.gamma, 3) + ", a = " +
         units::format_significant(f.a, 3) + ")";
}

// Loss against compute (runs coloured by size, the frontier) and the IsoFLOP profiles.
std::vector<report::PlotSpec> loss_panels(const std::vector<Run>& runs, const Approach3Result* a3,
                                          const fit::InteractionResult* interaction, const Approach2Result* a2,
                                          const Approach1Result* a1, double budget_tolerance) {
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
    report::Series frontier = frontier_of(*a3, cmin, cmax);
    frontier.name = "Approach 3 frontier (a = " + units::format_significant(a3->a, 3) + ")";
    frontier.color = "#d62728";
    p.series.push_back(frontier);
  }
  if (interaction) {
    report::Series frontier = frontier_of(*interaction, cmin, cmax);
    frontier.name = interaction_name(*interaction) + " frontier";
    frontier.color = kInteractionColor;
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
  report::PlotSpec q =
      isoflop_panel_axes("IsoFLOP profiles", "final loss (nats/token)", AxisScale::kLog, "compute C (FLOPs)");
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
    for (const auto& g : fit::group_budgets(runs, budget_tolerance)) {
      if (g.size() < 3) continue;
      double lc = 0, lo = INFINITY, hi = 0;
      for (const auto& r : g) lc += std::log(r.flops), lo = std::min(lo, r.params), hi = std::max(hi, r.params);
      budgets.push_back({std::exp(lc / static_cast<double>(g.size())), {lo, hi}});
    }
  }
  bool first_law = true, first_parabola = true;
  for (size_t i = 0; i < budgets.size() && a3; ++i) {
    const double c = budgets[i].first, lo = budgets[i].second.first / 1.5, hi = budgets[i].second.second * 1.5;
    report::Series curve = profile_of(*a3, c, lo, hi);
    curve.color_value = c;
    if (first_law) curve.name = "Approach 3 law";
    q.series.push_back(curve);
    first_law = false;
    q.marked.push_back(optimum_of(*a3, c, "#d62728"));
  }
  for (size_t i = 0; i < budgets.size() && interaction; ++i) {
    const double c = budgets[i].first, lo = budgets[i].second.first / 1.5, hi = budgets[i].second.second * 1.5;
    report::Series curve = profile_of(*interaction, c, lo, hi);
    curve.color = kInteractionColor;
    curve.dashed = true;
    curve.line_width_px = 1.2;
    if (i == 0) curve.name = interaction_name(*interaction);
    q.series.push_back(curve);
    report::MarkedPoint optimum = optimum_of(*interaction, c, kInteractionColor);
    optimum.label_on_plot = false;
    if (i == 0) optimum.label = "interaction optimum", optimum.in_legend = true;
    q.marked.push_back(optimum);
  }
  if (a2) {
    for (const auto& b : a2->budgets) {
      report::Series parabola = budget_parabola(b, b.min_params, b.max_params);
      parabola.dashed = true;
      parabola.line_width_px = 1.2;
      if (first_parabola) parabola.name = "Approach 2 parabolas";
      first_parabola = false;
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

report::Series power_law(const std::string& name, double k, double exponent, double cmin, double cmax,
                         const std::string& color, bool dashed) {
  report::Series s;
  s.name = name;
  s.color = color;
  s.dashed = dashed;
  for (int i = 0; i <= 60; ++i) {
    const double c = cmin * std::pow(cmax / cmin, i / 60.0);
    s.x.push_back(c);
    s.y.push_back(k * std::pow(c, exponent));
  }
  return s;
}

// Optimal parameters N and tokens D against compute, from every approach fitted.
report::PlotSpec allocation_panel(const FitDocument& d, double cmin, double cmax) {
  report::PlotSpec p;
  p.title = "Compute-optimal N and D";
  p.x = {"compute C (FLOPs)", AxisScale::kLog, TickFormat::kScientific, std::nullopt, std::nullopt};
  p.y = {"parameters N (solid), tokens D (dashed)", AxisScale::kLog, TickFormat::kCount, std::nullopt, std::nullopt};
  if (d.approach3) {
    const auto& a = *d.approach3;
    // N_opt = G·(C/6)^a = G·6^-a·C^a; D_opt = (C/6)^b / G.
    p.series.push_back(power_law("Approach 3 N", a.G * std::pow(6.0, -a.a), a.a, cmin, cmax, "#d62728", false));
    p.series.push_back(power_law("Approach 3 D", std::pow(6.0, -a.b) / a.G, a.b, cmin, cmax, "#d62728", true));
  }
  if (d.interaction) {
    const auto& a = *d.interaction;
    p.series.push_back(power_law("interaction N", a.G * std::pow(6.0, -a.a), a.a, cmin, cmax, kInteractionColor, false));
    p.series.push_back(power_law("interaction D", std::pow(6.0, -a.b) / a.G, a.b, cmin, cmax, kInteractionColor, true));
  }
  if (d.approach2) {
    const auto& a = *d.approach2;
    p.series.push_back(power_law("Approach 2 N", a.k_params, a.a, cmin, cmax, "#1f77b4", false));
    p.series.push_back(power_law("Approach 2 D", a.k_tokens, a.b, cmin, cmax, "#1f77b4", true));
    report::Series optima;
    optima.name = "Approach 2 budget optima";
    optima.style = report::SeriesStyle::kPoints;
    optima.color = "#1f77b4";
    optima.marker = report::MarkerShape::kDiamond;
    for (const auto& b : a.budgets) {
      optima.x.insert(optima.x.end(), {b.flops, b.flops});
      optima.y.insert(optima.y.end(), {b.params_opt, b.tokens_opt});
    }
    p.series.push_back(optima);
  }
  if (d.approach1) {
    const auto& a = *d.approach1;
    p.series.push_back(power_law("Approach 1 N", a.k_params, a.a, cmin, cmax, "#333333", false));
    p.series.push_back(power_law("Approach 1 D", a.k_tokens, a.b, cmin, cmax, "#333333", true));
  }
  if (p.series.empty()) {  // no law fitted: the runs themselves
    report::Series runs;
    runs.name = "runs (N)";
    runs.style = report::SeriesStyle::kPoints;
    for (const auto& r : d.runs.points) runs.x.push_back(r.flops), runs.y.push_back(r.params);
    p.series.push_back(runs);
  }
  return p;
}

}  // namespace

std::string render_fit_figure(const FitDocument& d) {
  const auto& runs = d.runs.points;
  double cmin = INFINITY, cmax = 0;
  for (const auto& r : runs) cmin = std::min(cmin, r.flops), cmax = std::max(cmax, r.flops);
  if (cmax <= cmin) cmin /= 2, cmax *= 2;
  auto panels = loss_panels(runs, d.approach3 ? &*d.approach3 : nullptr, d.interaction ? &*d.interaction : nullptr,
                            d.approach2 ? &*d.approach2 : nullptr, d.approach1 ? &*d.approach1 : nullptr,
                            d.inputs.budget_tolerance);
  panels.push_back(allocation_panel(d, cmin, cmax));
  return report::render_svg_grid(panels, 3);
}

}  // namespace isoflop::doc
