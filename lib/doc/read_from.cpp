// Reading the document a request starts from.
#include "doc/read_from.hpp"

#include "core/error.hpp"

namespace isoflop::doc {

SourceDocument read_from_document(const std::string& path, const std::vector<std::string_view>& kinds) {
  if (path.empty()) throw FieldError("from", "empty file name");
  SourceDocument d = read_document(path);
  require_kind(d, kinds);
  return d;
}

}  // namespace isoflop::doc
