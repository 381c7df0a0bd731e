// Rendering PlotSpec as SVG: frame, grid, ticks, series clipped to the plot area, marked points, legend
// and colour bar. Layout is computed from text-length estimates, so no font metrics are needed.
#include "report/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "report/svg_marks.hpp"

namespace isoflop::report {
namespace {

using namespace svg;  // NOLINT: the primitives are this file's vocabulary

struct Range {
  double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  void add(double v) {
    min = std::min(min, v);
    max = std::max(max, v);
  }
  bool empty() const { return !(min <= max); }
};

// The axis range: explicit bounds, else the data padded by 4 % of the span (in log space for log axes).
std::pair<double, double> resolve_range(const std::optional<double>& lo, const std::optional<double>& hi, Range data,
                                        bool log, const std::string& what) {
  if (lo && hi && !(*lo < *hi)) throw InputError(what + ": range minimum must be below the maximum");
  if (log && ((lo && !(*lo > 0)) || (hi && !(*hi > 0)))) throw InputError(what + ": a log axis needs a positive range");
  if (data.empty()) {
    if (lo && hi) return {*lo, *hi};
    throw InputError(what + (log ? ": no positive data for a log axis" : ": no finite data to plot"));
  }
  auto fwd = [&](double v) { return log ? std::log10(v) : v; };
  auto back = [&](double v) { return log ? std::pow(10.0, v) : v; };
  double a = fwd(data.min), b = fwd(data.max);
  if (a == b) {
    const double pad = log ? 0.3 : (a == 0 ? 1 : std::fabs(a) * 0.1);
    a -= pad, b += pad;
  } else {
    const double pad = (b - a) * 0.04;
    a -= pad, b += pad;
  }
  double min = lo ? *lo : back(a), max = hi ? *hi : back(b);
  if (!(min < max)) throw InputError(what + ": the data lie outside the given range");
  return {min, max};
}

// Resolved colour of a series (a fixed colour, the colour scale at its value, or the palette).
std::string series_color(const Series& s, size_t index, const std::optional<ColorScale>& cs, const Scaler& color) {
  if (!s.color.empty()) return s.color;
  if (s.color_value && cs && color.usable(*s.color_value)) return viridis(color.t(*s.color_value));
  return palette_color(index);
}

// Where a marked point's label goes: of the four corners around the point, the one inside the plot whose
// text box crosses the fewest drawn curve samples (so no label sits on a curve when a free side exists).
struct Placed {
  double x, y;
  const char* anchor;
};
Placed place_label(const MarkedPoint& m, double x, double y, const Area& L, const std::vector<Series>& series,
                   const Scaler& X, const Scaler& Y) {
  const double w = text_width(m.label, kTickFont), gap = m.size_px + 3;
  Placed best{x + gap, y - gap, "start"};
  double best_cost = std::numeric_limits<double>::infinity();
  for (int corner = 0; corner < 4; ++corner) {
    const bool left = corner & 1, below = corner & 2;
    const double x0 = left ? x - gap - w : x + gap, base = below ? y + gap + kTickFont : y - gap;
    const double top = base - kTickFont, x1 = x0 + w;
    double cost = (x0 < L.left || x1 > L.left + L.width || top < L.top || base > L.top + L.height) ? 1e6 : 0;
    for (const auto& s : series) {
      if (s.x.size() < 1) continue;
      for (size_t i = 0; i < s.x.size(); ++i) {
        if (!X.usable(s.x[i]) || !Y.usable(s.y[i])) continue;
        const double ax = X.map(s.x[i]), ay = Y.map(s.y[i]);
        const bool next = s.style != SeriesStyle::kPoints && i + 1 < s.x.size() && X.usable(s.x[i + 1]) &&
                          Y.usable(s.y[i + 1]);
        const int steps = next ? 8 : 1;  // sample each segment so a long straight stretch still counts
        for (int k = 0; k < steps; ++k) {
          const double t = static_cast<double>(k) / steps;
          const double px_ = next ? ax + t * (X.map(s.x[i + 1]) - ax) : ax;
          const double py_ = next ? ay + t * (Y.map(s.y[i + 1]) - ay) : ay;
          cost += px_ >= x0 - 2 && px_ <= x1 + 2 && py_ >= top - 2 && py_ <= base + 3;
        }
      }
    }
    cost += corner * 0.01;  // ties: above right, above left, below right, below left
    if (cost < best_cost) best_cost = cost, best = {left ? x - gap : x + gap, base, left ? "end" : "start"};
  }
  return best;
}

std::string render_body(const PlotSpec& spec, const std::string& id) {
  // ---- ranges ------------------------------------------------------------------------------
  const bool xlog = spec.x.scale == AxisScale::kLog, ylog = spec.y.scale == AxisScale::kLog;
  Range xr, yr, cr;
  bool any_color_values = false;
  for (const auto& s : spec.series) {
    if (s.x.size() != s.y.size())
      throw InputError("plot series '" + s.name + "': " + std::to_string(s.x.size()) + " x values but " +
                       std::to_string(s.y.size()) + " y values");
    if (!s.point_color_values.empty() && s.point_color_values.size() != s.x.size())
      throw InputError("plot series '" + s.name + "': point_color_values must have one value per point");
    if (!(s.opacity > 0 && s.opacity <= 1)) throw InputError("plot series '" + s.name + "': opacity must be in (0, 1]");
    for (size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i]) && (!xlog || s.x[i] > 0) && (!ylog || s.y[i] > 0)) {
        xr.add(s.x[i]);
        yr.add(s.y[i]);
      }
    if (s.color_value || !s.point_color_values.empty()) any_color_values = true;
    if (s.color_value) cr.add(*s.color_value);
    for (double v : s.point_color_values)
      if (std::isfinite(v)) cr.add(v);
  }
  for (const auto& m : spec.marked)
    if (std::isfinite(m.x) && std::isfinite(m.y) && (!xlog || m.x > 0) && (!ylog || m.y > 0)) xr.add(m.x), yr.add(m.y);
  if (any_color_values && !spec.color_scale)
    throw InputError("plot: series are coloured by value but the figure has no colour scale");
  const auto [xmin, xmax] = resolve_range(spec.x.min, spec.x.max, xr, xlog, "plot x axis");
  const auto [ymin, ymax] = resolve_range(spec.y.min, spec.y.max, yr, ylog, "plot y axis");
  Scaler color;
  Ticks cticks;
  if (spec.color_scale) {
    const auto& cs = *spec.color_scale;
    if (cs.scale == AxisScale::kLog) {
      Range positive;
      if (!cr.empty() && cr.min > 0) positive = cr;
      cr = positive;
    }
    auto [cmin, cmax] = resolve_range(cs.min, cs.max, cr, cs.scale == AxisScale::kLog, "plot colour scale");
    if (!cs.min && !cs.max && !cr.empty() && cr.min < cr.max) cmin = cr.min, cmax = cr.max;  // no padding on a bar
    color = {cmin, cmax, cs.scale == AxisScale::kLog, 0, 1};
    cticks = nice_ticks(cmin, cmax, cs.scale, cs.format);
  }
  const Ticks xt = nice_ticks(xmin, xmax, spec.x.scale, spec.x.format);
  const Ticks yt = nice_ticks(ymin, ymax, spec.y.scale, spec.y.format);

