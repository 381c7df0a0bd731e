// SVG drawing primitives shared by the figure renderers (report/svg_plot.cpp, svg_legend.cpp): pixel
// coordinates, text, markers, data-to-pixel scales, and the text sizes every figure uses. Internal to report/.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/svg_plot.hpp"

namespace isoflop::report::svg {

// Text sizes in px at the figure's own size; chosen so that a 640-px-wide figure printed at a paper's column
// width (about 3.3 in) keeps tick labels near 7 pt.
inline constexpr double kTickFont = 12, kLabelFont = 14, kTitleFont = 15, kLegendFont = 12;
inline constexpr double kCharWidth = 0.6;  // average glyph width / font size for sans-serif digits and letters
inline constexpr const char* kFontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif";

// Estimated width of `s` (UTF-8) at `font` px.
double text_width(const std::string& s, double font);

// A pixel coordinate: finite by construction, clamped far outside the canvas, two decimals.
std::string px(double v);

// A <text> element; `extra` is appended to its attributes.
std::string text_svg(double x, double y, const std::string& text, double font, const std::string& anchor,
                     const std::string& extra = "");

// A marker of radius `r` centred at (x, y).
std::string marker_svg(MarkerShape shape, double x, double y, double r, const std::string& fill,
                       const std::string& extra);

// Data value → pixel along one axis.
struct Scaler {
  double lo = 0, hi = 1;  // data range
  bool log = false;
  double p0 = 0, p1 = 1;  // pixel positions of lo and hi
  bool usable(double v) const { return std::isfinite(v) && (!log || v > 0); }
  double t(double v) const {
    return log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
  }
  double map(double v) const { return p0 + (p1 - p0) * t(v); }
};

// The plot area in px.
struct Area {
  double left, top, width, height;
};

// One legend row: a line sample, a marker, or both.
struct LegendEntry {
  std::string name, color;
  bool line = false, points = false, dashed = false;
  MarkerShape shape = MarkerShape::kCircle;
  double marker_px = 3.4;  // marker radius in the legend: series markers at one size, marked points larger
  bool outlined = false;   // a marked point: black outline as on the plot
  bool operator==(const LegendEntry&) const = default;
};

// The legend box inside the plot area: at `position`, or (kAuto) the inside corner covering the fewest of the
// series' points. Nothing for kNone or no entries.
std::string legend_svg(const std::vector<LegendEntry>& entries, LegendPosition position, const Area& area,
                       const std::vector<Series>& series, const Scaler& x, const Scaler& y);

}  // namespace isoflop::report::svg
