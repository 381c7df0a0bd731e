// When a plan cannot be acted on — its MFU under the floor, or no layout fits — the reason and concrete
// changes as data, each naming a field of the plan request ("gpus", "global_batch_tokens", …).
#pragma once

#include <string>
#include <vector>

#include "parallel/search.hpp"

namespace isoflop::plan {

struct PlanProblem {
  std::string reason;
  std::vector<parallel::SuggestedChange> changes;
  bool operator==(const PlanProblem&) const = default;
};

// The best layout's MFU is under `min_mfu`: the reason (with where the step goes), the largest halving of
// the GPU count at which the same model and batch reach the floor, and the smallest doubling of the batch
// that does on this cluster (noted when it passes `ceiling_tokens`, the published batch ceiling).
PlanProblem low_mfu_problem(const parallel::JobSpec& job, const parallel::ClusterSpec& cluster,
                            const parallel::SearchOptions& search, const parallel::RankedLayout& best,
                            double min_mfu, double ceiling_tokens);

// Nothing fits (`searched.infeasible` is set): the search's reason and its changes; when no layout was valid
// at all (e.g. fewer sequences than data-parallel ranks), fewer GPUs or a larger batch at which the model runs
// at `min_mfu`.
PlanProblem infeasible_problem(const parallel::JobSpec& job, const parallel::ClusterSpec& cluster,
                               const parallel::SearchOptions& search, const parallel::SearchResult& searched,
                               double min_mfu, double ceiling_tokens);

}  // namespace isoflop::plan
