// An architecture named on the command line (--arch NAME|FILE): a catalog model id, a YAML file in the form of
// models.yaml's entries, an isoflop document that carries an "architecture" (arch, flops, layout, plan; JSON as
// -o json writes it or YAML as -o yaml writes it), or that architecture object alone. "-" reads stdin.
#pragma once

#include <string>

#include "catalog/catalog.hpp"
#include "doc/document.hpp"
#include "model/architecture.hpp"

namespace isoflop::doc {

// The document kinds whose "architecture" an --arch file or --from may be.
inline const std::vector<std::string_view> kArchitectureKinds = {"arch", "flops", "layout", "plan"};

// A catalog model when `name_or_file` names one (and no file of that name exists in the way); otherwise the
// file's architecture. Throws FieldError("arch", …) with a "did you mean" among the catalog ids when it is
// neither, InputError "<file>: <json path>: <what>" for a bad document, CatalogError with file:line for a bad
// YAML file.
model::Architecture resolve_architecture(const catalog::Catalog& catalog, const std::string& name_or_file);

// The "architecture" of a document of one of kArchitectureKinds; InputError naming the file and the path.
model::Architecture architecture_of(const SourceDocument& document);

}  // namespace isoflop::doc
