// Tests for lib/parallel/memory_model: ZeRO's worked example, Korthikanti's 530B activations, and
// the invariants a planner relies on.
#include "parallel/memory_model.hpp"

#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;

JobSpec mt_nlg_job(long long global_batch) {
  JobSpec job;
  job.architecture = catalog::load_catalog().model("mt-nlg-530b").architecture;
  job.seq = 2048;
  job.global_batch = global_batch;
  job.attention = AttentionKernel::kEager;  // the paper materialised the attention scores
  job.dropout = true;                        // and kept dropout masks
  return job;
}
}  // namespace

TEST_CASE("ZeRO paper example: 7.5B parameters on 64-way data parallelism") {
  // Rajbhandari et al. 2020 Fig. 1: 120 / 31.4 / 16.6 / 1.9 GB per device.
  const double psi = 7.5e9;
  EXPECT_CLOSE(zero_model_states(psi, 64, 0).total() / 1e9, 120.0, 0.005);
  EXPECT_CLOSE(zero_model_states(psi, 64, 1).total() / 1e9, 31.4, 0.005);
  EXPECT_CLOSE(zero_model_states(psi, 64, 2).total() / 1e9, 16.6, 0.005);
  EXPECT_CLOSE(zero_model_states(psi, 64, 3).total() / 1e9, 1.9, 0.02);  // 1.875 printed as 1.9
  EXPECT_CLOSE(zero_model_states(1.5e9, 1, 0).total() / 1e9, 24.0, 1e-12);
}

TEST_CASE("Korthikanti et al. 2022: 530B activations per layer and on the first stage") {
  const long long s = 2048, b = 1, h = 20480;
  const int a = 128, t = 8;
  EXPECT_CLOSE(activation_bytes_per_layer(s, b, h, a, t, false, Recompute::kNone) / kGiB, 0.820, 0.005);
  EXPECT_CLOSE(activation_bytes_per_layer(s, b, h, a, t, true, Recompute::kNone) / kGiB, 0.479, 0.005);
  EXPECT_CLOSE(activation_bytes_per_layer(s, b, h, a, t, false, Recompute::kSelective) / kGiB, 0.508, 0.005);
  EXPECT_CLOSE(activation_bytes_per_layer(s, b, h, a, t, true, Recompute::kSelective) / kGiB, 0.166, 0.005);
  EXPECT_CLOSE(activation_bytes_per_layer(s, b, h, a, t, false, Recompute::kFull) / kGiB, 0.078, 0.005);
  // With sequence parallelism the checkpointed block input is itself split over the t ranks.
  EXPECT_CLOSE(activation_bytes_per_layer(s, b, h, a, t, true, Recompute::kFull) / kGiB, 0.078 / t, 0.005);
  EXPECT_CLOSE(activation_bytes_per_layer(s, b, h, a, 1, false, Recompute::kNone) / kGiB, 3.828, 0.005);

  // Table 3 layout: TP 8, PP 35, interleaved with 3 chunks, 280 GPUs, GBS 280 (m = 280).
  JobSpec job = mt_nlg_job(280);
  Layout l;
  l.tp = 8;
  l.pp = 35;
  l.vpp = 3;
  const MemoryBreakdown baseline = estimate_memory(job, l);
  EXPECT_CLOSE(baseline.activations_bytes / kGiB, 114.02, 0.005);
  l.sequence_parallel = true;
  l.recompute = Recompute::kSelective;
  EXPECT_CLOSE(estimate_memory(job, l).activations_bytes / kGiB, 23.08, 0.005);
}

TEST_CASE("Narayanan eq. 2 parameter count for the MT-NLG shape") {
  const ParameterSplit p = split_parameters(mt_nlg_job(1).architecture);
  // 12lh²(1 + 13/(12h) + (V + s)/(12lh)) = 529.6B; the final norm adds 2h.
  EXPECT_CLOSE(p.total(), 529.6e9, 0.001);
}

TEST_CASE("memory invariants") {
  JobSpec job = mt_nlg_job(1920);
  Layout l;
  l.tp = 8;
  l.pp = 35;
  l.dp = 8;
  l.zero_stage = 1;
  const double at_8 = estimate_memory(job, l).total_bytes();
  l.dp = 12;  // more GPUs, same TP/PP: sharded states shrink, nothing grows
  CHECK(estimate_memory(job, l).total_bytes() <= at_8);
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    l.recompute = r;
    const double without_sp = estimate_memory(job, l).activations_bytes;
    l.sequence_parallel = true;
    CHECK(estimate_memory(job, l).activations_bytes <= without_sp);
    l.sequence_parallel = false;
  }
  l.recompute = Recompute::kNone;
  const double none = estimate_memory(job, l).activations_bytes;
  l.recompute = Recompute::kSelective;
  const double selective = estimate_memory(job, l).activations_bytes;
  l.recompute = Recompute::kFull;
  CHECK(estimate_memory(job, l).activations_bytes < selective);
  CHECK(selective < none);
  for (int stage = 0; stage < 3; ++stage)
    CHECK(zero_model_states(1e9, 16, stage + 1).total() < zero_model_states(1e9, 16, stage).total());
}
