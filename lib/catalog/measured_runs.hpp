// Measured training runs (a shape, a layout, an accelerator and what was measured) from a runs YAML file:
// the published runs the step-time model is calibrated on (data/calibration/published_runs.yaml) and the
// user's own (`isoflop calibrate run.yaml`).
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/enum_names.hpp"
#include "model/architecture.hpp"
#include "model/flops.hpp"

namespace isoflop::catalog {

// What a run's `measured` block states; every kind converts to a step time with the model's FLOP count: seconds
// per iteration (global batch), tokens/s per GPU, model TFLOP/s per GPU (Korthikanti eq. 7 / Megatron's count, no
// recompute), hardware TFLOP/s per GPU (with the recompute done, Narayanan eq. 3), MFU (model FLOP/s over the
// 16-bit peak).
ISOFLOP_NAMED_ENUM(MeasuredMetric, (kStepTime, "step_time_s"), (kTokensPerSPerGpu, "tokens_per_s_per_gpu"),
                   (kModelTflopsPerGpu, "model_tflops_per_gpu"), (kHardwareTflopsPerGpu, "hardware_tflops_per_gpu"),
                   (kMfu, "mfu"));

struct MeasuredRun {
  std::string name;                  // "nemotron4-15b h100 x16"
  std::string gpu;                   // accelerator id
  std::string node;                  // node id; empty = the accelerator's reference node
  int gpus = 0;
  model::Architecture architecture;  // a catalog model by name or an inline mapping
  long long seq = 0;                 // tokens per sequence
  long long global_batch = 0;        // sequences per iteration
  int tp = 1, pp = 1, cp = 1, vpp = 1, micro_batch = 1, zero_stage = 0;
  model::Recompute recompute = model::Recompute::kNone;
  bool sequence_parallel = false;
  std::string trainer;               // informational: "megatron", "nemo", "deepspeed"
  MeasuredMetric metric = MeasuredMetric::kStepTime;
  double value = 0;                  // in the metric's unit (seconds, tokens/s, TFLOP/s, fraction)
  bool held_out = false;             // kept out of the calibration; judges it
  std::string source;
  std::string file;                  // "published_runs.yaml:12"

  int dp() const { return static_cast<int>(gpus / (static_cast<long long>(tp) * pp * cp)); }
};

// Parses a runs file: `runs:` a list of entries
//   {name, gpu, node?, gpus, arch (catalog name or mapping), seq, global_batch,
//    layout: {tp, pp, cp, vpp, micro_batch, zero, recompute, sequence_parallel}, trainer?,
//    measured: {<one of kMeasuredMetricNames>: value}, held_out?, source}.
// Unknown accelerators, nodes and models are errors naming file:line; so are layouts whose degrees do not
// divide the GPUs. Throws CatalogError.
std::vector<MeasuredRun> parse_measured_runs(const std::string& text, const std::string& file, const Catalog& catalog);

}  // namespace isoflop::catalog
