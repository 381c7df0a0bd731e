// --arch NAME|FILE resolution: catalog ids, models.yaml-style files, and documents that carry an architecture.
#include "doc/architecture_input.hpp"

#include <filesystem>

#include "catalog/field_reader.hpp"
#include "catalog/models.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "doc/architecture_json.hpp"
#include "doc/yaml_json.hpp"

namespace isoflop::doc {
namespace {

// Keys the architecture serializer derives from the members: skipped when a bare architecture object is read.
constexpr const char* kDerivedKeys[] = {"effective_kv_heads", "effective_head_size", "effective_ffn",
                                        "padded_vocab",       "aspect_ratio",        "moe_layers",
                                        "params",             "non_embedding_params", "active_params"};

// A models.yaml-style mapping (or the serializer's object without a schema).
model::Architecture architecture_from_yaml(const std::string& source, YAML::Node root) {
  if (!root.IsMap()) throw CatalogError(source + ":1: an architecture must be a mapping of fields (layers, d_model, …)");
  for (const char* key : kDerivedKeys) root.remove(key);
  if (root["moe"].IsMap()) root["moe"].remove("effective_expert_ffn");
  if (root["name"].IsScalar() && root["name"].Scalar().empty()) root.remove("name");  // unnamed: the file's stem
  catalog::FieldReader reader(root, source, "architecture");
  model::Architecture a = catalog::parse_architecture(reader);
  (void)reader.string_or("display_name", "");
  (void)reader.string_or("source", "");
  reader.finish();
  return a;
}

}  // namespace

model::Architecture architecture_of(const SourceDocument& document) {
  require_kind(document, kArchitectureKinds);
  if (!document.json.contains("architecture") || document.json.at("architecture").is_null())
    throw InputError(document.source + ": architecture: missing (this " + document.kind +
                     " document carries no architecture)");
  return decode<model::Architecture>(document, document.json.at("architecture"));
}

model::Architecture resolve_architecture(const catalog::Catalog& cat, const std::string& name_or_file) {
  if (const catalog::ModelEntry* m = cat.find_model(name_or_file)) return m->architecture;
  std::error_code ec;
  if (name_or_file != "-" && !std::filesystem::is_regular_file(name_or_file, ec)) {
    // A path (a folder that exists, a name with a folder or a document's extension) is a file that cannot be read,
    // said as such (read_input_text throws); anything else is a catalog id.
    const std::filesystem::path path(name_or_file);
    const std::string ext = path.extension().string();
    if (std::filesystem::exists(path, ec) || name_or_file.find('/') != std::string::npos || ext == ".yaml" ||
        ext == ".yml" || ext == ".json")
      (void)read_input_text(name_or_file);
    (void)cat.model(name_or_file, "arch");  // throws with "did you mean" and the accepted ids
  }
  const std::string source = input_name(name_or_file);
  const std::string text = read_input_text(name_or_file);
  const YAML::Node root = looks_like_json(text) ? YAML::Node() : load_yaml(source, text);
  const bool document = looks_like_json(text) ? Json::parse(text, nullptr, false).contains("schema")
                                              : root.IsMap() && root["schema"].IsDefined();
  model::Architecture a = document ? architecture_of(parse_document(source, text))
                                   : architecture_from_yaml(source, looks_like_json(text) ? load_yaml(source, text) : root);
  if (a.name.empty() && name_or_file != "-") a.name = std::filesystem::path(name_or_file).stem().string();
  return a;
}

}  // namespace isoflop::doc
