// SVG drawing primitives: pixel coordinates, text and markers.
#include "report/svg_marks.hpp"

#include <cstdio>
#include <sstream>

#include "report/text_table.hpp"

namespace isoflop::report::svg {

double text_width(const std::string& s, double font) { return static_cast<double>(code_points(s)) * font * kCharWidth; }

// A pixel coordinate: finite by construction, clamped far outside the canvas, two decimals.
std::string px(double v) {
  if (!std::isfinite(v)) v = 0;
  v = std::clamp(v, -1e5, 1e5);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", v);
  std::string s = buffer;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string text_svg(double x, double y, const std::string& text, double font, const std::string& anchor,
                     const std::string& extra) {
  std::ostringstream o;
  o << "<text x=\"" << px(x) << "\" y=\"" << px(y) << "\" font-size=\"" << px(font) << "\" text-anchor=\"" << anchor
    << '"' << extra << '>' << xml_escape(text) << "</text>";
  return o.str();
}

std::string marker_svg(MarkerShape shape, double x, double y, double r, const std::string& fill,
                       const std::string& extra) {
  std::ostringstream o;
  const std::string cx = px(x), cy = px(y);
  auto poly = [&](const std::vector<std::pair<double, double>>& pts) {
    o << "<polygon points=\"";
    for (size_t i = 0; i < pts.size(); ++i) o << (i ? " " : "") << px(x + pts[i].first) << ',' << px(y + pts[i].second);
    o << "\" fill=\"" << fill << '"' << extra << "/>";
  };
  switch (shape) {
    case MarkerShape::kCircle:
      o << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"" << px(r) << "\" fill=\"" << fill << '"' << extra << "/>";
      break;
    case MarkerShape::kSquare:
      o << "<rect x=\"" << px(x - r * 0.9) << "\" y=\"" << px(y - r * 0.9) << "\" width=\"" << px(1.8 * r)
        << "\" height=\"" << px(1.8 * r) << "\" fill=\"" << fill << '"' << extra << "/>";
      break;
    case MarkerShape::kTriangle: poly({{0, -1.25 * r}, {1.1 * r, 0.75 * r}, {-1.1 * r, 0.75 * r}}); break;
    case MarkerShape::kDiamond: poly({{0, -1.3 * r}, {1.1 * r, 0}, {0, 1.3 * r}, {-1.1 * r, 0}}); break;
    case MarkerShape::kStar: {
      std::vector<std::pair<double, double>> pts;
      for (int i = 0; i < 10; ++i) {
        const double angle = -M_PI / 2 + i * M_PI / 5, rr = (i % 2 ? 0.45 : 1.35) * r;
        pts.emplace_back(rr * std::cos(angle), rr * std::sin(angle));
      }
      poly(pts);
      break;
    }
    case MarkerShape::kCross:
      o << "<path d=\"M" << px(x - r) << ',' << px(y - r) << "L" << px(x + r) << ',' << px(y + r) << "M" << px(x - r)
        << ',' << px(y + r) << "L" << px(x + r) << ',' << px(y - r) << "\" stroke=\"" << fill
        << "\" stroke-width=\"1.6\" fill=\"none\"/>";
      break;
  }
  return o.str();
}

}  // namespace isoflop::report::svg
