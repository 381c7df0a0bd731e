// The search under a trainer's rules: it never returns a layout the trainer rejects (a property over many
// jobs), ZeRO-3 with a pipeline is never recommended for Megatron or DeepSpeed, MT-NLG 530B on 2,240 A100s
// gets a Megatron-runnable layout, pruned families name the rule, and layers that do not divide the stages
// get uneven first/last stages (Llama 3 405B, BLOOM 176B).
#include <doctest/doctest.h>

#include <string>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "parallel/search.hpp"
#include "parallel/fixtures.hpp"
#include "parallel/stages.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {

using Setup = test::CatalogJob;

}  // namespace

TEST_CASE("the search never returns a layout its trainer rejects") {
  const test::JobRow jobs[] = {{"gpt3-175b", 1024, 1536}, {"gpt3-175b", 384, 1536},   {"mt-nlg-530b", 2240, 1920},
                               {"bloom-176b", 384, 2048}, {"llama2-70b", 512, 1024},  {"llama2-70b", 64, 512},
                               {"gpt3-175b", 96, 1536},   {"mt-nlg-530b", 4480, 1920}};
  int checked = 0;
  for (const test::JobRow& j : jobs)
    for (const char* trainer : {"megatron", "deepspeed", "nemo", "fsdp"}) {
      Setup s(j.model, j.gpus, j.batch, trainer);
      s.options.top_k = 50;
      INFO(j.model << " on " << j.gpus << " GPUs, " << trainer);
      SearchResult r;
      try {
        r = search_layouts(s.job, s.cluster, s.options);
      } catch (const InputError&) {
        continue;  // no valid layout at all for this trainer
      }
      for (const auto& l : r.layouts) {
        const auto v = runnability_violation(s.options.trainer, l.layout, s.job, s.cluster);
        INFO((v ? v->rule + ": " + v->reason : std::string()));
        CHECK(!v.has_value());
        // ZeRO-3 with a pipeline: Megatron's FSDP2 and DeepSpeed's pipeline engine refuse it.
        CHECK(!(l.layout.zero_stage >= 2 && l.layout.pp > 1));
        ++checked;
      }
    }
  CHECK(checked > 100);
}

TEST_CASE("Megatron offers ZeRO-3 only to a model with untied embeddings") {
  // Megatron-LM's --use-torch-fsdp2 asserts --untie-embeddings-and-output-weights (core_v0.13.0). The 113B
  // model `plan` gives 3,360 A100s for 30 days (102 × 9216, 72 heads, 3,360 sequences of 2,048): untied, ZeRO-3
  // layouts are among its 50 best; tied, Megatron runs none of them.
  const auto job_113b = [](bool tied) {
    Setup s("gpt3-175b", 3360, 3360);
    s.job.architecture.layers = 102;
    s.job.architecture.d_model = 9216;
    s.job.architecture.heads = 72;
    s.job.architecture.tied_embeddings = tied;
    return s;
  };
  int zero3_untied = 0;
  for (const bool tied : {false, true}) {
    Setup s = job_113b(tied);
    s.options.top_k = 50;
    const SearchResult r = search_layouts(s.job, s.cluster, s.options);
    REQUIRE(!r.layouts.empty());
    int zero3 = 0;
    for (const auto& l : r.layouts) zero3 += l.layout.zero_stage == 3;
    INFO((tied ? "tied" : "untied") << ": " << zero3 << " ZeRO-3 layouts");
    if (tied) {
      CHECK(zero3 == 0);
    } else {
      zero3_untied = zero3;
    }
  }
  CHECK(zero3_untied > 0);
  // The rule, as the trainer's violation names it.
  const Setup s = job_113b(true);
  const auto v = runnability_violation(s.options.trainer, test::make_layout(8, 1, 420, 3), s.job, s.cluster);
  REQUIRE(v.has_value());
  CHECK(v->rule == "zero3_tied_embeddings");
  CHECK(v->reason.find("untied embeddings") != std::string::npos);
  CHECK(!runnability_violation(s.cat.trainer("deepspeed"), test::make_layout(8, 1, 420, 3), s.job, s.cluster));
}

