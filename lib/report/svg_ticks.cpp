// Axis ticks and colours for the SVG plots: 1-2-5 linear steps, decade (or 1-2-5) log ticks, tick
// labels as "1e19", "10M" or "2.5", the palette and the viridis colour map.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "report/svg_plot.hpp"
#include "units/format.hpp"

namespace isoflop::report {
namespace {

// Removes floating noise (0.30000000000000004 → 0.3) by rounding to 12 significant digits.
double tidy(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 11 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

std::string plain_label(double v, double step) {
  if (std::fabs(v) < step * 1e-9) v = 0;  // no "-0" or "1e-17" at the origin
  int decimals = 0;
  if (step > 0) {
    decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    if (std::fabs(mantissa - 2.5) < 1e-6) ++decimals;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", std::min(decimals, 12), v);
  return buffer;
}

std::string label(double v, double step, TickFormat format) {
  switch (format) {
    case TickFormat::kScientific:
      return v == 0 ? "0" : units::format_scientific(tidy(v), 3);
    case TickFormat::kCount:
      return units::format_count(tidy(v), 3);
    case TickFormat::kPlain:
    case TickFormat::kAuto:
      break;
  }
  return plain_label(v, step);
}

// kAuto resolved from the range: scientific when numbers would be long, plain otherwise.
TickFormat resolve(double min, double max, AxisScale scale, TickFormat format) {
  if (format != TickFormat::kAuto) return format;
  const double big = std::max(std::fabs(min), std::fabs(max));
  if (scale == AxisScale::kLog) {
    const bool wide = std::log10(max) - std::log10(min) > 4;
    return (wide || max > 1e5 || min < 1e-3) ? TickFormat::kScientific : TickFormat::kPlain;
  }
  return (big >= 1e6 || (big > 0 && big < 1e-3)) ? TickFormat::kScientific : TickFormat::kPlain;
}

double nice_step(double span, int target) {
  const double raw = span / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * magnitude >= raw * 0.999) return m * magnitude;
  return 10 * magnitude;
}

Ticks linear_ticks(double min, double max, TickFormat format) {
  Ticks t;
  const double step = nice_step(max - min, 6);
  const double first = std::ceil(min / step - 1e-9) * step;
  for (double v = first; v <= max + step * 1e-9; v += step) t.major.push_back(tidy(v));
  const double minor_step = step / 5 * (std::fabs(step / std::pow(10.0, std::floor(std::log10(step))) - 2.5) < 1e-6 ? 2 : 1);
  for (double v = std::floor(min / minor_step) * minor_step; v <= max; v += minor_step)
    if (v >= min) t.minor.push_back(tidy(v));
  const TickFormat f = resolve(min, max, AxisScale::kLinear, format);
  for (double v : t.major) t.labels.push_back(label(v, step, f));
  return t;
}

Ticks log_ticks(double min, double max, TickFormat format) {
  Ticks t;
  const double lo = std::log10(min), hi = std::log10(max);
  const TickFormat f = resolve(min, max, AxisScale::kLog, format);
  const int first = static_cast<int>(std::ceil(lo - 1e-9)), last = static_cast<int>(std::floor(hi + 1e-9));
  if (last - first >= 1) {
    // Decades; thinned to at most ~8 labels on very wide axes.
    const int stride = std::max(1, static_cast<int>(std::ceil((last - first + 1) / 8.0)));
    for (int k = first; k <= last; k += stride) t.major.push_back(std::pow(10.0, k));
    for (int k = first - 1; k <= last; ++k)
      for (int m = 1; m <= 9; ++m) {
        if (m == 1 && (k - first) % stride == 0) continue;
        if (stride > 1 && m != 1) continue;
        const double v = m * std::pow(10.0, k);
        if (v >= min * (1 - 1e-12) && v <= max * (1 + 1e-12)) t.minor.push_back(v);
      }
  } else {
    // Less than two decades inside the range: 1-2-5 mantissas when that gives three ticks, else
    // evenly spaced linear ticks (a loss axis from 2.2 to 4.5 reads 2.5, 3.0, …, 4.5).
    for (int k = first - 1; k <= last; ++k)
      for (int m : {1, 2, 5}) {
        const double v = m * std::pow(10.0, k);
        if (v >= min * (1 - 1e-12) && v <= max * (1 + 1e-12)) t.major.push_back(v);
      }
    if (t.major.size() < 3) return linear_ticks(min, max, f);
    for (int k = first - 1; k <= last; ++k)
      for (int m = 1; m <= 9; ++m) {
        const double v = m * std::pow(10.0, k);
        if (v >= min && v <= max && std::find(t.major.begin(), t.major.end(), v) == t.major.end())
          t.minor.push_back(v);
      }
  }
  for (double v : t.major) t.labels.push_back(label(v, v, f));
  return t;
}

}  // namespace

Ticks nice_ticks(double min, double max, AxisScale scale, TickFormat format) {
  if (!(min < max) || !std::isfinite(min) || !std::isfinite(max)) return {};
  if (scale == AxisScale::kLog) {
    if (!(min > 0)) return {};
    return log_ticks(min, max, format);
  }
  return linear_ticks(min, max, format);
}

std::string palette_color(size_t index) {
  // Colour-blind-friendly qualitative palette (Okabe & Ito's colours, yellow last: it is faint on white).
  static constexpr std::array<const char*, 10> kPalette = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00",
                                                           "#56b4e9", "#000000", "#7f7f7f", "#8c564b", "#c9b400"};
  return kPalette[index % kPalette.size()];
}

std::string viridis(double t) {
  // Viridis sampled at 9 evenly spaced points (matplotlib's colormap data), interpolated linearly.
  static constexpr std::array<std::array<double, 3>, 9> kStops = {{{68, 1, 84},
                                                                   {71, 44, 122},
                                                                   {59, 81, 139},
                                                                   {44, 113, 142},
                                                                   {33, 144, 141},
                                                                   {39, 173, 129},
                                                                   {92, 200, 99},
                                                                   {170, 220, 50},
                                                                   {253, 231, 37}}};
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0) * (kStops.size() - 1);
  const size_t i = std::min(static_cast<size_t>(t), kStops.size() - 2);
  const double f = t - static_cast<double>(i);
  char buffer[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(kStops[i][c] * (1 - f) + kStops[i + 1][c] * f));
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buffer;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') continue;
        out += c;
    }
  }
  return out;
}

}  // namespace isoflop::report
