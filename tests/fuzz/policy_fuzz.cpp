// Fuzz target: a policy (YAML or JSON) as `isoflop check --policy FILE` reads it. Every rule it keeps is one of
// the rule table's, at a line of the file, with only the settings that rule takes.
#include "check/rules.hpp"
#include "core/error.hpp"
#include "doc/proposal_input.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = isoflop::fuzz::as_text(data, size);
  try {
    const isoflop::check::Policy policy = isoflop::doc::parse_policy("policy.yaml", text);
    for (const auto& rule : policy.rules) {
      const isoflop::check::RuleInfo* info = isoflop::check::find_rule(rule.rule);
      ISOFLOP_FUZZ_CHECK(info != nullptr);
      ISOFLOP_FUZZ_CHECK(rule.line >= 1);
      for (const auto& [key, value] : rule.numbers) {
        bool known = false;
        for (const auto& spec : info->settings) known = known || (key == spec.key && (!spec.non_negative || value >= 0));
        ISOFLOP_FUZZ_CHECK(known);
      }
    }
  } catch (const isoflop::Error&) {
  }
  return 0;
}
