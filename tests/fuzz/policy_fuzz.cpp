// Fuzz target: a policy (YAML or JSON) as `isoflop check --policy FILE` reads it. Every rule it keeps is one of
// the rule table's, at a line of the file, with only the settings that rule takes.
#include <algorithm>

#include "catalog/catalog.hpp"
#include "check/rules.hpp"
#include "core/error.hpp"
#include "doc/proposal_input.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const isoflop::catalog::Catalog catalog = isoflop::catalog::embedded_catalog();
  const std::string text = isoflop::fuzz::as_text(data, size);
  try {
    const isoflop::check::Policy policy = isoflop::doc::parse_policy(catalog, "policy.yaml", text);
    for (const auto& rule : policy.rules) {
      const isoflop::check::RuleInfo* info = isoflop::check::find_rule(rule.rule);
      ISOFLOP_FUZZ_CHECK(info != nullptr);
      ISOFLOP_FUZZ_CHECK(rule.line >= 1);
      for (const auto& [key, value] : rule.numbers) {
        bool known = false;
        for (const auto& spec : info->settings)
          known = known || (key == spec.key && value >= spec.lowest() && value <= spec.most);
        ISOFLOP_FUZZ_CHECK(known);
      }
      for (const auto& name : rule.allow)  // every allowed region is one the catalog has
        ISOFLOP_FUZZ_CHECK(
            std::any_of(catalog.grids.begin(), catalog.grids.end(), [&](const auto& g) { return g.name == name; }));
    }
  } catch (const isoflop::Error&) {
  }
  return 0;
}
