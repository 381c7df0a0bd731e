// The plan's global batch: from a target (or a lower ceiling), the smallest doubling whose layout's MFU is within
// a margin of the best doubling's, never beyond a published batch ceiling at the plan's compute (DeepSeek LLM
// 2024's batch law, data/cost.yaml); a batch the user pins stays as given.
#pragma once

#include <string>

#include "parallel/search.hpp"

namespace isoflop::plan {

// B_max(C) = coefficient · C^exponent tokens, C in FLOPs (DeepSeek LLM 2024: B_opt = 0.2920 C^0.3271).
struct BatchRule {
  double coefficient = 0;
  double exponent = 0;
  std::string source;
  double min_gain = 0.05;  // the batch taken is the smallest whose MFU is within this fraction of the best
  double ceiling_tokens(double flops) const;
  bool operator==(const BatchRule&) const = default;
};

// The batch the plan runs and why.
struct BatchChoice {
  double target_tokens = 0;   // the starting point (asked for, or the default)
  double ceiling_tokens = 0;  // the rule's ceiling at the plan's compute
  double tokens = 0;          // chosen: global batch × sequence length
  long long sequences = 0;    // the global batch in sequences
  bool pinned = false;        // the user fixed the batch: no growth
  std::string rule;           // the rule in words, with its source
  std::string note;           // why this batch
  bool operator==(const BatchChoice&) const = default;
};

// The global batch (sequences) nearest `tokens` whose divisors suit the cluster: among batches within a
// factor `spread` (1.5 for the plan's own choice), the one sharing the most factors with the GPU count, then the
// nearest.
long long batch_sequences(double tokens, long long seq, int gpus, double spread = 1.5);

// The batch a user pinned (--global-batch-tokens): whole sequences as given; another count of tokens rounded as
// batch_sequences does, within 10 %, so that "3M" stays near 3M tokens (under a handful of sequences, where no
// whole count may lie that near, the nearest whole count, at least 1).
long long pinned_batch_sequences(double tokens, long long seq, int gpus);
// Whether pinned_batch_sequences takes `tokens` as given (a whole number of sequences).
bool whole_sequences(double tokens, long long seq);

struct BatchSearch {
  BatchChoice choice;
  parallel::JobSpec job;            // with the chosen global batch
  parallel::SearchResult layouts;   // the search at that batch
};

// Searches the layouts of `job` (its global batch is set here): pinned, at the target; else at the target, or at
// the ceiling where that is lower, and at every doubling of it up to the ceiling, keeping the smallest batch
// whose MFU is within rule.min_gain of the best of them (a later doubling may change the stage count and gain
// where an earlier one did not). `exact_sequences`: the batch as given, pinned and not rounded (target_tokens is
// then ignored).
BatchSearch choose_batch(parallel::JobSpec job, const parallel::ClusterSpec& cluster,
                         const parallel::SearchOptions& search, double target_tokens, bool pinned,
                         const BatchRule& rule, double flops, std::optional<long long> exact_sequences = std::nullopt);

}  // namespace isoflop::plan