  // ---- layout ------------------------------------------------------------------------------
  double ylabel_w = 0;
  for (const auto& l : yt.labels) ylabel_w = std::max(ylabel_w, text_width(l, kTickFont));
  double clabel_w = 0;
  for (const auto& l : cticks.labels) clabel_w = std::max(clabel_w, text_width(l, kTickFont));
  const double left = 10 + (spec.y.label.empty() ? 0 : kLabelFont + 8) + ylabel_w + 8;
  const double top = spec.title.empty() ? 14 : 14 + kTitleFont + 10;
  const double label_bottom = 10 + kTickFont + 8 + (spec.x.label.empty() ? 0 : kLabelFont + 8);
  const double bottom = label_bottom + static_cast<double>(spec.notes.size()) * (kTickFont + 4);
  const double right = spec.color_scale ? 18 + 14 + 6 + clabel_w + (spec.color_scale->label.empty() ? 0 : kLabelFont + 10) + 8 : 18;
  const Area L{left, top, std::max(40.0, spec.width_px - left - right), std::max(40.0, spec.height_px - top - bottom)};
  const Scaler X{xmin, xmax, xlog, L.left, L.left + L.width};
  const Scaler Y{ymin, ymax, ylog, L.top + L.height, L.top};
  const std::string axis_color = "#222222", grid_color = "#e6e6e6";

