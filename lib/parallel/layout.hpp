// A training job, the cluster it runs on, and one parallel layout of it (TP × PP × DP × EP and the memory
// levers): the plain data the memory model, the step-time model and the search share.
#pragma once

#include <optional>
#include <string>

#include "catalog/hardware.hpp"
#include "core/enum_names.hpp"
#include "model/architecture.hpp"
#include "model/flops.hpp"

namespace isoflop::parallel {

// One recompute enum for FLOP counting and layouts (lib/model/flops.hpp).
using model::kRecomputeNames;
using model::Recompute;

// The trainer that will run the job: its runnability rules and defaults (data/trainers.yaml) apply.
ISOFLOP_NAMED_ENUM(Trainer, (kMegatron, "megatron"), (kDeepSpeed, "deepspeed"), (kNemo, "nemo"), (kFsdp, "fsdp"));

// Attention kernel: FlashAttention keeps no s×s score matrix in memory (Dao et al. 2022); eager does.
ISOFLOP_NAMED_ENUM(AttentionKernel, (kEager, "eager"), (kFlash, "flash"));

// Precision of the GEMMs: bf16; fp16 with loss scaling (Micikevicius et al. 2018), on parts without bf16 tensor
// math (V100); or FP8 with 16-bit master copies (Micikevicius et al. 2022). bf16 and fp16 take the same bytes
// and the same 16-bit peak.
ISOFLOP_NAMED_ENUM(MatmulPrecision, (kBf16, "bf16"), (kFp16, "fp16"), (kFp8, "fp8"));

ISOFLOP_NAMED_ENUM(Optimizer, (kMixedPrecisionAdam, "adam"), (kMegatronAdam, "megatron-adam"));

struct ClusterSpec {
  catalog::Accelerator accelerator;
  int gpus = 0;                                  // total accelerators
  int gpus_per_node = 8;
  double intra_node_bandwidth_bytes_per_s = 0;   // per GPU, per direction (NVLink)
  double inter_node_bandwidth_bytes_per_s = 0;   // per GPU, per direction (node NICs / GPUs per node)
  std::string node_name;                         // where the bandwidths came from, for the report

  // The node's rules (GPUs per node, bandwidths), whatever the count: FieldError naming "gpus_per_node".
  void validate_node() const;
  // Those and the count's: positive, and whole nodes past one node (what layouts place): FieldError "gpus".
  void validate() const;
  bool operator==(const ClusterSpec&) const = default;
};

// How the job runs its blocks, chosen by the user: the attention kernel, the GEMM precision and dropout. A
// kernel or precision left open is the accelerator's own (JobSpec::apply).
struct JobSettings {
  std::optional<AttentionKernel> attention;  // open: FlashAttention where the part has a kernel, else eager
  std::optional<MatmulPrecision> precision;  // open: bf16 where the part has bf16 tensor math, else fp16
  bool dropout = false;
  bool operator==(const JobSettings&) const = default;
};

struct JobSpec {
  model::Architecture architecture;
  long long seq = 2048;          // sequence length, tokens
  long long global_batch = 0;    // sequences per iteration
  int bytes_per_value = 2;       // 16-bit weights, gradients and activations
  Optimizer optimizer = Optimizer::kMixedPrecisionAdam;
  Trainer trainer = Trainer::kMegatron;
  // Megatron-Core (Transformer Engine), DeepSpeed and PyTorch FSDP runs use fused/flash attention today;
  // eager reproduces the papers that materialised the scores (Korthikanti et al. 2022).
  AttentionKernel attention = AttentionKernel::kFlash;
  MatmulPrecision precision = MatmulPrecision::kBf16;
  // Dropout active (its 1-byte masks are kept for the backward pass, Korthikanti et al. 2022): GPT-3-era runs
  // used it; Llama, Nemotron and BLOOM trained without (dropout 0 keeps no mask).
  bool dropout = false;
  // The settings on `accelerator`, those left open its own: FieldError ("attention" | "precision") for a kernel
  // or precision the part does not run (check_runs_on).
  void apply(const JobSettings& settings, const catalog::Accelerator& accelerator);
  // FieldError ("attention" | "precision") where the accelerator has no kernel for the attention (FlashAttention on
  // a V100) or no tensor math for the precision (bf16 on a V100, FP8 before Hopper): a job read back from a
  // document is held to it as well.
  void check_runs_on(const catalog::Accelerator& accelerator) const;

  // Bytes of model state per parameter: ZeRO's 2 + 2 + K with K = 12 for mixed-precision Adam (16);
  // Megatron without the distributed optimizer keeps fp32 gradients too (18).
  double model_state_bytes_per_param() const { return optimizer == Optimizer::kMegatronAdam ? 18.0 : 16.0; }
  void validate() const;  // throws FieldError naming the field ("seq", "global_batch")
  bool operator==(const JobSpec&) const = default;
};

struct Layout {
  int tp = 1;                    // tensor-parallel degree
  int pp = 1;                    // pipeline stages
  int dp = 1;                    // data-parallel replicas
  int ep = 1;                    // expert-parallel degree (MoE), within the data-parallel group
  int vpp = 1;                   // virtual stages (model chunks) per device, interleaved 1F1B
  int micro_batch = 1;           // sequences per micro-batch
  int zero_stage = 0;            // 0..3 (1 = distributed optimizer)
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = false;
  int cp = 1;                    // context-parallel degree: each sequence split over cp GPUs (ring attention)
  int first_stage_layers = 0;    // layers on the first pipeline stage; 0 = an even split
  int last_stage_layers = 0;     // layers on the last pipeline stage; 0 = an even split

  // TP·PP·CP·DP; a product past a 64-bit integer (four pins of a million) saturates: no cluster is that large.
  long long gpus() const;
  // gpus() in words: the number, or "more than 9.2e18" where it saturated.
  std::string gpus_text() const;
  // Micro-batches per pipeline per iteration: m = B / (b · d).
  long long micro_batches(long long global_batch) const { return global_batch / (static_cast<long long>(micro_batch) * dp); }
  bool operator==(const Layout&) const = default;
};

// Fixed values for the search, one per knob of Layout; std::nullopt leaves a knob open. The knobs' names,
// ranges and enumeration are in parallel/dimensions.hpp, which every reader of pins walks.
struct LayoutPins {
  std::optional<int> tp, pp, cp, dp, ep, vpp, first_stage_layers, last_stage_layers, micro_batch, zero_stage;
  std::optional<Recompute> recompute;
  std::optional<bool> sequence_parallel;
  // The GPUs the pinned TP, PP, CP and DP take together (1 for each one open): what a GPU count must divide.
  long long pinned_gpus() const { return 1LL * tp.value_or(1) * pp.value_or(1) * cp.value_or(1) * dp.value_or(1); }
  bool operator==(const LayoutPins&) const = default;
};

// Checks a layout against a job and cluster, for any trainer (structural_violation in parallel/trainer_rules.hpp:
// n = TP·PP·CP·DP, heads % TP, the stage split, B % (b·DP), interleaving needs m % PP == 0, experts % EP,
// DP % EP). Returns "" when valid, else the reason. The trainer's own rules: parallel/trainer_rules.hpp.
std::string layout_violation(const Layout& layout, const JobSpec& job, const ClusterSpec& cluster);

}  // namespace isoflop::parallel
