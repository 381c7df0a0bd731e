// Tests for report::document_text: one document, four views, and the human page rendered only when asked for.
#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "report/output.hpp"

namespace isoflop::report {
namespace {

TEST_CASE("document_text renders the page only for the table and prints the document otherwise") {
  const Json document = {{"schema", "isoflop/test/v2"}, {"flops", 5.76e23}, {"rows", {{{"n", 1}}, {{"n", 2}}}}};
  int pages = 0;
  const auto page = [&] {
    ++pages;
    return std::string("the page\n");
  };
  CHECK(document_text(OutputFormat::kTable, document, page) == "the page\n");
  CHECK(pages == 1);
  CHECK(document_text(OutputFormat::kJson, document, page) == to_json_text(document));
  CHECK(Json::parse(document_text(OutputFormat::kJson, document, page))["flops"] == 5.76e23);
  CHECK(document_text(OutputFormat::kYaml, document, page) == to_yaml_text(document));
  CHECK(document_text(OutputFormat::kCsv, document, page, "rows") == "flops,rows.n\n5.76e+23,1\n5.76e+23,2\n");
  // Whole numbers are written whole in CSV (1920, not 1.92e+03) and as floats in YAML (1920.0, 4000000.0).
  const Json whole = {{"sequences", 1920.0}, {"tokens", 4e6}, {"rate", 0.25}};
  CHECK(document_text(OutputFormat::kCsv, whole, page) == "sequences,tokens,rate\n1920,4000000,0.25\n");
  CHECK(to_yaml_text(whole) == "sequences: 1920.0\ntokens: 4000000.0\nrate: 0.25\n");
  CHECK(pages == 1);
}

TEST_CASE("document_text refuses JUnit XML in the library's words: the field is format") {
  try {
    document_text(OutputFormat::kJunit, Json::object(), [] { return std::string(); });
    FAIL("no error");
  } catch (const FieldError& e) {
    CHECK(e.field() == "format");
    CHECK(e.message() == "junit: this command writes no JUnit XML");
  }
}

}  // namespace
}  // namespace isoflop::report