TEST_CASE("MT-NLG 530B unpinned on 2,240 A100s: a layout Megatron runs") {
  Setup s("mt-nlg-530b", 2240, 1920);
  const SearchResult r = search_layouts(s.job, s.cluster, s.options);
  REQUIRE(!r.layouts.empty());
  const Layout& best = r.layouts.front().layout;
  INFO("TP " << best.tp << " PP " << best.pp << " DP " << best.dp << " ZeRO " << best.zero_stage);
  CHECK(!runnability_violation(s.options.trainer, best, s.job, s.cluster));
  CHECK(best.tp <= 8);
  CHECK((best.pp == 1 || best.zero_stage <= 1));
  // The same search for DeepSpeed explains the families whose fitting layouts need ZeRO-2/3 with a pipeline.
  Setup ds("mt-nlg-530b", 2240, 2240, "deepspeed");  // Narayanan et al. 2021 Table 2: batch 2240
  ds.options.pins.tp = 8;
  ds.options.pins.pp = 2;  // 53 and 52 layers per stage: only ZeRO-3 would fit
  const SearchResult pruned = search_layouts(ds.job, ds.cluster, ds.options);
  REQUIRE(pruned.infeasible);
  REQUIRE(!pruned.pruned.empty());
  CHECK(pruned.pruned.front().rule == "zero_with_pipeline");
  CHECK(pruned.infeasible->reason.find("zero_with_pipeline") != std::string::npos);
}

TEST_CASE("layers that do not divide the stages: uneven first and last stages where the trainer runs them") {
  // Llama 3 405B (Dubey et al. 2024 §3.3): 126 layers, TP 8 × PP 16, first and last stages one layer short.
  Setup s("mt-nlg-530b", 1024, 1024);
  s.job.architecture.layers = 126;
  s.job.architecture.d_model = 16384;
  s.job.architecture.heads = 128;
  s.job.architecture.kv_heads = 8;
  s.options.pins.tp = 8;
  s.options.pins.pp = 16;
  s.options.pins.zero_stage = 1;
  const SearchResult r = search_layouts(s.job, s.cluster, s.options);
  REQUIRE(!r.layouts.empty());
  const Layout& l = r.layouts.front().layout;
  CHECK(l.first_stage_layers == 7);
  CHECK(l.last_stage_layers == 7);
  CHECK(pipeline_stage_layers(126, l).middle == 8);
  // FSDP runs no pipeline; with PP pinned its search has nothing valid.
  s.options.trainer = s.cat.trainer("fsdp");
  s.options.pins.zero_stage = 3;
  CHECK_THROWS_AS(search_layouts(s.job, s.cluster, s.options), InputError);
  // BLOOM 176B: 70 layers on PP 12 (Megatron-DeepSpeed).
  Setup bloom("bloom-176b", 384, 2048, "deepspeed");
  bloom.options.pins.tp = 4;
  bloom.options.pins.pp = 12;
  const SearchResult b = search_layouts(bloom.job, bloom.cluster, bloom.options);
  REQUIRE(!b.layouts.empty());
  const StageLayers st = pipeline_stage_layers(70, b.layouts.front().layout);
  CHECK(st.first + st.last + 10 * st.middle == 70);
  // Pinned first/last stage layers are kept.
  s.options.trainer = s.cat.trainer("megatron");
  s.options.pins.zero_stage = 1;
  s.options.pins.first_stage_layers = 6;
  s.options.pins.last_stage_layers = 8;
  const SearchResult pinned = search_layouts(s.job, s.cluster, s.options);
  REQUIRE(!pinned.layouts.empty());
  CHECK(pinned.layouts.front().layout.first_stage_layers == 6);
  CHECK(pinned.layouts.front().time.step_time_s > r.layouts.front().time.step_time_s);  // 8 layers + logits last
}

TEST_CASE("context parallelism is searched where the trainer has it") {
  Setup s("llama2-70b", 512, 256);
  s.job.seq = 32768;
  s.options.pins.tp = 8;
  s.options.max_cp = 8;
  const SearchResult r = search_layouts(s.job, s.cluster, s.options);
  bool any_cp = false;
  for (const auto& p : r.pruned) any_cp |= p.cp > 1;
  for (const auto& l : r.layouts) any_cp |= l.layout.cp > 1;
  CHECK(any_cp);
  Setup ds("llama2-70b", 512, 256, "deepspeed");
  ds.job.seq = 32768;
  ds.options.pins.tp = 8;
  ds.options.max_cp = 8;
  const SearchResult d = search_layouts(ds.job, ds.cluster, ds.options);
  for (const auto& l : d.layouts) CHECK(l.layout.cp == 1);
  for (const auto& p : d.pruned) CHECK(p.cp == 1);
}
