// A fitted law as a catalog file (the laws section lib/catalog/laws.cpp reads), so `isoflop optimal
// --law NAME --catalog DIR` plans with it.
#pragma once

#include <string>

#include "fit/approach3.hpp"
#include "fit/interaction.hpp"

namespace isoflop::fit {

// Throws InputError unless `name` is a catalog id: lower-case letters, digits, '-', '_' or '.', starting
// with a letter or digit, at most 64 characters.
void validate_law_name(const std::string& name, const std::string& what = "save_law");

// YAML text: `laws: [{name, display_name, kind: parametric, E, A, B, alpha, beta, convention, note,
// source}]`, numbers at full precision. `source` says where the fit came from (file, runs, options).
std::string law_catalog_yaml(const Approach3Result& fit, const std::string& name, const std::string& source);
// The interaction law: the same with `gamma`.
std::string law_catalog_yaml(const InteractionResult& fit, const std::string& name, const std::string& source);

}  // namespace isoflop::fit
