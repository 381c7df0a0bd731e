// Tests for lib/units/quantity: accepted forms, SI values, and rejection of malformed text.
#include "units/quantity.hpp"

#include <doctest/doctest.h>

#include <initializer_list>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "support/expect_close.hpp"

using namespace isoflop::units;
using isoflop::InputError;

namespace {

using Parser = double (*)(std::string_view, std::string_view, Sign);

// A text, the parser that reads it, and its value in SI units.
struct Parsed {
  Parser parse;
  const char* text;
  double si;
};

void check_parsed(std::initializer_list<Parsed> cases) {
  for (const Parsed& c : cases) {
    INFO(c.text);
    EXPECT_CLOSE(c.parse(c.text, "x", Sign::kPositive), c.si, 1e-15);
  }
}

}  // namespace

TEST_CASE("counts parse plain, scientific and SI-suffixed forms") {
  check_parsed({{parse_count, "5.76e23", 5.76e23},
                {parse_count, "70B", 70e9},
                {parse_count, "1.4T", 1.4e12},
                {parse_count, "400M", 400e6},
                {parse_count, "1.5k", 1500},
                {parse_count, "3G", 3e9}});
  EXPECT_CLOSE(parse_count("-2", "x", Sign::kAny), -2, 1e-15);
  CHECK(parse_integer("3360", "--gpus") == 3360);
}

TEST_CASE("durations, energy, power, mass, intensity and money convert to SI") {
  check_parsed({{parse_duration_s, "30d", 30 * 86400.0},
                {parse_duration_s, "720h", 720 * 3600.0},
                {parse_duration_s, "2w", 14 * 86400.0},
                {parse_duration_s, "90m", 5400},
                {parse_energy_j, "1965.6MWh", 1965.6 * 3.6e9},
                {parse_energy_j, "2GWh", 2 * 3.6e12},
                {parse_energy_j, "5J", 5},
                {parse_power_w, "2.73MW", 2.73e6},
                {parse_power_w, "330W", 330},
                {parse_mass_kg, "552.1t", 552100},
                {parse_mass_kg, "10kg", 10},
                {parse_intensity_kg_per_kwh, "429g/kWh", 0.429},
                {parse_intensity_kg_per_kwh, "0.429kg/kWh", 0.429},
                {parse_money_usd, "$2.5M", 2.5e6},
                {parse_money_usd, "40000", 40000}});
}

TEST_CASE("malformed quantities are rejected with the option name and the accepted forms") {
  const char* bad_counts[] = {"",   "nan", "inf", "-inf",  "1e400", "70X", "abc",
                              "1.2.3", "5e", "--3", "1,000", "-5",  "0"};
  for (const char* text : bad_counts) {
    INFO(text);
    CHECK_THROWS_AS(parse_count(text, "--flops"), InputError);
  }
  CHECK(parse_count("0", "--x", Sign::kNonNegative) == 0);
  const std::pair<Parser, const char*> wrong_units[] = {
      {parse_duration_s, "30"},  // a duration needs a unit
      {parse_duration_s, "30q"},
      {parse_energy_j, "5MW"},   // power is not energy
      {parse_power_w, "5MWh"},   // nor energy power
  };
  for (const auto& wrong : wrong_units) {
    INFO(wrong.second);
    CHECK_THROWS_AS(wrong.first(wrong.second, "x", Sign::kPositive), InputError);
  }
  CHECK_THROWS_AS(parse_integer("2.5", "--gpus"), InputError);
  try {
    parse_count("70X", "--params");
    FAIL("no throw");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "--params: '70X' has an unknown unit 'X'; accepted: a number (5.76e23) or one with a suffix k, M, B "
          "(or G), T, P (70B, 1.4T, 400M)");
  }
}
