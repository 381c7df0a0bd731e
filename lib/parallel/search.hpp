// The layout search: enumerate TP × PP × CP × DP (× EP), virtual stages, uneven first/last stages, micro-batch,
// ZeRO stage, recompute and sequence parallelism under the constraints, the trainer's rules and the user's pins;
// rank what fits by the objective. A layout the trainer rejects is never returned.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parallel/dimensions.hpp"
#include "parallel/memory_model.hpp"
#include "parallel/time_model.hpp"
#include "parallel/trainer_rules.hpp"

namespace isoflop::parallel {

ISOFLOP_NAMED_ENUM(Objective, (kTime, "time"), (kMemory, "memory"));

struct SearchOptions {
  // The trainer whose rules every returned layout satisfies and whose defaults the time model uses
  // (data/trainers.yaml); not loaded: structural checks only and the calibration runs' time settings.
  catalog::TrainerRules trainer;
  LayoutPins pins;
  std::optional<int> max_tp;     // default: GPUs per node (Narayanan takeaway 1: TP inside the node)
  // Largest context-parallel degree tried (where the trainer has CP). 1: CP only when pinned or asked for,
  // because the GEMM efficiency does not yet fall with the tokens a micro-batch leaves each GPU.
  int max_cp = 1;
  int max_vpp = 4;               // virtual stages tried per device
  int max_micro_batch = 16;      // largest micro-batch tried
  Objective objective = Objective::kTime;  // cost and energy rank like time for a fixed GPU count
  int top_k = 5;
  MemoryOptions memory;
  TimeOptions time;

  void validate(const JobSpec& job, const ClusterSpec& cluster) const;  // pins against the job (FieldError)
  bool operator==(const SearchOptions&) const = default;
};

struct RankedLayout {
  Layout layout;
  MemoryBreakdown memory;
  StepTime time;
  bool operator==(const RankedLayout&) const = default;
};

// Why a (TP, PP, CP) family produced no feasible layout: the trainer rule that rejected the layouts that would
// fit, else memory, else the first structural check that failed.
struct PrunedFamily {
  int tp = 0, pp = 0, cp = 1;
  std::string rule;               // the rule's id ("zero_with_pipeline", "stages"), or "memory"
  std::string reason;             // "needs 84.2 GiB/GPU > 76.0 GiB usable"
  double min_memory_bytes = 0;    // smallest memory of any valid layout in the family (0 if none valid)
  bool operator==(const PrunedFamily&) const = default;
};

// A change that would make an infeasible search fit, as data: the field and its new value ("recompute" →
// "full", "gpus" → 4480). Exactly one of number and text is set, or neither when the field is to be unpinned.
struct SuggestedChange {
  std::string field;              // "gpus", "zero_stage", "recompute", "tp", "gpu"
  std::optional<long long> number;
  std::optional<std::string> text;
  std::string note;               // why, in words ("about: memory per GPU falls roughly as 1/GPUs")
  bool operator==(const SuggestedChange&) const = default;
};

// Why nothing fits, the closest miss and what would fit.
struct Infeasibility {
  std::string reason;                // "no layout fits in 76.0 GiB per a100-sxm4-80gb: the smallest needs 1288.3 GiB"
  // The closest miss: the smallest memory any valid layout needs, and that layout; none when no layout is valid.
  std::optional<double> needed_memory_bytes;
  double usable_memory_bytes = 0;
  std::optional<Layout> closest;
  std::vector<SuggestedChange> changes;
  bool operator==(const Infeasibility&) const = default;
};

struct SearchResult {
  std::vector<RankedLayout> layouts;   // best first, at most top_k; empty when infeasible
  std::vector<PrunedFamily> pruned;
  long long evaluated = 0;             // layouts whose memory (and time, if it fit) was computed
  double min_memory_bytes = 0;         // smallest memory any valid layout needs
  double usable_memory_bytes = 0;
  std::optional<Infeasibility> infeasible;  // set when no layout fits
  bool feasible() const { return !infeasible; }
  bool operator==(const SearchResult&) const = default;
};

// The job's gradient buffer as the trainer keeps it: fp32 where gradients are reduced in fp32 (Megatron-LM's
// main_grad, accumulate_allreduce_grads_in_fp32, and NeMo's grad_reduce_in_fp32: 18 bytes per parameter, 6 +
// 12/DP with the distributed optimizer, as megatron/training/theoretical_memory_usage.py counts them), else the
// 16-bit training dtype (ZeRO's 16). Set where a job meets its trainer, so the memory and the time model count
// the same gradient bytes.
void apply_gradient_precision(JobSpec& job, const SearchOptions& options);

// Drops a gradient precision the file written for options.trainer cannot state (grad_reduce_refusal), so that
// the trainer reduces in its own default: a document's choice carried to a trainer that cannot say it (emit
// under another trainer's rules, `layout --from` for another trainer). One the user asks for is refused instead.
void drop_unstatable_grad_reduce(SearchOptions& options);

// Runs the search. Throws FieldError for invalid pins (e.g. heads not divisible by a pinned TP) and InputError
// when no layout is valid at all with degrees pinned. When none fits, or none is valid and nothing is pinned,
// returns the result with `infeasible` set (no layouts): the smallest memory needed and what would make it fit,
// or the first structural reason and the nearest GPU count and global batch at which a layout fits.
SearchResult search_layouts(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options);

// The same search estimating the memory of every valid layout, where search_layouts skips the estimates that
// cannot change its result: the reference the pruned search is tested against.
SearchResult search_layouts_exhaustive(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options);

// What would make an infeasible search fit, as data: more GPUs (about in proportion to the memory missing, `needed`
// of `usable` bytes), the memory levers the pins held back, an accelerator with more memory.
std::vector<SuggestedChange> suggest_changes(double needed, double usable, const JobSpec& job,
                                             const ClusterSpec& cluster, const SearchOptions& options);

// What leads the changes in words: those that would make a layout fit, or lift its MFU to a floor.
inline constexpr const char* kToFit = "; to fit: ";
inline constexpr const char* kToReachFloor = "; to reach the floor: ";

// The infeasibility in words, the changes named by their fields: "…; to fit: gpus 4480 (about …), …".
std::string describe(const Infeasibility& infeasible);

// Throws InfeasibleError(describe(…)) when the search found nothing that fits.
void require_feasible(const SearchResult& result);

}  // namespace isoflop::parallel
