// Calibration of the step-time model against published per-GPU throughput: Narayanan et al. 2021
// Tables 1 and 2 (hardware TFLOP/s, eq. 3, with full recompute) and Korthikanti et al. 2022 Table 5
// (MFU, eq. 7). One set of constants per accelerator (data/hardware.yaml); no per-row tuning.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "catalog/catalog.hpp"
#include "parallel/time_model.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {

struct Row {
  const char* label;
  int heads;
  long long hidden;
  int layers;
  int tp, pp, gpus;
  long long batch;
  int micro_batch, vpp, zero;
  Recompute recompute;
  bool sequence_parallel;
  bool model_flops;     // published figure is model TFLOP/s (MFU × peak) rather than hardware TFLOP/s
  double published_tflops;
};

// Published rows. Narayanan Table 1 (MBS and v from the authors' run script), Table 2 (PTD-P: MP 96 =
// TP 8 × PP 12; MP 280 = 8 × 35; ZeRO-3 without model parallelism), Korthikanti Table 5 (selective + SP,
// interleaved with 3 chunks for 175B and 530B) and the 530B run on 2,240 GPUs (54.2 % MFU).
const std::vector<Row> kRows = {
    {"N1 1.7B", 24, 2304, 24, 1, 1, 32, 512, 16, 1, 0, Recompute::kFull, false, false, 137},
    {"N1 3.6B", 32, 3072, 30, 2, 1, 64, 512, 16, 1, 0, Recompute::kFull, false, false, 138},
    {"N1 7.5B", 32, 4096, 36, 4, 1, 128, 512, 16, 1, 0, Recompute::kFull, false, false, 142},
    {"N1 18.4B", 48, 6144, 40, 8, 1, 256, 1024, 8, 1, 0, Recompute::kFull, false, false, 135},
    {"N1 39.1B", 64, 8192, 48, 8, 2, 512, 1536, 4, 1, 0, Recompute::kFull, false, false, 138},
    {"N1 76.1B", 80, 10240, 60, 8, 4, 1024, 1792, 2, 3, 0, Recompute::kFull, false, false, 140},
    {"N1 145.6B", 96, 12288, 80, 8, 8, 1536, 2304, 2, 2, 0, Recompute::kFull, false, false, 148},
    {"N1 310.1B", 128, 16384, 96, 8, 16, 1920, 2160, 1, 2, 0, Recompute::kFull, false, false, 155},
    {"N1 529.6B", 128, 20480, 105, 8, 35, 2520, 2520, 1, 3, 0, Recompute::kFull, false, false, 163},
    {"N1 1008B", 160, 25600, 128, 8, 64, 3072, 3072, 1, 1, 0, Recompute::kFull, false, false, 163},
    {"N2 PTD-P 175B 384", 96, 12288, 96, 8, 12, 384, 1536, 1, 1, 0, Recompute::kFull, false, false, 153},
    {"N2 PTD-P 175B 768", 96, 12288, 96, 8, 12, 768, 1536, 1, 1, 0, Recompute::kFull, false, false, 149},
    {"N2 PTD-P 175B 1536", 96, 12288, 96, 8, 12, 1536, 1536, 1, 1, 0, Recompute::kFull, false, false, 141},
    {"N2 PTD-P 530B 560", 128, 20480, 105, 8, 35, 560, 2240, 1, 1, 0, Recompute::kFull, false, false, 171},
    {"N2 PTD-P 530B 1120", 128, 20480, 105, 8, 35, 1120, 2240, 1, 1, 0, Recompute::kFull, false, false, 167},
    {"N2 PTD-P 530B 2240", 128, 20480, 105, 8, 35, 2240, 2240, 1, 1, 0, Recompute::kFull, false, false, 159},
    {"N2 ZeRO-3 175B 384", 96, 12288, 96, 1, 1, 384, 1536, 4, 1, 3, Recompute::kFull, false, false, 144},
    {"N2 ZeRO-3 175B 768", 96, 12288, 96, 1, 1, 768, 1536, 2, 1, 3, Recompute::kFull, false, false, 88},
    {"N2 ZeRO-3 175B 1536", 96, 12288, 96, 1, 1, 1536, 1536, 1, 1, 3, Recompute::kFull, false, false, 44},
    {"N2 ZeRO-3 530B 640", 128, 20480, 105, 1, 1, 640, 2560, 4, 1, 3, Recompute::kFull, false, false, 138},
    {"N2 ZeRO-3 530B 1120", 128, 20480, 105, 1, 1, 1120, 2240, 2, 1, 3, Recompute::kFull, false, false, 98},
    {"N2 ZeRO-3 530B 2240", 128, 20480, 105, 1, 1, 2240, 2240, 1, 1, 3, Recompute::kFull, false, false, 48},
    {"K5 175B", 96, 12288, 96, 8, 8, 64, 64, 1, 3, 0, Recompute::kSelective, true, true, 0.514 * 312},
    {"K5 530B", 128, 20480, 105, 8, 35, 280, 280, 1, 3, 0, Recompute::kSelective, true, true, 0.560 * 312},
    {"K5 1T", 160, 25600, 128, 8, 64, 512, 512, 1, 1, 0, Recompute::kSelective, true, true, 0.563 * 312},
    {"K 530B 2240", 128, 20480, 105, 8, 35, 2240, 2240, 1, 3, 0, Recompute::kSelective, true, true, 0.542 * 312},
};

}  // namespace

