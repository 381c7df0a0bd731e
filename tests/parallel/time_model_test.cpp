// Tests for lib/parallel/time_model as the trainer runs the job: ZeRO-2/3 traffic per micro-batch, overlap of
// the data-parallel reduction, gradient bytes, TP groups on the node topology, ring attention, the all-to-all's
// capacity factor, and a pipeline paced by its slowest (uneven or logits-carrying) stage.
#include "parallel/efficiency.hpp"
#include "parallel/time_model.hpp"

#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "parallel/fixtures.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {

// GPT-3 175B (s = 2048) on `gpus` A100s.
struct Setup : test::CatalogJob {
  explicit Setup(int gpus, long long batch = 512) : CatalogJob("gpt3-175b", gpus, batch) {}
};

Layout layout(int tp, int pp, int dp, int zero) {
  Layout l = test::make_layout(tp, pp, dp, zero);
  l.recompute = Recompute::kFull;
  return l;
}

double dp_traffic(const StepTime& t) { return t.breakdown.dp_comm_s + t.breakdown.dp_hidden_s; }

}  // namespace

TEST_CASE("ZeRO-3 gathers weights every micro-batch, ZeRO-1 reduces once per step") {
  Setup a(256, 256), b(256, 512);  // m = 1 and m = 2 micro-batches of one sequence per replica
  const TimeOptions none{false, false, false, GradReduce::kBf16};
  const Layout z3 = layout(1, 1, 256, 3), z1 = layout(8, 1, 32, 1);
  EXPECT_CLOSE(dp_traffic(estimate_step_time(b.job, b.cluster, z3, none)) /
                   dp_traffic(estimate_step_time(a.job, a.cluster, z3, none)), 2.0, 1e-9);
  EXPECT_CLOSE(dp_traffic(estimate_step_time(b.job, b.cluster, z1, none)) /
                   dp_traffic(estimate_step_time(a.job, a.cluster, z1, none)), 1.0, 1e-9);
  // ZeRO-3 always prefetches and overlaps (the model has no ZeRO-3 without it): its settings say so whatever was
  // asked, the same step either way, so the launch files state the overlap its time assumed.
  const TimeOptions overlap{true, true, false, GradReduce::kBf16};
  const StepTime z3_none = estimate_step_time(a.job, a.cluster, z3, none);
  CHECK(z3_none.settings.overlap_grad_reduce);
  CHECK(z3_none.settings.overlap_param_gather);
  CHECK(z3_none.step_time_s == estimate_step_time(a.job, a.cluster, z3, overlap).step_time_s);
  CHECK_FALSE(estimate_step_time(a.job, a.cluster, z1, none).settings.overlap_grad_reduce);
  // ZeRO-2 (DeepSpeed, FSDP SHARD_GRAD_OP) reduce-scatters every micro-batch's gradients.
  const Layout z2 = layout(8, 1, 32, 2);
  CHECK(dp_traffic(estimate_step_time(b.job, b.cluster, z2, none)) >
        1.4 * dp_traffic(estimate_step_time(a.job, a.cluster, z2, none)));
}

TEST_CASE("gradient bytes: fp32 reduction moves twice the bf16 bytes, overlap hides and never adds") {
  Setup s(256, 256);
  const Layout l = layout(8, 1, 32, 0);
  const StepTime bf16 = estimate_step_time(s.job, s.cluster, l, {false, false, false, GradReduce::kBf16});
  const StepTime fp32 = estimate_step_time(s.job, s.cluster, l, {false, false, false, GradReduce::kFp32});
  EXPECT_CLOSE(dp_traffic(fp32) / dp_traffic(bf16), 2.0, 1e-9);
  CHECK(fp32.settings.grad_reduce_bytes == 4);
  const StepTime overlapped = estimate_step_time(s.job, s.cluster, l, {true, true, false, GradReduce::kFp32});
  EXPECT_CLOSE(dp_traffic(overlapped), dp_traffic(fp32), 1e-9);
  CHECK(overlapped.breakdown.dp_comm_s < fp32.breakdown.dp_comm_s);
  CHECK(overlapped.breakdown.dp_hidden_s > 0);
  CHECK(overlapped.step_time_s < fp32.step_time_s);
  // Unset options follow the trainer's defaults (Megatron: overlap on, fp32 reduction).
  const TimeOptions megatron = with_trainer_defaults({}, s.cat.trainer("megatron"));
  CHECK(estimate_step_time(s.job, s.cluster, l, megatron) == overlapped);
  // No trainer: the calibration runs' settings, no overlap and the 16-bit training type.
  const StepTime plain = estimate_step_time(s.job, s.cluster, l);
  CHECK(plain.settings.grad_reduce_bytes == s.job.bytes_per_value);
  CHECK(!plain.settings.overlap_grad_reduce);
}

