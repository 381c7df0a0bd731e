// Tests for lib/units/integer_limits: the sanity limits of integer fields, and the FieldError over them.
#include "units/integer_limits.hpp"

#include <doctest/doctest.h>

#include "core/error.hpp"

using namespace isoflop;

TEST_CASE("limits of the fields that feed products, none for others") {
  CHECK(units::integer_limit("seq") == (1LL << 24));
  CHECK(units::integer_limit("vocab") == (1LL << 24));
  CHECK(units::integer_limit("global_batch") == (1LL << 30));
  CHECK(units::integer_limit("gpus_per_node") == (1LL << 16));
  CHECK_FALSE(units::integer_limit("gpus").has_value());
  CHECK_NOTHROW(units::check_integer_limit("seq", 1LL << 24));
  CHECK_NOTHROW(units::check_integer_limit("gpus", 1LL << 40));
}

TEST_CASE("a value over its limit is a FieldError naming the range") {
  CHECK_THROWS_WITH_AS(units::check_integer_limit("seq", 99999999999),
                       "seq: 99999999999 is out of range; accepted: a whole number from 1 to 16777216", FieldError);
  CHECK_THROWS_WITH_AS(units::check_integer_limit("gpus_per_node", 70000, units::Sign::kNonNegative),
                       "gpus_per_node: 70000 is out of range; accepted: a whole number from 0 to 65536", FieldError);
}
