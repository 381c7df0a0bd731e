// Tests for lib/scaling/band: every applicable law answers, the others are listed with a reason.
#include <doctest/doctest.h>

#include "core/error.hpp"
#include "scaling/allocate.hpp"
#include "scaling/laws_fixture.hpp"

using namespace isoflop::scaling;

TEST_CASE("a budget is answered by every shipped law, and the band spans Chinchilla A3 to Approach 1") {
  const auto& laws = isoflop::test::shipped_catalog().laws;
  const AllocationBand band = allocation_band(laws, 5.76e23);
  CHECK(band.laws.size() == laws.size());
  CHECK(band.skipped.empty());
  CHECK(band.params_min <= 3.22e10);
  CHECK(band.params_max >= 6.7e10);
  for (const auto& a : band.laws) CHECK(a.flops == 5.76e23);
}

TEST_CASE("a target loss skips allocation-only laws and unreachable targets") {
  const auto& laws = isoflop::test::shipped_catalog().laws;
  const AllocationBand band = allocation_band(laws, BandQuery::kTargetLoss, 2.0);
  for (const auto& a : band.laws) CHECK(a.loss);
  bool approach1_skipped = false;
  for (const auto& s : band.skipped) approach1_skipped |= s.law == "chinchilla-approach1";
  CHECK(approach1_skipped);
  CHECK_THROWS_AS(allocation_band(laws, BandQuery::kTargetLoss, 0.5 * 0 + 1e-3), isoflop::InputError);
}