TEST_CASE("TP groups on the node topology: NVLink only inside a node") {
  // 96 heads divide by 6; six GPUs of an 8-GPU node leave groups straddling nodes.
  Setup eight(48, 48), six(48, 48);
  six.cluster.gpus_per_node = 6;
  const Layout l = layout(6, 1, 8, 1);
  const StepTime split = estimate_step_time(eight.job, eight.cluster, l);
  const StepTime whole = estimate_step_time(six.job, six.cluster, l);
  EXPECT_CLOSE(split.breakdown.tp_comm_s / whole.breakdown.tp_comm_s,
               eight.cluster.intra_node_bandwidth_bytes_per_s / eight.cluster.inter_node_bandwidth_bytes_per_s, 1e-9);
  // TP communication overlap hides traffic behind GEMMs only with sequence parallelism.
  Layout sp = layout(8, 1, 6, 1);
  const StepTime off = estimate_step_time(eight.job, eight.cluster, sp, {false, false, true, std::nullopt});
  CHECK(!off.settings.tp_comm_overlap);
  sp.sequence_parallel = true;
  const StepTime on = estimate_step_time(eight.job, eight.cluster, sp, {false, false, true, std::nullopt});
  CHECK(on.settings.tp_comm_overlap);
  CHECK(on.breakdown.tp_comm_s < off.breakdown.tp_comm_s);
  EXPECT_CLOSE(on.breakdown.tp_comm_s + on.breakdown.tp_hidden_s, off.breakdown.tp_comm_s, 1e-9);
}

TEST_CASE("context parallelism: ring traffic scales with the key/value heads and CP splits the compute") {
  Setup s(64, 64);
  s.job.seq = 32768;
  Layout l = layout(8, 1, 4, 1);
  l.cp = 2;
  const StepTime mha = estimate_step_time(s.job, s.cluster, l);
  const StepTime whole = estimate_step_time(s.job, s.cluster, layout(8, 1, 8, 1));
  s.job.architecture.kv_heads = 12;  // GQA: 8× fewer key/value heads
  const StepTime gqa = estimate_step_time(s.job, s.cluster, l);
  const double mha_traffic = mha.breakdown.cp_comm_s + mha.breakdown.cp_hidden_s;
  CHECK(mha_traffic > 0);
  EXPECT_CLOSE((gqa.breakdown.cp_comm_s + gqa.breakdown.cp_hidden_s) / mha_traffic, 1.0 / 8, 1e-9);
  CHECK(whole.breakdown.cp_comm_s == 0);
  // Per micro-batch each GPU computes half the tokens, with twice the micro-batches per replica: the same FLOPs,
  // at the efficiency of GEMMs with half the token rows (efficiency.hpp).
  const auto& acc = s.cluster.accelerator;
  const double width = gemm_width(static_cast<double>(s.job.architecture.d_model), 8);
  const double rows = static_cast<double>(l.micro_batch) * s.job.seq;
  EXPECT_CLOSE(mha.breakdown.compute_s / whole.breakdown.compute_s,
               gemm_efficiency(acc, width, rows) / gemm_efficiency(acc, width, rows / 2), 1e-9);
  CHECK(mha.breakdown.compute_s > whole.breakdown.compute_s);
}

