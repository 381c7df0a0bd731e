// YAML to JSON, for documents written with -o yaml and read back (doc::parse_document): a plain scalar is
// null, a boolean, an integer or a number when it reads as one, else a string; a quoted scalar is always a
// string.
#pragma once

#include <yaml-cpp/yaml.h>

#include "doc/document.hpp"

namespace isoflop::doc {

Json yaml_to_json(const YAML::Node& node);

// Whether `text` is JSON (starts with '{') rather than YAML.
bool looks_like_json(std::string_view text);
// YAML with duplicate keys refused; a syntax error is a CatalogError naming source:line.
YAML::Node load_yaml(const std::string& source, std::string_view text);

}  // namespace isoflop::doc
