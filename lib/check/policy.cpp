// Reading a rule's settings by key.
#include "check/policy.hpp"

namespace isoflop::check {

std::optional<double> RuleSetting::number(const std::string& key) const {
  if (auto it = numbers.find(key); it != numbers.end()) return it->second;
  return std::nullopt;
}

std::optional<std::string> RuleSetting::text(const std::string& key) const {
  if (auto it = texts.find(key); it != texts.end()) return it->second;
  return std::nullopt;
}

}  // namespace isoflop::check
