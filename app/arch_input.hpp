// --arch NAME|FILE: a catalog model id, or a YAML file with the architecture fields of models.yaml.
#pragma once

#include <string>

#include "catalog/catalog.hpp"
#include "model/architecture.hpp"

namespace isoflop::app {

// A catalog model when `name_or_file` names one; otherwise a readable YAML file. Throws InputError naming
// --arch with a "did you mean" among the catalog ids, or CatalogError with file:line for a bad file.
model::Architecture resolve_architecture(const catalog::Catalog& catalog, const std::string& name_or_file);

}  // namespace isoflop::app
