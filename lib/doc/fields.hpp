// Field tables: a struct's JSON keys listed once, in order, and used both to write the struct and to read it
// back, so the two directions cannot drift apart and adding a key is one line.
//
//   template <>
//   inline constexpr auto fields<scaling::SkippedLaw> =
//       std::tuple{field("law", &scaling::SkippedLaw::law), field("reason", &scaling::SkippedLaw::reason)};
//
// A type with a table needs no to_json/from_json of its own: the nlohmann serializer at the end of this file
// writes and reads every described type. A field is one of:
//   field(key, &S::member)          the member as its type says (an empty optional is null; arrays, maps and
//                                   described parts nest); reading is strict (doc::read)
//   field(key, &S::member, codec)   through a codec (doc/field_codecs.hpp): names(kXNames) or
//                                   names_or_null(kXNames, none) for enums, scaled(unit), null_when(value),
//                                   null_when_empty(), count(); as(table) for a member struct's other view
//   derived(key, fn)                written from fn(s), skipped on reading (recomputed from the members)
//   custom(key, write, read)        written from write(s), read by read(object[key], s)
//   group(key, fields…)             a nested object of the same struct's members
//   group_if(key, cond, fields…)    the same, or null when cond (a bool member or a predicate) is false
//   via(&S::member, fields…)        fields of a member struct (or a table of them), written into this object
//   when(pred, fields…)             the fields only where pred(s) holds (on reading: of the members read so far)
//   added_later(fields…)            keys a document gained after it was first written: always written; on
//                                   reading, a key that is absent (an older document) leaves its member's default
//   flat(&S::member)                the member's own serialization, merged into this object
//   on_read(fn)                     fn(object, s) after the others were read: checks and derived members
//   schema_key(kind)                "schema": "isoflop/<kind>/v2" (checked by the document reader, not here)
#pragma once

#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "doc/field_codecs.hpp"

