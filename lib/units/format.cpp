// Formatting SI values: pick the unit that keeps the mantissa in [1, 1000).
#include "units/format.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "units/si.hpp"

namespace isoflop::units {
namespace {

struct Scale {
  double factor;
  const char* suffix;
};

std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos || s.find('e') != std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Formats value/scale with the largest scale not exceeding |value|.
template <size_t N>
std::string with_scale(double value, const Scale (&scales)[N], int digits, const char* separator) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  const double magnitude = std::fabs(value);
  const Scale* chosen = &scales[0];
  for (const Scale& s : scales)
    if (magnitude >= s.factor * 0.9995) chosen = &s;
  return format_significant(value / chosen->factor, digits) + separator + chosen->suffix;
}

}  // namespace

std::string format_significant(double value, int digits) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  if (value == 0) return "0";
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  // Past a double's 16 digits a fixed-point number only spells noise (and past 63 it was cut short, 1e77 years
  // printing as 3.2e62): scientific notation, as for far smaller values, whose leading zeros would do the same.
  if (exponent >= 16 || exponent < -12) return format_scientific(value, digits);
  const int decimals = std::max(0, digits - 1 - exponent);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return trim_zeros(buffer);
}

std::string format_count(double count, int digits) {
  static constexpr Scale kScales[] = {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}, {1e15, "P"}};
  if (std::fabs(count) >= 1e18) return format_scientific(count, digits);
  return with_scale(count, kScales, digits, "");
}

std::string format_scientific(double value, int digits) {
  if (!std::isfinite(value)) return format_significant(value);
  if (value == 0) return "0";  // not "0e0"
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*e", std::max(0, digits - 1), value);
  // "5.76e+23" → "5.76e23"
  std::string s = buffer;
  const auto e = s.find('e');
  std::string mantissa = trim_zeros(s.substr(0, e));
  std::string exponent = s.substr(e + 1);
  if (exponent[0] == '+') exponent.erase(0, 1);
  const bool negative = exponent[0] == '-';
  if (negative) exponent.erase(0, 1);
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return mantissa + "e" + (negative ? "-" : "") + exponent;
}

std::string format_duration(double seconds, int digits) {
  static constexpr Scale kScales[] = {
      {1, "s"}, {60, "min"}, {kSecondsPerHour, "h"}, {kSecondsPerDay, "d"}, {kSecondsPerYear, "y"}};
  return with_scale(seconds, kScales, digits, " ");
}

std::string format_energy(double joules, int digits) {
  static constexpr Scale kScales[] = {{3.6e3, "Wh"}, {3.6e6, "kWh"}, {3.6e9, "MWh"}, {3.6e12, "GWh"}, {3.6e15, "TWh"}};
  return with_scale(joules, kScales, digits, " ");
}

std::string format_power(double watts, int digits) {
  static constexpr Scale kScales[] = {{1, "W"}, {1e3, "kW"}, {1e6, "MW"}, {1e9, "GW"}};
  return with_scale(watts, kScales, digits, " ");
}

std::string format_mass(double kilograms, int digits) {
  static constexpr Scale kScales[] = {{1e-3, "g"}, {1, "kg"}, {1e3, "t"}, {1e6, "kt"}, {1e9, "Mt"}};
  return with_scale(kilograms, kScales, digits, " ");
}

std::string format_money(double usd, int digits) {
  static constexpr Scale kScales[] = {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}};
  // Past a thousand trillion a suffix would read as a count of them ("$2225783B"): scientific notation.
  const double magnitude = std::fabs(usd);
  const std::string body = magnitude >= 1e15 * 0.9995 && std::isfinite(magnitude)
                               ? format_scientific(magnitude, digits)
                               : with_scale(magnitude, kScales, digits, "");
  return (usd < 0 ? "-$" : "$") + body;
}

}  // namespace isoflop::units