  std::ostringstream o;
  o << "<rect width=\"" << px(spec.width_px) << "\" height=\"" << px(spec.height_px) << "\" fill=\"#ffffff\"/>\n";
  if (!spec.title.empty())
    o << text_svg(L.left + L.width / 2, 14 + kTitleFont, spec.title, kTitleFont, "middle") << "\n";
  o << "<defs><clipPath id=\"" << id << "clip\"><rect x=\"" << px(L.left) << "\" y=\"" << px(L.top) << "\" width=\""
    << px(L.width) << "\" height=\"" << px(L.height) << "\"/></clipPath></defs>\n";

  // ---- grid and ticks ----------------------------------------------------------------------
  o << "<g stroke=\"" << grid_color << "\" stroke-width=\"0.8\">";
  for (double v : xt.major) o << "<line x1=\"" << px(X.map(v)) << "\" y1=\"" << px(L.top) << "\" x2=\"" << px(X.map(v)) << "\" y2=\"" << px(L.top + L.height) << "\"/>";
  for (double v : yt.major) o << "<line x1=\"" << px(L.left) << "\" y1=\"" << px(Y.map(v)) << "\" x2=\"" << px(L.left + L.width) << "\" y2=\"" << px(Y.map(v)) << "\"/>";
  o << "</g>\n<g stroke=\"" << axis_color << "\" stroke-width=\"0.9\">";
  auto xtick = [&](double v, double len) {
    const double x = X.map(v);
    o << "<line x1=\"" << px(x) << "\" y1=\"" << px(L.top + L.height) << "\" x2=\"" << px(x) << "\" y2=\"" << px(L.top + L.height - len) << "\"/>";
    o << "<line x1=\"" << px(x) << "\" y1=\"" << px(L.top) << "\" x2=\"" << px(x) << "\" y2=\"" << px(L.top + len) << "\"/>";
  };
  auto ytick = [&](double v, double len) {
    const double y = Y.map(v);
    o << "<line x1=\"" << px(L.left) << "\" y1=\"" << px(y) << "\" x2=\"" << px(L.left + len) << "\" y2=\"" << px(y) << "\"/>";
    o << "<line x1=\"" << px(L.left + L.width) << "\" y1=\"" << px(y) << "\" x2=\"" << px(L.left + L.width - len) << "\" y2=\"" << px(y) << "\"/>";
  };
  for (double v : xt.major) xtick(v, 5);
  for (double v : xt.minor) xtick(v, 2.5);
  for (double v : yt.major) ytick(v, 5);
  for (double v : yt.minor) ytick(v, 2.5);
  o << "</g>\n<g fill=\"" << axis_color << "\">";
  for (size_t i = 0; i < xt.major.size(); ++i)
    o << text_svg(X.map(xt.major[i]), L.top + L.height + 6 + kTickFont, xt.labels[i], kTickFont, "middle");
  for (size_t i = 0; i < yt.major.size(); ++i)
    o << text_svg(L.left - 6, Y.map(yt.major[i]) + kTickFont * 0.35, yt.labels[i], kTickFont, "end");
  if (!spec.x.label.empty())
    o << text_svg(L.left + L.width / 2, L.top + L.height + 6 + kTickFont + 8 + kLabelFont, spec.x.label, kLabelFont, "middle");
  for (size_t i = 0; i < spec.notes.size(); ++i)
    o << text_svg(L.left, L.top + L.height + label_bottom - 6 + static_cast<double>(i + 1) * (kTickFont + 4) - 4,
                  spec.notes[i], kTickFont, "start");
  if (!spec.y.label.empty()) {
    const double x = 10 + kLabelFont, y = L.top + L.height / 2;
    o << text_svg(x, y, spec.y.label, kLabelFont, "middle", " transform=\"rotate(-90 " + px(x) + " " + px(y) + ")\"");
  }
  o << "</g>\n";

