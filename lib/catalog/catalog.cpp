// Loading and merging catalogs, and look-ups with "did you mean" suggestions.
#include "catalog/catalog.hpp"

#include <set>
#include <unordered_map>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace isoflop::catalog {
namespace {

template <typename T>
const T* find_by_name(const std::vector<T>& items, const std::string& name) {
  for (const auto& item : items)
    if (item.name == name) return &item;
  return nullptr;
}

template <typename T>
const T& get_by_name(const std::vector<T>& items, const std::string& name, const std::string& what,
                     const char* kind) {
  if (const T* item = find_by_name(items, name)) return *item;
  std::vector<std::string> names;
  for (const auto& item : items) names.push_back(item.name);
  throw FieldError(what, "unknown " + std::string(kind) + " '" + name + "'" + did_you_mean(name, names) +
                             "; accepted: " + join(names) + " (see 'isoflop catalog')");
}

// Parses every entry of one section and puts it into `items`, replacing same-named entries.
template <typename T, typename Parse>
void merge_section(const YAML::Node& section, const std::string& file, const char* kind, Parse parse,
                   std::vector<T>* items, DefinedAt* defined) {
  if (!section.IsSequence())
    throw CatalogError(location(file, section) + ": section '" + kind + "s' must be a list of entries");
  std::set<std::string> seen;
  std::unordered_map<std::string, size_t> index;  // name -> position: merging stays linear in the entries
  for (size_t i = 0; i < items->size(); ++i) index.emplace((*items)[i].name, i);
  for (const auto& entry : section) {
    std::string label = kind;
    if (entry.IsMap() && entry["name"].IsDefined() && entry["name"].IsScalar())
      label += " '" + entry["name"].Scalar() + "'";
    FieldReader reader(entry, file, label);
    T item = parse(reader);
    reader.finish();
    if (!seen.insert(item.name).second)
      throw CatalogError(reader.where("name") + ": duplicate " + kind + " name '" + item.name + "' in this file");
    if (defined) {
      const auto [at, first] = defined->emplace(std::string(kind) + '\0' + item.name, reader.where("name"));
      if (!first)
        throw CatalogError(reader.where("name") + ": " + kind + " '" + item.name + "' is also defined at " +
                           at->second + "; define it in one file");
    }
    if (const auto it = index.find(item.name); it != index.end()) {
      (*items)[it->second] = std::move(item);
    } else {
      index.emplace(item.name, items->size());
      items->push_back(std::move(item));
    }
  }
}

}  // namespace

#define ISOFLOP_LOOKUP(Type, method, member, kind)                                          \
  const Type& Catalog::method(const std::string& name, const std::string& what) const {   \
    return get_by_name(member, name, what, kind);                                        \
  }
ISOFLOP_LOOKUP(Accelerator, accelerator, accelerators, "accelerator")
ISOFLOP_LOOKUP(Node, node, nodes, "node")
ISOFLOP_LOOKUP(Cluster, cluster, clusters, "cluster")
ISOFLOP_LOOKUP(Grid, grid, grids, "grid region")
ISOFLOP_LOOKUP(PuePreset, pue_preset, pue_presets, "PUE preset")
ISOFLOP_LOOKUP(LawSpec, law, laws, "law")
ISOFLOP_LOOKUP(ModelEntry, model, models, "model")
ISOFLOP_LOOKUP(ShapeFamily, shape_family, shape_families, "shape family")
ISOFLOP_LOOKUP(TrainerRules, trainer, trainers, "trainer")
#undef ISOFLOP_LOOKUP

const Accelerator* Catalog::find_accelerator(const std::string& name) const { return find_by_name(accelerators, name); }
const Node* Catalog::find_node(const std::string& name) const { return find_by_name(nodes, name); }
const Grid* Catalog::find_grid(const std::string& name) const { return find_by_name(grids, name); }
const PuePreset* Catalog::find_pue_preset(const std::string& name) const { return find_by_name(pue_presets, name); }
const LawSpec* Catalog::find_law(const std::string& name) const { return find_by_name(laws, name); }
const ModelEntry* Catalog::find_model(const std::string& name) const { return find_by_name(models, name); }
const EmbodiedCarbon* Catalog::find_embodied_carbon(const std::string& accelerator) const {
  return find_by_name(embodied_carbon, accelerator);
}
const RunCostConstants& Catalog::run_cost_constants() const {
  if (const auto* c = find_by_name(run_cost, std::string("default"))) return *c;
  throw CatalogError("catalog: no run_cost entry named 'default' (data/cost.yaml)");
}
const MoeRecommendations& Catalog::moe_recommendation() const {
  if (const auto* m = find_by_name(moe_recommendations, std::string("st-moe"))) return *m;
  throw CatalogError("catalog: no moe_recommendations entry named 'st-moe' (data/shapes.yaml)");
}

