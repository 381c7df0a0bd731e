// --arch NAME|FILE resolution.
#include "app/arch_input.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "catalog/field_reader.hpp"
#include "catalog/models.hpp"
#include "core/error.hpp"

namespace isoflop::app {

model::Architecture resolve_architecture(const catalog::Catalog& cat, const std::string& name_or_file) {
  if (const catalog::ModelEntry* m = cat.find_model(name_or_file)) return m->architecture;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name_or_file, ec)) {
    (void)cat.model(name_or_file);  // throws with "did you mean" and the accepted ids
  }
  std::ifstream in(name_or_file);
  if (!in) throw InputError("--arch: cannot read '" + name_or_file + "'");
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    throw CatalogError(name_or_file + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  catalog::FieldReader reader(root, name_or_file, "architecture");
  model::Architecture a = catalog::parse_architecture(reader);
  (void)reader.string_or("display_name", "");
  (void)reader.string_or("source", "");
  reader.finish();
  if (a.name.empty()) a.name = std::filesystem::path(name_or_file).stem().string();
  return a;
}

}  // namespace isoflop::app
