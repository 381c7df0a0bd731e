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

// A table of {value, name} pairs. An enum and its table are declared together by ISOFLOP_NAMED_ENUM (below),
// which writes each enumerator once beside its name; a table over an enum declared elsewhere, or a subset of
// one, is written out:
//   inline constexpr EnumNames<GradReduce, 2> kGradReduceNames{{{{GradReduce::kFp32, "fp32"}, …}}};
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

// The table of `entries`, its size counted by the compiler (copied element by element: the CUDA sources are
// C++17, where std::pair has no constexpr assignment).
template <typename E, size_t N, size_t... I>
constexpr EnumNames<E, N> enum_names(const std::pair<E, std::string_view> (&entries)[N], std::index_sequence<I...>) {
  return EnumNames<E, N>{{{entries[I]...}}};
}
template <typename E, size_t N>
constexpr EnumNames<E, N> enum_names(const std::pair<E, std::string_view> (&entries)[N]) {
  return enum_names(entries, std::make_index_sequence<N>{});
}

}  // namespace isoflop

// ISOFLOP_NAMED_ENUM(Type, (kA, "a"), (kB, "b"), …) declares `enum class Type { kA, kB, … }` and
// `inline constexpr EnumNames<Type, N> kTypeNames` holding {Type::kA, "a"}, … in that order: an enumerator
// cannot be added without its name, nor a name without its enumerator.
#define ISOFLOP_NAMED_ENUM(Type, ...)                                                          \
  enum class Type { ISOFLOP_FOR_EACH(ISOFLOP_ENUMERATOR, Type, __VA_ARGS__) };                 \
  inline constexpr auto k##Type##Names =                                                       \
      ::isoflop::enum_names<Type>({ISOFLOP_FOR_EACH(ISOFLOP_ENUM_ENTRY, Type, __VA_ARGS__)})

// ISOFLOP_FOR_EACH(m, context, x1, x2, …) expands to m(context, x1) m(context, x2) …: each step re-queues the
// next one, and the nested rescans (4 × 4 × 4 levels) let up to 64 items unfold.
#define ISOFLOP_FOR_EACH(macro, context, ...) \
  __VA_OPT__(ISOFLOP_RESCAN(ISOFLOP_FOR_EACH_STEP(macro, context, __VA_ARGS__)))
#define ISOFLOP_FOR_EACH_STEP(macro, context, first, ...) \
  macro(context, first) __VA_OPT__(ISOFLOP_FOR_EACH_AGAIN ISOFLOP_PARENS(macro, context, __VA_ARGS__))
#define ISOFLOP_FOR_EACH_AGAIN() ISOFLOP_FOR_EACH_STEP
#define ISOFLOP_PARENS ()
#define ISOFLOP_RESCAN(...) ISOFLOP_RESCAN3(ISOFLOP_RESCAN3(ISOFLOP_RESCAN3(ISOFLOP_RESCAN3(__VA_ARGS__))))
#define ISOFLOP_RESCAN3(...) ISOFLOP_RESCAN2(ISOFLOP_RESCAN2(ISOFLOP_RESCAN2(ISOFLOP_RESCAN2(__VA_ARGS__))))
#define ISOFLOP_RESCAN2(...) ISOFLOP_RESCAN1(ISOFLOP_RESCAN1(ISOFLOP_RESCAN1(ISOFLOP_RESCAN1(__VA_ARGS__))))
#define ISOFLOP_RESCAN1(...) __VA_ARGS__

// One (enumerator, "name") pair: its enumerator, and its table entry.
#define ISOFLOP_ENUMERATOR(Type, pair) ISOFLOP_PAIR_ID pair,
#define ISOFLOP_PAIR_ID(id, name) id
#define ISOFLOP_ENUM_ENTRY(Type, pair) ISOFLOP_ENUM_ENTRY_OF(Type, ISOFLOP_UNPAREN pair),
#define ISOFLOP_ENUM_ENTRY_OF(Type, ...) ISOFLOP_ENUM_ENTRY_AT(Type, __VA_ARGS__)
#define ISOFLOP_ENUM_ENTRY_AT(Type, id, name) std::pair<Type, std::string_view>{Type::id, name}
#define ISOFLOP_UNPAREN(...) __VA_ARGS__
