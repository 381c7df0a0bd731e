// Per-GPU memory: ZeRO model states and Korthikanti activations on the most loaded pipeline stage.
#include "parallel/memory_model.hpp"

#include <algorithm>

#include "model/params.hpp"

namespace isoflop::parallel {
double ParameterSplit::total() const {
  return per_layer_dense * layers + embedding + output_head + final_norm + per_moe_layer_experts * moe_layers;
}

ParameterSplit split_parameters(const model::Architecture& a) {
  const model::ParamCount c = model::count_params(a);
  const double final_norm = c.norms / (2 * a.layers + 1);
  ParameterSplit p;
  p.layers = a.layers;
  p.moe_layers = c.moe_layers;
  // Dense MLPs are averaged over the blocks so that a stage's share is proportional to its layers.
  p.per_layer_dense = (c.attention + c.mlp + c.norms - final_norm) / a.layers;
  p.per_moe_layer_experts = c.moe_layers > 0 ? c.experts / c.moe_layers : 0.0;
  p.embedding = c.token_embedding + c.position_embedding;
  p.output_head = c.output_head;
  p.final_norm = final_norm;
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
