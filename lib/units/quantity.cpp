// Parsing quantities: a number followed by an optional unit from a small table per kind.
#include "units/quantity.hpp"

#include <charconv>
#include <cmath>
#include <span>
#include <string>

#include "core/error.hpp"
#include "units/si.hpp"

namespace isoflop::units {
namespace {

struct Unit {
  std::string_view suffix;
  double scale;  // multiplier to the SI value
};

constexpr double kJoulesPerWh = 3600.0;

constexpr Unit kCountUnits[] = {{"", 1.0},   {"k", 1e3},   {"K", 1e3},   {"M", 1e6},
                                {"B", 1e9},  {"G", 1e9},   {"T", 1e12},  {"P", 1e15}};
constexpr Unit kDurationUnits[] = {{"s", 1.0},
                                   {"sec", 1.0},
                                   {"m", 60.0},
                                   {"min", 60.0},
                                   {"h", kSecondsPerHour},
                                   {"d", kSecondsPerDay},
                                   {"w", 7 * kSecondsPerDay},
                                   {"y", 365 * kSecondsPerDay}};
constexpr Unit kEnergyUnits[] = {{"J", 1.0},
                                 {"kJ", 1e3},
                                 {"MJ", 1e6},
                                 {"GJ", 1e9},
                                 {"Wh", kJoulesPerWh},
                                 {"kWh", 1e3 * kJoulesPerWh},
                                 {"MWh", 1e6 * kJoulesPerWh},
                                 {"GWh", 1e9 * kJoulesPerWh},
                                 {"TWh", 1e12 * kJoulesPerWh}};
constexpr Unit kPowerUnits[] = {{"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}, {"GW", 1e9}};
constexpr Unit kMassUnits[] = {{"g", 1e-3},    {"kg", 1.0},     {"t", 1e3},      {"kt", 1e6},     {"Mt", 1e9},
                               {"gCO2e", 1e-3}, {"kgCO2e", 1.0}, {"tCO2e", 1e3}, {"ktCO2e", 1e6}, {"MtCO2e", 1e9}};
constexpr double kKgPerLb = 0.45359237;
constexpr Unit kIntensityUnits[] = {{"g/kWh", 1e-3},       {"kg/kWh", 1.0},       {"t/MWh", 1.0},
                                    {"kg/MWh", 1e-3},      {"lb/MWh", kKgPerLb * 1e-3},
                                    {"gCO2e/kWh", 1e-3},   {"kgCO2e/kWh", 1.0}};
constexpr double kKiB = 1024.0;
constexpr Unit kByteUnits[] = {{"", 1.0},
                               {"B", 1.0},
                               {"kB", 1e3},
                               {"MB", 1e6},
                               {"GB", 1e9},
                               {"TB", 1e12},
                               {"KiB", kKiB},
                               {"MiB", kKiB * kKiB},
                               {"GiB", kKiB * kKiB * kKiB},
                               {"TiB", kKiB * kKiB * kKiB * kKiB}};
constexpr Unit kMoneyUnits[] = {{"", 1.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}};

std::string quoted(std::string_view what, std::string_view text) {
  return std::string(what) + ": '" + std::string(text) + "'";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void check_sign(double value, std::string_view text, std::string_view what, Sign sign) {
  if (sign == Sign::kPositive && !(value > 0))
    throw InputError(quoted(what, text) + " must be positive");
  if (sign == Sign::kNonNegative && !(value >= 0))
    throw InputError(quoted(what, text) + " must not be negative");
}

// Splits "12.5kWh" into the number 12.5 and the rest "kWh"; throws on a missing or non-finite number.
double leading_number(std::string_view text, std::string_view what, std::string_view accepted,
                      std::string_view* rest) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  double value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range)
    throw InputError(quoted(what, text) + " is out of range; accepted: " + std::string(accepted));
  if (ec != std::errc() || ptr == begin)
    throw InputError(quoted(what, text) + " is not " + std::string(accepted));
  // from_chars accepts "nan" and "inf"; a quantity never is.
  if (!std::isfinite(value))
    throw InputError(quoted(what, text) + " is not a finite number; accepted: " + std::string(accepted));
  *rest = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  return value;
}

double parse_with_units(std::string_view raw, std::string_view what, Sign sign, std::span<const Unit> units,
                        std::string_view accepted) {
  const std::string_view text = trim(raw);
  if (text.empty()) throw InputError(std::string(what) + ": empty value; accepted: " + std::string(accepted));
  std::string_view rest;
  const double number = leading_number(text, what, accepted, &rest);
  for (const Unit& u : units) {
    if (rest == u.suffix) {
      const double value = number * u.scale;
      if (!std::isfinite(value))
        throw InputError(quoted(what, text) + " is out of range; accepted: " + std::string(accepted));
      check_sign(value, text, what, sign);
      return value;
    }
  }
  throw InputError(quoted(what, text) + " has an unknown unit '" + std::string(rest) +
                   "'; accepted: " + std::string(accepted));
}

}  // namespace

double parse_number(std::string_view text, std::string_view what, Sign sign) {
  static constexpr Unit kNone[] = {{"", 1.0}};
  return parse_with_units(text, what, sign, kNone, "a number such as 0.4 or 5.76e23");
}

double parse_count(std::string_view text, std::string_view what, Sign sign) {
  return parse_with_units(text, what, sign, kCountUnits,
                          "a number (5.76e23) or one with a suffix k, M, B (or G), T, P (70B, 1.4T, 400M)");
}

double parse_duration_s(std::string_view text, std::string_view what, Sign sign) {
  return parse_with_units(text, what, sign, kDurationUnits,
                          "a number with a unit s, m (minutes), h, d, w or y (30d, 720h, 2w, 90m)");
}

double parse_energy_j(std::string_view text, std::string_view what, Sign sign) {
  return parse_with_units(text, what, sign, kEnergyUnits,
                          "a number with a unit J, kJ, MJ, GJ, Wh, kWh, MWh, GWh or TWh (1.97GWh)");
}

double parse_power_w(std::string_view text, std::string_view what, Sign sign) {
  return parse_with_units(text, what, sign, kPowerUnits, "a number with a unit W, kW, MW or GW (330W, 6.5kW)");
}

double parse_mass_kg(std::string_view text, std::string_view what, Sign sign) {
  return parse_with_units(text, what, sign, kMassUnits, "a number with a unit g, kg, t, kt or Mt (552t)");
}

double parse_intensity_kg_per_kwh(std::string_view text, std::string_view what, Sign sign) {
  return parse_with_units(text, what, sign, kIntensityUnits,
                          "a number with a unit g/kWh, kg/kWh, t/MWh, kg/MWh or lb/MWh (429g/kWh)");
}

double parse_money_usd(std::string_view text, std::string_view what, Sign sign) {
  return parse_money_usd(text, what, sign, "$2.5M, 40000, $40k");
}

double parse_money_usd(std::string_view raw, std::string_view what, Sign sign, std::string_view examples) {
  std::string_view text = trim(raw);
  if (!text.empty() && text.front() == '$') text.remove_prefix(1);
  return parse_with_units(text, what, sign, kMoneyUnits, "an amount in US dollars (" + std::string(examples) + ")");
}

double parse_bytes(std::string_view text, std::string_view what, Sign sign) {
  return parse_with_units(text, what, sign, kByteUnits,
                          "a size in bytes with a unit B, kB, MB, GB, TB, KiB, MiB, GiB or TiB (16GiB, 512MB)");
}

long long parse_integer(std::string_view text, std::string_view what, Sign sign) {
  // A count of things (GPUs, jobs, sequences): whole-number examples, suffixes as for any count.
  const double value =
      parse_with_units(text, what, sign, kCountUnits, "a whole number (8, 1536) or one with a suffix k, M, B (2k, 1M)");
  if (value != std::floor(value)) throw InputError(quoted(what, text) + " is not a whole number");
  if (std::fabs(value) > 9.0e18)
    throw InputError(quoted(what, text) + " is past a 64-bit count; accepted: a whole number up to 9e18");
  return static_cast<long long>(value);
}

}  // namespace isoflop::units