namespace {

// Merges a parsed tree, checked for duplicate keys already.
void merge_catalog_node(const YAML::Node& root, const std::string& file, Catalog* catalog, DefinedAt* defined) {
  if (root.IsNull()) return;
  if (!root.IsMap())
    throw CatalogError(location(file, root) +
                       ": a catalog file must be a mapping of sections (accelerators, nodes, clusters, grids, pue, "
                       "laws, models, run_cost, embodied_carbon, shape_families, moe_recommendations, trainers)");
  static const std::vector<std::string> kSections = {"accelerators",   "nodes",          "clusters",
                                                     "grids",          "pue",            "laws",
                                                     "models",         "run_cost",       "embodied_carbon",
                                                     "shape_families", "moe_recommendations", "trainers"};
  for (const auto& item : root) {
    if (!item.first.IsScalar())
      throw CatalogError(location(file, item.first) + ": a section name must be a plain word, not a list or mapping");
    const std::string key = item.first.Scalar();
    const YAML::Node& section = item.second;
    try {
      if (key == "accelerators")
        merge_section(section, file, "accelerator", parse_accelerator, &catalog->accelerators, defined);
      else if (key == "nodes")
        merge_section(section, file, "node", parse_node, &catalog->nodes, defined);
      else if (key == "clusters")
        merge_section(section, file, "cluster", parse_cluster, &catalog->clusters, defined);
      else if (key == "grids")
        merge_section(section, file, "grid", parse_grid, &catalog->grids, defined);
      else if (key == "pue")
        merge_section(section, file, "pue preset", parse_pue_preset, &catalog->pue_presets, defined);
      else if (key == "laws")
        merge_section(section, file, "law", parse_law, &catalog->laws, defined);
      else if (key == "models")
        merge_section(section, file, "model", parse_model, &catalog->models, defined);
      else if (key == "run_cost")
        merge_section(section, file, "run_cost", parse_run_cost_constants, &catalog->run_cost, defined);
      else if (key == "embodied_carbon")
        merge_section(section, file, "embodied_carbon", parse_embodied_carbon, &catalog->embodied_carbon, defined);
      else if (key == "shape_families")
        merge_section(section, file, "shape family", parse_shape_family, &catalog->shape_families, defined);
      else if (key == "moe_recommendations")
        merge_section(section, file, "moe_recommendations", parse_moe_recommendations, &catalog->moe_recommendations,
                      defined);
      else if (key == "trainers")
        merge_section(section, file, "trainer", parse_trainer, &catalog->trainers, defined);
      else if (key == "version" || key == "description") continue;
      else
        throw CatalogError(location(file, item.first) + ": unknown section '" + key + "'" +
                           did_you_mean(key, kSections) + "; accepted: " + join(kSections));
    } catch (const YAML::Exception& e) {
      throw CatalogError(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
  }
}
}  // namespace

void merge_catalog_text(const std::string& text, const std::string& file, Catalog* catalog, DefinedAt* defined) {
  YAML::Node root;
  try {
    root = load_one_document(text);
  } catch (const YAML::Exception& e) {
    throw CatalogError(file + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  if (root.IsNull()) return;  // an empty file adds nothing
  reject_duplicate_keys(root, file);
  merge_catalog_node(root, file, catalog, defined);
}

void check_references(const Catalog& c) {
  for (const auto& a : c.accelerators)
    if (!a.reference_node.empty() && !c.find_node(a.reference_node))
      throw CatalogError(a.file + ": accelerator '" + a.name + "' names unknown reference_node '" +
                         a.reference_node + "'");
  for (const auto& n : c.nodes)
    if (!c.find_accelerator(n.accelerator))
      throw CatalogError(n.file + ": node '" + n.name + "' names unknown accelerator '" + n.accelerator + "'");
  for (const auto& cl : c.clusters)
    if (!c.find_node(cl.node))
      throw CatalogError(cl.file + ": cluster '" + cl.name + "' names unknown node '" + cl.node + "'");
  for (const auto& e : c.embodied_carbon)
    if (!c.find_accelerator(e.name))
      throw CatalogError(e.file + ": embodied_carbon '" + e.name + "' names no accelerator in the catalog");
  for (const auto& f : c.shape_families)
    if (!c.find_model(f.block))
      throw CatalogError(f.file + ": shape family '" + f.name + "' names unknown block model '" + f.block + "'");
}

}  // namespace isoflop::catalog
