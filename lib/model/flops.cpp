// FLOP counting conventions.
#include "model/flops.hpp"

#include "model/params.hpp"

namespace isoflop::model {
namespace {

double mlp_matrices(const Architecture& a) { return a.gated_mlp() ? 3.0 : 2.0; }

// How the MLPs of an architecture split between dense layers and MoE layers, per token, forward.
struct MlpShape {
  double dense_layers = 0;       // layers with a dense MLP
  double moe_layers = 0;         // layers whose MLP is a mixture of experts
  double dense_mlp = 0;          // forward FLOPs per token of one dense MLP: 2·matrices·d·f
  double expert_mlp = 0;         // forward FLOPs per token of one expert
  double experts_per_token = 0;  // (top-k × capacity factor) + shared experts: the padded expert compute
  double router = 0;             // forward FLOPs per token of one router: 2·d·E
};

MlpShape mlp_shape(const Architecture& a) {
  const double d = static_cast<double>(a.d_model);
  MlpShape m;
  m.moe_layers = a.moe.enabled() ? a.layers / a.moe.every : 0;  // the count params.cpp uses
  m.dense_layers = a.layers - m.moe_layers;
  m.dense_mlp = 2 * mlp_matrices(a) * d * static_cast<double>(mlp_hidden_size(a));
  if (a.moe.enabled()) {
    const double expert_hidden = static_cast<double>(a.moe.expert_ffn > 0 ? a.moe.expert_ffn : mlp_hidden_size(a));
    m.expert_mlp = 2 * mlp_matrices(a) * d * expert_hidden;
    // Each expert processes up to capacity = CF · tokens · k / E slots; padded slots cost as much as full
    // ones, so the expert compute per token is k · CF experts (Fedus et al. 2021; Zoph et al. 2022).
    m.experts_per_token = a.moe.top_k * a.moe.capacity_factor + a.moe.shared_experts;
    m.router = 2 * d * a.moe.experts;
  }
  return m;
}

}  // namespace

ChinchillaForward chinchilla_forward_flops(const Architecture& a, long long seq) {
  const double s = static_cast<double>(seq), d = static_cast<double>(a.d_model);
  const double V = static_cast<double>(a.vocab), L = a.layers, H = a.heads;
  const double kh = static_cast<double>(a.effective_head_size()) * a.heads;
  const double kv = static_cast<double>(a.effective_head_size()) * a.effective_kv_heads();
  const MlpShape m = mlp_shape(a);
  ChinchillaForward f;
  f.embeddings = 2 * s * V * d;
  // App. F's 2·3·s·d·kh projects queries, keys and values at every head; with grouped-query attention (Ainslie
  // et al. 2023) keys and values have kv_heads heads, so the projections are 2·s·d·(kh + 2·kv), as their
  // parameters are (params.cpp).
  f.qkv = L * 2 * s * d * (kh + 2 * kv);
  f.attention_logits = L * 2 * s * s * kh;
  f.softmax = L * 3 * H * s * s;
  f.attention_reduce = L * 2 * s * s * kh;
  f.output_projection = L * 2 * s * kh * d;
  f.dense = m.dense_layers * s * m.dense_mlp;
  f.experts = m.moe_layers * s * m.experts_per_token * m.expert_mlp;
  f.router = m.moe_layers * s * m.router;
  f.final_logits = 2 * s * d * V;
  return f;
}

double chinchilla_training_flops_per_sequence(const Architecture& a, long long seq, bool with_embeddings_and_logits) {
  // "we assume that the backward pass has twice the FLOPs of the forward pass" (App. F).
  return 3 * chinchilla_forward_flops(a, seq).total(with_embeddings_and_logits);
}

double chinchilla_recompute_flops_per_sequence(const Architecture& a, long long seq, Recompute recompute) {
  const ChinchillaForward f = chinchilla_forward_flops(a, seq);
  switch (recompute) {
    case Recompute::kNone:
      return 0.0;
    case Recompute::kSelective:
      return f.attention_core();
    case Recompute::kFull:
      return f.layers();  // embeddings and logits are not recomputed
  }
  return 0.0;
}

MegatronFlops megatron_flops(const Architecture& a, double sequences, long long seq, Recompute recompute) {
  const double s = static_cast<double>(seq), d = static_cast<double>(a.d_model), L = a.layers;
  const double q = static_cast<double>(a.heads) * a.effective_head_size();
  const double kv = static_cast<double>(a.effective_kv_heads()) * a.effective_head_size();
  const double V = static_cast<double>(padded_vocab(a));
  const MlpShape m = mlp_shape(a);
  const double tokens = sequences * s;
  constexpr double kForwardBackward = 3.0;  // backward = 2 × forward (Narayanan et al. 2021 appendix)
  MegatronFlops f;
  f.attention_projections = kForwardBackward * tokens * L * 2 * d * (2 * q + 2 * kv);
  f.attention_scores = kForwardBackward * tokens * L * 4 * s * q;
  f.mlp = kForwardBackward * tokens * m.dense_layers * m.dense_mlp;
  f.experts = kForwardBackward * tokens * m.moe_layers * m.experts_per_token * m.expert_mlp;
  f.router = kForwardBackward * tokens * m.moe_layers * m.router;
  f.logits = kForwardBackward * tokens * 2 * d * V;
  switch (recompute) {
    case Recompute::kNone:
      break;
    // Korthikanti eq. 8 − eq. 7 = 72·B·s·l·h²·s/6h: the scores' whole count once more.
    case Recompute::kSelective:
      f.recompute = f.attention_scores;
      break;
    // One more forward of every layer (Narayanan eq. 3: 4 × forward per layer instead of 3).
    case Recompute::kFull:
      f.recompute = (f.model() - f.logits) / kForwardBackward;
      break;
  }
  return f;
}

namespace {
double core(const Architecture& a, long long global_batch, long long seq, double coefficient) {
  return coefficient * static_cast<double>(global_batch) * static_cast<double>(seq) * a.layers *
         static_cast<double>(a.d_model) * static_cast<double>(a.d_model);
}
}  // namespace

double narayanan_eq3_flops(const Architecture& a, long long B, long long s) {
  const double h = static_cast<double>(a.d_model), l = a.layers;
  return core(a, B, s, 96) * (1 + s / (6 * h) + static_cast<double>(a.vocab) / (16 * l * h));
}

double korthikanti_eq7_flops(const Architecture& a, long long B, long long s) {
  const double h = static_cast<double>(a.d_model), l = a.layers;
  return core(a, B, s, 72) * (1 + s / (6 * h) + static_cast<double>(a.vocab) / (12 * h * l));
}

double korthikanti_eq8_flops(const Architecture& a, long long B, long long s) {
  const double h = static_cast<double>(a.d_model), l = a.layers;
  return core(a, B, s, 72) * (1 + s / (3 * h) + static_cast<double>(a.vocab) / (12 * h * l));
}

}  // namespace isoflop::model
