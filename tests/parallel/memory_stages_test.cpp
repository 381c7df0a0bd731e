// Tests for lib/parallel/memory_model with uneven pipeline stages and the published layouts of today's models:
// Llama-3 405B on TP 8 × PP 16, BLOOM 176B on PP 12, a 7B on 128 H100 with FlashAttention.
#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "parallel/fixtures.hpp"
#include "parallel/layout.hpp"
#include "parallel/memory_model.hpp"
#include "parallel/search.hpp"
#include "parallel/stages.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {

using test::make_layout;
using test::megatron_job;

ClusterSpec cluster_of(const std::string& gpu, int gpus) {
  ClusterSpec c;
  c.accelerator = catalog::load_catalog().accelerator(gpu);
  c.gpus = gpus;
  c.intra_node_bandwidth_bytes_per_s = 300e9;
  c.inter_node_bandwidth_bytes_per_s = 50e9;
  return c;
}

// Llama-3 405B as Dubey et al. 2024 Table 4 lays it out: TP 8 with sequence parallelism, PP 16, DP 64,
// micro-batch 1, Megatron's distributed optimizer.
Layout llama3_405b_layout() {
  return make_layout(8, 16, 64, 1, 1, 1, 1, true);
}

double usable(const ClusterSpec& c) { return usable_memory_bytes(c.accelerator, MemoryOptions{}); }

}  // namespace

TEST_CASE("Llama-3 405B on 8,192 H100: TP 8 × PP 16 with 7 layers on the first and last stages") {
  // Dubey et al. 2024 Table 4: TP 8, CP 1, PP 16, DP 64, sequence 8192, 16M tokens per batch (2048 sequences);
  // §3.3.2: one Transformer layer fewer on the first and the last stage (126 = 7 + 14 × 8 + 7).
  const JobSpec job = megatron_job("llama3-405b", 8192, 2048);
  const ClusterSpec cluster = cluster_of("h100-sxm5-80gb", 8192);
  Layout l = llama3_405b_layout();
  CHECK(layout_violation(l, job, cluster) ==
        "layers 126 are not divisible by PP·VPP = 16 (give the first and last stages' layers for an uneven split)");
  l.first_stage_layers = 7;
  l.last_stage_layers = 7;
  CHECK(layout_violation(l, job, cluster) == "");
  CHECK(pipeline_stage_layers(126, l) == StageLayers{7, 8, 7});

  // Without recompute the second stage (8 layers × 15 micro-batches in flight) needs 78 GiB with the
  // distributed optimizer: more than an H100's 80 GB less headroom.
  const MemoryBreakdown none = estimate_memory(job, l);
  CHECK(none.total_bytes() > usable(cluster));
  // Gradients sharded as well (ZeRO-2, what FSDP without resharding after the forward keeps), the run Meta
  // describes without activation checkpointing at 8K (§3.3.2) fits.
  l.zero_stage = 2;
  CHECK(estimate_memory(job, l).total_bytes() < usable(cluster));
  l.zero_stage = 1;
  // The stated layout that fits with Megatron's distributed optimizer: the same with full recompute of each
  // block (its SP-sharded input kept), 22 GiB.
  l.recompute = Recompute::kFull;
  const MemoryBreakdown full = estimate_memory(job, l);
  CHECK(full.total_bytes() < usable(cluster));
}

TEST_CASE("uneven stages: the most loaded stage carries its own layers, embedding or logits") {
  const JobSpec job = megatron_job("llama3-405b", 8192, 2048);
  Layout l = llama3_405b_layout();
  l.first_stage_layers = 7;
  l.last_stage_layers = 7;
  const MemoryBreakdown uneven = estimate_memory(job, l);
  // 126 layers as 8 per stage would need 128: an even 8-layer first stage keeps 16 micro-batches × 8 layers.
  l.first_stage_layers = 8;
  l.last_stage_layers = 6;
  const MemoryBreakdown front_heavy = estimate_memory(job, l);
  CHECK(front_heavy.activations_bytes > uneven.activations_bytes);
  // Uneven, the second stage is the most loaded (8 layers × 15 micro-batches against 7 × 16 on the first);
  // front-heavy, the first (8 × 16): 8 layer-micro-batches more.
  ActivationShape x;
  x.seq = 8192;
  x.tp = 8;
  x.sequence_parallel = true;
  x.attention = job.attention;
  CHECK(front_heavy.activations_bytes - uneven.activations_bytes ==
        doctest::Approx((8 * 16 - 8 * 15) * layer_activation_bytes(job.architecture, x)));
}

