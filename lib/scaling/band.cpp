// The allocation band: one query answered by every law that can answer it, with the spread between them.
#include <algorithm>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "scaling/allocate.hpp"
#include "scaling/loss_law.hpp"

namespace isoflop::scaling {

using catalog::LawSpec;

namespace {

Allocation answer(const LawSpec& law, BandQuery query, double value, const AllocationConstraints& constraints) {
  switch (query) {
    case BandQuery::kFlops: return allocate(law, value, constraints);
    case BandQuery::kParams: return allocate_for_params(law, value);
    case BandQuery::kTokens: return allocate_for_tokens(law, value);
    case BandQuery::kTargetLoss: return allocate_for_loss(law, value, constraints);
  }
  throw InputError("unknown band query");
}

}  // namespace

void throw_unanswered(const std::vector<SkippedLaw>& skipped, bool unreachable) {
  std::vector<std::string> reasons;
  for (const auto& s : skipped) reasons.push_back(s.law + ": " + s.reason);
  const std::string message = "no law can answer this query (" + join(reasons, "; ") + ")";
  if (unreachable) throw InfeasibleError(message);
  throw InputError(message);
}

AllocationBand allocation_band(const std::vector<LawSpec>& laws, BandQuery query, double value,
                               const AllocationConstraints& constraints) {
  constraints.validate();
  AllocationBand band;
  band.parameters = laws.empty() ? "total" : laws.front().parameters;
  std::vector<std::pair<std::string, std::string>> loss_datasets;  // (dataset, law) of laws with a loss
  bool unreachable = false, other = false;  // why the laws tried could not answer: no solution, or another reason
  for (const LawSpec& law : laws) {
    if (law.parameters != band.parameters) {
      band.skipped.push_back({law.name, "counts " + law.parameters + " parameters, not comparable with the band's " +
                                            band.parameters + " parameters; ask for it alone (law " + law.name + ")"});
      continue;
    }
    if ((query == BandQuery::kTargetLoss || constraints.inference_tokens) && !has_loss(law)) {
      band.skipped.push_back({law.name, "allocation-only law: predicts no loss"});
      continue;
    }
    if (constraints.unique_tokens && !handles_unique_tokens(law)) {
      band.skipped.push_back({law.name, "no model of repeated data (unique tokens)"});
      continue;
    }
    try {
      band.laws.push_back(answer(law, query, value, constraints));
      if (band.laws.back().loss) loss_datasets.emplace_back(law.dataset, law.name);
    } catch (const Error& e) {  // an unreachable target or an infeasible constraint under this law only
      (dynamic_cast<const InfeasibleError*>(&e) ? unreachable : other) = true;
      band.skipped.push_back({law.name, e.what()});
    }
  }
  if (band.laws.empty()) throw_unanswered(band.skipped, unreachable && !other);
  std::vector<std::string> datasets;
  for (const auto& [dataset, name] : loss_datasets)
    if (std::find(datasets.begin(), datasets.end(), dataset) == datasets.end()) datasets.push_back(dataset);
  if (datasets.size() > 1) {
    std::string which;
    for (const auto& [dataset, name] : loss_datasets)  // a saved fit names no dataset unless its file is given one
      which +=
          (which.empty() ? "" : ", ") + name + ": " + (dataset.empty() ? std::string("dataset not stated") : dataset);
    band.notes.push_back("losses are not comparable across laws fitted on different datasets (" + which + ")");
  }
  auto span = [&](double Allocation::*field, double* lo, double* hi) {
    const auto [mn, mx] = std::minmax_element(band.laws.begin(), band.laws.end(),
                                              [&](const Allocation& a, const Allocation& b) { return a.*field < b.*field; });
    *lo = (*mn).*field;
    *hi = (*mx).*field;
  };
  span(&Allocation::params, &band.params_min, &band.params_max);
  span(&Allocation::tokens, &band.tokens_min, &band.tokens_max);
  span(&Allocation::flops, &band.flops_min, &band.flops_max);
  return band;
}

AllocationBand allocation_band(const std::vector<LawSpec>& laws, double flops, const AllocationConstraints& constraints) {
  return allocation_band(laws, BandQuery::kFlops, flops, constraints);
}

}  // namespace isoflop::scaling
