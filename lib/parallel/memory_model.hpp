// Per-GPU memory of a layout: model states under ZeRO (Rajbhandari et al. 2020) and Megatron-Core's
// distributed optimizer, with expert states sharded over the expert-data-parallel group; activations under
// tensor/sequence/context parallelism and recompute (Korthikanti et al. 2022), generalised to grouped-query
// attention, gated MLPs, experts, FlashAttention and FP8; on the most loaded pipeline stage, even or uneven.
#pragma once

#include "parallel/layout.hpp"
#include "parallel/stages.hpp"

namespace isoflop::parallel {

// Parameters of the model split into the parts parallelism divides differently.
struct ParameterSplit {
  double per_layer_dense = 0;   // attention + dense MLP + norms of one block (MoE blocks: without experts)
  double per_layer_norms = 0;   // of per_layer_dense, the norms (replicated on every TP rank)
  double per_moe_layer_experts = 0;  // all experts (and router) of one MoE block
  double per_moe_layer_routed = 0;   // of per_moe_layer_experts, the routed experts (split over EP)
  int moe_layers = 0;           // blocks that are MoE blocks
  int layers = 0;
  double embedding = 0;         // token (+ learned position) embedding
  double position_embedding = 0;  // of embedding, the learned positions (replicated on every TP rank)
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

// Gradient bytes per parameter the job's optimizer keeps: Megatron accumulates fp32 main gradients (4),
// ZeRO's mixed-precision Adam 16-bit ones (2). With 12 bytes of fp32 weights and Adam moments and 2 of
// 16-bit weights this is Megatron's 18 bytes/param, or 6 + 12/DP with the distributed optimizer (ZeRO-1).
double gradient_bytes_per_param(const JobSpec& job);

// What one layer's activations depend on besides the architecture.
struct ActivationShape {
  long long seq = 2048;         // tokens per sequence (before context parallelism splits it)
  long long micro_batch = 1;    // sequences per micro-batch
  int tp = 1;
  int cp = 1;                   // context-parallel degree: each rank keeps seq / cp tokens
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  AttentionKernel attention = AttentionKernel::kFlash;
  MatmulPrecision precision = MatmulPrecision::kBf16;
  bool dropout = false;         // dropout masks kept (1 byte per element)
};

// Activation bytes one GPU keeps for one micro-batch of one block, averaged over dense and MoE blocks.
// Korthikanti et al. 2022 §4.1 term by term (16-bit tensors, 1-byte dropout masks): norm inputs 4sbh; GEMM
// inputs of QKV and fc1 2sbh each; with dropout its masks 2sbh (these 10sbh stay whole on each TP rank without
// sequence parallelism); Q 2sbq, K and V 2s·b·kv each (GQA: kv = kv heads × head size); the output projection's
// input 2sbq; the MLP's activation input 2sbf (gated: 4sbf for gate and up) and fc2's input 2sbf; eager
// attention adds the score matrix 5·a·s²·b (softmax output, dropout mask and output; without dropout the softmax
// output alone, 2·a·s²·b), FlashAttention (Dao et al. 2022) only the fp32 log-sum-exp per query and head,
// 4·a·s·b. MoE blocks run top-k × capacity-factor routed copies of each token (and the shared experts) through
// expert MLPs, split like the dense MLP (expert TP = TP). FP8 GEMMs (Transformer Engine) keep their inputs in
// 1 byte. Selective recompute drops the attention core's tensors; full recompute keeps only the
// block input, 2sbh (2sbh/t when sequence parallelism shards it). Context parallelism keeps s/cp tokens per
// rank. With MHA, ffn = 4h, eager attention, dropout and bf16 this is Korthikanti's Table 2.
double layer_activation_bytes(const model::Architecture& architecture, const ActivationShape& shape);

// Korthikanti et al. 2022 Table 2 for a GPT block (MHA, ffn = 4h, materialised attention scores, dropout,
// 16-bit):
// s = seq, b = micro-batch, h = d_model, a = heads, t = TP.
double activation_bytes_per_layer(long long seq, long long micro_batch, long long d_model, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute);

struct MemoryOptions {
  double headroom_fraction = 0.05;  // device memory kept free for the CUDA context, workspaces, fragmentation
  // FP8 delayed scaling keeps an fp32 amax history of this length per FP8 tensor (Transformer Engine's
  // DelayedScaling default amax_history_len = 1024).
  int fp8_amax_history = 1024;
  bool operator==(const MemoryOptions&) const = default;
};

struct MemoryBreakdown {
  double weights_bytes = 0;         // 16-bit weights (+ FP8 weight copies and scaling state)
  double gradients_bytes = 0;
  double optimizer_bytes = 0;       // fp32 master weights and Adam moments
  double activations_bytes = 0;     // transformer layers, in-flight micro-batches
  double embeddings_logits_bytes = 0;  // embedding output and (last stage) logits
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + embeddings_logits_bytes;
  }
  bool operator==(const MemoryBreakdown&) const = default;
};

// Memory of the most loaded GPU among the first pipeline stage (embedding, PP micro-batches in flight), the
// second (the most loaded middle stage: PP − 1 in flight) and the last (output layer and logits, one in
// flight), with the layers pipeline_stage_layers gives each.
MemoryBreakdown estimate_memory(const JobSpec& job, const Layout& layout, const MemoryOptions& options = {});
// The same with the job's parameter split (split_parameters of its architecture) given: a search over layouts
// splits the parameters once.
MemoryBreakdown estimate_memory(const JobSpec& job, const ParameterSplit& split, const Layout& layout,
                                const MemoryOptions& options = {});

// The model states (weights, gradients, optimizer states) of a layout's first, middle and last pipeline stage,
// with the stages' layers. They do not depend on the micro-batch, recompute or sequence parallelism, so a search
// computes them once for the layouts that differ only in those.
struct StageStates {
  StageLayers layers;
  MemoryBreakdown first, middle, last;  // activations and logits 0
};
StageStates stage_states(const JobSpec& job, const ParameterSplit& split, const Layout& layout,
                         const MemoryOptions& options = {});
// The activation bytes of one micro-batch that a stage multiplies by its layers and the micro-batches it keeps
// in flight. They depend on the micro-batch, recompute and sequence parallelism (with TP and CP), not on the
// ZeRO stage, so a search computes them once for the layouts that differ only in that.
struct MicroBatchActivations {
  double per_layer = 0;      // one transformer layer's (layer_activation_bytes)
  double embedding_out = 0;  // the first stage's embedding dropout mask
  double logits = 0;         // the last stage's final norm, output layer input and fp32 logits
};
MicroBatchActivations micro_batch_activations(const JobSpec& job, const Layout& layout);
// estimate_memory with the layout's stage states given, and its micro-batch's activations.
MemoryBreakdown estimate_memory(const JobSpec& job, const Layout& layout, const StageStates& states);
MemoryBreakdown estimate_memory(const JobSpec& job, const Layout& layout, const StageStates& states,
                                const MicroBatchActivations& activations);

// Bytes a GPU may use: device memory less the headroom.
double usable_memory_bytes(const catalog::Accelerator& accelerator, const MemoryOptions& options);

}  // namespace isoflop::parallel
