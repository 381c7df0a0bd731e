// Fuzz target: a catalog overlay (YAML text, as from --catalog DIR) merged over the embedded catalog, then
// the references between entries checked, as load_catalog does for every overlay file.
#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const isoflop::catalog::Catalog embedded = isoflop::catalog::embedded_catalog();
  const std::string text = isoflop::fuzz::as_text(data, size);
  isoflop::catalog::Catalog catalog = embedded;
  try {
    isoflop::catalog::merge_catalog_text(text, "overlay.yaml", &catalog);
    isoflop::catalog::check_references(catalog);
    // Every entry the overlay left must be reachable by its id.
    for (const auto& a : catalog.accelerators) (void)catalog.accelerator(a.name);
    (void)catalog.run_cost_constants();
  } catch (const isoflop::Error&) {
  }
  return 0;
}
