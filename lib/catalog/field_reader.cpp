// Typed reads of YAML catalog entries with file:line errors.
#include "catalog/field_reader.hpp"

#include <yaml-cpp/eventhandler.h>

#include <cmath>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "units/format.hpp"
#include "units/integer_limits.hpp"
#include "units/quantity.hpp"

namespace isoflop::catalog {

std::string location(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return file;
  return file + ":" + std::to_string(mark.line + 1);
}

namespace {

// Parser events that only note where each document starts.
struct DocumentStarts : YAML::EventHandler {
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

YAML::Node load_one_document(const std::string& text) {
  YAML::Node first = YAML::Load(text);
  // Documents are counted up to the second only: on some malformed text (",\x18\"") yaml-cpp's parser reports
  // empty documents without end, so YAML::LoadAll never returns.
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts documents;
  while (documents.starts.size() < 2 && parser.HandleNextDocument(documents)) {
  }
  if (documents.starts.size() > 1)
    throw YAML::ParserException(documents.starts[1], "a second document ('---') in the file; accepted: one document");
  return first;
}

void reject_duplicate_keys(const YAML::Node& root, const std::string& file) {
  std::vector<YAML::Node> pending{root};  // no recursion: a deep tree cannot overflow the stack here
  size_t visited = 0;
  // Counted as they are found, not as they are taken: a loop of several branches ([*a, *a, *a]) grows the list
  // faster than it is worked off.
  auto found = [&](size_t more) {
    visited += more;
    if (visited > kMaxYamlValues)
      throw CatalogError(file + ": more than " + std::to_string(kMaxYamlValues) +
                         " values once its aliases are expanded (an alias inside itself, or aliases of aliases); "
                         "isoflop's files have far fewer");
  };
  found(1);
  while (!pending.empty()) {
    const YAML::Node node = pending.back();
    pending.pop_back();
    if (node.IsMap() || node.IsSequence()) found(node.size());
    if (node.IsMap()) {
      std::unordered_map<std::string, int> seen;
      for (const auto& item : node) {
        if (item.first.IsScalar()) {
          const int line = item.first.Mark().line + 1;
          const auto [it, fresh] = seen.emplace(item.first.Scalar(), line);
          if (!fresh)
            throw CatalogError(file + ":" + std::to_string(line) + ": duplicate key '" + item.first.Scalar() +
                               "' (first at line " + std::to_string(it->second) + ")");
        }
        pending.push_back(item.second);
      }
    } else if (node.IsSequence()) {
      for (const auto& item : node) pending.push_back(item);
    }
  }
}

FieldReader::FieldReader(YAML::Node node, std::string file, std::string what)
    : node_(std::move(node)), file_(std::move(file)), what_(std::move(what)) {
  if (!node_.IsMap()) throw CatalogError(location(file_, node_) + ": " + what_ + " must be a mapping of fields");
  fields_.reserve(node_.size());
  for (const auto& item : node_) fields_.push_back({&item.first.Scalar(), item.second});
}

const YAML::Node* FieldReader::find(const std::string& key) const {
  for (const auto& f : fields_)
    if (*f.key == key) return &f.value;
  return nullptr;
}

const YAML::Node* FieldReader::field(const std::string& key) {
  for (auto& f : fields_)
    if (*f.key == key) {
      f.read = true;
      return &f.value;
    }
  absent_read_.push_back(key);
  return nullptr;
}

bool FieldReader::has(const std::string& key) const {
  const YAML::Node* value = find(key);
  return value && value->IsDefined() && !value->IsNull();
}

std::string FieldReader::where(const std::string& key) const {
  const YAML::Node* value = find(key);
  return value && value->IsDefined() ? location(file_, *value) : location(file_, node_);
}

long long FieldReader::limited(const std::string& key, long long value) const {
  try {
    units::check_integer_limit(key, value);
  } catch (const FieldError& e) {
    fail(key, e.message());
  }
  return value;
}

void FieldReader::fail(const std::string& key, const std::string& message) const {
  const std::string field = key.empty() ? "" : " field '" + key + "'";
  throw CatalogError(where(key) + ": " + what_ + field + ": " + message);
}

YAML::Node FieldReader::scalar(const std::string& key) {
  const YAML::Node* value = field(key);
  if (!value || !value->IsDefined() || value->IsNull()) fail(key, "is missing (required)");
  if (!value->IsScalar()) fail(key, "must be a single value, not a list or mapping");
  return *value;
}

std::string FieldReader::text(const std::string& key) { return scalar(key).Scalar(); }

std::string FieldReader::string(const std::string& key) {
  const std::string value = text(key);
  if (value.empty()) fail(key, "must not be empty");
  return value;
}

std::string FieldReader::string_or(const std::string& key, const std::string& fallback) {
  return has(key) ? string(key) : (field(key), fallback);
}

bool FieldReader::boolean_or(const std::string& key, bool fallback) {
  if (!has(key)) return field(key), fallback;
  const std::string value = text(key);
  if (value == "true" || value == "yes" || value == "on") return true;
  if (value == "false" || value == "no" || value == "off") return false;
  fail(key, "'" + value + "' is not a boolean; accepted: true or false");
}

double FieldReader::number(const std::string& key) {
  const std::string value = text(key);
  try {
    return units::parse_count(value, "value", units::Sign::kAny);  // "70e9" or "70B"
  } catch (const InputError&) {
    fail(key, "'" + value + "' is not a number");
  }
}

std::array<double, 2> FieldReader::range(const std::string& key, double least, const std::string& what) {
  const YAML::Node pair = child(key);
  std::array<double, 2> out{};
  if (!pair.IsSequence() || pair.size() != 2) fail(key, "must be [" + what + "]");
  try {
    out = {pair[0].as<double>(), pair[1].as<double>()};
  } catch (const YAML::Exception&) {
    fail(key, "must be two numbers [" + what + "]");
  }
  if (!(out[0] >= least && out[1] >= out[0]))
    fail(key, "must be [" + what + "] with " + units::format_significant(least, 6) + " <= the first <= the second");
  return out;
}

double FieldReader::positive(const std::string& key) {
  const double value = number(key);
  if (!(value > 0)) fail(key, "must be positive, got " + text(key));
  return value;
}

double FieldReader::positive_or(const std::string& key, double fallback) {
  return has(key) ? positive(key) : (field(key), fallback);
}

std::optional<double> FieldReader::optional_positive(const std::string& key) {
  if (!has(key)) return field(key), std::nullopt;
  return positive(key);
}

double FieldReader::non_negative_or(const std::string& key, double fallback) {
  if (!has(key)) return field(key), fallback;
  const double value = number(key);
  if (value < 0) fail(key, "must not be negative, got " + text(key));
  return value;
}

double FieldReader::fraction(const std::string& key) {
  const double value = number(key);
  if (!(value > 0 && value <= 1)) fail(key, "must be a fraction in (0, 1], got " + text(key));
  return value;
}

double FieldReader::fraction_or(const std::string& key, double fallback) {
  return has(key) ? fraction(key) : (field(key), fallback);
}

long long FieldReader::positive_integer(const std::string& key) {
  const double value = positive(key);
  if (value != std::floor(value) || value > 9e18) fail(key, "must be a whole number, got " + text(key));
  return static_cast<long long>(value);
}

long long FieldReader::positive_integer_or(const std::string& key, long long fallback) {
  return has(key) ? positive_integer(key) : (field(key), fallback);
}

long long FieldReader::non_negative_integer_or(const std::string& key, long long fallback) {
  if (!has(key)) return field(key), fallback;
  const double value = non_negative_or(key, 0);
  if (value != std::floor(value) || value > 9e18) fail(key, "must be a whole number, got " + text(key));
  return static_cast<long long>(value);
}

int FieldReader::int_in(const std::string& key, long long low, long long high) {
  const double value = number(key);
  if (low == 1 && !(value > 0)) fail(key, "must be positive, got " + text(key));
  if (value != std::floor(value) || value < static_cast<double>(low) || value > static_cast<double>(high))
    fail(key, "must be a whole number from " + std::to_string(low) + " to " + std::to_string(high) + ", got " +
                  text(key));
  return static_cast<int>(value);
}

int FieldReader::int_in_or(const std::string& key, long long low, long long high, int fallback) {
  return has(key) ? int_in(key, low, high) : (field(key), fallback);
}

double FieldReader::power_w(const std::string& key) {
  const std::string value = text(key);
  try {
    return units::parse_power_w(value, "value");
  } catch (const InputError&) {
    try {
      return units::parse_number(value, "value");  // a bare number is in watts
    } catch (const InputError&) {
    }
    fail(key, "'" + value + "' is not a positive power; accepted: a number of watts or a value with W, kW, MW");
  }
}

std::optional<double> FieldReader::optional_power_w(const std::string& key) {
  if (!has(key)) return field(key), std::nullopt;
  return power_w(key);
}

double FieldReader::intensity_kg_per_kwh(const std::string& key) {
  const std::string value = text(key);
  try {
    return units::parse_intensity_kg_per_kwh(value, "value", units::Sign::kNonNegative);
  } catch (const InputError&) {
    fail(key, "'" + value + "' is not a carbon intensity; accepted: a value with g/kWh, kg/kWh, t/MWh or lb/MWh");
  }
}

YAML::Node FieldReader::child(const std::string& key) {
  const YAML::Node* value = field(key);
  if (!value || !value->IsDefined() || value->IsNull()) fail(key, "is missing (required)");
  return *value;
}

std::optional<YAML::Node> FieldReader::optional_child(const std::string& key) {
  const YAML::Node* value = field(key);
  if (!value || !value->IsDefined() || value->IsNull()) return std::nullopt;
  return *value;
}

void FieldReader::finish() {
  bool all_read = true;
  for (const auto& f : fields_) all_read = all_read && f.read;
  if (all_read) return;
  std::set<std::string> read(absent_read_.begin(), absent_read_.end());
  for (const auto& f : fields_)
    if (f.read) read.insert(*f.key);
  const std::vector<std::string> known(read.begin(), read.end());
  for (const auto& item : node_) {
    if (!item.first.IsScalar())
      throw CatalogError(location(file_, item.first) + ": " + what_ + ": a field name must be a plain word, not a list or mapping");
    const std::string key = item.first.Scalar();
    if (!read.count(key))
      throw CatalogError(location(file_, item.first) + ": " + what_ + ": unknown field '" + key + "'" +
                         did_you_mean(key, known) + "; accepted: " + join(known));
  }
}

}  // namespace isoflop::catalog
