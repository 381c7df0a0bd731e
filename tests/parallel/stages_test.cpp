// Tests for lib/parallel/stages: even and uneven pipeline splits and Megatron-Core's rules for them.
#include "parallel/stages.hpp"

#include <doctest/doctest.h>

using namespace isoflop::parallel;

namespace {
Layout pipeline(int pp, int first = 0, int last = 0, int vpp = 1) {
  return {.pp = pp, .vpp = vpp, .first_stage_layers = first, .last_stage_layers = last};
}
}  // namespace

TEST_CASE("even split: layers / PP on every stage") {
  CHECK(pipeline_stage_layers(96, pipeline(8)) == StageLayers{12, 12, 12});
  CHECK(pipeline_stage_layers(24, pipeline(1)) == StageLayers{24, 24, 24});
  CHECK(stage_split_violation(96, pipeline(8)).empty());
  CHECK(stage_split_violation(96, pipeline(8, 0, 0, 3)).empty());
  CHECK(stage_split_violation(96, pipeline(8, 0, 0, 5)) ==
        "layers 96 are not divisible by PP·VPP = 40 (give the first and last stages' layers for an uneven split)");
}

TEST_CASE("Llama 3 405B: 126 layers on PP 16 with one layer fewer on the first and last stages") {
  // Dubey et al. 2024 (arXiv 2407.21783) §3.3.2: one Transformer layer removed from the first and the last stage.
  const Layout l = pipeline(16, 7, 7);
  const StageLayers s = pipeline_stage_layers(126, l);
  CHECK(s == StageLayers{7, 8, 7});
  CHECK(s.first + 14 * s.middle + s.last == 126);
  CHECK(s.most() == 8);
  CHECK(stage_split_violation(126, l).empty());
  CHECK(!stage_split_violation(126, pipeline(16)).empty());  // 126 % 16 != 0 without the uneven split
}

TEST_CASE("BLOOM 176B: 70 layers on PP 12, the embedding counted as a layer on the first and last stages") {
  // 70 layers + 2 embedding slots = 72 = 12 × 6 (Megatron-DeepSpeed --pp-partition-method type:transformer|embedding).
  const StageLayers s = pipeline_stage_layers(70, pipeline(12, 5, 5));
  CHECK(s == StageLayers{5, 6, 5});
  CHECK(stage_split_violation(70, pipeline(12, 5, 5)).empty());
  CHECK(!stage_split_violation(70, pipeline(12)).empty());
}

TEST_CASE("only one end given: the other stages share the rest evenly") {
  CHECK(pipeline_stage_layers(30, pipeline(4, 3)) == StageLayers{3, 9, 9});
  CHECK(pipeline_stage_layers(30, pipeline(4, 0, 6)) == StageLayers{8, 8, 6});
  CHECK(stage_split_violation(30, pipeline(4, 3)).empty());
  CHECK(pipeline_stage_layers(10, pipeline(2, 4, 6)) == StageLayers{4, 6, 6});
  CHECK(stage_split_violation(10, pipeline(2, 4, 6)).empty());
}

TEST_CASE("uneven splits Megatron-Core refuses") {
  CHECK(stage_split_violation(126, pipeline(16, 6, 7)) ==
        "the 113 layers between the first and last stages are not divisible by the 14 remaining stages");
  CHECK(stage_split_violation(126, pipeline(16, 7, 7, 2)) == "first stage layers 7 are not divisible by VPP 2");
  CHECK(stage_split_violation(10, pipeline(2, 4, 5)) ==
        "1 layers remain for 0 middle stages after the first and last stages");
  CHECK(stage_split_violation(12, pipeline(1, 12)) == "first and last stage layers need PP > 1");
  CHECK(stage_split_violation(10, pipeline(4, 2, 2, 2)) == "layers per middle stage 3 are not divisible by VPP 2");
  CHECK(stage_split_violation(20, pipeline(4, 2, 2, 2)).empty());
}