  // ---- series ------------------------------------------------------------------------------
  std::vector<LegendEntry> legend;
  o << "<g clip-path=\"url(#" << id << "clip)\">\n";
  for (size_t si = 0; si < spec.series.size(); ++si) {
    const Series& s = spec.series[si];
    const std::string c = series_color(s, si, spec.color_scale, color);
    const std::string opacity = s.opacity < 1 ? " opacity=\"" + px(s.opacity) + "\"" : "";
    const bool line = s.style != SeriesStyle::kPoints, points = s.style != SeriesStyle::kLine;
    if (line) {
      std::ostringstream d;
      bool pen_down = false;
      for (size_t i = 0; i < s.x.size(); ++i) {
        if (!X.usable(s.x[i]) || !Y.usable(s.y[i])) {
          pen_down = false;
          continue;
        }
        d << (pen_down ? "L" : "M") << px(X.map(s.x[i])) << ',' << px(Y.map(s.y[i]));
        pen_down = true;
      }
      if (!d.str().empty())
        o << "<path d=\"" << d.str() << "\" fill=\"none\" stroke=\"" << c << "\" stroke-width=\"" << px(s.line_width_px)
          << "\" stroke-linejoin=\"round\" stroke-linecap=\"round\"" << (s.dashed ? " stroke-dasharray=\"5,3\"" : "")
          << opacity << "/>\n";
    }
    if (points) {
      for (size_t i = 0; i < s.x.size(); ++i) {
        if (!X.usable(s.x[i]) || !Y.usable(s.y[i])) continue;
        std::string fill = c;
        if (!s.point_color_values.empty() && color.usable(s.point_color_values[i]))
          fill = viridis(color.t(s.point_color_values[i]));
        o << marker_svg(s.marker, X.map(s.x[i]), Y.map(s.y[i]), s.marker_size_px, fill,
                        " stroke=\"#ffffff\" stroke-width=\"0.5\"" + opacity);
      }
      o << "\n";
    }
    if (!s.name.empty()) {
      const bool by_value = !s.point_color_values.empty() && s.color.empty();
      legend.push_back({s.name, by_value ? viridis(0.5) : c, line, points, s.dashed, s.marker});
    }
  }
  o << "</g>\n";

  // ---- marked points -----------------------------------------------------------------------
  for (const auto& m : spec.marked) {
    if (!X.usable(m.x) || !Y.usable(m.y)) continue;
    const double x = X.map(m.x), y = Y.map(m.y);
    if (x < L.left - 1 || x > L.left + L.width + 1 || y < L.top - 1 || y > L.top + L.height + 1) continue;
    o << marker_svg(m.shape, x, y, m.size_px, m.color, " stroke=\"#000000\" stroke-width=\"0.6\"");
    if (!m.label.empty() && m.label_on_plot) {
      const Placed p = place_label(m, x, y, L, spec.series, X, Y);
      o << text_svg(p.x, p.y, m.label, kTickFont, p.anchor,
                    " fill=\"#111111\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\"");
    }
    o << "\n";
    if (m.in_legend && !m.label.empty()) legend.push_back({m.label, m.color, false, true, false, m.shape, std::min(m.size_px, 5.5), true});
  }

  // ---- legend ------------------------------------------------------------------------------
  o << legend_svg(legend, spec.legend, L, spec.series, X, Y);

