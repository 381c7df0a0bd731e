// Where a catalog comes from: the records of data/*.yaml compiled into the binary (catalog/records.hpp),
// overlaid by the user's own YAML files. Kept apart from lib/catalog's parsing, which the build tool that
// writes the records links without them.
#include <algorithm>
#include <filesystem>

#include "catalog/catalog.hpp"
#include "catalog/records.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"

namespace isoflop::catalog {

Catalog embedded_catalog() {
  // The build parsed and checked data/*.yaml (references included); reading the records builds no YAML tree.
  Catalog catalog;
  records::Reader reader(records::embedded_records());
  reader(catalog);
  if (!reader.done()) throw CatalogError("catalog: the embedded records have bytes left over");
  return catalog;
}

Catalog load_catalog(const std::optional<std::string>& overlay_dir) {
  Catalog catalog = embedded_catalog();
  if (overlay_dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(*overlay_dir, ec))
      throw FieldError("catalog_dir", "'" + *overlay_dir + "' is not a readable directory of *.yaml files");
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(*overlay_dir, ec))
      if (entry.path().extension() == ".yaml" || entry.path().extension() == ".yml") files.push_back(entry.path());
    if (ec) throw FieldError("catalog_dir", "cannot read directory '" + *overlay_dir + "': " + ec.message());
    std::sort(files.begin(), files.end());
    std::uintmax_t total = 0;
    DefinedAt defined;  // an entry defined in two overlay files is refused; each may override the embedded one
    for (const auto& path : files) {
      // A YAML tree takes ~50x its text in memory: the overlay is bounded before anything is parsed.
      const std::uintmax_t size = fs::file_size(path, ec);
      if (!ec && (total += size) > kMaxOverlayBytes)
        throw FieldError("catalog_dir", "'" + path.string() + "' makes the overlay " + std::to_string(total >> 20) +
                                            " MiB; at most " + std::to_string(kMaxOverlayBytes >> 20) +
                                            " MiB of catalog files are read");
      std::string text;
      try {
        text = read_input_text(path.string());
      } catch (const InputError& e) {
        throw FieldError("catalog_dir", e.what());
      }
      merge_catalog_text(text, path.string(), &catalog, &defined);
    }
  }
  if (overlay_dir) check_references(catalog);  // the build checked the embedded entries
  return catalog;
}

}  // namespace isoflop::catalog
