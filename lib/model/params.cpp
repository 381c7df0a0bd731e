// Parameter counting, component by component.
#include "model/params.hpp"

#include "units/format.hpp"

namespace isoflop::model {
namespace {

bool gated(const Architecture& a) { return a.gated_mlp(); }

double mlp_block(const Architecture& a, long long hidden) {
  const double h = static_cast<double>(a.d_model), f = static_cast<double>(hidden);
  const double matrices = gated(a) ? 3.0 : 2.0;  // gated MLPs add a gate projection
  const double biases = a.bias ? (gated(a) ? 2.0 : 1.0) * f + h : 0.0;
  return matrices * h * f + biases;
}

}  // namespace

std::string too_many_params(double params) {
  // Six digits: a count just past the bound does not print as the bound itself.
  return units::format_scientific(params, 6) + " parameters are more than the " +
         units::format_scientific(kMaxParams) + " an architecture may have";
}

long long padded_vocab(const Architecture& a) {
  const long long m = a.vocab_pad_multiple > 0 ? a.vocab_pad_multiple : 1;
  return (a.vocab + m - 1) / m * m;
}

long long mlp_hidden_size(const Architecture& a) {
  if (a.ffn > 0) return a.ffn;
  return gated(a) ? (8 * a.d_model) / 3 : 4 * a.d_model;
}

ParamCount count_params(const Architecture& a) {
  const double h = static_cast<double>(a.d_model);
  const double layers = a.layers;
  const double q = static_cast<double>(a.heads) * a.effective_head_size();
  const double kv = static_cast<double>(a.effective_kv_heads()) * a.effective_head_size();
  ParamCount p;
  p.token_embedding = static_cast<double>(padded_vocab(a)) * h;
  p.position_embedding = a.positional == PositionalEncoding::kLearned ? static_cast<double>(a.seq) * h : 0.0;
  p.attention = layers * (2 * h * q + 2 * h * kv + (a.bias ? q + 2 * kv + h : 0.0));
  // Transformer-XL relative positions (Dai et al. 2019), as in Gopher and Chinchilla (Rae et al. 2021), add
  // a position-key projection per layer: with it the count is the 13·L·h² that reproduces Table A9.
  if (a.positional == PositionalEncoding::kRelative) p.attention += layers * h * q;
  const double norm = (a.norm == NormKind::kLayerNorm && a.bias) ? 2 * h : h;  // scale (+ shift)
  p.norms = (2 * layers + 1) * norm;
  p.moe_layers = a.moe.enabled() ? a.layers / a.moe.every : 0;
  const double dense_mlp = mlp_block(a, mlp_hidden_size(a));
  p.mlp = (a.layers - p.moe_layers) * dense_mlp;
  double active_experts = 0;
  if (a.moe.enabled()) {
    const long long expert_hidden = a.moe.expert_ffn > 0 ? a.moe.expert_ffn : mlp_hidden_size(a);
    const double expert = mlp_block(a, expert_hidden);
    // In double: the int counts' sums and products may exceed an int.
    const double moe_layers = p.moe_layers, experts = a.moe.experts, shared = a.moe.shared_experts;
    const double router = h * experts;
    p.experts = moe_layers * ((experts + shared) * expert + router);
    p.routed_experts = moe_layers * experts * expert;
    active_experts = moe_layers * ((a.moe.top_k + shared) * expert + router);
  }
  p.output_head = a.tied_embeddings ? 0.0 : static_cast<double>(padded_vocab(a)) * h;
  p.active = p.total() - p.experts + active_experts;
  return p;
}

}  // namespace isoflop::model