  // ---- frame and colour bar ----------------------------------------------------------------
  o << "<rect x=\"" << px(L.left) << "\" y=\"" << px(L.top) << "\" width=\"" << px(L.width) << "\" height=\""
    << px(L.height) << "\" fill=\"none\" stroke=\"" << axis_color << "\" stroke-width=\"1\"/>\n";
  if (spec.color_scale) {
    const double bx = L.left + L.width + 18, bw = 14;
    o << "<defs><linearGradient id=\"" << id << "cbar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
    for (int i = 0; i <= 16; ++i) o << "<stop offset=\"" << px(i / 16.0) << "\" stop-color=\"" << viridis(i / 16.0) << "\"/>";
    o << "</linearGradient></defs><rect x=\"" << px(bx) << "\" y=\"" << px(L.top) << "\" width=\"" << px(bw)
      << "\" height=\"" << px(L.height) << "\" fill=\"url(#" << id << "cbar)\" stroke=\"" << axis_color
      << "\" stroke-width=\"0.8\"/>\n<g fill=\"" << axis_color << "\">";
    const Scaler C{color.lo, color.hi, color.log, L.top + L.height, L.top};
    for (size_t i = 0; i < cticks.major.size(); ++i) {
      const double y = C.map(cticks.major[i]);
      o << "<line x1=\"" << px(bx + bw - 4) << "\" y1=\"" << px(y) << "\" x2=\"" << px(bx + bw) << "\" y2=\"" << px(y)
        << "\" stroke=\"" << axis_color << "\" stroke-width=\"0.8\"/>";
      o << text_svg(bx + bw + 5, y + kTickFont * 0.35, cticks.labels[i], kTickFont, "start");
    }
    if (!spec.color_scale->label.empty()) {
      const double x = bx + bw + 5 + clabel_w + 8 + kLabelFont * 0.75, y = L.top + L.height / 2;
      o << text_svg(x, y, spec.color_scale->label, kLabelFont, "middle",
                    " transform=\"rotate(-90 " + px(x) + " " + px(y) + ")\"");
    }
    o << "</g>\n";
  }
  return o.str();
}

std::string open_svg(double width, double height) {
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << px(width)
    << "\" height=\"" << px(height) << "\" viewBox=\"0 0 " << px(width) << ' ' << px(height) << "\" font-family=\""
    << kFontFamily << "\">\n";
  return o.str();
}

}  // namespace

std::string render_svg(const PlotSpec& spec) {
  if (!(spec.width_px >= 100 && spec.height_px >= 80)) throw InputError("plot: the figure must be at least 100×80 px");
  return open_svg(spec.width_px, spec.height_px) + render_body(spec, "p0") + "</svg>\n";
}

std::string render_svg_grid(const std::vector<PlotSpec>& panels, int columns) {
  if (panels.empty()) throw InputError("plot: no panels to draw");
  if (columns < 1) throw InputError("plot: columns must be at least 1");
  std::vector<double> col_w(static_cast<size_t>(columns), 0), row_h((panels.size() + columns - 1) / columns, 0);
  for (size_t i = 0; i < panels.size(); ++i) {
    if (!(panels[i].width_px >= 100 && panels[i].height_px >= 80))
      throw InputError("plot: every panel must be at least 100×80 px");
    col_w[i % columns] = std::max(col_w[i % columns], panels[i].width_px);
    row_h[i / columns] = std::max(row_h[i / columns], panels[i].height_px);
  }
  double width = 0, height = 0;
  for (double w : col_w) width += w;
  for (double h : row_h) height += h;
  std::string out = open_svg(width, height) + "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  for (size_t i = 0; i < panels.size(); ++i) {
    double x = 0, y = 0;
    for (size_t c = 0; c < i % columns; ++c) x += col_w[c];
    for (size_t r = 0; r < i / columns; ++r) y += row_h[r];
    out += "<g transform=\"translate(" + px(x) + " " + px(y) + ")\">\n" +
           render_body(panels[i], "p" + std::to_string(i)) + "</g>\n";
  }
  return out + "</svg>\n";
}

}  // namespace isoflop::report
