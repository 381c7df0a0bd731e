// The allocation object: one shape everywhere, every key present (null where unknown), exact round trip.
#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "doc/allocation_json.hpp"
#include "scaling/allocate.hpp"

using namespace isoflop;

TEST_CASE("allocation JSON: Gopher's budget under chinchilla round-trips, nulls for what was not asked") {
  const auto cat = catalog::embedded_catalog();
  const scaling::Allocation a = scaling::allocate(cat.law("chinchilla"), 5.76e23);
  const doc::Json j = a;
  CHECK(j.size() == 13);
  CHECK(j["law"] == "chinchilla");
  CHECK(j["params"].get<double>() == doctest::Approx(3.219e10).epsilon(1e-3));
  CHECK(j["unique_tokens"].is_null());
  CHECK(j["compute_optimal"].is_null());
  CHECK(j.get<scaling::Allocation>() == a);
  CHECK(doc::Json(j.get<scaling::Allocation>()).dump() == j.dump());
}

TEST_CASE("allocation JSON: the inference-aware answer carries its compute-optimal comparison") {
  const auto cat = catalog::embedded_catalog();
  scaling::AllocationConstraints c;
  c.inference_tokens = 2e12;
  const scaling::Allocation a = scaling::allocate(cat.law("chinchilla"), 5.76e23, c);
  const doc::Json j = a;
  REQUIRE(j["compute_optimal"].is_object());
  CHECK(j["total_flops"].get<double>() <= j["compute_optimal"]["total_flops"].get<double>());
  CHECK(j.get<scaling::Allocation>() == a);
}

TEST_CASE("allocation band JSON round-trips, and a missing key names its path") {
  const auto cat = catalog::embedded_catalog();
  const scaling::AllocationBand band = scaling::allocation_band(cat.laws, 5.76e23);
  const doc::Json j = band;
  CHECK(j["laws"].size() == band.laws.size());
  CHECK(j.get<scaling::AllocationBand>() == band);
  doc::Json broken = j;
  broken["laws"][0].erase("tokens");
  const auto source = doc::parse_document("band.json", R"({"schema": "isoflop/optimal/v2"})");
  try {
    (void)doc::decode<scaling::AllocationBand>(source, broken);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("laws[0]") != std::string::npos);
  }
}
