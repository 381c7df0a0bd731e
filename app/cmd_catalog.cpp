// isoflop catalog [hardware|grids|laws|models|cost] [NAME]: list catalog entries with their sources.
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "doc/catalog_document.hpp"

namespace isoflop::app {

int run_catalog(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("catalog"), args, {declared_options("catalog")}, {"kind", "name"});
  if (!parsed) return 0;
  const doc::CatalogRequest request{get_string(parsed->values, "kind").value_or("all"),
                                    get_string(parsed->values, "name"), parsed->common.catalog_dir};
  const doc::CatalogDocument document = doc::catalog_document(load_catalog(parsed->common), request);
  write_document(parsed->common, doc::Json(document), [&] { return doc::render_catalog(document); }, "entries");
  return 0;
}

}  // namespace isoflop::app
