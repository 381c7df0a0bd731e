// YAML nodes as JSON values.
#include "doc/yaml_json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "catalog/field_reader.hpp"
#include "core/error.hpp"

namespace isoflop::doc {
namespace {

Json plain_scalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  static const std::regex integer("[-+]?[0-9]+");
  static const std::regex number("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  if (std::regex_match(text, integer)) {
    errno = 0;
    const long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == 0) return v;
  }
  // A number past a double (1e400) stays its text, as .inf and .nan do: JSON has no infinity, and a reader that
  // wants a number then names what was written rather than the null that JSON would make of it.
  if (std::regex_match(text, number)) {
    const double v = std::strtod(text.c_str(), nullptr);
    if (std::isfinite(v)) return v;
  }
  return text;
}

}  // namespace

bool looks_like_json(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

YAML::Node load_yaml(const std::string& source, const std::string_view text) {
  try {
    YAML::Node root = catalog::load_one_document(std::string(text));
    catalog::reject_duplicate_keys(root, source);
    return root;
  } catch (const YAML::Exception& e) {
    throw CatalogError(source + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
}

namespace {

// YAML aliases make a graph of the text: one that refers to itself is endless, and a few lines of aliases
// of aliases expand to billions of values. Documents are shallow and small, so both are bounded.
constexpr int kMaxDepth = 64;
constexpr long long kMaxValues = static_cast<long long>(catalog::kMaxYamlValues);

struct Conversion {
  FieldLines* lines;
  long long values = 0;

  Json convert(const YAML::Node& node, const std::string& path, int depth) {
    if (depth > kMaxDepth)
      throw InputError("line " + std::to_string(node.Mark().line + 1) + ": nested more than " +
                       std::to_string(kMaxDepth) +
                       " levels deep (an alias inside itself?); isoflop's documents are shallow");
    if (++values > kMaxValues)
      throw InputError("more than " + std::to_string(kMaxValues) +
                       " values once its aliases are expanded; isoflop's documents have far fewer");
    switch (node.Type()) {
      case YAML::NodeType::Map: {
        Json j = Json::object();
        for (const auto& item : node) {
          // YAML allows a list or a mapping as a key ("? [a, b]"); a document's keys are names.
          if (!item.first.IsScalar())
            throw InputError("line " + std::to_string(item.first.Mark().line + 1) +
                             ": a key must be a plain name, not a list or a mapping");
          const std::string key = path.empty() ? item.first.Scalar() : path + "." + item.first.Scalar();
          if (lines) (*lines)[key] = item.first.Mark().line + 1;
          j[item.first.Scalar()] = convert(item.second, key, depth + 1);
        }
        return j;
      }
      case YAML::NodeType::Sequence: {
        Json j = Json::array();
        for (const auto& item : node) {
          const std::string key = path + "[" + std::to_string(j.size()) + "]";
          if (lines) (*lines)[key] = item.Mark().line + 1;
          j.push_back(convert(item, key, depth + 1));
        }
        return j;
      }
      case YAML::NodeType::Scalar:
        return node.Tag() == "!" ? Json(node.Scalar()) : plain_scalar(node.Scalar());
      default:
        return nullptr;
    }
  }
};

}  // namespace

Json yaml_to_json(const YAML::Node& node, FieldLines* lines, const std::string& path) {
  return Conversion{lines}.convert(node, path, 0);
}

}  // namespace isoflop::doc