TEST_CASE("the last stage is charged its output layer and fp32 logits") {
  // Llama-2 7B on PP 2 with one micro-batch in flight: the stages differ by the final norm and the logits,
  // 4sbh/t·(1 + V/h) = 4 · 4096 · (4096 + 32000) bytes, so the last stage is the most loaded.
  JobSpec job = megatron_job("llama2-7b", 4096, 8);
  Layout l = make_layout(1, 2, 8, 0);
  const MemoryBreakdown m = estimate_memory(job, l);
  CHECK(m.embeddings_logits_bytes == 4.0 * 4096 * (4096 + 32000));
  // Its 16-bit weights: 16 blocks of 4·4096² + 3·4096·11008 + 2·4096, the final RMSNorm (4096) and the untied
  // output layer (32000 × 4096).
  CHECK(m.weights_bytes == 2 * (16 * 202'383'360.0 + 4096 + 32000.0 * 4096));
  // Uneven: 20 layers on the first stage make it the most loaded, without the logits.
  l.first_stage_layers = 20;
  l.last_stage_layers = 12;
  CHECK(estimate_memory(job, l).embeddings_logits_bytes == 0);
}

TEST_CASE("BLOOM 176B: 70 layers on PP 12 with 5 on the first and last stages") {
  // bigscience tr11-176B-ml: TP 4, PP 12, DP 8 on 384 A100 80GB, MBS 2, GBS 2048, sequence 2048; Megatron-DeepSpeed
  // counted the tied embedding as a layer on the first and last stages (70 + 2 = 72 = 12 × 6).
  const JobSpec job = megatron_job("bloom-176b", 2048, 2048);
  const ClusterSpec cluster = cluster_of("a100-sxm4-80gb", 384);
  Layout l;
  l.tp = 4;
  l.pp = 12;
  l.dp = 8;
  l.micro_batch = 2;
  l.zero_stage = 1;
  CHECK(!layout_violation(l, job, cluster).empty());  // 70 % 12 != 0
  l.first_stage_layers = 5;
  l.last_stage_layers = 5;
  CHECK(layout_violation(l, job, cluster) == "");
  CHECK(pipeline_stage_layers(70, l) == StageLayers{5, 6, 5});
  l.recompute = Recompute::kFull;  // the run checkpointed every layer's activations
  const MemoryBreakdown m = estimate_memory(job, l);
  CHECK(m.total_bytes() < usable(cluster));
}

TEST_CASE("a 7B on 128 H100 fits with FlashAttention, not with eager attention") {
  // Llama-2 7B, sequence 4096, 4M-token batches (1024 sequences; Touvron et al. 2023 §2.2), pure data
  // parallelism with the distributed optimizer, no recompute.
  JobSpec job = megatron_job("llama2-7b", 4096, 1024);
  const ClusterSpec cluster = cluster_of("h100-sxm5-80gb", 128);
  Layout l;
  l.dp = 128;
  l.zero_stage = 1;
  l.micro_batch = 1;
  CHECK(layout_violation(l, job, cluster) == "");
  job.attention = AttentionKernel::kFlash;
  const MemoryBreakdown flash = estimate_memory(job, l);
  CHECK(flash.total_bytes() < usable(cluster));
  job.attention = AttentionKernel::kEager;  // 32 layers × 2·a·s² = 32 GiB of softmax outputs more
  const MemoryBreakdown eager = estimate_memory(job, l);
  CHECK(eager.total_bytes() > usable(cluster));
  CHECK(eager.activations_bytes - flash.activations_bytes == 32 * (2.0 * 32 * 4096 * 4096 - 4.0 * 32 * 4096));
}

TEST_CASE("the layout search finds a 7B on 128 H100 feasible with FlashAttention") {
  JobSpec job = megatron_job("llama2-7b", 4096, 1024);
  const ClusterSpec cluster = cluster_of("h100-sxm5-80gb", 128);
  const SearchResult r = search_layouts(job, cluster, SearchOptions{});
  REQUIRE(r.feasible());
  for (const RankedLayout& l : r.layouts) {
    CHECK(layout_violation(l.layout, job, cluster) == "");
    CHECK(l.memory.total_bytes() <= usable(cluster));
  }
}
