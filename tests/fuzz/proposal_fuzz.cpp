// Fuzz target: a training proposal (YAML or JSON) as `isoflop check PROPOSAL` reads it against the embedded
// catalog. Every field the reader accepts is in range, so a second read of the same text gives the same proposal.
#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "doc/proposal_input.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const isoflop::catalog::Catalog catalog = isoflop::catalog::embedded_catalog();
  const std::string text = isoflop::fuzz::as_text(data, size);
  try {
    const isoflop::check::Proposal p = isoflop::doc::parse_proposal(catalog, "proposal.yaml", text);
    ISOFLOP_FUZZ_CHECK(p.source == "proposal.yaml");
    ISOFLOP_FUZZ_CHECK(p.plan || p.tokens > 0);
    ISOFLOP_FUZZ_CHECK(p.plan || p.architecture.has_value() != p.params.has_value());
    for (const auto& [field, line] : p.marks) ISOFLOP_FUZZ_CHECK(line >= 1);
    // Reading is deterministic: a second read gives the same model, tokens and field lines.
    const isoflop::check::Proposal again = isoflop::doc::parse_proposal(catalog, "proposal.yaml", text);
    ISOFLOP_FUZZ_CHECK(again.tokens == p.tokens && again.params == p.params && again.marks == p.marks);
    ISOFLOP_FUZZ_CHECK(again.architecture == p.architecture);
  } catch (const isoflop::Error&) {
  }
  return 0;
}
