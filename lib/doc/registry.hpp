// Every document kind and its struct: decoding a document by its schema and encoding it again.
#pragma once

#include <string>
#include <vector>

#include "doc/document.hpp"

namespace isoflop::doc {

// The kinds isoflop writes and reads ("plan", "cost", …).
std::vector<std::string> document_kinds();

// Decodes `document` into the struct of its kind and encodes that again; for a document isoflop wrote, the
// result is the same JSON. Throws InputError for an unknown kind or a bad field.
Json reencode(const SourceDocument& document);

}  // namespace isoflop::doc
