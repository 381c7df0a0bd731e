// The rule registry: every rule a policy may name, with its meaning, unit, source and the settings it takes,
// and the function that measures a proposal's facts against a setting.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "check/facts.hpp"
#include "check/policy.hpp"

namespace isoflop::check {

// What a rule found: not applicable (the proposal says nothing it could judge), or a measured value held
// against a threshold, with a reason a reviewer understands and, where one exists, the fix.
struct Finding {
  bool applicable = true;
  bool holds = true;
  std::optional<double> value;
  std::optional<double> threshold;
  std::string reason;
  std::string fix;
};

enum class SettingKind { kNumber, kText, kList };
// What the names of a kList setting must be.
enum class NameList { kAny, kGridRegions };
struct SettingSpec {
  const char* key;
  SettingKind kind;
  bool non_negative;  // a cap or floor that cannot be below zero
  double least = -std::numeric_limits<double>::infinity();  // bounds of a kNumber beyond its sign: a fraction's
  double most = std::numeric_limits<double>::infinity();    // 1, a count's floor of 1
  NameList names = NameList::kAny;

  // The lowest value the setting accepts (its sign and `least` together).
  double lowest() const { return non_negative && least < 0 ? 0.0 : least; }
};

struct RuleInfo {
  const char* name;      // "tokens_per_param"
  const char* meaning;   // one line
  const char* unit;      // of the measured value
  const char* source;    // paper, table or where the threshold comes from
  const char* field;     // the proposal field the verdict points at, for file:line ("arch|params": the first given)
  std::vector<SettingSpec> settings;
  Finding (*measure)(const RuleSetting& setting, const Facts& facts);
  // Judges without a bound from the policy: bounds of its own (ST-MoE's for the MoE rules), or a verdict of its
  // own (memory: the layout fits or not). A rule without either whose policy entry gives none of its numbers
  // would pass every proposal: the policy is refused.
  bool default_bounds = false;
};

const std::vector<RuleInfo>& rule_table();
const RuleInfo* find_rule(const std::string& name);
std::vector<std::string> rule_names();

// The families, one file each.
void add_scaling_rules(std::vector<RuleInfo>& table);
void add_memory_rules(std::vector<RuleInfo>& table);
void add_cost_rules(std::vector<RuleInfo>& table);
void add_moe_rules(std::vector<RuleInfo>& table);
void add_consistency_rules(std::vector<RuleInfo>& table);

// Helpers the families share: a value against `min`/`max` (either optional) in words.
Finding bounded(double value, const RuleSetting& setting, const std::string& what, const std::string& unit,
                const std::string& min_key = "min", const std::string& max_key = "max");
Finding not_applicable(const std::string& why);
std::string fmt(double value, int digits = 3);

}  // namespace isoflop::check
