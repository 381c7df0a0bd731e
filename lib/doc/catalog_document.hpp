// The `catalog` document: catalog entries with the source of every number.
//   {"schema": "isoflop/catalog/v2", "inputs": {"kind", "name", "catalog_dir"},
//    "entries": [{"section": "accelerators", "name": …, …, "source": …}…]}
// An entry's keys depend on its section (the catalog's own fields, with units in their names). The document
// is a listing for people and scripts to read; entries are kept as the JSON objects they were written as.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "doc/document.hpp"

namespace isoflop::doc {

// What to list: kind "all", "hardware", "grids", "laws", "models" or "cost"; one entry by name.
struct CatalogRequest {
  std::string kind = "all";
  std::optional<std::string> name;
  std::optional<std::string> catalog_dir;  // the overlay the catalog was read with

  bool operator==(const CatalogRequest&) const = default;
};

struct CatalogDocument {
  CatalogRequest inputs;
  std::vector<Json> entries;  // each with "section" first

  bool operator==(const CatalogDocument&) const = default;
};

// The entries of `request` from `catalog`. Throws FieldError ("kind", "name") for an unknown kind or name,
// with suggestions.
CatalogDocument catalog_document(const catalog::Catalog& catalog, const CatalogRequest& request);

void to_json(Json& j, const CatalogDocument& d);
void from_json(const Json& j, CatalogDocument& d);

// The human page: per section, one line per entry (name, summary, source); with a name, every field.
std::string render_catalog(const CatalogDocument& d);

// One catalog entry as its JSON object (without "section").
Json entry_json(const catalog::Accelerator& a);
Json entry_json(const catalog::Node& n);
Json entry_json(const catalog::Cluster& c);
Json entry_json(const catalog::Grid& g);
Json entry_json(const catalog::PuePreset& p);
Json entry_json(const catalog::LawSpec& l);
Json entry_json(const catalog::ModelEntry& m);
Json entry_json(const catalog::ShapeFamily& f);
Json entry_json(const catalog::MoeRecommendations& m);
Json entry_json(const catalog::RunCostConstants& c);
Json entry_json(const catalog::EmbodiedCarbon& e);

}  // namespace isoflop::doc
