// The shape-aware GEMM efficiency model (lib/parallel/efficiency): saturation in width and in token rows.
#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "parallel/efficiency.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

TEST_CASE("GEMM efficiency rises with width and rows toward the calibrated maximum") {
  catalog::Accelerator a;
  set_efficiency_constants(a, {0.6, 200, 500, 0.8, 0});
  CHECK(gemm_efficiency(a, 200, 1e12) == doctest::Approx(0.3).epsilon(1e-6));  // half width: half the maximum
  CHECK(gemm_efficiency(a, 1e12, 500) == doctest::Approx(0.3).epsilon(1e-6));  // half rows: half the maximum
  CHECK(gemm_efficiency(a, 1e12, 1e12) == doctest::Approx(0.6).epsilon(1e-6));
  double last = 0;
  for (double w : {256.0, 512.0, 1024.0, 4096.0}) {
    const double e = gemm_efficiency(a, w, 2048);
    CHECK(e > last);
    last = e;
  }
  // A larger micro-batch (more token rows) is more efficient at the same width (Narayanan et al. 2021 Fig. 7).
  CHECK(gemm_efficiency(a, 1536, 4 * 2048) > gemm_efficiency(a, 1536, 2048));
  // Without a rows constant the rows do not matter; without constants there is no efficiency.
  a.gemm_half_rows = 0;
  CHECK(gemm_efficiency(a, 1536, 128) == doctest::Approx(gemm_efficiency(a, 1536, 1e6)));
  CHECK(gemm_efficiency(catalog::Accelerator{}, 1536, 2048) == 0);
}

TEST_CASE("the catalog's fitted accelerators saturate in width and rows") {
  const catalog::Catalog c = catalog::load_catalog();
  const auto& a100 = c.accelerator("a100-sxm4-80gb");
  const auto& h100 = c.accelerator("h100-sxm5-80gb");
  CHECK(a100.calibrated);
  CHECK(h100.calibrated);
  // Both saturate: a tall, wide GEMM reaches more than a narrow, short one.
  for (const auto* a : {&a100, &h100}) CHECK(gemm_efficiency(*a, 4096, 16384) > gemm_efficiency(*a, 512, 2048));
}
