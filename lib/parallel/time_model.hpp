// Step time of a layout as the trainer runs it: compute at a shape-dependent GEMM efficiency, recompute,
// tensor-parallel collectives (on NVLink only when the group sits inside a node), ring-attention traffic of
// context parallelism, pipeline point-to-point, a 1F1B pipeline whose slowest stage (uneven layers, the last
// stage's logits and loss, the first stage's embedding) sets the pace, data-parallel reduction overlapped as the
// trainer overlaps it (ZeRO-2/3 per micro-batch), MoE all-to-all with the capacity factor and the optimizer step
// (Narayanan et al. 2021 §3; Korthikanti et al. 2022; Rajbhandari et al. 2020).
#pragma once

#include <optional>

#include "catalog/trainers.hpp"
#include "model/flops.hpp"
#include "parallel/layout.hpp"
#include "parallel/memory_model.hpp"

namespace isoflop::parallel {

using catalog::GradReduce;
inline constexpr EnumNames<GradReduce, 2> kGradReduceNames{{{{GradReduce::kFp32, "fp32"}, {GradReduce::kBf16, "bf16"}}}};

// Overlap and precision choices; unset: the trainer's default (data/trainers.yaml), or with no trainer the
// settings of the published calibration runs (no overlap, gradients reduced in the 16-bit training type).
struct TimeOptions {
  std::optional<bool> overlap_grad_reduce;   // Megatron --overlap-grad-reduce; DeepSpeed overlap_comm
  std::optional<bool> overlap_param_gather;  // Megatron --overlap-param-gather (distributed optimizer)
  std::optional<bool> tp_comm_overlap;       // Megatron --tp-comm-overlap (needs sequence parallelism)
  std::optional<GradReduce> grad_reduce;     // Megatron reduces bf16 gradients in fp32 unless --grad-reduce-in-bf16
  bool operator==(const TimeOptions&) const = default;
};

// The choices a step time was computed with: every option resolved.
struct TimeSettings {
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool tp_comm_overlap = false;
  double grad_reduce_bytes = 2;  // bytes per gradient value in the data-parallel reduction
  bool operator==(const TimeSettings&) const = default;
};

// The options over the trainer's defaults (`trainer` not loaded: the calibration runs' settings).
TimeOptions with_trainer_defaults(const TimeOptions& options, const catalog::TrainerRules& trainer);

// Whether gradients are reduced during the backward pass at ZeRO `zero_stage`: as asked (or the trainer's default)
// for stages 0-2; always at stage 3, whose step time hides gathers and reduce-scatters behind compute as DeepSpeed
// does by default there (overlap_comm) and FSDP always (zero3_overlap, fitted to DeepSpeed's ZeRO-3 runs).
bool overlaps_grad_reduce(const TimeOptions& options, int zero_stage);

struct StepBreakdown {
  double compute_s = 0;      // forward + backward GEMMs and attention of the slowest stage's layers, all micro-batches
  double recompute_s = 0;    // recomputed forward work
  double tp_comm_s = 0;      // exposed tensor-parallel collectives
  double cp_comm_s = 0;      // exposed ring-attention exchange of keys and values (context parallelism)
  double pp_comm_s = 0;      // pipeline sends and receives
  double logits_s = 0;       // output layer and loss on the last stage, when it is the slowest
  double embedding_s = 0;    // embedding lookup and its gradient on the first stage, when it is the slowest
  double bubble_s = 0;       // pipeline fill and drain
  double dp_comm_s = 0;      // exposed data-parallel reduction, parameter gathers and ZeRO-3 gathers
  double embedding_sync_s = 0;  // all-reduce of the tied embedding's gradient between first and last stage
  double moe_comm_s = 0;     // expert-parallel all-to-all
  double optimizer_s = 0;    // optimizer step (memory-bound)
  double layer_overhead_s = 0;  // fixed per-layer costs of the slowest stage (kernel launches), all micro-batches
  double tp_hidden_s = 0;    // tensor-parallel traffic hidden behind GEMMs (tp_comm_overlap)
  double cp_hidden_s = 0;    // ring-attention traffic hidden behind attention
  double dp_hidden_s = 0;    // data-parallel traffic hidden behind backward/forward passes
  double total_s() const {
    return compute_s + recompute_s + tp_comm_s + cp_comm_s + pp_comm_s + logits_s + embedding_s + bubble_s +
           dp_comm_s + embedding_sync_s + moe_comm_s + optimizer_s + layer_overhead_s;
  }
  bool operator==(const StepBreakdown&) const = default;
};

struct StepTime {
  double step_time_s = 0;
  StepBreakdown breakdown;
  TimeSettings settings;
  double tokens_per_s = 0;
  double model_flops_per_step = 0;     // Korthikanti eq. 7 (no recompute)
  double hardware_flops_per_step = 0;  // with the recompute actually done
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu = 0;                      // model FLOP/s over the 16-bit peak
  double hfu = 0;                      // hardware FLOP/s over the 16-bit peak
  bool operator==(const StepTime&) const = default;
};

// Throws InputError when the accelerator carries no calibration.
StepTime estimate_step_time(const JobSpec& job, const ClusterSpec& cluster, const Layout& layout,
                            const TimeOptions& options = {});
// The same with the job's parameter split and the layout's memory (estimate_memory with default options) given,
// as the layout search has them already.
StepTime estimate_step_time(const JobSpec& job, const ClusterSpec& cluster, const Layout& layout,
                            const ParameterSplit& split, const MemoryBreakdown& memory, const TimeOptions& options);

// The FLOPs the step time counts (lib/model's Megatron count): one micro-batch's and the whole step's. They
// depend on the micro-batch and recompute alone, so the layout search computes each pair once.
struct StepFlops {
  model::MegatronFlops micro;
  model::MegatronFlops step;
};
StepFlops step_flops(const JobSpec& job, const Layout& layout);
// The same again with those FLOPs given.
StepTime estimate_step_time(const JobSpec& job, const ClusterSpec& cluster, const Layout& layout,
                            const ParameterSplit& split, const MemoryBreakdown& memory, const StepFlops& flops,
                            const TimeOptions& options);

// A lower bound of estimate_step_time's step time that skips its collectives, in its two parts: the GEMMs and
// fixed per-layer costs (the slowest stage's over the micro-batches and the pipeline bubble's), which read the micro-batch and
// recompute but not the ZeRO stage or sequence parallelism, so a search computes them once for the layouts
// that differ in those alone; and the optimizer step, which reads the memory. `stages` is the layout's
// pipeline_stage_layers (the search has them with the stages' model states). Throws as estimate_step_time does
// for FP8 without an FP8 peak; the accelerator must carry a calibration.
double gemm_lower_bound_s(const JobSpec& job, const ClusterSpec& cluster, const Layout& layout,
                          const StageLayers& stages, const StepFlops& flops);
double optimizer_step_s(const catalog::Accelerator& accelerator, const MemoryBreakdown& memory);

// Where a step's time goes beyond compute: its largest share, in words ("44.7 % of the 2.85 s step is pipeline
// bubble"), for a step whose MFU is too low to plan on.
std::string largest_overhead(const StepTime& time);

}  // namespace isoflop::parallel
