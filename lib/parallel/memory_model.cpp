// Per-GPU memory: model states under ZeRO / Megatron-Core's distributed optimizer and the activations of
// modern blocks on the most loaded pipeline stage.
#include "parallel/memory_model.hpp"

#include <algorithm>

#include "model/params.hpp"
#include "parallel/stages.hpp"

namespace isoflop::parallel {
namespace {

// GEMMs per dense block whose FP8 inputs, weights and output gradients carry scaling state (QKV, attention
// output, fc1, fc2) and FP8 tensors per GEMM (input, weight, gradient of the output).
constexpr double kFp8GemmsPerBlock = 4;
constexpr double kFp8TensorsPerGemm = 3;

}  // namespace

double ParameterSplit::total() const {
  return per_layer_dense * layers + embedding + output_head + final_norm + per_moe_layer_experts * moe_layers;
}

ParameterSplit split_parameters(const model::Architecture& a) {
  const model::ParamCount c = model::count_params(a);
  const double norm = c.norms / (2 * a.layers + 1);  // one norm's parameters: two per block and the final one
  ParameterSplit p;
  p.layers = a.layers;
  p.moe_layers = c.moe_layers;
  // Dense MLPs are averaged over the blocks so that a stage's share is proportional to its layers.
  p.per_layer_dense = (c.attention + c.mlp + c.norms - norm) / a.layers;
  p.per_layer_norms = 2 * norm;
  p.per_moe_layer_experts = c.moe_layers > 0 ? c.experts / c.moe_layers : 0.0;
  p.per_moe_layer_routed = c.moe_layers > 0 ? c.routed_experts / c.moe_layers : 0.0;
  p.embedding = c.token_embedding + c.position_embedding;
  p.position_embedding = c.position_embedding;
  p.output_head = c.output_head;
  p.final_norm = norm;
  return p;
}

ModelStateBytes zero_model_states(double params, int shards, int stage, double gradient_bytes, double optimizer_bytes) {
  // Rajbhandari et al. 2020 Fig. 1: (2 + 2 + K)Ψ replicated; stage 1 shards KΨ, stage 2 also the
  // gradients, stage 3 also the weights, each over the N_d data-parallel ranks.
  const double n = static_cast<double>(std::max(1, shards));
  ModelStateBytes m;
  m.weights = 2 * params / (stage >= 3 ? n : 1.0);
  m.gradients = gradient_bytes * params / (stage >= 2 ? n : 1.0);
  m.optimizer = optimizer_bytes * params / (stage >= 1 ? n : 1.0);
  return m;
}

double gradient_bytes_per_param(const JobSpec& job) {
  // 16 (ZeRO) or 18 (Megatron-LM theoretical_memory_usage.py) bytes per parameter, less 2 of weights and 12
  // of fp32 master weights and Adam moments.
  return job.model_state_bytes_per_param() - 14;
}

double layer_activation_bytes(const model::Architecture& a, const ActivationShape& x) {
  const double cp = std::max(1, x.cp), t = std::max(1, x.tp);
  const double s_full = static_cast<double>(x.seq), s = s_full / cp, b = static_cast<double>(x.micro_batch);
  const double h = static_cast<double>(a.d_model), heads = a.heads;
  const double q = heads * static_cast<double>(a.effective_head_size());
  const double kv = a.effective_kv_heads() * static_cast<double>(a.effective_head_size());
  const double sb = s * b;
  // Full recompute keeps only each block's 16-bit input (Korthikanti Table 2), which sequence parallelism
  // holds as s/t tokens per rank (Megatron-LM checkpoints the block's sharded input).
  if (x.recompute == Recompute::kFull) return 2 * sb * h / (x.sequence_parallel ? t : 1.0);
  const double gemm_input = x.precision == MatmulPrecision::kFp8 ? 1.0 : 2.0;  // bytes per saved GEMM input
  // Per token of one MLP of hidden size f: the activation's input(s), 16-bit (gate and up for a gated MLP),
  // and fc2's input.
  const double act_inputs = a.gated_mlp() ? 4.0 : 2.0;
  auto mlp_inside = [&](double f) { return (act_inputs + gemm_input) * f; };
  const double masks = x.dropout ? 1.0 : 0.0;  // bytes per element of a dropout mask
  // Two norm inputs (16-bit), the QKV and fc1 GEMM inputs, two dropout masks (after attention and MLP).
  const double whole = sb * h * (4 + 2 * gemm_input + 2 * masks);
  const double attention = sb * (2 * q + 2 * 2 * kv + gemm_input * q);  // Q, K, V and the projection's input
  const double dense_mlp = sb * mlp_inside(static_cast<double>(model::mlp_hidden_size(a)));
  double mlp = dense_mlp;
  if (a.moe.enabled() && a.layers > 0) {
    const double f = static_cast<double>(a.moe.expert_ffn > 0 ? a.moe.expert_ffn : model::mlp_hidden_size(a));
    // Each token's routed copies (top-k, padded to the capacity factor) enter the experts as GEMM inputs; the
    // shared experts see every token once.
    const double routed = a.moe.top_k * a.moe.capacity_factor;
    const double moe_mlp = sb * (routed * (gemm_input * h + mlp_inside(f)) + a.moe.shared_experts * mlp_inside(f));
    const int moe_layers = a.layers / a.moe.every;
    mlp = (dense_mlp * (a.layers - moe_layers) + moe_mlp * moe_layers) / a.layers;
  }
  double core = 0;  // selective recompute recomputes the attention core instead of keeping it
  if (x.recompute == Recompute::kNone)
    // Eager: softmax output (2 bytes), its dropout mask and the dropped-out scores (2) for each local query ×
    // all keys; flash: the fp32 log-sum-exp per query and head.
    core = x.attention == AttentionKernel::kFlash ? 4 * heads * sb : (2 + 3 * masks) * heads * sb * s_full;
  const double split = attention + mlp + core;  // divided over the TP ranks (heads and ffn columns)
  return x.sequence_parallel ? (whole + split) / t : whole + split / t;
}

double activation_bytes_per_layer(long long seq, long long micro_batch, long long d_model, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute) {
  model::Architecture gpt;
  gpt.layers = 1;
  gpt.d_model = d_model;
  gpt.heads = heads;
  gpt.ffn = 4 * d_model;
  const ActivationShape x{.seq = seq, .micro_batch = micro_batch, .tp = tp, .sequence_parallel = sequence_parallel,
                          .recompute = recompute, .attention = AttentionKernel::kEager, .dropout = true};
  return layer_activation_bytes(gpt, x);
}

MemoryBreakdown estimate_memory(const JobSpec& job, const Layout& l, const MemoryOptions& options) {
  return estimate_memory(job, split_parameters(job.architecture), l, options);
}

MemoryBreakdown estimate_memory(const JobSpec& job, const ParameterSplit& split, const Layout& l,
                                const MemoryOptions& options) {
  return estimate_memory(job, l, stage_states(job, split, l, options));
}

StageStates stage_states(const JobSpec& job, const ParameterSplit& split, const Layout& l, const MemoryOptions& options) {
  const auto& arch = job.architecture;
  const StageLayers layers = pipeline_stage_layers(arch.layers, l);
  const double t = l.tp;
  const double moe_share = split.layers > 0 ? static_cast<double>(split.moe_layers) / split.layers : 0.0;
  const double gradient_bytes = gradient_bytes_per_param(job);
  // Megatron-Core shards dense states over the data-parallel group with context parallelism (DP·CP ranks),
  // and expert states over the expert-data-parallel group: world / (expert TP · EP · PP) = DP·CP/EP ranks
  // with expert TP = TP (megatron/core/parallel_state.py; theoretical_memory_usage.py charges expert
  // parameters num_bytes_per_parameter(expert_data_parallel_size)).
  const int dense_shards = l.dp * std::max(1, l.cp);
  const int expert_shards = std::max(1, dense_shards / std::max(1, l.ep));
  const bool fp8 = job.precision == MatmulPrecision::kFp8;

  auto stage = [&](int stage_layers, bool first, bool last) {
    const double moe_layers = stage_layers * moe_share;
    const double norms = split.per_layer_norms * stage_layers;  // replicated on every TP rank
    const double layer_sharded = (split.per_layer_dense - split.per_layer_norms) * stage_layers +
                                 (split.per_moe_layer_experts - split.per_moe_layer_routed) * moe_layers;
    const double experts = split.per_moe_layer_routed * moe_layers / (t * std::max(1, l.ep));
    double dense = layer_sharded / t + norms;
    if (first) dense += (split.embedding - split.position_embedding) / t + split.position_embedding;
    // The last stage holds the final norm and the output layer: the untied head, or with PP > 1 a copy of the
    // tied embedding (its gradient is all-reduced with the first stage's).
    const double tied_copy = l.pp > 1 ? split.embedding - split.position_embedding : 0.0;
    if (last) dense += split.final_norm + (split.output_head > 0 ? split.output_head : tied_copy) / t;
    const ModelStateBytes d = zero_model_states(dense, dense_shards, l.zero_stage, gradient_bytes);
    const ModelStateBytes e = zero_model_states(experts, expert_shards, l.zero_stage, gradient_bytes);
    MemoryBreakdown b;
    b.weights_bytes = d.weights + e.weights;
    b.gradients_bytes = d.gradients + e.gradients;
    b.optimizer_bytes = d.optimizer + e.optimizer;
    if (fp8) {
      // Transformer Engine keeps each GEMM weight's FP8 cast and its transpose across the micro-batches of a
      // step (1 byte each), and per FP8 tensor an fp32 amax history, scale and inverse scale.
      b.weights_bytes += 2 * (layer_sharded / t + experts);
      const double local_experts = moe_layers * arch.moe.experts / std::max(1, l.ep);
      const double gemms = kFp8GemmsPerBlock * stage_layers + 2 * local_experts;
      b.weights_bytes += gemms * kFp8TensorsPerGemm * (options.fp8_amax_history + 2) * 4;
    }
    return b;
  };
  StageStates out;
  out.layers = layers;
  const bool one_stage = l.pp == 1;
  out.first = stage(layers.first, true, one_stage);
  if (l.pp > 2) out.middle = stage(layers.middle, false, false);
  if (!one_stage) out.last = stage(layers.last, false, true);
  return out;
}

MicroBatchActivations micro_batch_activations(const JobSpec& job, const Layout& l) {
  const auto& arch = job.architecture;
  const double t = l.tp, cp = std::max(1, l.cp);
  const ActivationShape shape{job.seq,       l.micro_batch, l.tp,          l.cp,        l.sequence_parallel,
                              l.recompute,   job.attention, job.precision, job.dropout};
  const double sbh = static_cast<double>(job.seq) / cp * l.micro_batch * arch.d_model;
  MicroBatchActivations a;
  a.per_layer = layer_activation_bytes(arch, shape);
  // Embedding dropout mask on the first stage (s·b·h/t per micro-batch in flight); on the last the final norm,
  // output layer input and fp32 logits, 4sbh/t·(1 + V/h) (Korthikanti §4.2.3).
  a.embedding_out = job.dropout ? sbh / t : 0.0;
  a.logits = 4 * sbh / t * (1 + static_cast<double>(model::padded_vocab(arch)) / arch.d_model);
  return a;
}

MemoryBreakdown estimate_memory(const JobSpec& job, const Layout& l, const StageStates& states) {
  return estimate_memory(job, l, states, micro_batch_activations(job, l));
}

MemoryBreakdown estimate_memory(const JobSpec& job, const Layout& l, const StageStates& states,
                                const MicroBatchActivations& activations) {
  const long long m = std::max(1LL, l.micro_batches(job.global_batch));
  // Interleaving keeps (1 + (p − 1)/(p·v)) times the stage's micro-batches (Korthikanti §4.2.3).
  double interleave = 1.0;
  if (l.vpp > 1) interleave += static_cast<double>(l.pp - 1) / (static_cast<double>(l.pp) * l.vpp);
  const double per_layer = activations.per_layer, embedding_out = activations.embedding_out;
  const double logits = activations.logits;

  auto stage = [&](const MemoryBreakdown& model_states, int stage_layers, long long in_flight, bool first, bool last) {
    MemoryBreakdown b = model_states;
    b.activations_bytes = per_layer * stage_layers * static_cast<double>(in_flight) * interleave;
    b.embeddings_logits_bytes = (first ? embedding_out * static_cast<double>(in_flight) : 0.0) + (last ? logits : 0.0);
    return b;
  };
  // 1F1B: stage i keeps min(p − i, m) micro-batches in flight; the first stage the most, the last one.
  const long long p = l.pp;
  const StageLayers& layers = states.layers;
  if (p == 1) return stage(states.first, layers.first, 1, true, true);
  MemoryBreakdown most = stage(states.first, layers.first, std::min(p, m), true, false);
  auto keep = [&](const MemoryBreakdown& b) {
    if (b.total_bytes() > most.total_bytes()) most = b;
  };
  if (p > 2) keep(stage(states.middle, layers.middle, std::min(p - 1, m), false, false));
  keep(stage(states.last, layers.last, 1, false, true));
  return most;
}

double usable_memory_bytes(const catalog::Accelerator& accelerator, const MemoryOptions& options) {
  return accelerator.memory_bytes * (1 - options.headroom_fraction);
}

}  // namespace isoflop::parallel
