// YAML to JSON, for documents written with -o yaml and read back: a plain scalar is null, a boolean, an
// integer or a number when it reads as one, else a string; a quoted scalar is always a string.
#pragma once

#include <yaml-cpp/yaml.h>

#include "doc/document.hpp"

namespace isoflop::doc {

Json yaml_to_json(const YAML::Node& node);

}  // namespace isoflop::doc
