// Tests for lib/scaling/allocation_table: Chinchilla Table 3 rows, the 0.498 slope, extrapolation.
#include "scaling/allocation_table.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "scaling/allocate.hpp"
#include "scaling/laws_fixture.hpp"
#include "support/expect_close.hpp"

using namespace isoflop::scaling;
using namespace isoflop::test;

namespace {
// Hoffmann et al. 2022 Table 3, as printed (params, FLOPs, tokens), and the relative precision printed.
struct Row {
  double params, flops, tokens, tokens_precision;
};
constexpr Row kTable3[] = {{400e6, 1.92e19, 8.0e9, 0.05 / 8.0},       {1e9, 1.21e20, 20.2e9, 0.05 / 20.2},
                           {10e9, 1.23e22, 205.1e9, 0.05 / 205.1},    {67e9, 5.76e23, 1.5e12, 0.05 / 1.5},
                           {175e9, 3.85e24, 3.7e12, 0.05 / 3.7},      {280e9, 9.90e24, 5.9e12, 0.05 / 5.9},
                           {520e9, 3.43e25, 11.0e12, 0.05 / 11.0},    {1e12, 1.27e26, 21.2e12, 0.05 / 21.2},
                           {10e12, 1.30e28, 216.2e12, 0.05 / 216.2}};
}  // namespace

TEST_CASE("chinchilla-approach1 reproduces every Table 3 row") {
  const auto& t = law("chinchilla-approach1");
  for (const Row& row : kTable3) {
    CAPTURE(row.params);
    const Allocation a = allocate(t, row.flops);
    CHECK(a.method == "table-interpolation");
    EXPECT_CLOSE(a.params, row.params, 1e-9);
    EXPECT_CLOSE(a.tokens, row.tokens, row.tokens_precision);
    const Allocation inv = allocate_for_params(t, row.params);
    EXPECT_CLOSE(inv.flops, row.flops, 1e-9);
  }
}

TEST_CASE("Table 3: log-log slope from the 400M to the 10T row is 0.498") {
  const auto& t = law("chinchilla-approach1");
  const double slope = std::log(allocate(t, 1.30e28).params / allocate(t, 1.92e19).params) / std::log(1.30e28 / 1.92e19);
  EXPECT_CLOSE(slope, 0.498, 1e-3);
}

TEST_CASE("between rows the interpolation is monotone and log-linear — outside it follows a = b = 0.50") {
  const auto& t = law("chinchilla-approach1");
  const double mid = std::sqrt(1.21e20 * 1.23e22);
  const Allocation m = allocate(t, mid);
  EXPECT_CLOSE(m.params, std::sqrt(1e9 * 10e9), 1e-9);
  CHECK(m.params > 1e9);
  CHECK(m.params < 10e9);
  EXPECT_CLOSE(allocate(t, 1.30e30).params, 10e12 * 10.0, 1e-9);  // 100× compute → 10× N at a = 0.5
  EXPECT_CLOSE(allocate(t, 1.92e17).tokens, 8.0e9 / 10.0, 1e-9);
  CHECK_FALSE(m.loss);
}
