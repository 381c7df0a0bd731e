// Transformer layers per pipeline stage: an even split, or Megatron-LM's uneven split with given first and
// last stages (--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers), which trainers use
// to make room for the embedding on the first stage and the output layer and loss on the last.
#pragma once

#include <algorithm>
#include <string>

#include "parallel/layout.hpp"

namespace isoflop::parallel {

// Layers on the first, each middle and the last pipeline stage. With PP 1 all three are the whole model;
// with PP 2 there is no middle stage and `middle` repeats the larger of first and last.
struct StageLayers {
  int first = 0;
  int middle = 0;
  int last = 0;
  int most() const { return std::max({first, middle, last}); }
  bool operator==(const StageLayers&) const = default;
};

// First and last from layout.first_stage_layers / last_stage_layers when set (> 0), the rest split evenly over
// the remaining stages; without them an even split (layers / PP, rounded down when it does not divide: see
// stage_split_violation).
StageLayers pipeline_stage_layers(int layers, const Layout& layout);

// "" when `layers` split over layout.pp stages (and layout.vpp model chunks per stage) as Megatron-Core
// accepts: without first/last, layers % (PP·VPP) == 0; with them, each given stage positive and divisible by
// VPP, the remaining layers divisible by the remaining stages and each middle stage's layers by VPP.
// Otherwise the reason, naming the rule.
std::string stage_split_violation(int layers, const Layout& layout);

}  // namespace isoflop::parallel
