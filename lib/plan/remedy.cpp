// Reasons and concrete changes for a plan that cannot be acted on.
#include "plan/remedy.hpp"

#include <optional>
#include <utility>

#include "core/error.hpp"
#include "plan/batch.hpp"
#include "units/format.hpp"

namespace isoflop::plan {
namespace {

constexpr int kMaxBatchDoublings = 6;  // up to 64× the batch
constexpr int kMaxContextParallel = 8;  // the widest CP offered where the search tried none
// A CP that does not reach the floor is still offered when it lifts the best MFU by this factor: worth knowing
// beside the other changes, since the search tries no CP unless asked (--max-cp).
constexpr double kContextParallelGain = 1.25;

std::string percent(double fraction) { return units::format_significant(fraction * 100, 3) + " %"; }
std::string mtokens(double tokens) { return units::format_significant(tokens / 1e6, 3) + "M tokens"; }

// The best MFU of `job` on `cluster`, or none when nothing fits or nothing is valid there.
std::optional<double> best_mfu(const parallel::JobSpec& job, const parallel::ClusterSpec& cluster,
                               const parallel::SearchOptions& search) {
  try {
    const parallel::SearchResult r = parallel::search_layouts(job, cluster, search);
    if (r.feasible()) return r.layouts.front().time.mfu;
  } catch (const InputError&) {  // no valid layout at this size (e.g. fewer sequences than replicas)
  }
  return std::nullopt;
}

// The largest halving of the GPU count (down to one node) at which the job reaches `min_mfu`.
std::optional<parallel::SuggestedChange> fewer_gpus(const parallel::JobSpec& job, const parallel::ClusterSpec& cluster,
                                                    const parallel::SearchOptions& search, double min_mfu) {
  parallel::ClusterSpec smaller = cluster;
  for (int g = cluster.gpus / 2; g >= cluster.gpus_per_node && g >= 1; g /= 2) {
    smaller.gpus = g;
    const auto mfu = best_mfu(job, smaller, search);
    if (mfu && *mfu >= min_mfu)
      return parallel::SuggestedChange{"gpus", g, std::nullopt,
                                       "the same model and batch reach " + percent(*mfu) + " MFU on " +
                                           std::to_string(g) + " GPUs"};
  }
  return std::nullopt;
}

// The smallest doubling of the batch at which the job reaches `min_mfu` on the cluster.
std::optional<parallel::SuggestedChange> larger_batch(parallel::JobSpec job, const parallel::ClusterSpec& cluster,
                                                      const parallel::SearchOptions& search, double min_mfu,
                                                      double ceiling_tokens) {
  const double tokens = static_cast<double>(job.global_batch * job.seq);
  for (int k = 1; k <= kMaxBatchDoublings; ++k) {
    const double bigger = tokens * (1 << k);
    job.global_batch = batch_sequences(bigger, job.seq, cluster.gpus);
    const auto mfu = best_mfu(job, cluster, search);
    if (!mfu || *mfu < min_mfu) continue;
    std::string note = "reaches " + percent(*mfu) + " MFU";
    if (bigger > ceiling_tokens)
      note += "; above the batch ceiling of " + mtokens(ceiling_tokens) + ", so more tokens for the same loss";
    return parallel::SuggestedChange{"global_batch_tokens", static_cast<long long>(job.global_batch * job.seq),
                                     std::nullopt, note};
  }
  return std::nullopt;
}

// A pinned TP or PP that keeps the job under the floor: the degree the search takes with that pin left open, where
// its best layout reaches `min_mfu` (TP 16 across 8-GPU nodes spends most of its step in the network).
std::optional<parallel::SuggestedChange> unpinned(const parallel::JobSpec& job, const parallel::ClusterSpec& cluster,
                                                  const parallel::SearchOptions& search, double min_mfu,
                                                  const char* field) {
  const bool tp = std::string(field) == "tp";
  const std::optional<int>& pin = tp ? search.pins.tp : search.pins.pp;
  if (!pin) return std::nullopt;
  parallel::SearchOptions open = search;
  (tp ? open.pins.tp : open.pins.pp).reset();
  try {
    const parallel::SearchResult r = parallel::search_layouts(job, cluster, open);
    if (!r.feasible() || r.layouts.front().time.mfu < min_mfu) return std::nullopt;
    const parallel::Layout& l = r.layouts.front().layout;
    const int degree = tp ? l.tp : l.pp;
    if (degree == *pin) return std::nullopt;
    return parallel::SuggestedChange{field, degree, std::nullopt,
                                     std::string("with the ") + (tp ? "TP" : "PP") + " left to the search, its best " +
                                         "layout reaches " + percent(r.layouts.front().time.mfu) + " MFU"};
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// A change offered and whether it reaches the floor.
struct Offered {
  parallel::SuggestedChange change;
  bool reaches_floor = false;
};

// Context parallelism, where the search tried none: the smallest CP up to kMaxContextParallel at which the best
// layout reaches `min_mfu`, else the one that lifts `mfu` the most, if by kContextParallelGain. Sharding the
// sequence shrinks each GPU's activations, which lets TP or PP fall. `largest_tried` is the largest CP searched.
std::optional<Offered> context_parallel(const parallel::JobSpec& job, const parallel::ClusterSpec& cluster,
                                        const parallel::SearchOptions& search, double mfu, double min_mfu,
                                        int& largest_tried) {
  parallel::SearchOptions wider = search;
  std::optional<Offered> best_gain;
  double best_mfu_seen = kContextParallelGain * mfu;
  for (int cp = 2; cp <= kMaxContextParallel && job.seq % cp == 0; cp *= 2) {
    wider.max_cp = cp;
    largest_tried = cp;
    const auto reached = best_mfu(job, cluster, wider);
    if (!reached) continue;
    const std::string note =
        "context parallelism up to " + std::to_string(cp) + " reaches " + percent(*reached) + " MFU";
    if (*reached >= min_mfu) return Offered{{"max_cp", cp, std::nullopt, note}, true};
    // The smallest CP of those that lift it the most.
    if (best_gain ? *reached > best_mfu_seen : *reached >= best_mfu_seen) {
      best_mfu_seen = *reached;
      best_gain = Offered{{"max_cp", cp, std::nullopt, note + ", still under the floor"}, false};
    }
  }
  return best_gain;
}

}  // namespace

PlanProblem low_mfu_problem(const parallel::JobSpec& job, const parallel::ClusterSpec& cluster,
                            const parallel::SearchOptions& search, const parallel::RankedLayout& best,
                            double min_mfu, double ceiling_tokens) {
  PlanProblem p;
  p.reason = "MFU " + percent(best.time.mfu) + " is under the floor of " + percent(min_mfu) + " at a batch of " +
             mtokens(static_cast<double>(job.global_batch * job.seq)) + " on " + std::to_string(cluster.gpus) +
             " GPUs: " + parallel::largest_overhead(best.time);
  for (const char* pin : {"tp", "pp"})
    if (auto c = unpinned(job, cluster, search, min_mfu, pin)) p.changes.push_back(std::move(*c));
  if (auto c = fewer_gpus(job, cluster, search, min_mfu)) p.changes.push_back(std::move(*c));
  if (auto c = larger_batch(job, cluster, search, min_mfu, ceiling_tokens)) p.changes.push_back(std::move(*c));
  // Context parallelism only where the search tried none (no --cp pinned, --max-cp 1) and the trainer runs it.
  const bool cp_open =
      !search.pins.cp && search.max_cp == 1 && (!search.trainer.loaded() || search.trainer.context_parallel);
  int cp_tried = 0;
  const auto cp = cp_open ? context_parallel(job, cluster, search, best.time.mfu, min_mfu, cp_tried) : std::nullopt;
  if (cp) p.changes.push_back(cp->change);
  if (p.changes.empty() || (p.changes.size() == 1 && cp && !cp->reaches_floor))
    p.changes.push_back({"min_mfu", std::nullopt, std::nullopt,
                         std::string("no halving of the GPU count") +
                             (cp_tried > 0 ? ", no batch up to 64x" : " and no batch up to 64x") +
                             (cp_tried > 0 ? " and no CP up to " + std::to_string(cp_tried) : std::string()) +
                             " reaches the floor; a lower floor"});
  return p;
}

PlanProblem infeasible_problem(const parallel::JobSpec& job, const parallel::ClusterSpec& cluster,
                               const parallel::SearchOptions& search, const parallel::SearchResult& searched,
                               double min_mfu, double ceiling_tokens) {
  const parallel::Infeasibility& why = *searched.infeasible;
  PlanProblem p;
  p.reason = why.reason;
  // Memory: the search's own changes, fields the plan takes too.
  if (searched.evaluated > 0 && !why.changes.empty()) {
    p.changes = why.changes;
    return p;
  }
  // No valid layout at all: the GPU count, or the batch in tokens (the plan's field), at which this model runs
  // at the floor, rather than the search's nearest shapes, which ignore the floor.
  if (auto c = fewer_gpus(job, cluster, search, min_mfu)) p.changes.push_back(std::move(*c));
  if (auto c = larger_batch(job, cluster, search, min_mfu, ceiling_tokens)) p.changes.push_back(std::move(*c));
  return p;
}

}  // namespace isoflop::plan
