// Relative comparisons for tests: NaN never matches, infinities match only themselves.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <string>

namespace isoflop::test {

// True when |actual − expected| ≤ rel·|expected| (or ≤ rel when expected is 0).
inline bool close(double actual, double expected, double rel) {
  if (std::isnan(actual) || std::isnan(expected)) return false;
  if (std::isinf(actual) || std::isinf(expected)) return actual == expected;
  const double scale = expected == 0 ? 1.0 : std::fabs(expected);
  return std::fabs(actual - expected) <= rel * scale;
}

}  // namespace isoflop::test

// CHECK that `actual` is within relative tolerance `rel` of `expected`, printing all three on failure.
#define EXPECT_CLOSE(actual, expected, rel)                                                              \
  do {                                                                                                   \
    const double expect_close_a_ = (actual);                                                             \
    const double expect_close_e_ = (expected);                                                           \
    INFO("actual " << expect_close_a_ << " expected " << expect_close_e_ << " rel " << (rel));            \
    CHECK(::isoflop::test::close(expect_close_a_, expect_close_e_, (rel)));                              \
  } while (0)
