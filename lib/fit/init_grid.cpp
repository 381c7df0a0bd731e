// Initialisation grids for Approach 3: Chinchilla's 4,500 starts, a coarse grid, and user specs.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "fit/approach3.hpp"

namespace isoflop::fit {
namespace {

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

double parse_value(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    throw FieldError(what, "'" + text + "' is not a number");
  return v;
}

}  // namespace

std::vector<double> GridAxis::values() const {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(count == 1 ? start : start + (stop - start) * i / (count - 1));
  return out;
}

size_t InitGrid::size() const {
  size_t n = 1;
  for (const GridAxis* g : {&a, &b, &e, &alpha, &beta}) n *= static_cast<size_t>(std::max(0, g->count));
  return n;
}

std::vector<LawPoint> InitGrid::points() const {
  std::vector<LawPoint> out;
  out.reserve(size());
  for (double va : a.values())
    for (double vb : b.values())
      for (double ve : e.values())
        for (double val : alpha.values())
          for (double vbe : beta.values()) out.push_back({va, vb, ve, val, vbe});
  return out;
}

std::string InitGrid::describe() const {
  std::string out;
  const std::pair<const char*, const GridAxis*> axes[] = {{"a", &a}, {"b", &b}, {"e", &e}, {"alpha", &alpha}, {"beta", &beta}};
  for (const auto& [name, g] : axes) {
    if (!out.empty()) out += ",";
    out += std::string(name) + "=" + (g->count == 1 ? number(g->start)
                                                     : number(g->start) + ":" + number(g->stop) + ":" + std::to_string(g->count));
  }
  return out;
}

InitGrid chinchilla_grid() {
  // Hoffmann et al. 2022, App. D.2: 6 · 6 · 5 · 5 · 5 = 4,500 starting points.
  return {{0, 25, 6}, {0, 25, 6}, {-1, 1, 5}, {0, 2, 5}, {0, 2, 5}};
}

InitGrid coarse_grid() { return {{0, 25, 3}, {0, 25, 3}, {-1, 1, 3}, {0, 2, 3}, {0, 2, 3}}; }

InitGrid parse_grid(const std::string& text, const std::string& what) {
  if (text == "chinchilla") return chinchilla_grid();
  if (text == "coarse") return coarse_grid();
  InitGrid grid = chinchilla_grid();
  static const std::vector<std::string> kAxes = {"a", "b", "e", "alpha", "beta"};
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw FieldError(what, "'" + item + "' is not AXIS=START:STOP:COUNT or AXIS=VALUE; use chinchilla, coarse, or " +
                       "e.g. a=0:25:6,b=0:25:6,e=-1:1:5,alpha=0:2:5,beta=0:2:5");
    const std::string name = item.substr(0, eq), spec = item.substr(eq + 1);
    GridAxis* axis = name == "a" ? &grid.a : name == "b" ? &grid.b : name == "e" ? &grid.e
                   : name == "alpha" ? &grid.alpha : name == "beta" ? &grid.beta : nullptr;
    if (!axis)
      throw FieldError(what, "unknown axis '" + name + "'" + did_you_mean(name, kAxes) + "; axes are " + join(kAxes));
    const size_t c1 = spec.find(':');
    if (c1 == std::string::npos) {
      *axis = {parse_value(spec, what + " " + name), parse_value(spec, what + " " + name), 1};
      continue;
    }
    const size_t c2 = spec.find(':', c1 + 1);
    if (c2 == std::string::npos) throw FieldError(what, "axis " + name + " needs START:STOP:COUNT, got '" + spec + "'");
    const double start = parse_value(spec.substr(0, c1), what + " " + name);
    const double stop = parse_value(spec.substr(c1 + 1, c2 - c1 - 1), what + " " + name);
    const double count = parse_value(spec.substr(c2 + 1), what + " " + name);
    if (count < 1 || count != std::floor(count) || count > 1000)
      throw FieldError(what, "axis " + name + " count must be an integer from 1 to 1000, got '" + spec.substr(c2 + 1) + "'");
    *axis = {start, stop, static_cast<int>(count)};
  }
  if (grid.size() > 1000000) throw FieldError(what, "" + std::to_string(grid.size()) + " starts; at most 1,000,000");
  return grid;
}

}  // namespace isoflop::fit
