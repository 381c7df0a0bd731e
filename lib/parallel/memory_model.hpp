// Per-GPU memory of a layout: model states under ZeRO (Rajbhandari et al. 2020) and activations under
// tensor/sequence parallelism and recompute (Korthikanti et al. 2022), on the most loaded pipeline stage.
#pragma once

#include "parallel/layout.hpp"

namespace isoflop::parallel {

// Parameters of the model split into the parts parallelism divides differently.
struct ParameterSplit {
  double per_layer_dense = 0;   // attention + dense MLP + norms of one block (MoE blocks: without experts)
  double per_moe_layer_experts = 0;  // all experts (and router) of one MoE block
  int moe_layers = 0;           // blocks that are MoE blocks
  int layers = 0;
  double embedding = 0;         // token (+ learned position) embedding
  double output_head = 0;       // untied output projection (0 when tied)
  double final_norm = 0;
  double total() const;
};

// Counts parameters the way Narayanan et al. 2021 eq. 2 does (12h² + 13h per block plus (V + s)·h for
// embeddings), generalised to GQA, gated MLPs, RMSNorm, biases and experts.
ParameterSplit split_parameters(const model::Architecture& architecture);

// Bytes of model state per GPU for Ψ parameters on `shards`-way data parallelism under ZeRO `stage`
// (0: replicated; 1: optimizer states sharded; 2: + gradients; 3: + weights). Bytes per parameter:
// weights 2, gradients `gradient_bytes`, optimizer `optimizer_bytes` (ZeRO: K = 12).
struct ModelStateBytes {
  double weights = 0, gradients = 0, optimizer = 0;
  double total() const { return weights + gradients + optimizer; }
};
ModelStateBytes zero_model_states(double params, int shards, int stage, double gradient_bytes = 2,
                                  double optimizer_bytes = 12);

// Activation bytes of one transformer layer for one micro-batch (Korthikanti et al. 2022 Table 2):
// s = seq, b = micro-batch, h = d_model, a = heads, t = TP. Assumes 16-bit activations, 1-byte dropout
// masks, ffn = 4h and materialised attention scores, as the paper does.
double activation_bytes_per_layer(long long seq, long long micro_batch, long long d_model, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute);

struct MemoryOptions {
  double headroom_fraction = 0.05;  // device memory kept free for the CUDA context, workspaces, fragmentation
  bool operator==(const MemoryOptions&) const = default;
};

struct MemoryBreakdown {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;     // transformer layers, in-flight micro-batches
  double embeddings_logits_bytes = 0;  // embedding output and (last stage) logits
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + embeddings_logits_bytes;
  }
  bool operator==(const MemoryBreakdown&) const = default;
};

// Memory of the most loaded GPU (the first pipeline stage, or the last when its logits weigh more).
MemoryBreakdown estimate_memory(const JobSpec& job, const Layout& layout);

// Bytes a GPU may use: device memory less the headroom.
double usable_memory_bytes(const catalog::Accelerator& accelerator, const MemoryOptions& options);

}  // namespace isoflop::parallel
