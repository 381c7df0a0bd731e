// The `catalog` document: catalog entries with the source of every number.
//   {"schema": "isoflop/catalog/v2", "inputs": {"kind", "name", "catalog_dir"},
//    "entries": [{"section": "accelerators", "name": …, …, "source": …}…]}
// An entry is the catalog's own record; its keys depend on its section (the catalog's fields, with units in
// their names: TFLOP/s, GB, kW). The listing leaves out what a reader of the catalog does not need (the file
// and line an entry came from, an accelerator's step-time calibration), so an entry read back lacks those.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "catalog/catalog.hpp"
#include "doc/fields.hpp"

namespace isoflop::doc {

// What to list: kind "all", "hardware", "grids", "laws", "models" or "cost"; one entry by name.
struct CatalogRequest {
  std::string kind = "all";
  std::optional<std::string> name;
  std::optional<std::string> catalog_dir;  // the overlay the catalog was read with

  bool operator==(const CatalogRequest&) const = default;
};

// One entry of one section, typed.
struct CatalogEntry {
  std::variant<catalog::Accelerator, catalog::Node, catalog::Cluster, catalog::Grid, catalog::PuePreset,
               catalog::LawSpec, catalog::ModelEntry, catalog::ShapeFamily, catalog::MoeRecommendations,
               catalog::RunCostConstants, catalog::EmbodiedCarbon, catalog::TrainerRules>
      entry;
};
// The sections in the order of CatalogEntry's types, each with the kind that lists it.
struct CatalogSection {
  std::string_view name;
  std::string_view kind;
};
inline constexpr std::array<CatalogSection, 12> kCatalogSections = {{{"accelerators", "hardware"},
                                                                     {"nodes", "hardware"},
                                                                     {"clusters", "hardware"},
                                                                     {"grids", "grids"},
                                                                     {"pue", "grids"},
                                                                     {"laws", "laws"},
                                                                     {"models", "models"},
                                                                     {"shape_families", "models"},
                                                                     {"moe_recommendations", "models"},
                                                                     {"run_cost", "cost"},
                                                                     {"embodied_carbon", "cost"},
                                                                     {"trainers", "trainers"}}};
std::string_view section_name(const CatalogEntry& entry);

// {"section", then the entry's keys}.
void to_json(Json& j, const CatalogEntry& entry);
void from_json(const Json& j, CatalogEntry& entry);

struct CatalogDocument {
  CatalogRequest inputs;
  std::vector<CatalogEntry> entries;  // by section, in the catalog's order
};

// The entries of `request` from `catalog`. Throws FieldError ("kind", "name") for an unknown kind or name,
// with suggestions.
CatalogDocument catalog_document(const catalog::Catalog& catalog, const CatalogRequest& request);

template <>
inline constexpr auto fields<CatalogRequest> =
    std::tuple{field("kind", &CatalogRequest::kind), field("name", &CatalogRequest::name),
               field("catalog_dir", &CatalogRequest::catalog_dir)};

template <>
inline constexpr auto fields<CatalogDocument> = std::tuple{
    schema_key("catalog"), field("inputs", &CatalogDocument::inputs), field("entries", &CatalogDocument::entries)};

// The human page: per section, one line per entry (name, summary, source); with a name, every field.
std::string render_catalog(const CatalogDocument& d);

}  // namespace isoflop::doc
