// A policy: the rules a proposal is held to, each with its thresholds and a severity (`error` fails the gate,
// `warn` reports). Plain data; lib/doc/proposal_input reads it from YAML or JSON.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"

namespace isoflop::check {

ISOFLOP_NAMED_ENUM(Severity, (kError, "error"), (kWarn, "warn"));

// One rule as a policy sets it: `tokens_per_param: {min: 10, max: 200, severity: warn}`.
struct RuleSetting {
  std::string rule;                             // a name of rule_table()
  Severity severity = Severity::kError;
  std::map<std::string, double> numbers;        // "min", "max", "max_percent" … in the rule's unit
  std::map<std::string, std::string> texts;     // "law", "trainer"
  std::vector<std::string> allow;               // "allow" lists (regions)
  int line = 1;                                 // where the policy sets it

  std::optional<double> number(const std::string& key) const;
  std::optional<std::string> text(const std::string& key) const;
  bool operator==(const RuleSetting&) const = default;
};

struct Policy {
  std::string source;
  std::vector<RuleSetting> rules;  // in the policy's order
  bool operator==(const Policy&) const = default;
};

}  // namespace isoflop::check
