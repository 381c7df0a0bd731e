// Tests for doc::calibration_document: the published runs (data/calibration/published_runs.yaml) calibrated
// for one accelerator or for every one they name, and an accelerator they do not name refused.
#include "doc/calibration_document.hpp"

#include <doctest/doctest.h>

#include <string>

#include "catalog/catalog.hpp"
#include "core/error.hpp"

namespace isoflop::doc {
namespace {

const std::string kRuns = ISOFLOP_SOURCE_DIR "/data/calibration/published_runs.yaml";

TEST_CASE("the published runs calibrate one accelerator, or each they name, with every run on it judged") {
  const catalog::Catalog catalog = catalog::load_catalog();
  const CalibrationDocument one = calibration_document(catalog, kRuns, "a100-sxm4-80gb");
  CHECK(one.runs_file == kRuns);
  CHECK(one.gpu == "a100-sxm4-80gb");
  REQUIRE(one.results.size() == 1);
  const parallel::CalibrationResult& a100 = one.results[0];
  CHECK(a100.accelerator.name == "a100-sxm4-80gb");
  CHECK(a100.accelerator.calibrated);
  CHECK(a100.calibration.size() + a100.held_out.size() == 29);  // the file's 29 A100 rows
  CHECK_FALSE(a100.held_out.empty());
  const CalibrationDocument every = calibration_document(catalog, kRuns, std::nullopt);
  CHECK_FALSE(every.gpu.has_value());
  REQUIRE(every.results.size() == 2);
  CHECK(every.results[0].accelerator.name != every.results[1].accelerator.name);
}

TEST_CASE("an accelerator no run names is a FieldError on gpu") {
  try {
    calibration_document(catalog::load_catalog(), kRuns, "mi300x");
    FAIL("no error");
  } catch (const FieldError& e) {
    CHECK(e.field() == "gpu");
  }
}

}  // namespace
}  // namespace isoflop::doc
