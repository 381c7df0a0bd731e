// The embedded laws catalog (data/laws.yaml) for the scaling tests: the numbers tested are the shipped ones.
#pragma once

#include <string>

#include "catalog/catalog.hpp"

namespace isoflop::test {

inline const catalog::Catalog& shipped_catalog() {
  static const catalog::Catalog cat = catalog::embedded_catalog();
  return cat;
}
inline const catalog::LawSpec& law(const std::string& name) { return shipped_catalog().law(name); }

}  // namespace isoflop::test
