// Tests for lib/units/format: readable units, and parse(format(x)) round trips.
#include "units/format.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "support/expect_close.hpp"
#include "units/quantity.hpp"

using namespace isoflop::units;

TEST_CASE("values format with readable units") {
  CHECK(format_count(3.219e10) == "32.2B");
  CHECK(format_count(2.982e12) == "2.98T");
  CHECK(format_count(512) == "512");
  CHECK(format_scientific(5.76e23) == "5.76e23");
  CHECK(format_scientific(1.2e-5) == "1.2e-5");
  CHECK(format_duration(14.8 * 86400) == "14.8 d");
  CHECK(format_duration(90 * 60) == "1.5 h");
  CHECK(format_energy(1965.6e6 * 3600) == "1.966 GWh");
  CHECK(format_power(2.73e6) == "2.73 MW");
  CHECK(format_mass(553.1e3) == "553.1 t");
  CHECK(format_money(1.234e6) == "$1.23M");
}

TEST_CASE("formatted quantities parse back to the same value") {
  for (double x : {1.0, 999.0, 1.5e3, 7.0e10, 3.3e12}) EXPECT_CLOSE(parse_count(format_count(x, 6), "x"), x, 1e-6);
  for (double s : {30.0, 5400.0, 86400.0 * 30}) {
    std::string text = format_duration(s, 6);
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    EXPECT_CLOSE(parse_duration_s(text, "x"), s, 1e-6);
  }
}
