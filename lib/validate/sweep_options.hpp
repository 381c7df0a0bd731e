// What `validate` is asked, in the library's words, and the sweep it designs: from a plan document or a
// budget and a law, a preset (with its total compute, budgets and sizes overridden), a data source.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "doc/document.hpp"
#include "doc/sweep_document.hpp"
#include "scaling/query.hpp"

namespace isoflop::validate {

struct SweepOptions {
  std::optional<doc::SourceDocument> plan;  // a plan document (from), or
  std::optional<double> flops;              // a full budget with a law
  scaling::LawChoice law;                   // overrides the plan's law when given
  std::optional<std::string> family;        // shape family or catalog model (default: the plan's, else chinchilla)
  std::string preset = "cpu";
  std::optional<double> total_flops;  // overrides of the preset
  std::optional<int> budgets;
  std::optional<int> sizes;
  std::optional<std::string> source;  // data source (default quanta)
  std::string peak_device;
};

// Throws FieldError naming the field ("from", "flops", "total_flops", …) for what cannot be designed.
doc::SweepDocument design_from_options(const SweepOptions& options, const catalog::Catalog& catalog);

}  // namespace isoflop::validate
