// Tests for lib/parallel/memory_model on modern blocks: SwiGLU, GQA, FlashAttention, FP8, context parallelism,
// Megatron's optimizer bytes and expert states on the expert-data-parallel group; numbers derived by hand from
// the formulas in memory_model.hpp (Korthikanti et al. 2022 §4.1, term by term).
#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "model/params.hpp"
#include "parallel/fixtures.hpp"
#include "parallel/memory_model.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {

model::Architecture arch(const std::string& name) { return catalog::load_catalog().model(name).architecture; }

using test::make_layout;
using test::megatron_job;

ActivationShape shape(long long seq, int tp, bool sp, AttentionKernel kernel) {
  return {.seq = seq, .tp = tp, .sequence_parallel = sp, .attention = kernel};
}

}  // namespace

TEST_CASE("SwiGLU block with FlashAttention: Llama-2 7B, one layer, s 4096, b 1, TP 1") {
  // Without dropout: norm inputs 4sbh, QKV and fc1 inputs 4sbh, Q, K, V and the projection input 8sbh (MHA,
  // q = kv = h), SwiGLU gate and up 4sbf and fc2 input 2sbf, the fp32 log-sum-exp 4·a·s·b:
  // 4096 · (16·4096 + 6·11008 + 4·32) = 539,492,352 bytes.
  const model::Architecture a = arch("llama2-7b");
  CHECK(layer_activation_bytes(a, shape(4096, 1, false, AttentionKernel::kFlash)) == 539'492'352.0);
  // Eager keeps the softmax output, 2·a·s²·b = 2 · 32 · 4096² bytes, in place of the log-sum-exp.
  CHECK(layer_activation_bytes(a, shape(4096, 1, false, AttentionKernel::kEager)) ==
        4096.0 * (16 * 4096 + 6 * 11008) + 2.0 * 32 * 4096 * 4096);
  // Dropout adds its two 1-byte masks per token (2sbh) and, eager, the score mask and dropped-out scores.
  ActivationShape x = shape(4096, 1, false, AttentionKernel::kFlash);
  x.dropout = true;
  CHECK(layer_activation_bytes(a, x) - 539'492'352.0 == 2.0 * 4096 * 4096);
}

TEST_CASE("grouped-query attention: Llama-3 70B keeps K and V of 8 heads, TP 8 with sequence parallelism") {
  // s 8192, b 1, h 8192, q 8192, kv 8 × 128 = 1024, f 28672, 64 heads, everything split over t = 8:
  // 8192 · (8·8192 + 4·8192 + 4·1024 + 6·28672 + 4·64) / 8 = 281,280,512 bytes.
  model::Architecture a = arch("llama3-70b");
  const ActivationShape x = shape(8192, 8, true, AttentionKernel::kFlash);
  CHECK(layer_activation_bytes(a, x) == 281'280'512.0);
  // Multi-head attention would keep K and V of all 64 heads: 4·(q − kv) more bytes per token.
  const double gqa = layer_activation_bytes(a, x);
  a.kv_heads = 0;
  CHECK(layer_activation_bytes(a, x) - gqa == 4.0 * (8192 - 1024) * 8192 / 8);
}

TEST_CASE("FP8 GEMMs keep their inputs in one byte") {
  // The QKV, fc1, output-projection and fc2 inputs: sb·(h + h + q + f) bytes fewer than in bf16.
  const model::Architecture a = arch("llama2-7b");
  ActivationShape x = shape(4096, 1, false, AttentionKernel::kFlash);
  const double bf16 = layer_activation_bytes(a, x);
  x.precision = MatmulPrecision::kFp8;
  CHECK(bf16 - layer_activation_bytes(a, x) == 4096.0 * (3 * 4096 + 11008));
}

TEST_CASE("context parallelism divides a layer's activations by CP") {
  const model::Architecture a = arch("llama3-70b");
  for (AttentionKernel kernel : {AttentionKernel::kFlash, AttentionKernel::kEager}) {
    ActivationShape x = shape(8192, 8, true, kernel);
    const double whole = layer_activation_bytes(a, x);
    x.cp = 2;
    EXPECT_CLOSE(layer_activation_bytes(a, x), whole / 2, 1e-12);
  }
}

TEST_CASE("FlashAttention removes the s² term: the 530B layer of Korthikanti Table 2") {
  // Eager with dropout, TP 8 without SP: sbh(10 + 24/t + 5as/(ht)) = 0.820 GiB; flash keeps 4·a·s·b/t of fp32
  // statistics in place of 5·a·s²·b/t.
  const model::Architecture a = arch("mt-nlg-530b");
  ActivationShape x = shape(2048, 8, false, AttentionKernel::kEager);
  x.dropout = true;
  const double eager = layer_activation_bytes(a, x);
  EXPECT_CLOSE(eager / (1024.0 * 1024 * 1024), 0.820, 0.005);
  x.attention = AttentionKernel::kFlash;
  CHECK(eager - layer_activation_bytes(a, x) == (5.0 * 128 * 2048 * 2048 - 4.0 * 128 * 2048) / 8);
}

