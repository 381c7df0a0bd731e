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

enum class Optimizer { kMixedPrecisionAdam, kMegatronAdam };
inline constexpr EnumNames<Optimizer, 2> kOptimizerNames{
    {{{Optimizer::kMixedPrecisionAdam, "adam"}, {Optimizer::kMegatronAdam, "megatron-adam"}}}};

struct ClusterSpec {
  catalog::Accelerator accelerator;
  int gpus = 0;                                  // total accelerators
  int gpus_per_node = 8;
  double intra_node_bandwidth_bytes_per_s = 0;   // per GPU, per direction (NVLink)
  double inter_node_bandwidth_bytes_per_s = 0;   // per GPU, per direction (node NICs / GPUs per node)
  std::string node_name;                         // where the bandwidths came from, for the report

  void validate() const;  // throws FieldError naming the field ("gpus", "gpus_per_node")
  bool operator==(const ClusterSpec&) const = default;
};

struct JobSpec {
  model::Architecture architecture;
  long long seq = 2048;          // sequence length, tokens
  long long global_batch = 0;    // sequences per iteration
  int bytes_per_value = 2;       // 16-bit weights, gradients and activations
  Optimizer optimizer = Optimizer::kMixedPrecisionAdam;

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

  int gpus() const { return tp * pp * dp; }
  // Micro-batches per pipeline per iteration: m = B / (b · d).
  long long micro_batches(long long global_batch) const { return global_batch / (static_cast<long long>(micro_batch) * dp); }
  bool operator==(const Layout&) const = default;
};

// Fixed values for the search, one per knob of Layout; std::nullopt leaves a knob open. The knobs' names,
// ranges and enumeration are in parallel/dimensions.hpp, which every reader of pins walks.
struct LayoutPins {
  std::optional<int> tp, pp, dp, ep, vpp, micro_batch, zero_stage;
  std::optional<Recompute> recompute;
  std::optional<bool> sequence_parallel;
  bool operator==(const LayoutPins&) const = default;
};

// Checks a layout against a job and cluster: n = TP·PP·DP, heads % TP, layers % (PP·VPP), B % (b·DP),
// interleaving needs m % PP == 0, experts % EP, DP % EP. Returns "" when valid, else the reason.
std::string layout_violation(const Layout& layout, const JobSpec& job, const ClusterSpec& cluster);

}  // namespace isoflop::parallel
