// Sizes in bytes (train --max-memory): decimal and binary units, and the usual refusals.
#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "units/quantity.hpp"

using namespace isoflop::units;

TEST_CASE("sizes parse in decimal (kB, MB, GB, TB) and binary (KiB, MiB, GiB, TiB) units") {
  CHECK(parse_bytes("16GiB", "--max-memory") == 16.0 * 1024 * 1024 * 1024);
  CHECK(parse_bytes("512MB", "--max-memory") == 512e6);
  CHECK(parse_bytes("1.5 KiB", "--max-memory") == 1536);
  CHECK(parse_bytes("2TB", "--max-memory") == 2e12);
  CHECK(parse_bytes("1TiB", "--max-memory") == 1099511627776.0);
  CHECK(parse_bytes("4096", "--max-memory") == 4096);
  CHECK(parse_bytes("100B", "--max-memory") == 100);
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
