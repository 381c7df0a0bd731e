// FLOP counting conventions.
#include "model/flops.hpp"

#include "model/params.hpp"

namespace isoflop::model {

ChinchillaForward chinchilla_forward_flops(const Architecture& a, long long seq) {
  const double s = static_cast<double>(seq), d = static_cast<double>(a.d_model);
  const double V = static_cast<double>(a.vocab), L = a.layers, H = a.heads;
  const double kh = static_cast<double>(a.effective_head_size()) * a.heads;
  const double ffw = static_cast<double>(mlp_hidden_size(a));
  const double matrices = a.activation == Activation::kSwiglu ? 3.0 : 2.0;
  ChinchillaForward f;
  f.embeddings = 2 * s * V * d;
  f.qkv = L * 2 * 3 * s * d * kh;
  f.attention_logits = L * 2 * s * s * kh;
  f.softmax = L * 3 * H * s * s;
  f.attention_reduce = L * 2 * s * s * kh;
  f.output_projection = L * 2 * s * kh * d;
  f.dense = L * 2 * s * matrices * d * ffw;
  f.final_logits = 2 * s * d * V;
  return f;
}

double chinchilla_training_flops_per_sequence(const Architecture& a, long long seq, bool with_embeddings_and_logits) {
  // "we assume that the backward pass has twice the FLOPs of the forward pass" (App. F).
  return 3 * chinchilla_forward_flops(a, seq).total(with_embeddings_and_logits);
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