TEST_CASE("Megatron's optimizer bytes: 18 per parameter, or 6 + 12/DP with the distributed optimizer") {
  JobSpec job = megatron_job("llama2-7b", 4096, 64);
  const double n = model::count_params(job.architecture).total();
  CHECK(n == 6'738'415'616.0);  // the released Llama-2 7B checkpoint's count
  Layout l = make_layout(1, 1, 8, 0);
  const MemoryBreakdown plain = estimate_memory(job, l);
  EXPECT_CLOSE(plain.weights_bytes + plain.gradients_bytes + plain.optimizer_bytes, 18 * n, 1e-12);
  l.zero_stage = 1;
  const MemoryBreakdown distributed = estimate_memory(job, l);
  EXPECT_CLOSE(distributed.weights_bytes + distributed.gradients_bytes + distributed.optimizer_bytes,
               (6 + 12.0 / 8) * n, 1e-12);
  // ZeRO's mixed-precision Adam keeps 16-bit gradients: 16 bytes per parameter (Rajbhandari et al. 2020).
  job.optimizer = Optimizer::kMixedPrecisionAdam;
  l.zero_stage = 0;
  const MemoryBreakdown zero = estimate_memory(job, l);
  EXPECT_CLOSE(zero.weights_bytes + zero.gradients_bytes + zero.optimizer_bytes, 16 * n, 1e-12);
}

TEST_CASE("MoE expert states are sharded over the expert-data-parallel group: gpt-oss-120b at EP 8") {
  // Megatron-Core: expert data-parallel size = world / (expert TP · EP · PP) = DP·CP/EP with expert TP = TP
  // (parallel_state.py); theoretical_memory_usage.py charges expert parameters 6 + 12/EDP bytes each.
  // gpt-oss-120b by hand: a routed expert is 3·2880² weights + 3·2880 biases = 24,891,840; 36 layers × 128 experts
  // = 114,701,598,720 routed parameters; the rest (attention with biases 26,550,080, norms 5,760 and router
  // 368,640 per layer, final norm 2,880, untied embedding and unembedding 2 × 201,088 × 2,880) = 2,127,551,040.
  JobSpec job = megatron_job("gpt-oss-120b", 4096, 64);
  const double routed = 114'701'598'720.0, dense = 2'127'551'040.0;
  CHECK(model::count_params(job.architecture).routed_experts == routed);
  CHECK(model::count_params(job.architecture).total() == routed + dense);
  Layout l = make_layout(1, 1, 64, 1, 1, 8);
  const MemoryBreakdown m = estimate_memory(job, l);
  // Each GPU holds 1/8 of the experts, 14,337,699,840 parameters, whose fp32 states are split over EDP = 64/8 = 8
  // ranks: 12 · routed/64 bytes, as many per parameter as the dense part's 12 · dense/64. Dividing the expert
  // states by DP (64) instead would charge 8× too little.
  CHECK(m.optimizer_bytes == doctest::Approx(12 * dense / 64 + 12 * (routed / 8) / 8).epsilon(1e-12));
  CHECK(m.optimizer_bytes == doctest::Approx(12 * (dense + routed) / 64).epsilon(1e-12));
  CHECK(m.weights_bytes == doctest::Approx(2 * (dense + routed / 8)).epsilon(1e-12));
  CHECK(m.gradients_bytes == doctest::Approx(4 * (dense + routed / 8)).epsilon(1e-12));
  // Context parallelism joins the data-parallel group: CP 2 × DP 32 shards like DP 64.
  l.dp = 32;
  l.cp = 2;
  CHECK(estimate_memory(job, l).optimizer_bytes == doctest::Approx(m.optimizer_bytes).epsilon(1e-12));
}

TEST_CASE("FP8 adds the FP8 weight copies and their scaling state, not a second optimizer") {
  JobSpec job = megatron_job("llama2-7b", 4096, 8);
  Layout l = make_layout(1, 1, 8, 1);
  const MemoryBreakdown bf16 = estimate_memory(job, l);
  job.precision = MatmulPrecision::kFp8;
  MemoryOptions options;
  const MemoryBreakdown fp8 = estimate_memory(job, l, options);
  // 32 blocks of 4 · 4096² attention and 3 · 4096 · 11008 MLP weights, an FP8 copy and its transpose each; per
  // block 4 GEMMs × 3 FP8 tensors × (1024 + 2) fp32 scaling values.
  const double gemm_weights = 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);
  CHECK(fp8.weights_bytes - bf16.weights_bytes == 2 * gemm_weights + 32 * 4 * 3 * (1024 + 2) * 4.0);
  CHECK(fp8.optimizer_bytes == bf16.optimizer_bytes);
  CHECK(fp8.gradients_bytes == bf16.gradients_bytes);
  CHECK(fp8.activations_bytes < bf16.activations_bytes);
}