TEST_CASE("step-time model against published throughput: mean error <= 10 %, max <= 20 %") {
  const catalog::Catalog cat = catalog::load_catalog();
  ClusterSpec cluster;
  cluster.accelerator = cat.accelerator("a100-sxm4-80gb");
  const catalog::Node& node = cat.node("dgx-a100");
  cluster.gpus_per_node = node.gpus_per_node;
  cluster.intra_node_bandwidth_bytes_per_s = node.intra_node_bandwidth_bytes_per_s;
  cluster.inter_node_bandwidth_bytes_per_s = node.inter_node_bandwidth_bytes_per_s / node.gpus_per_node;
  double sum = 0, worst = 0;
  std::printf("%-20s %10s %10s %8s\n", "row", "published", "predicted", "error");
  for (const Row& r : kRows) {
    JobSpec job;
    job.architecture.layers = r.layers;
    job.architecture.d_model = r.hidden;
    job.architecture.heads = r.heads;
    job.architecture.vocab = 51200;
    job.architecture.seq = 2048;
    job.seq = 2048;
    job.global_batch = r.batch;
    cluster.gpus = r.gpus;
    Layout l;
    l.tp = r.tp;
    l.pp = r.pp;
    l.dp = r.gpus / (r.tp * r.pp);
    l.micro_batch = r.micro_batch;
    l.vpp = r.vpp;
    l.zero_stage = r.zero;
    l.recompute = r.recompute;
    l.sequence_parallel = r.sequence_parallel;
    INFO(r.label << ": " << layout_violation(l, job, cluster));
    REQUIRE(layout_violation(l, job, cluster).empty());
    const StepTime st = estimate_step_time(job, cluster, l);
    const double predicted = r.model_flops ? st.model_tflops_per_gpu : st.hardware_tflops_per_gpu;
    const double error = predicted / r.published_tflops - 1;
    std::printf("%-20s %10.1f %10.1f %+7.1f%%\n", r.label, r.published_tflops, predicted, 100 * error);
    sum += std::fabs(error);
    worst = std::max(worst, std::fabs(error));
  }
  const double mean = sum / kRows.size();
  std::printf("mean |error| %.1f%%, max %.1f%%\n", 100 * mean, 100 * worst);
  CHECK(mean <= 0.10);
  CHECK(worst <= 0.20);
}
