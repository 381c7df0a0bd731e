// Rendering result documents as JSON, YAML and CSV.
#include "report/output.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/error.hpp"

namespace isoflop::report {

std::string first_non_finite(const Json& document) {
  if (document.is_number_float()) return std::isfinite(document.get<double>()) ? "" : "(the result)";
  if (!document.is_structured()) return "";
  size_t index = 0;
  for (auto it = document.begin(); it != document.end(); ++it, ++index) {
    const std::string inner = first_non_finite(*it);
    if (inner.empty()) continue;
    const std::string key = document.is_object() ? it.key() : std::to_string(index);
    return inner == "(the result)" ? key : key + "." + inner;
  }
  return "";
}

std::string number_text(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? ".nan" : (value > 0 ? ".inf" : "-.inf");
  char buffer[32];
  // A whole number below 1e15 is written whole (1920, not %g's 1.92e+03): exact, and what a reader expects.
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  // Use the shortest representation that round-trips.
  for (int precision = 1; precision <= 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return buffer;
}

namespace {

// number_text in a form every YAML reader takes for the float it is, as JSON's 70.0 is: YAML 1.1 (PyYAML) wants
// a dot in the mantissa and a signed exponent, so 4e+06 would be a string there and 70 an integer; 4.0e+06 and
// 70.0 are floats in YAML 1.1 and 1.2 alike.
std::string yaml_number_text(double value) {
  std::string text = number_text(value);
  if (!std::isfinite(value) || text.find('.') != std::string::npos) return text;
  const size_t e = text.find_first_of("eE");
  text.insert(e == std::string::npos ? text.size() : e, ".0");
  return text;
}

// Whether a YAML reader could take `text`, written plain, for something other than a string: a number (2024,
// 1.5, 1e3, 0x1F, 1_000, 12:30), a boolean or null of YAML 1.1 or 1.2 (no, on, ~), an infinity or NaN. Such a
// name is quoted, so that it reads back as the string it is.
bool needs_quotes(const std::string& text) {
  static const char* const kWords[] = {"",      "~",     "null",  "Null", "NULL", "y",  "Y",    "yes",  "Yes",
                                       "YES",   "n",     "N",     "no",   "No",   "NO", "true", "True", "TRUE",
                                       "false", "False", "FALSE", "on",   "On",   "ON", "off",  "Off",  "OFF"};
  for (const char* w : kWords)
    if (text == w) return true;
  size_t i = text[0] == '+' || text[0] == '-' ? 1 : 0;
  if (i < text.size() && text[i] == '.') ++i;  // .5, .inf, .nan
  return i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) || text.compare(i, 3, "inf") == 0 ||
          text.compare(i, 3, "Inf") == 0 || text.compare(i, 3, "INF") == 0 || text.compare(i, 3, "nan") == 0 ||
          text.compare(i, 3, "NaN") == 0 || text.compare(i, 3, "NAN") == 0);
}

void emit_yaml(YAML::Emitter& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        emit_yaml(out, item);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& item : value) emit_yaml(out, item);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: {
      const std::string& text = value.get_ref<const std::string&>();
      if (needs_quotes(text)) out << YAML::DoubleQuoted;
      out << text;
      break;
    }
    case Json::value_t::boolean:
      out << value.get<bool>();
      break;
    case Json::value_t::number_integer:
      out << value.get<long long>();
      break;
    case Json::value_t::number_unsigned:
      out << value.get<unsigned long long>();
      break;
    case Json::value_t::number_float:
      out << yaml_number_text(value.get<double>());
      break;
    default:
      out << YAML::Null;
  }
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

using Cells = std::vector<std::pair<std::string, std::string>>;

std::string scalar_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return number_text(value.get<double>());
  if (value.is_null()) return "";
  return value.dump();
}

// Every leaf under `value`: objects as "a.b", arrays as "a.0" when `with_arrays` or when they hold scalars only
// (a list of values, not a table), else left out.
void flatten_leaves(const Json& value, const std::string& prefix, bool with_arrays, Cells* cells) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      flatten_leaves(item, prefix.empty() ? key : prefix + "." + key, with_arrays, cells);
  } else if (value.is_array()) {
    const bool scalars = std::none_of(value.begin(), value.end(), [](const Json& v) { return v.is_structured(); });
    if (!with_arrays && !scalars) return;
    for (size_t i = 0; i < value.size(); ++i)
      flatten_leaves(value[i], prefix + "." + std::to_string(i), with_arrays, cells);
  } else {
    cells->emplace_back(prefix, scalar_text(value));
  }
}

std::string render_csv(const std::vector<Cells>& rows) {
  // The union of the rows' keys; one that only a later row has goes after that row's key before it, so that a
  // longer list (a trainer's fourth ZeRO stage, "stages.3") sits beside the shorter ones' columns, not at the end.
  std::vector<std::string> header;
  for (const auto& row : rows) {
    size_t next = 0;  // where a key this row adds goes
    for (const auto& [key, _] : row) {
      const auto at = std::find(header.begin(), header.end(), key);
      if (at != header.end()) {
        next = static_cast<size_t>(at - header.begin()) + 1;
      } else {
        header.insert(header.begin() + static_cast<std::ptrdiff_t>(next), key);
        ++next;
      }
    }
  }
  std::string out;
  for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + csv_cell(header[i]);
  out += "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (i) out += ",";
      for (const auto& [key, text] : row)
        if (key == header[i]) {
          out += csv_cell(text);
          break;
        }
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string document_text(OutputFormat format, const Json& document, const std::function<std::string()>& table,
                          std::string_view csv_rows) {
  switch (format) {
    case OutputFormat::kTable: return table();
    case OutputFormat::kJson: return to_json_text(document);
    case OutputFormat::kYaml: return to_yaml_text(document);
    case OutputFormat::kCsv: return to_document_csv(document, csv_rows);
    case OutputFormat::kJunit: break;
  }
  throw FieldError("format", "junit: this command writes no JUnit XML");
}

std::string to_document_csv(const Json& document, std::string_view rows_key) {
  // The rows' array, at a dotted path ("approach2.budgets" is the pointer /approach2/budgets); the context is the
  // rest of the document, without it.
  const std::string rows_name(rows_key);
  Json rest = document;
  const Json* rows_array = nullptr;
  if (!rows_name.empty()) {
    std::string pointer = "/" + rows_name;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    const Json::json_pointer at(pointer);
    if (document.contains(at) && document.at(at).is_array()) {
      if (!document.at(at).empty()) rows_array = &document.at(at);
      rest.at(at.parent_pointer()).erase(at.back());
    }
  }
  Cells context;
  for (const auto& [key, item] : rest.items()) {
    if (key == "schema") continue;
    flatten_leaves(item, key, false, &context);
  }
  std::vector<Cells> rows;
  if (rows_array) {
    for (const auto& element : *rows_array) {
      Cells row = context;
      flatten_leaves(element, rows_name, true, &row);
      rows.push_back(std::move(row));
    }
  } else {
    rows.push_back(std::move(context));
  }
  return render_csv(rows);
}

// A string that is no UTF-8 (a file name in Latin-1) is written with U+FFFD for its stray bytes, not refused.
std::string to_json_text(const Json& document) {
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string to_yaml_text(const Json& document) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit_yaml(out, document);
  return std::string(out.c_str()) + "\n";
}

}  // namespace isoflop::report
