// Paper-style SVG figures with no dependencies: axes (log or linear) with nice ticks, series as lines
// and/or points, colour by value with a colour bar, marked points, legend. Returns SVG text; no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"

namespace isoflop::report {

ISOFLOP_NAMED_ENUM(AxisScale, (kLinear, "linear"), (kLog, "log"));

// How tick labels are written: kScientific "1e19", kCount "10M", "1B" (SI count suffixes), kPlain "2.5",
// kAuto picks kScientific for log axes spanning more than 4 decades or beyond [1e-3, 1e6], else kPlain.
ISOFLOP_NAMED_ENUM(TickFormat, (kAuto, "auto"), (kScientific, "scientific"), (kCount, "count"), (kPlain, "plain"));

struct Axis {
  std::string label;                 // with units, e.g. "compute C (FLOPs)"
  AxisScale scale = AxisScale::kLinear;
  TickFormat format = TickFormat::kAuto;
  std::optional<double> min, max;    // the range; from the data (padded, rounded out) when not given
};

enum class SeriesStyle { kLine, kPoints, kLineAndPoints };
enum class MarkerShape { kCircle, kSquare, kTriangle, kDiamond, kCross, kStar };

struct Series {
  std::string name;                  // legend entry; empty keeps the series out of the legend
  std::vector<double> x, y;          // same length; non-finite pairs (or ≤ 0 on a log axis) break the line
  SeriesStyle style = SeriesStyle::kLine;
  std::string color;                 // CSS colour ("#1f77b4"); empty = next colour of the palette
  // Colour by value through the figure's ColorScale: one value for the whole series, or one per point
  // (points only; lines take the series value). Requires PlotSpec::color_scale.
  std::optional<double> color_value;
  std::vector<double> point_color_values;
  double line_width_px = 1.6;
  bool dashed = false;
  double opacity = 1.0;              // in (0, 1]
  MarkerShape marker = MarkerShape::kCircle;
  double marker_size_px = 3.2;       // radius
};

// A labelled point (an optimum, a reference run), drawn above the series.
struct MarkedPoint {
  double x = 0, y = 0;
  std::string label;                 // drawn next to the point; empty = no label
  std::string color = "#d62728";
  MarkerShape shape = MarkerShape::kStar;
  double size_px = 6;
  bool in_legend = false;            // also list `label` in the legend
  bool label_on_plot = true;         // draw `label` beside the point (false: legend only)
};

// Maps values to the viridis colour map; drawn as a colour bar right of the plot.
struct ColorScale {
  std::string label;                 // "parameters N"
  AxisScale scale = AxisScale::kLog;
  TickFormat format = TickFormat::kAuto;
  std::optional<double> min, max;    // from the series' colour values when not given
};

// kAuto picks the inside corner that covers the fewest data points.
enum class LegendPosition { kAuto, kNone, kTopRight, kTopLeft, kBottomLeft, kBottomRight };

struct PlotSpec {
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  std::vector<MarkedPoint> marked;
  std::optional<ColorScale> color_scale;
  LegendPosition legend = LegendPosition::kAuto;
  std::vector<std::string> notes;          // lines under the plot: what is not drawn and why, caveats
  double width_px = 720, height_px = 480;  // whole figure, including margins and the colour bar
};

// The figure as a standalone SVG document. Throws InputError when the spec is unusable (mismatched x/y
// sizes, a log axis with no positive data, an explicit range with min ≥ max, colour values without a
// colour scale). Text is XML-escaped; no coordinate is ever NaN.
std::string render_svg(const PlotSpec& spec);

// Several figures side by side in one SVG (`columns` per row), each at its own width and height.
std::string render_svg_grid(const std::vector<PlotSpec>& panels, int columns);

// The palette used for series without a colour (10 distinguishable colours), cycling.
std::string palette_color(size_t index);

// Viridis at t ∈ [0, 1] (clamped) as "#rrggbb".
std::string viridis(double t);

// Tick positions for an axis range (data units), and their labels; exposed for tests and reuse.
struct Ticks {
  std::vector<double> major;
  std::vector<std::string> labels;   // one per major tick
  std::vector<double> minor;
};
Ticks nice_ticks(double min, double max, AxisScale scale, TickFormat format);

// "a &lt; b" — for text placed in SVG/XML.
std::string xml_escape(const std::string& text);

}  // namespace isoflop::report