TEST_CASE("MoE all-to-all carries top-k × capacity-factor slots") {
  Setup s(64, 64);
  s.job.architecture.moe.experts = 8;
  s.job.architecture.moe.top_k = 2;
  Layout l = layout(1, 1, 64, 1);
  l.ep = 8;
  s.job.architecture.moe.capacity_factor = 1.0;
  const double one = estimate_step_time(s.job, s.cluster, l).breakdown.moe_comm_s;
  s.job.architecture.moe.capacity_factor = 2.0;
  CHECK(one > 0);
  // The FLOPs grow with the padded slots too, so only the all-to-all is compared.
  EXPECT_CLOSE(estimate_step_time(s.job, s.cluster, l).breakdown.moe_comm_s / one, 2.0, 1e-9);
}

TEST_CASE("the pipeline runs at its slowest stage: the last stage's logits, uneven splits") {
  Setup s(64, 64);
  Layout l = layout(8, 8, 1, 1);
  const StepTime even = estimate_step_time(s.job, s.cluster, l);
  CHECK(even.breakdown.logits_s > 0);       // the last stage carries the output layer and loss
  CHECK(even.breakdown.embedding_s == 0);   // and is slower than the first
  EXPECT_CLOSE(even.step_time_s, even.breakdown.total_s(), 1e-12);
  // Uneven stages, 13 + 12·6 + 11 = 96: the extra layer belongs on the first stage, not beside the logits.
  Layout first_heavy = l, last_heavy = l;
  first_heavy.first_stage_layers = last_heavy.last_stage_layers = 13;
  first_heavy.last_stage_layers = last_heavy.first_stage_layers = 11;
  const StepTime a = estimate_step_time(s.job, s.cluster, first_heavy);
  const StepTime b = estimate_step_time(s.job, s.cluster, last_heavy);
  CHECK(a.step_time_s < b.step_time_s);
  CHECK(a.step_time_s > even.step_time_s);  // either way the slowest stage has 13 layers' work
  CHECK(a.breakdown.embedding_s > 0);       // the first stage is now the slowest
  // Bubble: with even stages and no logits it is (p − 1)/v stage-times (Narayanan et al. 2021).
  const double stage_s = (even.breakdown.compute_s + even.breakdown.recompute_s + even.breakdown.tp_comm_s +
                          even.breakdown.pp_comm_s) / 64;
  CHECK(even.breakdown.bubble_s == doctest::Approx(7 * stage_s).epsilon(0.02));
}

TEST_CASE("FP8: the linear layers' GEMMs run at the FP8 peak, attention's core in bf16, and a chip without FP8 refuses") {
  const catalog::Catalog cat = catalog::load_catalog();
  JobSpec job;
  job.architecture = cat.model("gpt3-175b").architecture;
  job.seq = 2048;
  job.global_batch = 512;
  const ClusterSpec h100 = test::catalog_cluster(cat, 64, "h100-sxm5-80gb", "dgx-h100");
  const Layout l = test::make_layout(8, 1, 8, 1);
  const StepTime bf16 = estimate_step_time(job, h100, l);
  job.precision = MatmulPrecision::kFp8;
  const StepTime fp8 = estimate_step_time(job, h100, l);
  // Split the bf16 compute into its linear and attention-core parts (their FLOPs over their efficiencies: the
  // linear layers' width, the head's); FP8 divides the linear part by the ratio of the peaks (1978.9 / 989.4 on
  // the H100 datasheet).
  const model::MegatronFlops f = model::megatron_flops(job.architecture, 1, job.seq, l.recompute);
  const catalog::Accelerator& acc = h100.accelerator;
  const double h = static_cast<double>(job.architecture.d_model), s = static_cast<double>(job.seq);
  const double linear_s = (f.attention_projections + f.mlp + f.experts + f.router) /
                          gemm_efficiency(acc, gemm_width(h, l.tp), l.micro_batch * s);
  const double attention_s =
      f.attention_scores / gemm_efficiency(acc, static_cast<double>(job.architecture.effective_head_size()), s);
  const double linear_share = linear_s / (linear_s + attention_s);
  const double peak_ratio = *h100.accelerator.peak_fp8_flops / h100.accelerator.peak_16bit_flops;
  EXPECT_CLOSE(peak_ratio, 1978.9 / 989.4, 1e-12);
  EXPECT_CLOSE(fp8.breakdown.compute_s, bf16.breakdown.compute_s * (linear_share / peak_ratio + 1 - linear_share),
               1e-9);
  CHECK(fp8.step_time_s < bf16.step_time_s);
  CHECK(fp8.model_flops_per_step == bf16.model_flops_per_step);  // the same work, counted the same way

  const ClusterSpec a100 = test::catalog_cluster(cat, 64);
  CHECK_THROWS_AS(estimate_step_time(job, a100, l), FieldError);
}

