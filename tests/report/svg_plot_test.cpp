// Tests for the SVG plot writer: tick placement and labels, well-formed output, escaping, no NaN.
#include "report/svg_plot.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace isoflop::report {
namespace {

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// Every opened element is closed in order (self-closing ones count as both): a cheap well-formedness check.
bool balanced(const std::string& svg) {
  std::vector<std::string> stack;
  std::regex tag("<(/?)([a-zA-Z]+)[^>]*?(/?)>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    if (m[1] == "/") {
      if (stack.empty() || stack.back() != m[2]) return false;
      stack.pop_back();
    } else if (m[3] != "/") {
      stack.push_back(m[2]);
    }
  }
  return stack.empty();
}

PlotSpec sample() {
  PlotSpec p;
  p.title = "IsoFLOP <profiles> & \"fits\"";
  p.x = {"parameters N", AxisScale::kLog, TickFormat::kCount, std::nullopt, std::nullopt};
  p.y = {"loss (nats/token)", AxisScale::kLinear, TickFormat::kAuto, std::nullopt, std::nullopt};
  p.color_scale = ColorScale{"compute C (FLOPs)", AxisScale::kLog, TickFormat::kScientific, std::nullopt, std::nullopt};
  for (double c : {1e19, 1e20, 1e21}) {
    Series s;
    s.name = "C = " + std::to_string(c);
    s.color_value = c;
    for (double lg = 7.5; lg <= 10; lg += 0.25) {
      const double n = std::pow(10.0, lg), d = c / (6 * n);
      s.x.push_back(n);
      s.y.push_back(1.69 + 406.4 / std::pow(n, 0.34) + 410.7 / std::pow(d, 0.28));
    }
    p.series.push_back(s);
  }
  p.marked.push_back({1e9, 2.5, "optimum <1B>", "#d62728", MarkerShape::kStar, 6, true});
  return p;
}

}  // namespace

TEST_CASE("log ticks are decades labelled as counts or in scientific notation") {
  const Ticks counts = nice_ticks(2e7, 3e10, AxisScale::kLog, TickFormat::kCount);
  REQUIRE(counts.major.size() == 3);
  CHECK(counts.labels == std::vector<std::string>{"100M", "1B", "10B"});
  CHECK(counts.minor.size() >= 20);  // 2..9 in each decade inside the range
  const Ticks sci = nice_ticks(3e18, 5e21, AxisScale::kLog, TickFormat::kScientific);
  CHECK(sci.labels == std::vector<std::string>{"1e19", "1e20", "1e21"});
  const Ticks autos = nice_ticks(3e18, 5e21, AxisScale::kLog, TickFormat::kAuto);
  CHECK(autos.labels == sci.labels);
}

TEST_CASE("very wide log axes thin their decade labels") {
  const Ticks t = nice_ticks(1e3, 1e25, AxisScale::kLog, TickFormat::kScientific);
  CHECK(t.major.size() <= 9);
  CHECK(t.major.size() >= 5);
  for (double v : t.major) CHECK(v >= 1e3 * (1 - 1e-12));
}

TEST_CASE("narrow log axes fall back to 1-2-5 or linear ticks") {
  const Ticks loss = nice_ticks(2.2, 4.5, AxisScale::kLog, TickFormat::kAuto);
  CHECK(loss.labels == std::vector<std::string>{"2.5", "3.0", "3.5", "4.0", "4.5"});
  const Ticks mid = nice_ticks(1.5e19, 6e20, AxisScale::kLog, TickFormat::kScientific);
  CHECK(mid.labels == std::vector<std::string>{"2e19", "5e19", "1e20", "2e20", "5e20"});
}

