// Tests for lib/units/quantity: accepted forms, SI values, and rejection of malformed text.
#include "units/quantity.hpp"

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "support/expect_close.hpp"

using namespace isoflop::units;
using isoflop::InputError;

TEST_CASE("counts parse plain, scientific and SI-suffixed forms") {
  EXPECT_CLOSE(parse_count("5.76e23", "--flops"), 5.76e23, 1e-15);
  EXPECT_CLOSE(parse_count("70B", "--params"), 70e9, 1e-15);
  EXPECT_CLOSE(parse_count("1.4T", "--tokens"), 1.4e12, 1e-15);
  EXPECT_CLOSE(parse_count("400M", "--params"), 400e6, 1e-15);
  EXPECT_CLOSE(parse_count("1.5k", "--gpus"), 1500, 1e-15);
  EXPECT_CLOSE(parse_count("3G", "--params"), 3e9, 1e-15);
  EXPECT_CLOSE(parse_count("-2", "x", Sign::kAny), -2, 1e-15);
  CHECK(parse_integer("3360", "--gpus") == 3360);
}

TEST_CASE("durations, energy, power, mass, intensity and money convert to SI") {
  EXPECT_CLOSE(parse_duration_s("30d", "--time"), 30 * 86400.0, 1e-15);
  EXPECT_CLOSE(parse_duration_s("720h", "--time"), 720 * 3600.0, 1e-15);
  EXPECT_CLOSE(parse_duration_s("2w", "--time"), 14 * 86400.0, 1e-15);
  EXPECT_CLOSE(parse_duration_s("90m", "--time"), 5400, 1e-15);
  EXPECT_CLOSE(parse_energy_j("1965.6MWh", "--energy"), 1965.6 * 3.6e9, 1e-15);
  EXPECT_CLOSE(parse_energy_j("2GWh", "--energy"), 2 * 3.6e12, 1e-15);
  EXPECT_CLOSE(parse_energy_j("5J", "--energy"), 5, 1e-15);
  EXPECT_CLOSE(parse_power_w("2.73MW", "--power"), 2.73e6, 1e-15);
  EXPECT_CLOSE(parse_power_w("330W", "--power-w"), 330, 1e-15);
  EXPECT_CLOSE(parse_mass_kg("552.1t", "--co2e"), 552100, 1e-15);
  EXPECT_CLOSE(parse_mass_kg("10kg", "--co2e"), 10, 1e-15);
  EXPECT_CLOSE(parse_intensity_kg_per_kwh("429g/kWh", "--grid"), 0.429, 1e-15);
  EXPECT_CLOSE(parse_intensity_kg_per_kwh("0.429kg/kWh", "--grid"), 0.429, 1e-15);
  EXPECT_CLOSE(parse_money_usd("$2.5M", "--budget-usd"), 2.5e6, 1e-15);
  EXPECT_CLOSE(parse_money_usd("40000", "--budget-usd"), 40000, 1e-15);
}

TEST_CASE("malformed quantities are rejected with the option name and the accepted forms") {
  const char* bad_counts[] = {"", "nan", "inf", "-inf", "1e400", "70X", "abc", "1.2.3", "5e", "--3", "1,000"};
  for (const char* text : bad_counts) {
    INFO(text);
    CHECK_THROWS_AS(parse_count(text, "--flops"), InputError);
  }
  CHECK_THROWS_AS(parse_count("-5", "--flops"), InputError);
  CHECK_THROWS_AS(parse_count("0", "--flops"), InputError);
  CHECK(parse_count("0", "--x", Sign::kNonNegative) == 0);
  CHECK_THROWS_AS(parse_duration_s("30", "--time"), InputError);   // a duration needs a unit
  CHECK_THROWS_AS(parse_duration_s("30q", "--time"), InputError);
  CHECK_THROWS_AS(parse_energy_j("5MW", "--energy"), InputError);  // power is not energy
  CHECK_THROWS_AS(parse_power_w("5MWh", "--power"), InputError);   // nor energy power
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
