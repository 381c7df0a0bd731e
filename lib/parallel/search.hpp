// The layout search: enumerate TP × PP × DP (× EP), virtual stages, micro-batch, ZeRO stage, recompute and
// sequence parallelism under the constraints and the user's pins; rank what fits by the objective.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parallel/memory_model.hpp"
#include "parallel/time_model.hpp"

namespace isoflop::parallel {

enum class Objective { kTime, kMemory };
inline constexpr EnumNames<Objective, 2> kObjectiveNames{{{{Objective::kTime, "time"}, {Objective::kMemory, "memory"}}}};

// Fixed values for the search; std::nullopt leaves a knob open.
struct LayoutPins {
  std::optional<int> tp, pp, dp, ep, vpp, micro_batch, zero_stage;
  std::optional<Recompute> recompute;
  std::optional<bool> sequence_parallel;
};

struct SearchOptions {
  LayoutPins pins;
  std::optional<int> max_tp;     // default: GPUs per node (Narayanan takeaway 1: TP inside the node)
  int max_vpp = 4;               // virtual stages tried per device
  int max_micro_batch = 16;      // largest micro-batch tried
  Objective objective = Objective::kTime;  // cost and energy rank like time for a fixed GPU count
  int top_k = 5;
  MemoryOptions memory;
  TimeOptions time;

  void validate(const JobSpec& job, const ClusterSpec& cluster) const;  // pins against the job
};

struct RankedLayout {
  Layout layout;
  MemoryBreakdown memory;
  StepTime time;
};

// Why a (TP, PP) family produced no feasible layout.
struct PrunedFamily {
  int tp = 0, pp = 0;
  std::string reason;             // "needs 84.2 GiB/GPU > 76.0 GiB usable"
  double min_memory_bytes = 0;    // smallest memory of any valid layout in the family (0 if none valid)
};

struct SearchResult {
  std::vector<RankedLayout> layouts;   // best first, at most top_k
  std::vector<PrunedFamily> pruned;
  long long evaluated = 0;             // layouts whose memory (and time, if it fit) was computed
  double min_memory_bytes = 0;         // smallest memory any valid layout needs
  double usable_memory_bytes = 0;
};

// Runs the search. Throws InputError for invalid pins (e.g. heads not divisible by a pinned TP) and
// InfeasibleError when nothing fits, naming the smallest memory needed and what would make it fit.
SearchResult search_layouts(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options);

}  // namespace isoflop::parallel
