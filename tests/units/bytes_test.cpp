// Sizes in bytes (train --max-memory): decimal and binary units, and the usual refusals.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "core/error.hpp"
#include "units/quantity.hpp"

using namespace isoflop::units;

TEST_CASE("sizes parse in decimal (kB, MB, GB, TB) and binary (KiB, MiB, GiB, TiB) units") {
  const std::pair<const char*, double> sizes[] = {
      {"16GiB", 16.0 * 1024 * 1024 * 1024}, {"512MB", 512e6}, {"1.5 KiB", 1536}, {"2TB", 2e12},
      {"1TiB", 1099511627776.0},           {"4096", 4096},    {"100B", 100},
  };
  for (const auto& size : sizes) {
    CAPTURE(size.first);
    CHECK(parse_bytes(size.first, "--max-memory") == size.second);
  }
}

TEST_CASE("a size without a known unit, non-positive or not finite is refused naming the option") {
  for (const char* text : {"12 parsecs", "-1GiB", "0", "inf", "nan", "GiB", ""}) {
    CAPTURE(text);
    try {
      parse_bytes(text, "--max-memory");
      FAIL("accepted");
    } catch (const isoflop::InputError& e) {
      CHECK(std::string(e.what()).rfind("--max-memory: ", 0) == 0);
    }
  }
}
