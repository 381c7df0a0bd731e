// Layers per pipeline stage: an even split, or first and last stages of their own size (Megatron-Core's
// --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers) with the rest split evenly.
#pragma once

#include <algorithm>
#include <string>

#include "parallel/layout.hpp"

namespace isoflop::parallel {

// Transformer layers on the first, each middle and the last pipeline stage (per device, all its virtual
// stages together). PP 1: all three are the whole model. PP 2: no middle stage; `middle` repeats the larger
// of first and last. A first or last
// count of 0 in the layout means that stage is split like the middle ones. The split is exact only when
// stage_layers_consistent() holds.
struct StageLayers {
  int first = 0;
  int middle = 0;
  int last = 0;
  int most() const { return std::max({first, middle, last}); }
  bool operator==(const StageLayers&) const = default;
};
StageLayers pipeline_stage_layers(int layers, const Layout& layout);

// Whether the split of pipeline_stage_layers() holds exactly `layers` layers, every stage at least one layer
// per virtual stage and a multiple of the virtual stages.
bool stage_layers_consistent(int layers, const Layout& layout);

// "" when `layers` split over layout.pp stages (and layout.vpp model chunks per stage) as Megatron-Core
// accepts: without first/last, layers % (PP·VPP) == 0; with them, each given stage positive and divisible by
// VPP, the remaining layers divisible by the remaining stages and each middle stage's layers by VPP.
// Otherwise the reason, naming the rule.
std::string stage_split_violation(int layers, const Layout& layout);

// The split the search chooses when the layers do not divide PP·VPP: the middle stages take
// ceil(L / (PP·VPP))·VPP layers, the first and last share the rest (the last, which also runs the logits, the
// smaller half). Returns {0, 0} when the layers divide evenly or no such split exists.
struct EdgeLayers {
  int first;
  int last;
};
EdgeLayers balanced_edge_layers(int layers, int pp, int vpp);

}  // namespace isoflop::parallel
