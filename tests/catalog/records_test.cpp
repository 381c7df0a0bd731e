// Tests for lib/catalog/records.hpp: the embedded catalog, read from the records the build wrote, equals a
// fresh parse of data/*.yaml entry by entry and field by field; the records survive a round trip.
#include "catalog/records.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <concepts>
#include <filesystem>

#include "core/input_file.hpp"

using namespace isoflop;
using namespace isoflop::catalog;

namespace {

// data/*.yaml parsed now, as a load parses text: in file-name order, named as the binary names them.
Catalog parsed_data() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ISOFLOP_SOURCE_DIR) + "/data"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  Catalog catalog;
  for (const auto& path : files)
    merge_catalog_text(read_input_text(path.string()), "data/" + path.filename().string(), &catalog);
  check_references(catalog);
  return catalog;
}

// An entry's fields as records (every field the records hold, in their bytes: doubles exactly).
template <class T>
std::string bytes_of(const T& entry) {
  records::Writer writer;
  writer(entry);
  return writer.bytes;
}

// Every entry of `embedded` equals the same entry of `parsed`, in the same order: field by field through the
// records' field lists, and through the type's own operator== (every member) where it has one.
template <class T>
void check_entries(const std::vector<T>& embedded, const std::vector<T>& parsed) {
  REQUIRE(embedded.size() == parsed.size());
  CHECK(!parsed.empty());
  for (size_t i = 0; i < parsed.size(); ++i) {
    INFO(parsed[i].file);  // "data/hardware.yaml:12"
    CHECK(embedded[i].name == parsed[i].name);
    CHECK(bytes_of(embedded[i]) == bytes_of(parsed[i]));
    if constexpr (std::equality_comparable<T>) CHECK(embedded[i] == parsed[i]);
  }
}

}  // namespace

TEST_CASE("the embedded records equal a fresh parse of data/*.yaml, field by field") {
  const Catalog embedded = embedded_catalog();
  const Catalog parsed = parsed_data();
  // Section by section (Catalog's sections side by side, as records::fields lists them).
  records::fields(embedded, [&](const auto&... e) {
    records::fields(parsed, [&](const auto&... p) { (check_entries(e, p), ...); });
  });
  CHECK(bytes_of(embedded) == bytes_of(parsed));  // and nothing else
  // The parse is the YAML's, with file:line of each entry (what messages and `isoflop catalog` print).
  CHECK(embedded.accelerator("a100-sxm4-80gb").file.rfind("data/hardware.yaml:", 0) == 0);
}

TEST_CASE("records round-trip every kind of field and refuse truncated or extra bytes") {
  Catalog c = embedded_catalog();
  // Values the data may not hold today: an empty optional, an allocation-table law, an empty string.
  c.accelerators.front().peak_fp8_flops.reset();
  c.accelerators.front().vendor.clear();
  LawSpec table;
  table.name = "t";
  table.form = AllocationTableLaw{{{1e9, 2e19, 20e9}, {1e10, 6e20, 1e11}}, 0.5, 0.5};
  c.laws.push_back(table);
  records::Writer writer;
  writer(c);
  Catalog back;
  records::Reader reader(writer.bytes);
  reader(back);
  CHECK(reader.done());
  CHECK(bytes_of(back) == writer.bytes);
  CHECK(back.accelerators.front() == c.accelerators.front());
  CHECK(back.laws.back().form == c.laws.back().form);
  CHECK(back.trainers == c.trainers);
  CHECK(back.shape_families == c.shape_families);

  Catalog cut;
  records::Reader truncated(std::string_view(writer.bytes).substr(0, writer.bytes.size() - 1));
  CHECK_THROWS_AS(truncated(cut), CatalogError);
  const std::string longer = writer.bytes + "x";
  records::Reader extra(longer);
  extra(cut);
  CHECK(!extra.done());
}
