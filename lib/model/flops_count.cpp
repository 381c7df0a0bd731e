// Counting a workload's FLOPs under a named convention.
#include "model/flops_count.hpp"

#include "core/error.hpp"
#include "model/params.hpp"

namespace isoflop::model {
namespace {

void check_6nd_recompute(Recompute recompute) {
  if (recompute == Recompute::kSelective)
    throw FieldError("recompute", "selective needs the attention shape; use the chinchilla or megatron convention");
}

FlopsCount six_nd(FlopsCount c) {
  c.model_flops = 6 * c.params * c.tokens;
  // Full recompute adds one forward (2·N·D): Narayanan et al. 2021 eq. 4's 8·T·P.
  c.hardware_flops = c.recompute == Recompute::kFull ? 8 * c.params * c.tokens : c.model_flops;
  c.note = std::string("6·N·D with ") +
           (c.params_kind == ParamsKind::kNonEmbedding ? "non-embedding N"
            : c.params_kind == ParamsKind::kActive     ? "active N (MoE)"
                                                       : "total N");
  if (c.recompute == Recompute::kFull) c.note += "; full recompute: 8·N·D (Narayanan et al. 2021 eq. 4)";
  return c;
}

void chinchilla(const Architecture& a, FlopsCount& c) {
  const ChinchillaForward f = chinchilla_forward_flops(a, c.seq);
  const double sequences = c.tokens / static_cast<double>(c.seq);
  const double scale = 3 * sequences;  // backward = 2 × forward
  c.model_flops = f.total() * scale;
  const double recomputed = chinchilla_recompute_flops_per_sequence(a, c.seq, c.recompute) * sequences;
  c.hardware_flops = c.model_flops + recomputed;
  c.parts = {{"embeddings", f.embeddings * scale},        {"qkv", f.qkv * scale},
             {"attention_logits", f.attention_logits * scale}, {"softmax", f.softmax * scale},
             {"attention_reduce", f.attention_reduce * scale}, {"output_projection", f.output_projection * scale},
             {"dense", f.dense * scale},                  {"final_logits", f.final_logits * scale}};
  if (a.moe.enabled()) {
    c.parts.push_back({"experts", f.experts * scale});
    c.parts.push_back({"router", f.router * scale});
  }
  c.parts.push_back({"recompute", recomputed});
  c.note = "Hoffmann et al. 2022 App. F, backward = 2 x forward";
  if (c.recompute == Recompute::kFull) c.note += "; full recompute: one more forward of every layer";
  if (c.recompute == Recompute::kSelective) c.note += "; selective recompute: one more forward of the attention core";
}

void megatron(const Architecture& a, FlopsCount& c) {
  const MegatronFlops f = megatron_flops(a, c.tokens / static_cast<double>(c.seq), c.seq, c.recompute);
  c.model_flops = f.model();
  c.hardware_flops = f.hardware();
  c.parts = {{"attention_projections", f.attention_projections}, {"attention_scores", f.attention_scores},
             {"mlp", f.mlp}, {"logits", f.logits}};
  if (a.moe.enabled()) {
    c.parts.push_back({"experts", f.experts});
    c.parts.push_back({"router", f.router});
  }
  c.parts.push_back({"recompute", f.recompute});
  c.note = c.recompute == Recompute::kFull        ? "hardware FLOPs with full recompute (Narayanan eq. 3)"
           : c.recompute == Recompute::kSelective ? "hardware FLOPs with selective recompute (Korthikanti eq. 8)"
                                                  : "model FLOPs (Korthikanti eq. 7)";
  if (a.moe.enabled()) c.note += ", MoE layers at top-k x capacity factor experts plus the router";
}

void check_workload(double tokens, long long seq) {
  if (!(tokens > 0)) throw FieldError("tokens", "must be positive");
  if (seq < 1) throw FieldError("seq", "must be positive");
}

}  // namespace

Recompute default_recompute(FlopsConvention convention) {
  return convention == FlopsConvention::kMegatron ? Recompute::kFull : Recompute::kNone;
}

FlopsCount count_flops(const Architecture& a, double tokens, long long seq, FlopsConvention convention,
                       Recompute recompute, bool non_embedding) {
  check_workload(tokens, seq);
  FlopsCount c;
  c.convention = convention;
  c.recompute = recompute;
  c.tokens = tokens;
  c.seq = seq;
  const ParamCount pc = count_params(a);
  // MoE: FLOPs follow the parameters a token passes through (top-k experts), not the total.
  c.params_kind = non_embedding ? ParamsKind::kNonEmbedding : (a.moe.enabled() ? ParamsKind::kActive : ParamsKind::kTotal);
  // An MoE's non-embedding count is of the active parameters too: the experts a token does not reach do no work.
  const double counted = a.moe.enabled() ? pc.active : pc.total();
  c.params = non_embedding ? counted - pc.token_embedding - pc.position_embedding : counted;
  switch (convention) {
    case FlopsConvention::k6nd:
      check_6nd_recompute(recompute);
      return six_nd(c);
    case FlopsConvention::kChinchilla:
      chinchilla(a, c);
      return c;
    case FlopsConvention::kMegatron:
      megatron(a, c);
      return c;
  }
  return c;
}

FlopsCount count_flops_6nd(double params, double tokens, long long seq, Recompute recompute) {
  check_workload(tokens, seq);
  if (!(params > 0)) throw FieldError("params", "must be positive");
  check_6nd_recompute(recompute);
  FlopsCount c;
  c.recompute = recompute;
  c.params = params;
  c.params_kind = ParamsKind::kGiven;
  c.tokens = tokens;
  c.seq = seq;
  return six_nd(c);
}

}  // namespace isoflop::model
