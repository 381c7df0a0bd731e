// Codecs of field tables (doc/fields.hpp): how one member is written as a JSON value and read back from
// object[key] — as its type says, an enum by its names, a quantity in a larger unit, null for an unknown value,
// a count as an integer.
#pragma once

#include <cmath>
#include <optional>
#include <type_traits>

#include "doc/document.hpp"

namespace isoflop::doc {

template <class M>
inline constexpr bool kIsOptional = false;
template <class M>
inline constexpr bool kIsOptional<std::optional<M>> = true;

// As the member's type says.
struct AsIs {
  template <class M>
  Json encode(const M& v) const {
    if constexpr (kIsOptional<M>)
      return or_null(v);
    else
      return Json(v);
  }
  template <class M>
  void decode(const Json& j, const char* key, M& out) const {
    read(j, key, out);
  }
};

// An enum (or an optional one: null when empty) by its names.
template <class E, size_t N>
struct Named {
  const EnumNames<E, N>* table;
  Json encode(E v) const { return enum_json(v, *table); }
  Json encode(const std::optional<E>& v) const { return v ? encode(*v) : Json(nullptr); }
  void decode(const Json& j, const char* key, E& out) const { read_enum(j, key, *table, out); }
  void decode(const Json& j, const char* key, std::optional<E>& out) const {
    if (j.at(key).is_null())
      out.reset();
    else
      read_enum(j, key, *table, out.emplace());
  }
};
template <class E, size_t N>
constexpr Named<E, N> names(const EnumNames<E, N>& table) {
  return {&table};
}

// An enum by its names that also reads the name one value was written with before it was renamed (`former`).
template <class E, size_t N>
struct NamedOrFormer {
  Named<E, N> named;
  std::string_view former;
  E value;
  Json encode(E v) const { return named.encode(v); }
  void decode(const Json& j, const char* key, E& out) const {
    const auto it = j.find(key);
    if (it != j.end() && it->is_string() && it->template get_ref<const std::string&>() == former)
      out = value;
    else
      named.decode(j, key, out);
  }
};
template <class E, size_t N>
constexpr NamedOrFormer<E, N> names_or_former(const EnumNames<E, N>& table, std::string_view former, E value) {
  return {{&table}, former, value};
}

// An enum whose value `none` is written as null (and null reads as it).
template <class E, size_t N>
struct NamedOrNull {
  Named<E, N> named;
  E none;
  Json encode(E v) const { return v == none ? Json(nullptr) : named.encode(v); }
  void decode(const Json& j, const char* key, E& out) const {
    if (j.at(key).is_null())
      out = none;
    else
      named.decode(j, key, out);
  }
};
template <class E, size_t N>
constexpr NamedOrNull<E, N> names_or_null(const EnumNames<E, N>& table, E none) {
  return {{&table}, none};
}

// A quantity written in a larger unit: the JSON value is member / unit (bytes as GiB, FLOP/s as TFLOP/s).
struct Scaled {
  double unit;
  Json encode(double v) const { return v / unit; }
  Json encode(const std::optional<double>& v) const { return v ? encode(*v) : Json(nullptr); }
  void decode(const Json& j, const char* key, double& out) const {
    read(j, key, out);
    out *= unit;
  }
  void decode(const Json& j, const char* key, std::optional<double>& out) const {
    read(j, key, out);
    if (out) *out *= unit;
  }
};
constexpr Scaled scaled(double unit) { return {unit}; }

// The same where 0 means none (a smallest memory when no layout was valid): written as null, read back as 0.
struct ScaledOrNull {
  double unit;
  Json encode(double v) const { return v == 0 ? Json(nullptr) : Json(v / unit); }
  void decode(const Json& j, const char* key, double& out) const {
    if (j.at(key).is_null()) {
      out = 0;
      return;
    }
    read(j, key, out);
    out *= unit;
  }
};
constexpr ScaledOrNull scaled_or_null(double unit) { return {unit}; }

// A number whose value `unknown` (and, for floating point, any value that is not finite) is written as null,
// as is an empty optional; null reads as `unknown`.
template <class M>
struct NullWhen {
  M unknown;
  Json encode(M v) const {
    if constexpr (std::is_floating_point_v<M>)
      if (!std::isfinite(v)) return nullptr;
    return v == unknown ? Json(nullptr) : Json(v);
  }
  Json encode(const std::optional<M>& v) const { return v ? encode(*v) : Json(nullptr); }
  void decode(const Json& j, const char* key, M& out) const {
    if (j.at(key).is_null())
      out = unknown;
    else
      read(j, key, out);
  }
  void decode(const Json& j, const char* key, std::optional<M>& out) const { decode(j, key, out.emplace()); }
};
template <class M>
constexpr NullWhen<M> null_when(M unknown) {
  return {unknown};
}

// A value whose default (an empty string, a zero) means "none": null in JSON; null or absent reads as the default.
struct NullWhenEmpty {
  template <class M>
  Json encode(const M& v) const {
    return v == M{} ? Json(nullptr) : Json(v);
  }
  template <class M>
  void decode(const Json& j, const char* key, M& out) const {
    std::optional<M> v;
    read(j, key, v);
    out = v.value_or(M{});
  }
};
constexpr NullWhenEmpty null_when_empty() { return {}; }

// A count kept as a double (tokens, bytes): an integer in JSON when it is one.
struct Count {
  Json encode(double v) const {
    return std::floor(v) == v && std::abs(v) < 9e18 ? Json(static_cast<long long>(v)) : Json(v);
  }
  void decode(const Json& j, const char* key, double& out) const { read(j, key, out); }
};
constexpr Count count() { return {}; }

}  // namespace isoflop::doc
