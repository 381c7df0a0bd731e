// Fuzz target: a launch file (Megatron-LM script, ds_config JSON, NeMo YAML, sbatch script) as `isoflop emit
// --check FILE` reads it, its target read from its form; and the shell reader's bound on what expansion adds.
#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "emit/emit.hpp"
#include "emit/shell.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const isoflop::catalog::Catalog catalog = isoflop::catalog::embedded_catalog();
  const std::string text = isoflop::fuzz::as_text(data, size);
  // All the words together: the script's own characters, the expansion budget (a mebibyte) and one word past it.
  size_t characters = 0;
  for (const auto& command : isoflop::emit::read_script_words(text).commands)
    for (const auto& word : command) characters += word.size();
  ISOFLOP_FUZZ_CHECK(characters <= size + (1u << 20) + 4096);
  isoflop::emit::EmitOptions options;
  options.catalog = &catalog;
  try {
    const auto report = isoflop::emit::check_file("launch", std::nullopt, text, options);
    for (const auto& problem : report.problems) ISOFLOP_FUZZ_CHECK(!problem.empty());
  } catch (const isoflop::Error&) {
  }
  return 0;
}
