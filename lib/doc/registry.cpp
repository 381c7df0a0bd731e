// The table of document kinds. A new document adds one line here.
#include "doc/registry.hpp"

#include "core/error.hpp"
#include "doc/arch_document.hpp"
#include "doc/calibration_document.hpp"
#include "doc/check_document.hpp"
#include "doc/fit_document.hpp"
#include "doc/flops_document.hpp"
#include "doc/train_document.hpp"
#include "doc/catalog_document.hpp"
#include "doc/loss_document.hpp"
#include "doc/optimal_document.hpp"
#include "doc/cost_document.hpp"
#include "doc/layout_document.hpp"
#include "doc/plan_document.hpp"
#include "doc/sweep_document.hpp"

namespace isoflop::doc {
namespace {

template <class T>
Json reencode_as(const SourceDocument& document) {
  return Json(decode<T>(document));
}

struct Kind {
  const char* name;
  Json (*reencode)(const SourceDocument&);
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> table = {
      {"plan", &reencode_as<plan::PlanResult>},
      {"optimal", &reencode_as<OptimalDocument>},
      {"loss", &reencode_as<LossDocument>},
      {"catalog", &reencode_as<CatalogDocument>},
      {"cost", &reencode_as<CostDocument>},
      {"layout", &reencode_as<LayoutDocument>},
      {"arch", &reencode_as<ArchDocument>},
      {"flops", &reencode_as<FlopsDocument>},
      {"fit", &reencode_as<FitDocument>},
      {"train", &reencode_as<TrainDocument>},
      {"calibration", &reencode_as<CalibrationDocument>},
      {"check", &reencode_as<check::CheckResult>},
      {"sweep", &reencode_as<SweepDocument>},
  };
  return table;
}

}  // namespace

std::vector<std::string> document_kinds() {
  std::vector<std::string> names;
  for (const auto& k : kinds()) names.emplace_back(k.name);
  return names;
}

Json reencode(const SourceDocument& document) {
  for (const auto& k : kinds())
    if (document.kind == k.name) return k.reencode(document);
  throw InputError(document.source + ": schema: no document kind '" + document.kind + "'; known: " +
                   join(document_kinds()));
}

}  // namespace isoflop::doc