TEST_CASE("linear ticks use 1-2-2.5-5 steps, one number of decimals per axis, and never -0") {
  const Ticks t = nice_ticks(-0.3, 1.05, AxisScale::kLinear, TickFormat::kAuto);
  CHECK(t.labels == std::vector<std::string>{"-0.25", "0.00", "0.25", "0.50", "0.75", "1.00"});
  const Ticks big = nice_ticks(0, 5e20, AxisScale::kLinear, TickFormat::kAuto);
  CHECK(big.labels.front() == "0");
  CHECK(big.labels.back() == "5e20");
  CHECK(nice_ticks(1, 1, AxisScale::kLinear, TickFormat::kAuto).major.empty());
  CHECK(nice_ticks(-1, 1, AxisScale::kLog, TickFormat::kAuto).major.empty());
}

TEST_CASE("a figure is balanced SVG with escaped text, ticks, a colour bar and no NaN") {
  const std::string svg = render_svg(sample());
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(balanced(svg));
  CHECK(svg.find("IsoFLOP &lt;profiles&gt; &amp; &quot;fits&quot;") != std::string::npos);
  CHECK(svg.find("optimum &lt;1B&gt;") != std::string::npos);
  CHECK(svg.find("<profiles>") == std::string::npos);
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
  CHECK(svg.find(">100M</text>") != std::string::npos);
  CHECK(svg.find(">1B</text>") != std::string::npos);
  CHECK(svg.find(">1e20</text>") != std::string::npos);  // colour-bar tick
  CHECK(svg.find("linearGradient") != std::string::npos);
  CHECK(count(svg, "<path d=\"M") == 3);  // one line per series
}

TEST_CASE("non-finite and non-positive points break lines instead of producing NaN") {
  PlotSpec p;
  p.x.scale = AxisScale::kLog;
  Series s;
  s.x = {1, 2, 0, 4, 8, std::numeric_limits<double>::quiet_NaN(), 16};
  s.y = {1, 2, 3, std::numeric_limits<double>::infinity(), 5, 6, 7};
  s.style = SeriesStyle::kLineAndPoints;
  p.series.push_back(s);
  const std::string svg = render_svg(p);
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
  CHECK(count(svg, "<circle") == 4);  // (1,1) (2,2) (8,5) (16,7)
  CHECK(balanced(svg));
}

TEST_CASE("unusable specs are rejected with a message") {
  PlotSpec p;
  Series s;
  s.x = {1, 2};
  s.y = {1};
  p.series.push_back(s);
  CHECK_THROWS_AS(render_svg(p), InputError);
  p.series[0].y = {1, 2};
  p.x.min = 3;
  p.x.max = 2;
  CHECK_THROWS_AS(render_svg(p), InputError);
  p.x.min.reset();
  p.x.max.reset();
  p.series[0].color_value = 1;  // coloured by value without a colour scale
  CHECK_THROWS_AS(render_svg(p), InputError);
  PlotSpec empty_log;
  empty_log.x.scale = AxisScale::kLog;
  Series neg;
  neg.x = {-1, -2};
  neg.y = {1, 2};
  empty_log.series.push_back(neg);
  CHECK_THROWS_AS(render_svg(empty_log), InputError);
}

TEST_CASE("panels side by side keep their element ids apart") {
  const std::string svg = render_svg_grid({sample(), sample()}, 2);
  CHECK(balanced(svg));
  CHECK(svg.find("id=\"p0clip\"") != std::string::npos);
  CHECK(svg.find("id=\"p1clip\"") != std::string::npos);
  CHECK(svg.find("width=\"1440\"") != std::string::npos);
}

TEST_CASE("colours: viridis ends and the palette cycles") {
  CHECK(viridis(0) == "#440154");
  CHECK(viridis(1) == "#fde725");
  CHECK(viridis(-5) == viridis(0));
  CHECK(viridis(std::nan("")) == viridis(0));
  CHECK(palette_color(0) == palette_color(10));
  CHECK(palette_color(0) != palette_color(1));
  CHECK(xml_escape("a<b>&'\"\x01") == "a&lt;b&gt;&amp;&apos;&quot;");
}

}  // namespace isoflop::report
