// Tests for doc::read_from_document: the earlier result read and checked to be of a kind the request takes.
#include "doc/read_from.hpp"

#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"

namespace isoflop::doc {
namespace {

const std::string kCost = ISOFLOP_SOURCE_DIR "/tests/golden/cost.json";

TEST_CASE("a document of a kind the request takes is read whole") {
  const SourceDocument d = read_from_document(kCost, {"cost", "plan"});
  CHECK(d.json.at("schema") == "isoflop/cost/v2");
  CHECK(d.source.find("cost.json") != std::string::npos);
}

TEST_CASE("another kind, an empty path or a missing file is refused") {
  CHECK_THROWS_WITH_AS(read_from_document(kCost, {"plan"}),
                       doctest::Contains("schema: a cost document; expected isoflop/plan/v2"), InputError);
  try {
    read_from_document("", {"plan"});
    FAIL("no error");
  } catch (const FieldError& e) {
    CHECK(e.field() == "from");
    CHECK(e.message() == "empty file name");
  }
  CHECK_THROWS_AS(read_from_document(ISOFLOP_SOURCE_DIR "/tests/golden/missing.json", {"plan"}), InputError);
}

}  // namespace
}  // namespace isoflop::doc
