// The legend: a boxed list of every named series and legend-listed marked point, placed inside the plot.
#include <algorithm>
#include <limits>
#include <sstream>

#include "report/svg_marks.hpp"

namespace isoflop::report::svg {

std::string legend_svg(const std::vector<LegendEntry>& entries, LegendPosition position, const Area& L,
                       const std::vector<Series>& series, const Scaler& X, const Scaler& Y) {
  // One row per distinct entry: marks that share a label (every law's minimum) are listed once.
  std::vector<LegendEntry> legend;
  for (const auto& e : entries)
    if (std::find(legend.begin(), legend.end(), e) == legend.end()) legend.push_back(e);
  std::ostringstream o;
  // ---- legend ------------------------------------------------------------------------------
  if (legend.empty() || position == LegendPosition::kNone) return "";
  {
    double w = 0;
    for (const auto& e : legend) w = std::max(w, text_width(e.name, kLegendFont));
    const double row = kLegendFont + 6, box_w = 8 + 24 + 6 + w + 8, box_h = 6 + row * legend.size() + 2;
    LegendPosition pos = position;
    const double xs[2] = {L.left + 8, L.left + L.width - 8 - box_w}, ys[2] = {L.top + 8, L.top + L.height - 8 - box_h};
    auto corner = [&](LegendPosition p) {
      const bool r = p == LegendPosition::kTopRight || p == LegendPosition::kBottomRight;
      const bool b = p == LegendPosition::kBottomLeft || p == LegendPosition::kBottomRight;
      return std::pair<double, double>{xs[r], ys[b]};
    };
    if (pos == LegendPosition::kAuto) {
      // The inside corner whose box covers the fewest data points (ties: top right, top left, …).
      size_t best = std::numeric_limits<size_t>::max();
      for (LegendPosition p : {LegendPosition::kTopRight, LegendPosition::kTopLeft, LegendPosition::kBottomRight,
                               LegendPosition::kBottomLeft}) {
        const auto [bx, by] = corner(p);
        size_t covered = 0;
        for (const auto& s : series)
          for (size_t i = 0; i < s.x.size(); ++i)
            if (X.usable(s.x[i]) && Y.usable(s.y[i])) {
              const double x = X.map(s.x[i]), y = Y.map(s.y[i]);
              covered += x >= bx - 4 && x <= bx + box_w + 4 && y >= by - 4 && y <= by + box_h + 4;
            }
        if (covered < best) best = covered, pos = p;
      }
    }
    const auto [bx, by] = corner(pos);
    o << "<g><rect x=\"" << px(bx) << "\" y=\"" << px(by) << "\" width=\"" << px(box_w) << "\" height=\"" << px(box_h)
      << "\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#bbbbbb\" stroke-width=\"0.8\" rx=\"2\"/>";
    for (size_t i = 0; i < legend.size(); ++i) {
      const auto& e = legend[i];
      const double cy = by + 6 + row * i + row / 2 - 1, x0 = bx + 8;
      if (e.line)
        o << "<line x1=\"" << px(x0) << "\" y1=\"" << px(cy) << "\" x2=\"" << px(x0 + 24) << "\" y2=\"" << px(cy)
          << "\" stroke=\"" << e.color << "\" stroke-width=\"1.8\"" << (e.dashed ? " stroke-dasharray=\"5,3\"" : "") << "/>";
      if (e.points)
        o << marker_svg(e.shape, x0 + 12, cy, e.marker_px, e.color,
                        e.outlined ? " stroke=\"#000000\" stroke-width=\"0.6\"" : " stroke=\"#ffffff\" stroke-width=\"0.5\"");
      o << text_svg(x0 + 30, cy + kLegendFont * 0.35, e.name, kLegendFont, "start", " fill=\"#111111\"");
    }
    o << "</g>\n";
  }

  return o.str();
}

}  // namespace isoflop::report::svg