TEST_CASE("attention's core runs at the head's width: narrower heads of the same layer take longer") {
  const catalog::Catalog cat = catalog::load_catalog();
  JobSpec job;
  job.architecture = cat.model("gpt3-175b").architecture;  // d_model 12288, 96 heads of 128
  job.seq = 2048;
  job.global_batch = 512;
  const ClusterSpec h100 = test::catalog_cluster(cat, 64, "h100-sxm5-80gb", "dgx-h100");
  const Layout l = test::make_layout(8, 1, 8, 1);
  const StepTime wide = estimate_step_time(job, h100, l);
  job.architecture.heads = 384;  // heads of 32: the same FLOPs, the same linear layers
  job.architecture.head_size = 32;
  const StepTime narrow = estimate_step_time(job, h100, l);
  CHECK(narrow.model_flops_per_step == wide.model_flops_per_step);
  // Only the attention core's time changes, by its FLOPs over the two head widths' efficiencies.
  const model::MegatronFlops f = model::megatron_flops(job.architecture, l.micro_batch, job.seq, l.recompute);
  const catalog::Accelerator& acc = h100.accelerator;
  const double s = static_cast<double>(job.seq);
  const double per_layer_s = f.attention_scores / job.architecture.layers / (acc.peak_16bit_flops * l.tp);
  const double expected_extra = per_layer_s * (1 / gemm_efficiency(acc, 32, s) - 1 / gemm_efficiency(acc, 128, s));
  const double layers_per_stage = job.architecture.layers / l.pp;
  const double micro_batches = static_cast<double>(l.micro_batches(job.global_batch));
  EXPECT_CLOSE((narrow.breakdown.compute_s - wide.breakdown.compute_s) / (micro_batches * layers_per_stage),
               expected_extra, 1e-9);
  CHECK(narrow.step_time_s > wide.step_time_s);
}

TEST_CASE("attention's core under context parallelism and selective recompute: head-wide GEMMs of s/CP rows") {
  // One stage (PP 1), TP 8 × CP 2, micro-batch 2, selective recompute: per layer and micro-batch each GPU does
  // 1/(TP·CP) of the linear FLOPs at the layer's width over b·s/CP rows, and of attention's core (and its
  // recomputed forward) at the head's width over s/CP rows.
  Setup s(64, 64);
  s.job.seq = 8192;
  Layout l = test::make_layout(8, 1, 4, 1, 1, 1, 2);
  l.micro_batch = 2;
  l.recompute = Recompute::kSelective;
  const StepTime t = estimate_step_time(s.job, s.cluster, l);
  const auto& arch = s.job.architecture;
  const auto& acc = s.cluster.accelerator;
  const double seq = static_cast<double>(s.job.seq), h = static_cast<double>(arch.d_model);
  const model::MegatronFlops f = model::megatron_flops(arch, l.micro_batch, s.job.seq, l.recompute);
  const double per_gpu = acc.peak_16bit_flops * l.tp * l.cp;
  const double linear_eff = gemm_efficiency(acc, gemm_width(h, l.tp), l.micro_batch * seq / l.cp);
  const double attention_eff = gemm_efficiency(acc, static_cast<double>(arch.effective_head_size()), seq / l.cp);
  CHECK(attention_eff < linear_eff);
  const double micro_batches = static_cast<double>(l.micro_batches(s.job.global_batch));
  const double linear = f.attention_projections + f.mlp + f.experts + f.router;
  EXPECT_CLOSE(t.breakdown.compute_s,
               micro_batches * (linear / linear_eff + f.attention_scores / attention_eff) / per_gpu, 1e-9);
  EXPECT_CLOSE(t.breakdown.recompute_s, micro_batches * f.recompute / attention_eff / per_gpu, 1e-9);
}

