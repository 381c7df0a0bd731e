// YAML to JSON, for documents written with -o yaml and read back (doc::parse_document): a plain scalar is
// null, a boolean, an integer or a number when it reads as one, else a string; a quoted scalar is always a
// string.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "doc/document.hpp"

namespace isoflop::doc {

// Where each field stood in the YAML text: the JSON path ("layout.tp", "links[0]") → its line (1-based).
using FieldLines = std::map<std::string, int>;

// With `lines`, records the line of every key's value under its path (prefixed by `path`).
Json yaml_to_json(const YAML::Node& node, FieldLines* lines = nullptr, const std::string& path = "");

// Whether `text` is JSON (starts with '{') rather than YAML.
bool looks_like_json(std::string_view text);
// YAML with duplicate keys refused; a syntax error is a CatalogError naming source:line.
YAML::Node load_yaml(const std::string& source, std::string_view text);

}  // namespace isoflop::doc
