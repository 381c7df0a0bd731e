// Typed, validated reads of one YAML catalog entry; every error names file:line, the field and the rule.
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace isoflop::catalog {

// "data/hardware.yaml:12" for a node, from yaml-cpp's mark (0-based line).
std::string location(const std::string& file, const YAML::Node& node);

// The most values a YAML input may hold once its aliases are expanded. Aliases make a graph of the text: one
// inside itself never ends, and a few lines of aliases of aliases expand to billions of values; the largest
// catalog file has some thousands.
inline constexpr size_t kMaxYamlValues = 4'000'000;

// Throws CatalogError "file:12: duplicate key 'lr' (first at line 9)" when any mapping in the tree under
// `root` has a key twice (YAML parsers keep one silently), and "file: more than 4000000 values …" past
// kMaxYamlValues. Every YAML input calls it after parsing.
void reject_duplicate_keys(const YAML::Node& root, const std::string& file);

// YAML::Load of a text that must hold one document: a second one ("---" and more) would be ignored by
// YAML::Load, so it is refused here with a YAML::ParserException at its line, as PyYAML's safe_load refuses it.
YAML::Node load_one_document(const std::string& text);

// Reads the fields of one mapping (a catalog entry). Quantity fields accept a number in the unit named by
// the key (`memory_gib: 80`) or, where a unit parser is used, a string with a unit (`max_power: 6.5 kW`).
// Call `finish()` after reading: a key that was never read is rejected as unknown (typos are errors).
class FieldReader {
 public:
  // `what` describes the entry for messages, e.g. "accelerator 'a100-sxm4-80gb'".
  FieldReader(YAML::Node node, std::string file, std::string what);

  bool has(const std::string& key) const;
  std::string where(const std::string& key) const;  // file:line of the key's value (or of the entry)
  const std::string& file() const { return file_; }
  const YAML::Node& node() const { return node_; }

  std::string string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& fallback);
  bool boolean_or(const std::string& key, bool fallback);

  double positive(const std::string& key);
  double positive_or(const std::string& key, double fallback);
  std::optional<double> optional_positive(const std::string& key);
  double non_negative_or(const std::string& key, double fallback);
  double number(const std::string& key);           // any finite value
  double fraction(const std::string& key);         // in (0, 1]
  double fraction_or(const std::string& key, double fallback);
  long long positive_integer(const std::string& key);
  long long positive_integer_or(const std::string& key, long long fallback);
  long long non_negative_integer_or(const std::string& key, long long fallback);
  // A whole number in [low, high] that fits an int (counts of devices, years), checked before any arithmetic.
  int int_in(const std::string& key, long long low, long long high);
  int int_in_or(const std::string& key, long long low, long long high, int fallback);
  // `value` (read from `key`) within the sanity limit every command applies to that field ("seq", "vocab",
  // "global_batch"; units/integer_limits.hpp), so that their products stay within 64 bits.
  long long limited(const std::string& key, long long value) const;

  // Quantities with units, parsed by lib/units (a bare number is taken in the SI unit: W, J, s, kg/kWh).
  double power_w(const std::string& key);
  std::optional<double> optional_power_w(const std::string& key);
  double intensity_kg_per_kwh(const std::string& key);

  // A [low, high] pair of numbers with low <= high, each at least `least` ("must be [low, high] with ..."
  // naming `what`, e.g. "smallest, largest").
  std::array<double, 2> range(const std::string& key, double least, const std::string& what = "low, high");

  // A sub-mapping or sequence, marked as read.
  YAML::Node child(const std::string& key);
  std::optional<YAML::Node> optional_child(const std::string& key);

  // Rejects keys that were never read, suggesting the closest known one.
  void finish();

  // Throws CatalogError at this entry (or at `key`) with `message`.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

 private:
  YAML::Node scalar(const std::string& key);
  std::string text(const std::string& key);
  // The entry's field named `key` (nullptr when absent), marked as read; an absent key is remembered as read.
  const YAML::Node* field(const std::string& key);
  const YAML::Node* find(const std::string& key) const;

  // The mapping's fields, listed once: looking a key up in yaml-cpp's map converts every key it passes.
  struct Field {
    const std::string* key;  // the key node's text, owned by node_
    YAML::Node value;
    bool read = false;
  };
  YAML::Node node_;
  std::string file_;
  std::string what_;
  std::vector<Field> fields_;
  std::vector<std::string> absent_read_;  // keys asked for that the entry does not have
};

}  // namespace isoflop::catalog
