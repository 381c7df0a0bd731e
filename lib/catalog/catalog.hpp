// The catalog: every published constant isoflop uses, from the embedded data/*.yaml overlaid by the
// user's own YAML files (--catalog DIR or ISOFLOP_CATALOG).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/cost_constants.hpp"
#include "catalog/grids.hpp"
#include "catalog/hardware.hpp"
#include "catalog/laws.hpp"
#include "catalog/models.hpp"
#include "catalog/shapes.hpp"
#include "catalog/trainers.hpp"

namespace isoflop::catalog {

struct Catalog {
  std::vector<Accelerator> accelerators;
  std::vector<Node> nodes;
  std::vector<Cluster> clusters;
  std::vector<Grid> grids;
  std::vector<PuePreset> pue_presets;
  std::vector<LawSpec> laws;
  std::vector<ModelEntry> models;
  std::vector<RunCostConstants> run_cost;         // cost.yaml: one entry, "default"
  std::vector<EmbodiedCarbon> embodied_carbon;    // cost.yaml: per accelerator id
  std::vector<ShapeFamily> shape_families;        // shapes.yaml: reference families for shaping
  std::vector<MoeRecommendations> moe_recommendations;  // shapes.yaml: one entry, "st-moe"
  std::vector<TrainerRules> trainers;             // trainers.yaml: runnability rules and defaults

  // Look-ups by id; an unknown id throws InputError naming `what` (the option), the id, a "did you mean"
  // and the accepted ids.
  const Accelerator& accelerator(const std::string& name, const std::string& what = "gpu") const;
  const Node& node(const std::string& name, const std::string& what = "node") const;
  const Cluster& cluster(const std::string& name, const std::string& what = "cluster") const;
  const Grid& grid(const std::string& name, const std::string& what = "grid") const;
  const PuePreset& pue_preset(const std::string& name, const std::string& what = "pue") const;
  const LawSpec& law(const std::string& name, const std::string& what = "law") const;
  const ModelEntry& model(const std::string& name, const std::string& what = "arch") const;
  const ShapeFamily& shape_family(const std::string& name, const std::string& what = "style") const;
  const TrainerRules& trainer(const std::string& name, const std::string& what = "trainer") const;

  const Accelerator* find_accelerator(const std::string& name) const;
  const Node* find_node(const std::string& name) const;
  const Grid* find_grid(const std::string& name) const;
  const PuePreset* find_pue_preset(const std::string& name) const;
  const LawSpec* find_law(const std::string& name) const;
  const ModelEntry* find_model(const std::string& name) const;
  const EmbodiedCarbon* find_embodied_carbon(const std::string& accelerator) const;
  // The "default" run_cost entry; throws CatalogError when a catalog lacks it.
  const RunCostConstants& run_cost_constants() const;
  // The "st-moe" moe_recommendations entry; throws CatalogError when a catalog lacks it.
  const MoeRecommendations& moe_recommendation() const;
};

// Parses one YAML document (`text`, named `file` in messages) and merges its sections into `catalog`:
// top-level keys accelerators, nodes, clusters, grids, pue, laws, models, run_cost, embodied_carbon, shape_families,
// moe_recommendations, trainers. An entry whose name exists already replaces it (that is how a user overrides a
// constant); a name twice in one file is an error. `defined` (kind and name -> "file:line"), kept across calls, makes a
// name defined in two of the files merged an error too: of two overlay files defining one grid, neither silently wins.
using DefinedAt = std::map<std::string, std::string>;
void merge_catalog_text(const std::string& text, const std::string& file, Catalog* catalog,
                        DefinedAt* defined = nullptr);

// Checks references between entries (a node's accelerator exists, a cluster's node exists, …).
void check_references(const Catalog& catalog);

// The most bytes of catalog files an overlay folder may hold (a parsed YAML tree takes ~50x its text).
inline constexpr unsigned long long kMaxOverlayBytes = 8ULL << 20;

// The embedded catalog overlaid by every *.yaml file in `overlay_dir` (if given), validated.
// Throws CatalogError with file:line on the first problem.
Catalog load_catalog(const std::optional<std::string>& overlay_dir = std::nullopt);

// The embedded catalog only: data/*.yaml as parsed and checked at build time, read back from its records
// (catalog/records.hpp) at each call, without a YAML tree.
Catalog embedded_catalog();

}  // namespace isoflop::catalog
