// The rule registry and the helpers the rule families share.
#include "check/rules.hpp"

#include <cmath>

#include "core/suggest.hpp"
#include "units/format.hpp"

namespace isoflop::check {

const std::vector<RuleInfo>& rule_table() {
  static const std::vector<RuleInfo> table = [] {
    std::vector<RuleInfo> t;
    add_scaling_rules(t);
    add_memory_rules(t);
    add_cost_rules(t);
    add_moe_rules(t);
    add_consistency_rules(t);
    return t;
  }();
  return table;
}

const RuleInfo* find_rule(const std::string& name) { return find_named(rule_table(), name); }

std::vector<std::string> rule_names() { return names_of(rule_table()); }

std::string fmt(double value, int digits) {
  const double a = std::fabs(value);
  return a >= 1e6 || (a > 0 && a < 1e-3) ? units::format_scientific(value, digits) : units::format_significant(value, digits);
}

namespace {

// The digits at which `value` reads apart from the bound it missed ("0.3499 is below the minimum 0.3500"), for
// both, so that neither reads past the other.
int digits_apart(double value, double bound) {
  int digits = 3;
  while (digits < 9 && fmt(value, digits) == fmt(bound, digits)) ++digits;
  return digits;
}

}  // namespace

Finding not_applicable(const std::string& why) {
  Finding f;
  f.applicable = false;
  f.reason = why;
  return f;
}

Finding bounded(double value, const RuleSetting& setting, const std::string& what, const std::string& unit,
                const std::string& min_key, const std::string& max_key) {
  Finding f;
  f.value = value;
  const std::string u = unit.empty() ? "" : " " + unit;
  const auto lo = setting.number(min_key);
  const auto hi = setting.number(max_key);
  if (lo && value < *lo) {
    f.holds = false;
    f.threshold = lo;
    const int d = digits_apart(value, *lo);
    f.reason = what + " " + fmt(value, d) + u + " is below the minimum " + fmt(*lo, d) + u;
  } else if (hi && value > *hi) {
    f.holds = false;
    f.threshold = hi;
    const int d = digits_apart(value, *hi);
    f.reason = what + " " + fmt(value, d) + u + " is above the maximum " + fmt(*hi, d) + u;
  } else {
    f.threshold = hi ? hi : lo;
    f.reason = what + " " + fmt(value) + u + (lo && hi   ? " is within [" + fmt(*lo) + ", " + fmt(*hi) + "]"
                                                : hi    ? " is at most " + fmt(*hi) + u
                                                : lo    ? " is at least " + fmt(*lo) + u
                                                        : "");
  }
  return f;
}

}  // namespace isoflop::check
