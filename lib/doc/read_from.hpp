// The earlier result a request starts from (its `from` field: `plan -o json > p.json`, then `cost --from p.json`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "doc/document.hpp"

namespace isoflop::doc {

// The document at `path` as read_document reads it (JSON or YAML, "-" for stdin), checked to be one of `kinds`
// (require_kind). An empty path is a FieldError("from").
SourceDocument read_from_document(const std::string& path, const std::vector<std::string_view>& kinds);

}  // namespace isoflop::doc
