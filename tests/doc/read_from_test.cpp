// Tests for doc::read_from_document: the earlier result read and checked to be of a kind the request takes.
#include "doc/read_from.hpp"

#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "doc/document.hpp"

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

TEST_CASE("a document that is not UTF-8 is refused with the byte, as YAML and as JSON") {
  // What the document fuzz target found: a YAML document (a tag before its flow map) with a stray 0x8A, which the
  // YAML reader passed into a string that no JSON writer can encode.
  const std::string yaml = std::string("!{\"schema\": \"isoflop/flops/v2\", \"note\": \"a") + '\x8a' + "\"}";
  CHECK_THROWS_WITH_AS(isoflop::doc::parse_document("doc.json", yaml),
                       doctest::Contains("doc.json: not UTF-8 text (byte 42 cannot start or continue a character)"),
                       isoflop::InputError);
  const std::string json = std::string("{\"schema\": \"isoflop/flops/v2\", \"note\": \"a") + '\x8a' + "\"}";
  CHECK_THROWS_AS(isoflop::doc::parse_document("doc.json", json), isoflop::InputError);
  // Well-formed multi-byte text (±, ×, an emoji) is read.
  CHECK_NOTHROW(isoflop::doc::parse_document("doc.yaml", "schema: isoflop/flops/v2\nnote: \"± × \xF0\x9F\x98\x80\"\n"));
  CHECK(isoflop::first_invalid_utf8("\xC0\xAF") == 0u);          // overlong
  CHECK(isoflop::first_invalid_utf8("ok \xED\xA0\x80") == 3u);   // a surrogate
  CHECK(isoflop::first_invalid_utf8("\xF4\x90\x80\x80") == 0u);  // above U+10FFFF
  CHECK(isoflop::first_invalid_utf8("\xE2\x82") == 0u);          // cut short
  CHECK_FALSE(isoflop::first_invalid_utf8("plain, ± and \xE2\x82\xAC"));
}
