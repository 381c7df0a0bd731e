// isoflop catalog [hardware|grids|laws|models|cost] [NAME]: list catalog entries with their sources.
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "doc/catalog_document.hpp"

namespace isoflop::app {
namespace {

const CommandHelp kHelp = {
    "catalog",
    "isoflop catalog [hardware|grids|laws|models|cost] [NAME] [options]",
    "Lists the built-in catalogs (overlaid by --catalog DIR) with the source of every number: accelerators,\n"
    "nodes and clusters (hardware), grid carbon intensities and PUE presets (grids), scaling laws (laws)\n"
    "and reference architectures with the shaping families and ST-MoE's recommendations (models), run-cost constants and embodied carbon (cost). With NAME, shows one\n"
    "entry in full.",
    {"isoflop catalog                          # everything, one line per entry",
     "isoflop catalog hardware a100-sxm4-80gb  # one accelerator with its sources",
     "isoflop catalog laws -o json             # the laws as JSON",
     "isoflop catalog grids --catalog ./mine   # with your own overrides"}};

const OptionList kOptions = {"kind KIND: hardware|grids|laws|models|cost", "name NAME: one entry's id"};

}  // namespace

int run_catalog(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {kOptions}, {"kind", "name"});
  if (!parsed) return 0;
  const doc::CatalogRequest request{get_string(parsed->values, "kind").value_or("all"),
                                    get_string(parsed->values, "name"), parsed->common.catalog_dir};
  const doc::CatalogDocument document = doc::catalog_document(load_catalog(parsed->common), request);
  write_document(parsed->common, doc::Json(document), [&] { return doc::render_catalog(document); }, "entries");
  return 0;
}

}  // namespace isoflop::app
