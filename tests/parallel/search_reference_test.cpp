// The pruned search (trainer verdicts reused, memory estimates skipped where a smaller micro-batch already did not
// fit) against the exhaustive reference: the same ranked layouts, pruned families, counts and closest miss for
// dense and MoE models, every trainer, each ZeRO stage pinned and other pins; layouts as fast as each other
// ranked by memory.
#include <doctest/doctest.h>

#include "core/error.hpp"
#include "model/shape.hpp"
#include "parallel/fixtures.hpp"
#include "parallel/search.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {

// Both searches on one job; returns how many layouts the reference ranked.
size_t compare(test::CatalogJob& s) {
  SearchResult pruned, reference;
  try {
    reference = search_layouts_exhaustive(s.job, s.cluster, s.options);
  } catch (const InputError&) {
    CHECK_THROWS_AS(search_layouts(s.job, s.cluster, s.options), InputError);
    return 0;
  }
  pruned = search_layouts(s.job, s.cluster, s.options);
  CHECK(pruned == reference);
  return reference.layouts.size();
}

}  // namespace

TEST_CASE("the pruned search returns what the exhaustive one does") {
  const test::JobRow jobs[] = {{"mt-nlg-530b", 3360, 1920}, {"gpt3-175b", 384, 1536}, {"llama2-70b", 64, 512},
                               {"gpt-oss-120b", 256, 1024}, {"gpt-oss-20b", 64, 512}, {"mt-nlg-530b", 8, 8}};
  size_t ranked = 0;
  for (const test::JobRow& j : jobs)
    for (const char* trainer : {"megatron", "deepspeed", "fsdp"})
      for (int zero = -1; zero <= 3; ++zero) {
        test::CatalogJob s(j.model, j.gpus, j.batch, trainer);
        s.options.top_k = 20;
        if (zero >= 0) s.options.pins.zero_stage = zero;
        INFO(j.model << " on " << j.gpus << " GPUs, " << trainer << ", ZeRO pin " << zero);
        ranked += compare(s);
      }
  CHECK(ranked > 100);
}

TEST_CASE("the pruned search with pins and without a trainer") {
  test::CatalogJob s("mt-nlg-530b", 2240, 1920);
  s.options.pins.tp = 8;
  s.options.pins.recompute = Recompute::kSelective;
  CHECK(compare(s) > 0);
  test::CatalogJob moe("gpt-oss-120b", 128, 512);
  moe.options.pins.ep = 8;
  moe.options.pins.micro_batch = 2;
  compare(moe);
  test::CatalogJob bare("llama2-70b", 128, 1024);
  bare.options.trainer = {};
  bare.options.top_k = 50;
  CHECK(compare(bare) > 0);
}

TEST_CASE("the pruned search with a pinned micro-batch past the ones it tries, and ranked by memory") {
  // 4,800 sequences on 16 GPUs, a pinned micro-batch of 300 (beyond the 16 tried) with full recompute: TP 8
  // and DP 2 fit, and TP 8 × PP 2 on one data-parallel rank, where every ZeRO stage is the same layout (the same
  // memory and step): that one is ranked once, at the lowest stage, instead of tying with itself.
  test::CatalogJob big("llama2-7b", 16, 4800);
  big.options.pins.micro_batch = 300;
  big.options.pins.recompute = Recompute::kFull;
  CHECK(compare(big) > 1);
  const SearchResult ranked = search_layouts(big.job, big.cluster, big.options);
  int one_rank = 0;
  for (size_t i = 0; i < ranked.layouts.size(); ++i) {
    const RankedLayout& a = ranked.layouts[i];
    if (a.layout.dp == 1) {
      ++one_rank;
      CHECK(a.layout.zero_stage == 0);
    }
    if (i == 0) continue;
    const RankedLayout& before = ranked.layouts[i - 1];
    CHECK(before.time.step_time_s <= a.time.step_time_s);
    if (before.time.step_time_s == a.time.step_time_s)
      CHECK(before.memory.total_bytes() <= a.memory.total_bytes());  // as fast: less memory first
  }
  CHECK(one_rank > 0);
  // With context parallelism the model shards over DP × CP: at DP 1 and CP 2 the ZeRO stages differ, and each
  // is ranked (ZeRO-3 fits Llama 2 13B at 8k tokens on 40 GB where ZeRO-0 does not).
  test::CatalogJob cp("llama2-13b", 8, 64, "megatron", "a100-sxm4-40gb", "dgx-a100-40gb");
  cp.job.seq = 8192;
  cp.options.pins.tp = 4;
  cp.options.pins.cp = 2;
  cp.options.pins.pp = 1;
  const SearchResult sharded = search_layouts(cp.job, cp.cluster, cp.options);
  REQUIRE(sharded.feasible());
  CHECK(sharded.layouts.front().layout.zero_stage > 0);
  test::CatalogJob memory("gpt3-175b", 384, 1536);
  memory.options.objective = Objective::kMemory;
  memory.options.top_k = 10;
  CHECK(compare(memory) == 10);
}

TEST_CASE("the pruned search on the jobs of a plan: shaped models, the batch doubled, every k") {
  // What `plan` asks on 3,360 A100s for 30 days (the shapes of its iterations, at its batch and two doublings),
  // and a smaller plan's on 512 H100s: micro-batches whose layouts are only counted (a fit found, none faster
  // possible) must leave the ranking, the counts and the closest miss as the exhaustive search has them.
  struct PlanJob {
    double params;
    int gpus;
    const char* gpu;
    const char* node;
    long long batch;
  };
  const PlanJob jobs[] = {{1.43e11, 3360, "a100-sxm4-80gb", "dgx-a100", 1680},
                          {1.25e11, 3360, "a100-sxm4-80gb", "dgx-a100", 3360},
                          {1.165e11, 3360, "a100-sxm4-80gb", "dgx-a100", 6720},
                          {6.8e10, 512, "h100-sxm5-80gb", "dgx-h100", 1024},
                          {6.8e10, 512, "h100-sxm5-80gb", "dgx-h100", 4096}};
  size_t ranked = 0;
  for (const PlanJob& j : jobs)
    for (const int k : {1, 5, 20}) {
      test::CatalogJob s("llama2-70b", j.gpus, j.batch, "megatron", j.gpu, j.node);
      model::ShapeOptions shape;
      shape.reference = s.job.architecture;
      shape.tp = 8;
      s.job.architecture = model::shape_architecture(j.params, shape).best.architecture;
      s.options.top_k = k;
      INFO(j.params << " parameters on " << j.gpus << " " << j.gpu << ", batch " << j.batch << ", k " << k);
      ranked += compare(s);
    }
  CHECK(ranked == 5 * (1 + 5 + 20));
}