namespace isoflop::doc {

// Specialized for each described type with its table, `std::tuple{field(…), …}`.
template <class T>
inline constexpr auto fields = nullptr;

template <class T>
concept Described = !std::is_same_v<std::remove_cv_t<decltype(fields<T>)>, std::nullptr_t>;

template <class T, class Table>
void write_all(Json& object, const T& value, const Table& table) {
  std::apply([&](const auto&... f) { (f.write(object, value), ...); }, table);
}
template <class T, class Table>
void read_all(const Json& object, T& value, const Table& table) {
  std::apply([&](const auto&... f) { (f.read(object, value), ...); }, table);
}

inline void require_object(const Json& node) {
  if (!node.is_object()) fail_at(node, "must be an object");
}

// The whole object from a table (the type's own, or another view of it such as a catalog listing).
template <class T, class Table>
void write_fields(Json& j, const T& value, const Table& table) {
  j = Json::object();
  write_all(j, value, table);
}
template <class T, class Table>
void read_fields(const Json& j, T& value, const Table& table) {
  require_object(j);
  value = T{};
  read_all(j, value, table);
}

// ---- A codec for member structs ------------------------------------------------------------------------

// A member struct (or an array of them) through a table of its fields: a view other than its type's own, or
// a type that has none.
template <class Table>
struct As {
  Table table;
  template <class M>
  Json encode(const M& v) const {
    Json j;
    if constexpr (kIsVector<M>) {
      j = Json::array();
      for (const auto& item : v) j.push_back(encode(item));
    } else {
      write_fields(j, v, table);
    }
    return j;
  }
  template <class M>
  void decode(const Json& j, const char* key, M& out) const {
    const Json& value = j.at(key);
    if constexpr (kIsVector<M>) {
      if (!value.is_array()) fail_at(value, "must be an array");
      for (const auto& item : value) read_fields(item, out.emplace_back(), table);
    } else {
      read_fields(value, out, table);
    }
  }
};
template <class Table>
constexpr As<Table> as(Table table) {
  return {table};
}

// ---- Kinds of field ------------------------------------------------------------------------------------

template <class S, class M, class Codec = AsIs>
struct Member {
  const char* key;
  M S::*member;
  Codec codec{};
  void write(Json& j, const S& s) const { j[key] = codec.encode(s.*member); }
  void read(const Json& j, S& s) const { codec.decode(j, key, s.*member); }
};
template <class S, class M>
constexpr Member<S, M> field(const char* key, M S::*member) {
  return {key, member};
}
template <class S, class M, class Codec>
constexpr Member<S, M, Codec> field(const char* key, M S::*member, Codec codec) {
  return {key, member, codec};
}

template <class F>
struct Derived {
  const char* key;
  F fn;
  template <class S>
  void write(Json& j, const S& s) const {
    j[key] = fn(s);
  }
  template <class S>
  void read(const Json&, S&) const {}
};
template <class F>
constexpr Derived<F> derived(const char* key, F fn) {
  return {key, fn};
}

template <class W, class R>
struct Custom {
  const char* key;
  W write_fn;
  R read_fn;
  template <class S>
  void write(Json& j, const S& s) const {
    j[key] = write_fn(s);
  }
  template <class S>
  void read(const Json& j, S& s) const {
    read_fn(j.at(key), s);
  }
};
template <class W, class R>
constexpr Custom<W, R> custom(const char* key, W write, R read) {
  return {key, write, read};
}

template <class Cond, class... F>
struct GroupIf {
  const char* key;
  Cond cond;  // a bool member (set on reading) or a predicate of the struct; std::nullptr_t: always
  std::tuple<F...> fields;
  template <class S>
  bool on(const S& s) const {
    if constexpr (std::is_same_v<Cond, std::nullptr_t>)
      return true;
    else if constexpr (std::is_member_object_pointer_v<Cond>)
      return s.*cond;
    else
      return cond(s);
  }
  template <class S>
  void write(Json& j, const S& s) const {
    if (!on(s)) {
      j[key] = nullptr;
      return;
    }
    Json sub = Json::object();
    write_all(sub, s, fields);
    j[key] = std::move(sub);
  }
  template <class S>
  void read(const Json& j, S& s) const {
    const Json& sub = j.at(key);
    if (sub.is_null() && !std::is_same_v<Cond, std::nullptr_t>) return;
    require_object(sub);
    if constexpr (std::is_member_object_pointer_v<Cond>) s.*cond = true;
    read_all(sub, s, fields);
  }
};
template <class... F>
constexpr GroupIf<std::nullptr_t, F...> group(const char* key, F... fields) {
  return {key, nullptr, {fields...}};
}
template <class Cond, class... F>
constexpr GroupIf<Cond, F...> group_if(const char* key, Cond cond, F... fields) {
  return {key, cond, {fields...}};
}

template <class S, class M, class... F>
struct Via {
  M S::*member;
  std::tuple<F...> fields;
  void write(Json& j, const S& s) const { write_all(j, s.*member, fields); }
  void read(const Json& j, S& s) const { read_all(j, s.*member, fields); }
};
template <class S, class M, class... F>
constexpr Via<S, M, F...> via(M S::*member, F... fields) {
  return {member, {fields...}};
}

template <class S, class M, class... F>
constexpr Via<S, M, F...> via(M S::*member, const std::tuple<F...>& fields) {
  return {member, fields};
}

template <class S, class M>
struct Flat {
  M S::*member;
  void write(Json& j, const S& s) const {
    const Json own = s.*member;
    for (const auto& [key, value] : own.items()) j[key] = value;
  }
  void read(const Json& j, S& s) const { j.get_to(s.*member); }
};
template <class S, class M>
constexpr Flat<S, M> flat(M S::*member) {
  return {member};
}

template <class... F>
struct AddedLater {
  std::tuple<F...> fields;
  template <class S>
  void write(Json& j, const S& s) const {
    write_all(j, s, fields);
  }
  template <class S>
  void read(const Json& j, S& s) const {
    std::apply([&](const auto&... f) { ((j.contains(f.key) ? f.read(j, s) : void()), ...); }, fields);
  }
};
template <class... F>
constexpr AddedLater<F...> added_later(F... fields) {
  return {{fields...}};
}

template <class Pred, class... F>
struct When {
  Pred pred;
  std::tuple<F...> fields;
  template <class S>
  void write(Json& j, const S& s) const {
    if (pred(s)) write_all(j, s, fields);
  }
  template <class S>
  void read(const Json& j, S& s) const {
    if (pred(s)) read_all(j, s, fields);
  }
};
template <class Pred, class... F>
constexpr When<Pred, F...> when(Pred pred, F... fields) {
  return {pred, {fields...}};
}

// A number written only when it is not `usual`, and read whenever its key is there (absent: `usual`). Unlike
// when(), whose test on reading sees only the members read so far, the key itself decides.
template <class S, class T>
struct UnlessUsual {
  const char* key;
  T S::*member;
  T usual;
  void write(Json& j, const S& s) const {
    if (s.*member != usual) j[key] = s.*member;
  }
  void read(const Json& j, S& s) const {
    s.*member = usual;
    if (j.contains(key) && !j.at(key).is_null()) read_value(j.at(key), s.*member);
  }
};
template <class S, class T>
constexpr UnlessUsual<S, T> unless_usual(const char* key, T S::*member, T usual) {
  return {key, member, usual};
}

template <class F>
struct OnRead {
  F fn;
  template <class S>
  void write(Json&, const S&) const {}
  template <class S>
  void read(const Json& j, S& s) const {
    fn(j, s);
  }
};
template <class F>
constexpr OnRead<F> on_read(F fn) {
  return {fn};
}

struct SchemaKey {
  const char* kind;
  template <class S>
  void write(Json& j, const S&) const {
    j["schema"] = schema_id(kind);
  }
  template <class S>
  void read(const Json&, S&) const {}
};
constexpr SchemaKey schema_key(const char* kind) { return {kind}; }

// Sets `v` to its alternative number `index` (default-constructed), as a reader learns it from a tag.
template <class Variant, size_t... I>
void emplace_alternative(Variant& v, size_t index, std::index_sequence<I...>) {
  ((index == I ? (void)v.template emplace<I>() : void()), ...);
}
template <class Variant>
void emplace_alternative(Variant& v, size_t index) {
  emplace_alternative(v, index, std::make_index_sequence<std::variant_size_v<Variant>>());
}

}  // namespace isoflop::doc

// Every described type is written and read through its table.
namespace nlohmann {
template <isoflop::doc::Described T>
struct adl_serializer<T, void> {
  static void to_json(isoflop::doc::Json& j, const T& value) {
    isoflop::doc::write_fields(j, value, isoflop::doc::fields<T>);
  }
  static void from_json(const isoflop::doc::Json& j, T& value) {
    isoflop::doc::read_fields(j, value, isoflop::doc::fields<T>);
  }
};
}  // namespace nlohmann
