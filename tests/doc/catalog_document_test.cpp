// The catalog document: typed entries, every section read back to the catalog's own records, byte for byte.
#include <doctest/doctest.h>

#include <variant>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "doc/catalog_document.hpp"
#include "report/output.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;

namespace {

doc::CatalogDocument listed(const catalog::Catalog& cat, const std::string& kind) {
  doc::CatalogRequest request;
  request.kind = kind;
  return doc::catalog_document(cat, request);
}

template <class T>
const T& entry(const doc::CatalogDocument& d, size_t i) {
  REQUIRE(std::holds_alternative<T>(d.entries.at(i).entry));
  return std::get<T>(d.entries[i].entry);
}

}  // namespace

TEST_CASE("every section of the catalog document reads back and writes the same bytes") {
  const catalog::Catalog cat = catalog::load_catalog();
  const doc::CatalogDocument all = listed(cat, "all");
  CHECK(all.entries.size() == cat.accelerators.size() + cat.nodes.size() + cat.clusters.size() + cat.grids.size() +
                                  cat.pue_presets.size() + cat.laws.size() + cat.models.size() +
                                  cat.shape_families.size() + cat.moe_recommendations.size() + cat.run_cost.size() +
                                  cat.embodied_carbon.size() + cat.trainers.size());
  const std::string text = report::to_json_text(doc::Json(all));
  const doc::SourceDocument source = doc::parse_document("catalog.json", text);
  const auto back = doc::decode<doc::CatalogDocument>(source);
  REQUIRE(back.entries.size() == all.entries.size());
  for (size_t i = 0; i < all.entries.size(); ++i) {
    CAPTURE(i);
    CHECK(back.entries[i].entry.index() == all.entries[i].entry.index());
    CHECK(doc::section_name(back.entries[i]) == doc::section_name(all.entries[i]));
  }
  CHECK(report::to_json_text(doc::Json(back)) == text);
}

TEST_CASE("catalog entries read back are the catalog's records, in the listing's units") {
  const catalog::Catalog cat = catalog::load_catalog();
  const doc::CatalogDocument hw = doc::Json(listed(cat, "hardware")).get<doc::CatalogDocument>();
  for (size_t i = 0; i < cat.accelerators.size(); ++i) {
    const auto& a = entry<catalog::Accelerator>(hw, i);
    const auto& original = cat.accelerators[i];
    CAPTURE(original.name);
    CHECK(a.name == original.name);
    EXPECT_CLOSE(a.peak_16bit_flops, original.peak_16bit_flops, 1e-15);
    EXPECT_CLOSE(a.memory_bytes, original.memory_bytes, 1e-15);
    CHECK(a.peak_fp8_flops.has_value() == original.peak_fp8_flops.has_value());
    CHECK(a.reference_node == original.reference_node);
    CHECK(a.source == original.source);
    CHECK(a.file.empty());  // where an entry came from is not listed
  }
  const doc::CatalogDocument laws = doc::Json(listed(cat, "laws")).get<doc::CatalogDocument>();
  for (size_t i = 0; i < cat.laws.size(); ++i) {
    const auto& l = entry<catalog::LawSpec>(laws, i);
    CAPTURE(cat.laws[i].name);
    CHECK(l.kind() == cat.laws[i].kind());
    CHECK(l.form == cat.laws[i].form);  // every kind's constants, exactly
    CHECK(l.note == cat.laws[i].note);
  }
  const doc::CatalogDocument models = doc::Json(listed(cat, "models")).get<doc::CatalogDocument>();
  for (size_t i = 0; i < cat.models.size(); ++i) {
    const auto& m = entry<catalog::ModelEntry>(models, i);
    CAPTURE(cat.models[i].name);
    CHECK(m.architecture.effective_kv_heads() == cat.models[i].architecture.effective_kv_heads());
    CHECK(m.architecture.moe.experts == cat.models[i].architecture.moe.experts);
    CHECK(m.published_params == cat.models[i].published_params);
  }
  // Every shape family's rows, with the key/value heads and ffn widths that shaping reads (Llama 3 405B: 8 and
  // 53,248), exactly.
  const doc::CatalogDocument shapes = doc::Json(listed(cat, "shape_families")).get<doc::CatalogDocument>();
  for (size_t i = 0; i < cat.shape_families.size(); ++i) {
    const auto& f = entry<model::ShapeFamily>(shapes, i);
    CAPTURE(cat.shape_families[i].name);
    CHECK(f.rows == cat.shape_families[i].rows);
  }
  CHECK(cat.shape_family("llama3").rows.back().ffn == 53248);
  CHECK(cat.shape_family("llama3").rows.back().kv_heads == 8);
  // Every trainer's rules, their sources by rule id and its defaults, exactly (where it was read is not listed).
  const doc::CatalogDocument trainers = doc::Json(listed(cat, "trainers")).get<doc::CatalogDocument>();
  REQUIRE(trainers.entries.size() == cat.trainers.size());
  for (size_t i = 0; i < cat.trainers.size(); ++i) {
    catalog::TrainerRules original = cat.trainers[i];
    CAPTURE(original.name);
    original.file.clear();
    CHECK(entry<catalog::TrainerRules>(trainers, i) == original);
  }
}

TEST_CASE("a catalog entry of no known section names the section and its path") {
  doc::Json j = listed(catalog::load_catalog(), "grids");
  j["entries"][1]["section"] = "volcanoes";
  const doc::SourceDocument source = doc::parse_document("catalog.json", report::to_json_text(j));
  try {
    (void)doc::decode<doc::CatalogDocument>(source);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "catalog.json: entries[1].section: 'volcanoes' is not a catalog section");
  }
}
