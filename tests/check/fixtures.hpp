// Shared by the check tests: the embedded catalog and one rule's verdict on a proposal.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "check/evaluate.hpp"
#include "doc/proposal_input.hpp"

namespace isoflop::test {

inline const catalog::Catalog& cat() {
  static const auto c = catalog::load_catalog();
  return c;
}

// The verdict of the one rule `rule_yaml` (a policy's "rules:" entry) on `proposal`, read as the file `source`.
inline check::Verdict verdict(const std::string& proposal, const std::string& rule_yaml,
                              const std::string& source = "p.yaml") {
  const check::Policy policy = doc::parse_policy(cat(), "policy.yaml", "rules:\n  " + rule_yaml + "\n");
  const auto v = check::check_proposal(cat(), doc::parse_proposal(cat(), source, proposal), policy);
  REQUIRE(v.verdicts.size() == 1);
  INFO(v.verdicts[0].reason);
  return v.verdicts[0];
}

}  // namespace isoflop::test
