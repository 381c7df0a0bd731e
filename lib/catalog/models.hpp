// Reference architectures from models.yaml (and --arch FILE).
#pragma once

#include <string>

#include "catalog/field_reader.hpp"
#include "model/architecture.hpp"

namespace isoflop::catalog {

struct ModelEntry {
  std::string name;             // "chinchilla-70b"
  std::string display_name;     // "Chinchilla 70B"
  model::Architecture architecture;
  double published_params = 0;  // the parameter count the paper states (for comparison), 0 if none
  double tokens_trained = 0;    // tokens it was trained on, 0 if unknown
  std::string source;
  std::string file;
};

// Reads the architecture fields (layers, d_model, heads, …) of `reader`'s mapping; used for catalog
// entries and for --arch FILE.
model::Architecture parse_architecture(FieldReader& reader);

ModelEntry parse_model(FieldReader& reader);

}  // namespace isoflop::catalog
