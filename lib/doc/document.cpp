// Reading documents back: schema and version checks, and nlohmann's diagnostics turned into JSON paths.
#include "doc/document.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/input_file.hpp"
#include "core/json_input.hpp"
#include "core/utf8.hpp"
#include "doc/yaml_json.hpp"

namespace isoflop::doc {
namespace {

constexpr std::string_view kPrefix = "isoflop/";

// "/layouts/0/tp" → "layouts[0].tp"
std::string pointer_to_path(std::string_view pointer) {
  std::string path;
  size_t i = 0;
  while (i < pointer.size()) {
    if (pointer[i] == '/') ++i;
    const size_t end = pointer.find('/', i);
    std::string token(pointer.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
    for (size_t p = 0; (p = token.find('~', p)) != std::string::npos; ++p)
      token.replace(p, 2, token.compare(p, 2, "~1") == 0 ? "/" : "~");
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    if (index) {
      path += "[" + token + "]";
    } else {
      if (!path.empty()) path += ".";
      path += token;
    }
    if (end == std::string_view::npos) break;
    i = end;
  }
  return path;
}

Json parse_json(const std::string& source, std::string_view text) {
  try {
    return parse_json_unique_keys(text, source);
  } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number such as 1e999
    std::string what = e.what();
    if (const size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    throw InputError(source + ": not a JSON document (" + what + ")");
  }
}

}  // namespace

// JSON as -o json writes it, or YAML as -o yaml writes it (a mapping; anything else is reported as JSON).
Json parse_data(const std::string& source, std::string_view text, std::map<std::string, int>* lines) {
  if (looks_like_json(text)) {
    Json json = parse_json(source, text);
    // JSON is YAML's flow style, so yaml-cpp's marks give a JSON file's lines by the same paths; where yaml-cpp
    // cannot read the text (it is stricter about a few escapes), the lines stay unknown rather than wrong.
    if (lines != nullptr) {
      try {
        const YAML::Node root = YAML::Load(std::string(text));
        if (root.IsMap()) yaml_to_json(root, lines);
      } catch (const std::exception&) {
        lines->clear();
      }
    }
    return json;
  }
  if (const auto bad = first_invalid_utf8(text))
    throw InputError(source + ": not UTF-8 text (byte " + std::to_string(*bad) +
                     " cannot start or continue a character); isoflop reads documents as UTF-8 JSON or YAML");
  const YAML::Node root = load_yaml(source, text);
  // YAML that is no mapping: JSON of another kind (an array) goes on to be refused as no document of isoflop's;
  // anything else (a YAML list, a line of text, a CSV file) is said as what it is, not as broken JSON.
  if (!root.IsMap()) {
    Json json = Json::parse(text, nullptr, false);
    if (!json.is_discarded()) return json;
    throw InputError(source + ": not a document: " +
                     (root.IsSequence() ? std::string("read as YAML it is a list")
                      : root.IsScalar() ? "read as YAML it is a single value (a line of text)"
                                        : std::string("it is empty")) +
                     "; accepted: a mapping of fields (as -o yaml writes) or a JSON object");
  }
  try {
    return yaml_to_json(root, lines);
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
}

std::string schema_id(std::string_view kind) {
  return std::string(kPrefix) + std::string(kind) + "/v" + std::to_string(kVersion);
}

SourceDocument parse_document(const std::string& source, std::string_view text) {
  SourceDocument d;
  d.source = source;
  d.json = parse_data(source, text);
  if (!d.json.is_object()) throw InputError(source + ": not an isoflop document (expected a JSON object)");
  if (!d.json.contains("schema")) throw InputError(source + ": schema: missing (not an isoflop document)");
  const Json& schema = d.json.at("schema");
  if (!schema.is_string()) throw InputError(source + ": schema: must be a string like " + schema_id("plan"));
  const std::string id = schema.get<std::string>();
  const size_t slash = id.rfind('/');
  if (id.rfind(kPrefix, 0) != 0 || slash == std::string::npos || slash <= kPrefix.size() ||
      id.compare(slash, 2, "/v") != 0)
    throw InputError(source + ": schema: '" + id + "' is not an isoflop document (" + schema_id("<kind>") + ")");
  d.kind = id.substr(kPrefix.size(), slash - kPrefix.size());
  const std::string version = id.substr(slash + 2);
  if (version != std::to_string(kVersion))
    throw InputError(source + ": schema: " + id + " is version " + version + "; this isoflop reads " +
                     schema_id(d.kind) + " (run the command that wrote it again)");
  return d;
}

SourceDocument read_document(const std::string& path) { return parse_document(input_name(path), read_input_text(path)); }

void require_kind(const SourceDocument& document, const std::vector<std::string_view>& kinds) {
  for (const auto& k : kinds)
    if (document.kind == k) return;
  std::vector<std::string> names;
  for (const auto& k : kinds) names.push_back(schema_id(k));
  const bool vowel =
      !document.kind.empty() && std::string_view("aeiou").find(document.kind[0]) != std::string_view::npos;
  throw InputError(document.source + ": schema: " + (vowel ? "an " : "a ") + document.kind + " document; expected " +
                   join(names, " or "));
}

std::string describe_json_error(const std::exception& e) {
  std::string what = e.what();
  // "[json.exception.out_of_range.403] (/layouts/0) key 'tp' not found"
  if (what.rfind("[json.exception.", 0) == 0)
    if (const size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
  std::string path;
  if (!what.empty() && what[0] == '(') {
    const size_t close = what.find(") ");
    if (close != std::string::npos) {
      path = pointer_to_path(std::string_view(what).substr(1, close - 1));
      what = what.substr(close + 2);
    }
  }
  if (what.rfind("key '", 0) == 0 && what.size() > 15 && what.compare(what.size() - 11, 11, "' not found") == 0) {
    const std::string key = what.substr(5, what.size() - 16);
    path += (path.empty() ? "" : ".") + key;
    what = "missing";
  }
  return path.empty() ? what : path + ": " + what;
}

void throw_decode_error(const std::string& source, const std::exception& e) {
  throw InputError(source + ": " + describe_json_error(e));
}

void fail_at(const Json& node, const std::string& what) { throw Json::other_error::create(501, what, &node); }

Json finite_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

void check_document_section(const SourceDocument& document, const std::string& section,
                            const std::function<void()>& check, const std::map<std::string, std::string>& keys) {
  try {
    check();
  } catch (const FieldError& e) {
    const auto key = [&](const std::string& field) {
      const auto renamed = keys.find(field);
      return section + "." + (renamed == keys.end() ? field : renamed->second);
    };
    throw InputError(document.source + ": " + key(e.field()) + ": " + e.message() +
                     (e.remedy().empty() ? "" : "; give " + key(e.remedy())));
  }
}

}  // namespace isoflop::doc