TEST_CASE("a job without heads prices attention's core at the layer's width, not at zero") {
  Setup s(64, 64);
  const StepTime with_heads = estimate_step_time(s.job, s.cluster, layout(8, 1, 8, 1));
  s.job.architecture.head_size = 0;
  s.job.architecture.heads = 0;
  const StepTime headless = estimate_step_time(s.job, s.cluster, layout(8, 1, 8, 1));
  CHECK(std::isfinite(headless.step_time_s));
  CHECK(headless.step_time_s > 0);
  // The layer's width (12288 / √8 per GPU) is wider than a head of 128: the core runs faster, not infinitely.
  CHECK(headless.breakdown.compute_s < with_heads.breakdown.compute_s);
}

TEST_CASE("a per-layer overhead costs every layer of the slowest stage once per micro-batch, the bubble too") {
  Setup s(64, 64);
  const Layout l = layout(8, 8, 1, 1);  // 12 layers per stage, 64 micro-batches
  const StepTime base = estimate_step_time(s.job, s.cluster, l);
  CHECK(base.breakdown.layer_overhead_s == 0);  // the catalog's accelerators do not measure it
  Setup o(64, 64);
  o.cluster.accelerator.layer_overhead_s = 500e-6;
  const StepTime with = estimate_step_time(o.job, o.cluster, l);
  EXPECT_CLOSE(with.breakdown.layer_overhead_s, 64 * 12 * 500e-6, 1e-12);
  EXPECT_CLOSE(with.step_time_s, with.breakdown.total_s(), 1e-12);
  // The other stages' fill and drain carry their layers' overhead once, over v = 1: 7 stages of 12 layers.
  EXPECT_CLOSE(with.breakdown.bubble_s - base.breakdown.bubble_s, 7 * 12 * 500e-6, 1e-9);
  EXPECT_CLOSE(with.step_time_s - base.step_time_s, (64 + 7) * 12 * 500e-6, 1e-9);
  // The search's lower bound stays below the step time and moves with the overhead.
  const StepFlops flops = step_flops(o.job, l);
  const StageLayers st = pipeline_stage_layers(o.job.architecture.layers, l);
  const double bound = gemm_lower_bound_s(o.job, o.cluster, l, st, flops);
  CHECK(bound <= with.step_time_s);
  EXPECT_CLOSE(bound - gemm_lower_bound_s(s.job, s.cluster, l, st, flops), (64 + 7) * 12 * 500e-6, 1e-9);
}

TEST_CASE("a per-layer overhead with interleaving and uneven stages: the slowest stage's layers, the bubble over v") {
  Setup s(64, 64), o(64, 64);
  o.cluster.accelerator.layer_overhead_s = 500e-6;
  // 96 layers on 8 stages of 2 chunks: first and last stages pinned to 6 layers, the 6 others 14 each.
  Layout l = layout(8, 8, 1, 1);
  l.vpp = 2;
  l.first_stage_layers = l.last_stage_layers = 6;
  const StageLayers st = pipeline_stage_layers(s.job.architecture.layers, l);
  REQUIRE(st.first == 6);
  REQUIRE(st.middle == 14);
  REQUIRE(st.last == 6);
  const StepTime base = estimate_step_time(s.job, s.cluster, l), with = estimate_step_time(o.job, o.cluster, l);
  const int slowest = std::max({st.first, st.middle, st.last});
  EXPECT_CLOSE(with.breakdown.layer_overhead_s, 64 * slowest * 500e-6, 1e-9);
  // Every other stage's layers carry it once in the fill and drain, over v = 2.
  const int others = s.job.architecture.layers - slowest;
  EXPECT_CLOSE(with.breakdown.bubble_s - base.breakdown.bubble_s, others * 500e-6 / 2, 1e-9);
  // The lower bound moves by at most the step time's change and stays below it.
  const StepFlops flops = step_flops(o.job, l);
  const double bound = gemm_lower_bound_s(o.job, o.cluster, l, st, flops);
  CHECK(bound <= with.step_time_s);
  CHECK(bound - gemm_lower_bound_s(s.job, s.cluster, l, st, flops) <= with.step_time_s - base.step_time_s + 1e-12);
}
