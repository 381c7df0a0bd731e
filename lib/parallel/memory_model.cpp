// Per-GPU memory: ZeRO model states and Korthikanti activations on the most loaded pipeline stage.
#include "parallel/memory_model.hpp"

#include <algorithm>

namespace isoflop::parallel {
namespace {

long long ffn_size(const model::Architecture& a) {
  if (a.ffn > 0) return a.ffn;
  // GELU: 4h. SwiGLU keeps the parameter count of a 4h MLP with three matrices: 2/3 · 4h.
  return a.activation == model::Activation::kSwiglu ? (8 * a.d_model) / 3 : 4 * a.d_model;
}

double mlp_params(const model::Architecture& a, long long ffn) {
  const double h = static_cast<double>(a.d_model);
  const double matrices = a.activation == model::Activation::kSwiglu ? 3.0 : 2.0;
  const double biases = a.bias ? (a.activation == model::Activation::kSwiglu ? 2.0 : 1.0) * ffn + h : 0.0;
  return matrices * h * ffn + biases;
}

}  // namespace

double ParameterSplit::total() const {
  return per_layer_dense * layers + embedding + output_head + final_norm + per_moe_layer_experts * moe_layers;
}

ParameterSplit split_parameters(const model::Architecture& a) {
  const double h = static_cast<double>(a.d_model);
  const double q_width = static_cast<double>(a.heads) * a.effective_head_size();
  const double kv_width = static_cast<double>(a.effective_kv_heads()) * a.effective_head_size();
  const double attention = h * q_width + 2 * h * kv_width + q_width * h + (a.bias ? q_width + 2 * kv_width + h : 0);
  const double norm = a.norm == model::NormKind::kLayerNorm && a.bias ? 2 * h : h;
  ParameterSplit p;
  p.layers = a.layers;
  const double dense_mlp = mlp_params(a, ffn_size(a));
  p.moe_layers = a.moe.enabled() ? a.layers / a.moe.every : 0;
  const double block_norms = 2 * norm;
  p.per_layer_dense = attention + block_norms;  // the MLP is added per block type below
  if (a.moe.enabled()) {
    const long long expert_ffn = a.moe.expert_ffn > 0 ? a.moe.expert_ffn : ffn_size(a);
    p.per_moe_layer_experts = (a.moe.experts + a.moe.shared_experts) * mlp_params(a, expert_ffn) + h * a.moe.experts;
  }
  // Dense blocks carry the MLP; the average dense part per block keeps stage arithmetic simple.
  const int dense_layers = a.layers - p.moe_layers;
  p.per_layer_dense += dense_mlp * dense_layers / static_cast<double>(a.layers);
  const long long padded_vocab =
      (a.vocab + a.vocab_pad_multiple - 1) / a.vocab_pad_multiple * a.vocab_pad_multiple;
  p.embedding = static_cast<double>(padded_vocab) * h +
                (a.positional == model::PositionalEncoding::kLearned ? static_cast<double>(a.seq) * h : 0.0);
  p.output_head = a.tied_embeddings ? 0.0 : static_cast<double>(padded_vocab) * h;
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

double activation_bytes_per_layer(long long seq, long long micro_batch, long long d_model, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute) {
  const double s = static_cast<double>(seq), b = static_cast<double>(micro_batch), h = static_cast<double>(d_model);
  const double a = heads, t = tp;
  const double sbh = s * b * h;
  const double attention_scores = 5 * a * s / (h * t);  // softmax input/output and dropout mask, per head
  switch (recompute) {
    case Recompute::kFull:
      return 2 * sbh;  // only the layer input is kept (Table 2)
    case Recompute::kSelective:
      return sequence_parallel ? 34 * sbh / t : sbh * (10 + 24 / t);
    case Recompute::kNone:
      break;
  }
  return sequence_parallel ? sbh * (34 / t + attention_scores) : sbh * (10 + 24 / t + attention_scores);
}

MemoryBreakdown estimate_memory(const JobSpec& job, const Layout& l) {
  const auto& arch = job.architecture;
  const ParameterSplit split = split_parameters(arch);
  const double layers_per_stage = static_cast<double>(arch.layers) / l.pp;
  const double moe_layers_per_stage = static_cast<double>(split.moe_layers) / l.pp;
  const double layer_params =
      (split.per_layer_dense * layers_per_stage + split.per_moe_layer_experts * moe_layers_per_stage / l.ep) / l.tp;
  // First stage holds the input embedding; the last the output head (or a copy of the tied embedding).
  const double first_params = layer_params + split.embedding / l.tp;
  const double last_params = layer_params + (l.pp == 1 ? 0.0 : (split.output_head > 0 ? split.output_head : split.embedding) / l.tp) +
                             split.final_norm + (l.pp == 1 ? split.output_head / l.tp : 0.0);
  const double gradient_bytes = job.model_state_bytes_per_param() - 14;  // 2 (ZeRO) or 4 (fp32, Megatron)
  const long long m = l.micro_batches(job.global_batch);
  // 1F1B: the first stage keeps min(p, m) micro-batches of its L/p layers in flight, i.e. up to L layers'
  // worth (Korthikanti §4.2.3); interleaving adds (1 + (p − 1)/(p·v)).
  const double in_flight = static_cast<double>(std::min<long long>(l.pp, m));
  double interleave = 1.0;
  if (l.vpp > 1) interleave += static_cast<double>(l.pp - 1) / (static_cast<double>(l.pp) * l.vpp);
  const double per_layer = activation_bytes_per_layer(job.seq, l.micro_batch, arch.d_model, arch.heads, l.tp,
                                                      l.sequence_parallel, l.recompute);
  const double activations = per_layer * layers_per_stage * in_flight * interleave;
  const double sbh = static_cast<double>(job.seq) * l.micro_batch * arch.d_model;
  // Embedding dropout output on the first stage (s·b·h·p/t), logits in fp32 on the last (4sbh/t·(1 + V/h)).
  const double embedding_out = sbh * in_flight / l.tp;
  const double logits = 4 * sbh / l.tp * (1 + static_cast<double>(arch.vocab) / arch.d_model);

  auto stage = [&](double params, double extra, double layer_activations) {
    const ModelStateBytes states = zero_model_states(params, l.dp, l.zero_stage, gradient_bytes);
    MemoryBreakdown b;
    b.weights_bytes = states.weights;
    b.gradients_bytes = states.gradients;
    b.optimizer_bytes = states.optimizer;
    b.activations_bytes = layer_activations;
    b.embeddings_logits_bytes = extra;
    return b;
  };
  const MemoryBreakdown first = stage(first_params, embedding_out + (l.pp == 1 ? logits : 0.0), activations);
  if (l.pp == 1) return first;
  // The last stage runs one micro-batch at a time in 1F1B.
  const MemoryBreakdown last = stage(last_params, logits, per_layer * layers_per_stage * interleave);
  return last.total_bytes() > first.total_bytes() ? last : first;
}

double usable_memory_bytes(const catalog::Accelerator& accelerator, const MemoryOptions& options) {
  return accelerator.memory_bytes * (1 - options.headroom_fraction);
}

}  // namespace isoflop::parallel
