// Tests for lib/units/format: readable units, and parse(format(x)) round trips.
#include "units/format.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "support/expect_close.hpp"
#include "units/quantity.hpp"
#include "units/si.hpp"

using namespace isoflop::units;

TEST_CASE("values format with readable units") {
  CHECK(format_count(3.219e10) == "32.2B");
  CHECK(format_count(2.982e12) == "2.98T");
  CHECK(format_count(512) == "512");
  CHECK(format_scientific(5.76e23) == "5.76e23");
  CHECK(format_scientific(1.2e-5) == "1.2e-5");
  CHECK(format_scientific(0) == "0");  // a part with no FLOPs (recompute none), not "0e0"
  CHECK(format_duration(14.8 * 86400) == "14.8 d");
  CHECK(format_duration(90 * 60) == "1.5 h");
  CHECK(format_energy(1965.6e6 * 3600) == "1.966 GWh");
  CHECK(format_power(2.73e6) == "2.73 MW");
  CHECK(format_mass(553.1e3) == "553.1 t");
  CHECK(format_money(1.234e6) == "$1.23M");
  // Past billions: trillions, then scientific, never a suffix's count of thousands ("$2225783B").
  CHECK(format_money(2.2258e12) == "$2.23T");
  CHECK(format_money(2.2258e18) == "$2.23e18");
  CHECK(format_money(-3e16) == "-$3e16");
}

TEST_CASE("formatted quantities parse back to the same value") {
  for (double x : {1.0, 999.0, 1.5e3, 7.0e10, 3.3e12}) EXPECT_CLOSE(parse_count(format_count(x, 6), "x"), x, 1e-6);
  for (double s : {30.0, 5400.0, 86400.0 * 30}) {
    std::string text = format_duration(s, 6);
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    EXPECT_CLOSE(parse_duration_s(text, "x"), s, 1e-6);
  }
}

TEST_CASE("values past a double's digits, or far below one, format in scientific notation, never cut short") {
  // 1e100 FLOPs on 8 A100s: 3.18e77 years printed as a 63-digit integer, 3.2e62 (the buffer's end).
  const double years = 3.176e77 * kSecondsPerYear;
  CHECK(format_duration(years) == "3.18e77 y");
  CHECK(format_energy(1.808e73 * 3.6e15, 4) == "1.808e73 TWh");
  CHECK(format_significant(2.143e26, 4) == "2.143e26");
  CHECK(format_significant(-5e300) == "-5e300");
  CHECK(format_significant(1.5e-20) == "1.5e-20");
  // Within a double's digits, fixed point as before.
  CHECK(format_significant(123456789012345.0, 3) == "123456789012345");
  CHECK(format_significant(0.000123) == "0.000123");
}
