// Result documents: every command's result is a typed struct with to_json/from_json (nlohmann's ADL
// serializers) under a schema string "isoflop/<kind>/v2". This header holds what every document shares:
// the schema header, reading a document back with errors that name the file and the JSON path
// ("plan.json: layouts[0].tp: missing"), and the field helpers the serializers use.
//
// The build defines JSON_DIAGNOSTICS, so nlohmann's exceptions carry the JSON pointer of the failing value;
// decode() turns them into one-line InputErrors.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/enum_names.hpp"

namespace isoflop::doc {

using Json = nlohmann::ordered_json;

inline constexpr int kVersion = 2;

// "isoflop/<kind>/v2".
std::string schema_id(std::string_view kind);

// A document read from a file or stdin: where it came from, its kind ("plan"), and the parsed JSON.
struct SourceDocument {
  std::string source;  // "plan.json", "<stdin>"
  std::string kind;
  Json json;
};

// The data of `text`, JSON or a YAML mapping, before any schema check: inputs that are not documents (a
// proposal, a policy) are read by the same reader. With `lines`, a YAML input's fields' lines by JSON path.
Json parse_data(const std::string& source, std::string_view text, std::map<std::string, int>* lines = nullptr);

// Parses `text` — JSON as -o json writes it, or YAML as -o yaml writes it — and checks its schema: not JSON
// or YAML, no schema, not an isoflop document, or another version is a one-line InputError naming `source`
// (a YAML syntax error a CatalogError naming source:line).
SourceDocument parse_document(const std::string& source, std::string_view text);
// The same for a path ("-" is stdin): the one reader of documents.
SourceDocument read_document(const std::string& path);

// Runs `check`, a validate() of values read from `document`'s `section`, and re-throws its FieldError as an
// InputError naming the document's key ("plan.json: cluster.gpus: must be positive, got 0"), where a command
// line would name a flag that was not given. `keys` maps a validate() field to its key where they differ.
void check_document_section(const SourceDocument& document, const std::string& section,
                            const std::function<void()>& check, const std::map<std::string, std::string>& keys = {});
// Throws InputError unless the document is one of `kinds`.
void require_kind(const SourceDocument& document, const std::vector<std::string_view>& kinds);

// The JSON path of an nlohmann exception raised while decoding, as "layouts[0].tp: missing"; `e.what()`
// when it carries none.
std::string describe_json_error(const std::exception& e);

[[noreturn]] void throw_decode_error(const std::string& source, const std::exception& e);

// Decodes `node` (the document or a part of it, by reference into document.json) into T; a missing field,
// a wrong type or a bad value is an InputError "<source>: <path>: <what>".
template <class T>
T decode(const SourceDocument& document, const Json& node) {
  try {
    return node.get<T>();
  } catch (const Json::exception& e) {
    throw_decode_error(document.source, e);
  }
}
template <class T>
T decode(const SourceDocument& document) {
  return decode<T>(document, document.json);
}

// ---- Field helpers for serializers ----------------------------------------------------------------------

// Fails decoding at `node` with `what` (the message gets node's JSON path).
[[noreturn]] void fail_at(const Json& node, const std::string& what);

template <class T>
inline constexpr bool kIsVector = false;
template <class T>
inline constexpr bool kIsVector<std::vector<T>> = true;

// Reads a JSON value with a strict type: integers must be JSON integers, numbers any JSON number, strings
// strings, booleans booleans, arrays arrays (element by element); anything else goes through nlohmann's get_to.
template <class T>
void read_value(const Json& value, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) fail_at(value, "must be true or false");
    out = value.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    // A whole number written as a float (41.0, 4.1e1) is the integer JSON Schema's "integer" takes it for.
    const bool whole_float = value.is_number_float() && std::isfinite(value.get<double>()) &&
                             value.get<double>() == std::floor(value.get<double>());
    if (!value.is_number_integer() && !whole_float) fail_at(value, "must be an integer");
    if constexpr (std::is_unsigned_v<T>) {
      if (whole_float ? value.get<double>() < 0 : !value.is_number_unsigned() && value.get<long long>() < 0)
        fail_at(value, "must not be negative");
    }
    const long double v = whole_float                  ? static_cast<long double>(value.get<double>())
                          : value.is_number_unsigned() ? static_cast<long double>(value.get<unsigned long long>())
                                                       : static_cast<long double>(value.get<long long>());
    if (v < static_cast<long double>(std::numeric_limits<T>::lowest()) ||
        v > static_cast<long double>(std::numeric_limits<T>::max()))
      fail_at(value, value.dump() + " is out of range; accepted: " +
                         (v > 0 ? "at most " + std::to_string(std::numeric_limits<T>::max())
                                : "at least " + std::to_string(std::numeric_limits<T>::lowest())));
    out = static_cast<T>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) fail_at(value, "must be a number");
    out = value.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) fail_at(value, "must be a string");
    out = value.get<std::string>();
  } else if constexpr (kIsVector<T>) {
    if (!value.is_array()) fail_at(value, "must be an array");
    out.clear();
    out.reserve(value.size());
    for (const auto& item : value) read_value(item, out.emplace_back());
  } else {
    value.get_to(out);
  }
}

// A required field.
template <class T>
void read(const Json& object, const char* key, T& out) {
  read_value(object.at(key), out);
}

// An optional field: absent or null is std::nullopt.
template <class T>
void read(const Json& object, const char* key, std::optional<T>& out) {
  if (!object.contains(key) || object.at(key).is_null()) {
    out.reset();
    return;
  }
  T value{};
  read(object, key, value);
  out = std::move(value);
}

// Writes a value, null for an empty optional.
template <class T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}
// Non-finite numbers are null in JSON.
Json finite_or_null(double value);

// Enums by their EnumNames table.
template <class E, size_t N>
Json enum_json(E value, const EnumNames<E, N>& names) {
  return std::string(names.name(value));
}
template <class E, size_t N>
void read_enum(const Json& object, const char* key, const EnumNames<E, N>& names, E& out) {
  const Json& value = object.at(key);
  if (!value.is_string()) fail_at(value, "must be one of " + join(names.names(), "|"));
  const std::string text = value.get<std::string>();
  for (const auto& [v, n] : names.entries)
    if (n == text) {
      out = v;
      return;
    }
  fail_at(value, "'" + text + "' is not one of " + join(names.names(), "|"));
}

}  // namespace isoflop::doc
