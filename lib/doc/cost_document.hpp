// The `cost` document: what a training run costs — time, GPU-hours, power, energy by three methods, CO2e,
// money and the 4Ms what-if — with the request echoed, and the inverse (the FLOPs a duration affords).
// "cost" is the run-cost section of doc/cost_json.hpp.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "cost/cost_report.hpp"
#include "cost/energy_request.hpp"
#include "doc/cost_json.hpp"
#include "parallel/cluster.hpp"

namespace isoflop::doc {

// How the work was given: FLOPs, 6·N·D, or a duration on the cluster.
ISOFLOP_NAMED_ENUM(CostWork, (kFlops, "flops"), (kParamsTokens, "6nd"), (kTime, "time"));

struct CostInputs {
  CostWork work = CostWork::kFlops;
  std::string gpu;                  // accelerator
  std::optional<std::string> node;  // catalog node; unset for an accelerator the catalog houses in none
  int gpus = 0;
  std::optional<double> params;             // N, when given
  std::optional<double> tokens;             // D, when given
  std::optional<double> affordable_flops;   // with a duration and a utilisation: the FLOPs it affords
  std::optional<double> affordable_tokens;  // ... and with N, the tokens (6ND)
  std::optional<std::string> from;          // the document this run was recosted from
  bool operator==(const CostInputs&) const = default;
};

struct CostDocument {
  CostInputs inputs;
  cost::CostReport cost;
  bool operator==(const CostDocument&) const = default;
};

template <>
inline constexpr auto fields<CostInputs> = std::tuple{field("work", &CostInputs::work, names(kCostWorkNames)),
                                                      field("gpu", &CostInputs::gpu), field("node", &CostInputs::node),
                                                      field("gpus", &CostInputs::gpus),
                                                      field("params", &CostInputs::params),
                                                      field("tokens", &CostInputs::tokens),
                                                      field("affordable_flops", &CostInputs::affordable_flops),
                                                      field("affordable_tokens", &CostInputs::affordable_tokens),
                                                      field("from", &CostInputs::from)};

template <>
inline constexpr auto fields<CostDocument> =
    std::tuple{schema_key("cost"), field("inputs", &CostDocument::inputs), field("cost", &CostDocument::cost)};

// What `isoflop cost` is asked: the work (exactly one of flops, params + tokens, or time_s; params with
// time_s asks for the affordable tokens), the utilisation (mfu, or an achieved rate per accelerator), the
// cluster, and the energy, carbon, price and what-if requests.
struct CostRequest {
  std::optional<double> flops;
  std::optional<double> params;
  std::optional<double> tokens;
  std::optional<double> time_s;
  std::optional<double> mfu;             // fraction of the 16-bit peak
  std::optional<double> tflops_per_gpu;  // achieved TFLOP/s per accelerator
  parallel::ClusterRequest cluster;
  cost::EnergyRequest energy;
};

// Costs a run. Throws InputError/FieldError in the library's words for a bad or incomplete request.
CostDocument make_cost_document(const CostRequest& request, const catalog::Catalog& catalog);

// Recosts the run-cost section of an earlier `cost` or `plan` document with what `energy` changes; with an
// empty request the section is the same.
CostDocument recost_document(const SourceDocument& source, const cost::EnergyRequest& energy,
                             const catalog::Catalog& catalog);

}  // namespace isoflop::doc
