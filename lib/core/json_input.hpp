// Reading JSON the way YAML inputs are read: a key twice in one object is an error naming it, where nlohmann
// alone keeps one of the two silently.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace isoflop {

// Parses `text` in one pass. Throws InputError "<source>: <path>: duplicate key 'k' (…)" for a repeated key
// (path: the enclosing object's place, "inputs" or "layouts[0]"; none at the top); syntax errors are
// nlohmann's exceptions, as from ordered_json::parse.
nlohmann::ordered_json parse_json_unique_keys(std::string_view text, const std::string& source);

}  // namespace isoflop
