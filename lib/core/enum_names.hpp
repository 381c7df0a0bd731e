// Every enum round-trips through a string: one table per enum, one parser for CLI, YAML and JSON.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace isoflop {

// A table of {value, name} pairs, declared once next to the enum:
//   inline constexpr EnumNames<Recompute, 3> kRecomputeNames{{{
//       {Recompute::kNone, "none"}, {Recompute::kSelective, "selective"}, {Recompute::kFull, "full"}}}};
template <typename E, size_t N>
struct EnumNames {
  std::array<std::pair<E, std::string_view>, N> entries;

  std::string_view name(E value) const {
    for (const auto& [v, n] : entries)
      if (v == value) return n;
    return "?";
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [v, n] : entries) out.emplace_back(n);
    return out;
  }

  // Parses `text`; on failure throws InputError naming `what` (an option or field) and the accepted names.
  E parse(std::string_view text, std::string_view what) const {
    if (const E* value = find(text)) return *value;
    throw InputError(std::string(what) + ": " + rejection(text));
  }

  // The same for a field of a library struct: throws FieldError(field, …), which the caller spells its way.
  E parse_field(std::string_view text, const std::string& field) const {
    if (const E* value = find(text)) return *value;
    throw FieldError(field, rejection(text));
  }

  // "'x' is not one of a|b|c" and a suggestion.
  std::string rejection(std::string_view text) const {
    return "'" + std::string(text) + "' is not one of " + join(names(), "|") + did_you_mean(text, names());
  }

 private:
  // The value named `text`, or null.
  const E* find(std::string_view text) const {
    for (const auto& [v, n] : entries)
      if (n == text) return &v;
    return nullptr;
  }
};

}  // namespace isoflop
